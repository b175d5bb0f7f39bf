/* common/url_canon.c and url_host.c: every canonicalization rule of
 * docs/url.md, host spellings (the fetcher's address guard depends on
 * them), options, length limits, idempotence and out-of-memory paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/url_canon.c"
#include "common/mem.h"
#include "common/url.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct ccase {
  const char *in;
  const char *want;  /* NULL: only the error code is checked */
  url_err     err;
};
#define OK(in, want) { in, want, URL_OK }
#define BAD(in, err) { in, NULL, URL_ERR_##err }

/* Canonicalize s from a heap block of exactly its length (no NUL), so that
 * AddressSanitizer sees any read past the input; then check idempotence. */
static url_err canon(const char *s, const struct url_opts *o, char **out)
{
  size_t n = strlen(s);
  char *p = malloc(n ? n : 1);
  assert_non_null(p);
  memcpy(p, s, n);
  url_err e = url_canon(p, n, o, out);
  free(p);
  if(e == URL_OK) {
    char *again = NULL;
    assert_int_equal(url_canon(*out, strlen(*out), o, &again), URL_OK);
    if(strcmp(again, *out) != 0)
      fail_msg("not idempotent: %s -> %s -> %s", s, *out, again);
    mem_free(again);
  } else {
    assert_null(*out);
  }
  return e;
}

static void check_cases(const struct ccase *v, size_t n, const struct url_opts *o)
{
  for(size_t i = 0; i < n; i++) {
    char *got = (char *)1;
    url_err e = canon(v[i].in, o, &got);
    if(e != v[i].err)
      fail_msg("canon(\"%s\"): %s, want %s", v[i].in, url_err_name(e),
               url_err_name(v[i].err));
    if(v[i].want && strcmp(got, v[i].want) != 0)
      fail_msg("canon(\"%s\") = \"%s\", want \"%s\"", v[i].in, got, v[i].want);
    if(e == URL_OK)
      mem_free(got);
  }
}

static void test_scheme_host_case(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("HTTP://EXAMPLE.COM/A", "http://example.com/A"),
    OK("hTtPs://Www.Example.Com", "https://www.example.com/"),
    OK("http://ex%41mple.com/", "http://example.com/"),
    OK("http://a.example./", "http://a.example/"),
    OK("http://_dmarc.example.com/", "http://_dmarc.example.com/"),
    OK(" \t http://a/ \r\n", "http://a/"),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_idna(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://B\xc3\xbc" "cher.de/", "http://xn--bcher-kva.de/"),
    OK("http://b%C3%BCcher.DE/", "http://xn--bcher-kva.de/"),
    /* Non-transitional keeps the sharp s; transitional would give fass.de. */
    OK("http://fa\xc3\x9f.de/", "http://xn--fa-hia.de/"),
    /* A ZWJ outside its allowed context fails non-transitional processing;
     * the transitional fallback drops it. */
    OK("http://a\xe2\x80\x8d" "b.com/", "http://ab.com/"),
    OK("http://\xef\xbc\xa1.com/", "http://a.com/"),  /* fullwidth A */
    OK("http://a\xe3\x80\x82" "com/", "http://a.com/"),  /* ideographic full stop */
    OK("http://xn--bcher-kva.de/", "http://xn--bcher-kva.de/"),
    BAD("http://\xef\xbc\x8f.com/", BAD_HOST),  /* fullwidth '/' maps to '/' */
    BAD("http://\xff.com/", BAD_IDN),           /* not UTF-8 */
    BAD("http://-a\xc3\xa9.com/", BAD_IDN),
    BAD("http://\xe2\x80\x8d.com/", EMPTY_LABEL),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_ports(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://a:80/", "http://a/"),
    OK("https://a:443/", "https://a/"),
    OK("http://a:443/", "http://a:443/"),
    OK("https://a:80/", "https://a:80/"),
    OK("http://a:/", "http://a/"),
    OK("http://a:0080/", "http://a/"),
    OK("http://a:08080/", "http://a:8080/"),
    OK("http://a:65535/", "http://a:65535/"),
    OK("http://a:1/", "http://a:1/"),
    OK("http://a:00010/x", "http://a:10/x"),
    OK("http://[::1]:81", "http://[::1]:81/"),
    BAD("http://a:0/", BAD_PORT),
    BAD("http://a:65536/", BAD_PORT),
    BAD("http://a:99999999999999999999/", BAD_PORT),
    BAD("http://a:8o/", BAD_PORT),
    BAD("http://a:-1/", BAD_PORT),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_paths(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://a", "http://a/"),
    OK("http://a?q", "http://a/?q"),
    OK("http://a/./b/../c/./d/..", "http://a/c/"),
    OK("http://a/../../x", "http://a/x"),
    /* Unreserved bytes are decoded before dot segments are removed. */
    OK("http://a/b/%2e%2E/c", "http://a/c"),
    OK("http://a/b/.%2e", "http://a/"),
    OK("http://a//x//", "http://a//x//"),
    OK("http://a/b\\c", "http://a/b%5Cc"),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_percent_encoding(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://a/%41%7a%2D%5F%7E%2e%30", "http://a/Az-_~.0"),
    OK("http://a/%2f%3a%3F%23%5b%25", "http://a/%2F%3A%3F%23%5B%25"),
    OK("http://a/%c3%a9", "http://a/%C3%A9"),
    OK("http://a/a b\x01\x7f\xc3\xa9", "http://a/a%20b%01%7F%C3%A9"),
    OK("http://a/\"<>^`{|}", "http://a/%22%3C%3E%5E%60%7B%7C%7D"),
    OK("http://a/%zz%4%", "http://a/%25zz%254%25"),
    OK("http://a/%%41", "http://a/%25A"),
    OK("http://a/%00", "http://a/%00"),
    /* Reserved characters stay as written, encoded or not. */
    OK("http://a/:@!$&'()*+,;=[]", "http://a/:@!$&'()*+,;=[]"),
    OK("http://a/%3A%40%21%24%26%27%28%29%2A%2B%2C%3B%3D",
       "http://a/%3A%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
    OK("http://a/?a=%3d&b=/?:@&c=%7e%7E&d=x y&e=%e9",
       "http://a/?a=%3D&b=/?:@&c=~~&d=x%20y&e=%E9"),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_query_fragment(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://a/b#c", "http://a/b"),
    OK("http://a/b#", "http://a/b"),
    OK("http://a/b?#c", "http://a/b?"),
    OK("http://a/?", "http://a/?"),
    OK("http://a/?b=2&a=1&&a+b", "http://a/?b=2&a=1&&a+b"),
    OK("http://a/?jsessionid=1", "http://a/?jsessionid=1"),  /* options off */
    OK("http://a/x;jsessionid=1", "http://a/x;jsessionid=1"),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_ipv4_spellings(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://2130706433/", "http://127.0.0.1/"),
    OK("http://0177.0.0.1/", "http://127.0.0.1/"),
    OK("http://0x7f.1/", "http://127.0.0.1/"),
    OK("http://0X7F.0.0.1/", "http://127.0.0.1/"),
    OK("http://127.1/", "http://127.0.0.1/"),
    OK("http://127.0.1/", "http://127.0.0.1/"),
    OK("http://0177.1/", "http://127.0.0.1/"),
    OK("http://127.0.0.1./", "http://127.0.0.1/"),
    OK("http://127.0.0.%31/", "http://127.0.0.1/"),
    OK("http://%30x7f.1/", "http://127.0.0.1/"),
    OK("http://\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.0.0.1/", "http://127.0.0.1/"),
    OK("http://0x/", "http://0.0.0.0/"),
    OK("http://0/", "http://0.0.0.0/"),
    OK("http://4294967295/", "http://255.255.255.255/"),
    OK("http://1.256/", "http://1.0.1.0/"),
    OK("http://169.254.169.254/", "http://169.254.169.254/"),
    OK("http://0000000000000000000000000000000000000177.1/", "http://127.0.0.1/"),
    OK("http://1.a/", "http://1.a/"),  /* ends in a name: not an address */
    BAD("http://4294967296/", BAD_IPV4),
    BAD("http://0x100000000/", BAD_IPV4),
    BAD("http://99999999999999999999999999/", BAD_IPV4),
    BAD("http://256.0.0.1/", BAD_IPV4),
    BAD("http://1.2.3.4.5/", BAD_IPV4),
    BAD("http://1.2.3.256/", BAD_IPV4),
    BAD("http://1..2/", BAD_IPV4),
    BAD("http://foo.09/", BAD_IPV4),
    BAD("http://09/", BAD_IPV4),
    BAD("http://a.1/", BAD_IPV4),
    BAD("http://0x7g.1/", BAD_IPV4),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_ipv6(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    OK("http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"),
    OK("http://[0:0:0:0:0:0:0:1]", "http://[::1]/"),
    OK("http://[::FFFF:7F00:1]/", "http://[::ffff:127.0.0.1]/"),
    OK("http://[::]:8080/x", "http://[::]:8080/x"),
    BAD("http://[::1%25eth0]/", BAD_IPV6),
    BAD("http://[v1.x]/", BAD_IPV6),
    BAD("http://[1.2.3.4]/", BAD_IPV6),
    BAD("http://[::1/", BAD_IPV6),
    BAD("http://[]/", BAD_IPV6),
    BAD("http://[::1]x/", BAD_IPV6),
    BAD("http://[1:2:3:4:5:6:7:8:9]/", BAD_IPV6),
    BAD("http://[0000:0000:0000:0000:0000:0000:0000:00001]/", BAD_IPV6),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_bad_hosts(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    BAD("http:///x", NO_HOST),
    BAD("http://:80/", NO_HOST),
    BAD("http:foo", NO_HOST),
    BAD("http://./", NO_HOST),
    BAD("http://a b/", BAD_HOST),
    BAD("http://a%20b/", BAD_HOST),
    BAD("http://a%2fb/", BAD_HOST),
    BAD("http://a%00b/", BAD_HOST),
    BAD("http://exa%mple/", BAD_HOST),
    BAD("http://a<b/", BAD_HOST),
    BAD("http://a\\b/", BAD_HOST),
    BAD("http://a*b.com/", BAD_HOST),
    BAD("http://a..b/", EMPTY_LABEL),
    BAD("http://.a/", EMPTY_LABEL),
    BAD("http://a../", EMPTY_LABEL),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_host_lengths(void **state)
{
  (void)state;
  char url[600], label[70];
  memset(label, 'a', 64);
  label[64] = '\0';
  snprintf(url, sizeof url, "http://%.63s.com/", label);
  struct ccase ok63 = { url, NULL, URL_OK };
  check_cases(&ok63, 1, NULL);
  snprintf(url, sizeof url, "http://%s.com/", label);
  struct ccase bad64 = { url, NULL, URL_ERR_LABEL_TOO_LONG };
  check_cases(&bad64, 1, NULL);
  /* 4 labels of 63 + 3 dots = 255; cut to 253 and 254. */
  char host[300];
  snprintf(host, sizeof host, "%.63s.%.63s.%.63s.%.63s", label, label, label, label);
  snprintf(url, sizeof url, "http://%.253s/", host);
  struct ccase ok253 = { url, NULL, URL_OK };
  check_cases(&ok253, 1, NULL);
  snprintf(url, sizeof url, "http://%.254s/", host);
  struct ccase bad254 = { url, NULL, URL_ERR_HOST_TOO_LONG };
  check_cases(&bad254, 1, NULL);
  /* After IDNA: k x U+00E9 is the A-label "xn--9ca" + (k - 1) x 'a'. */
  char idn[200] = "http://";
  for(int i = 0; i < 57; i++)
    strcat(idn, "\xc3\xa9");
  strcat(idn, ".com/");
  struct ccase ok57 = { idn, NULL, URL_OK };
  check_cases(&ok57, 1, NULL);
  memmove(idn + 9, idn + 7, strlen(idn + 7) + 1);
  memcpy(idn + 7, "\xc3\xa9", 2);
  struct ccase bad58 = { idn, NULL, URL_ERR_LABEL_TOO_LONG };
  check_cases(&bad58, 1, NULL);
}

static void test_userinfo_scheme(void **state)
{
  (void)state;
  static const struct ccase v[] = {
    BAD("http://user:pass@a/", USERINFO),
    BAD("https://user@a/", USERINFO),
    BAD("http://@a/", USERINFO),
    BAD("http://a@b@c/", USERINFO),
    BAD("ftp://a/", UNSUPPORTED_SCHEME),
    BAD("javascript:alert(1)", UNSUPPORTED_SCHEME),
    BAD("httpx://a/", UNSUPPORTED_SCHEME),
    BAD("//a/b", NO_SCHEME),
    BAD("a/b", NO_SCHEME),
    BAD("1http://a/", NO_SCHEME),
    BAD("", EMPTY),
    BAD(" \t\r\n", EMPTY),
  };
  check_cases(v, N_OF(v), NULL);
}

static void test_sort_query(void **state)
{
  (void)state;
  struct url_opts o = url_opts_default();
  o.sort_query = true;
  static const struct ccase v[] = {
    /* Stable: equal names keep their order; a name sorts before its
     * extensions. */
    OK("http://a/?b=2&a=1&b=1&a&ab=0&=x", "http://a/?=x&a=1&a&ab=0&b=2&b=1"),
    OK("http://a/?z", "http://a/?z"),
    OK("http://a/?", "http://a/?"),
    OK("http://a/?%62=1&%61=2", "http://a/?a=2&b=1"),
    OK("http://a/?b=1%26a=2&a", "http://a/?a&b=1%26a=2"),
    OK("http://a/?sid=1", "http://a/?sid=1"),
  };
  check_cases(v, N_OF(v), &o);
}

static void test_strip_session_ids(void **state)
{
  (void)state;
  struct url_opts o = url_opts_default();
  o.strip_session_ids = true;
  static const struct ccase v[] = {
    OK("http://a/?jsessionid=1&x=2&PHPSESSID=3&sid=4&SessionId=5"
       "&ASPSESSIONIDQQGGGRAB=6&sidx=7&b=sid",
       "http://a/?x=2&sidx=7&b=sid"),
    OK("http://a/?sid=1", "http://a/"),
    OK("http://a/?sid=1&", "http://a/"),
    OK("http://a/?", "http://a/?"),
    OK("http://a/?x&&y", "http://a/?x&&y"),
    OK("http://a/x;jsessionid=ABC?y=1", "http://a/x?y=1"),
    OK("http://a/x;JSESSIONID=1;b=2/c", "http://a/x;b=2/c"),
    OK("http://a/.;jsessionid=1/x", "http://a/x"),
    OK("http://a/x;jsess;jsessionid=1ionid=2", "http://a/x;jsess"),
    OK("http://a/x;sid=1", "http://a/x;sid=1"),
  };
  check_cases(v, N_OF(v), &o);
  o.sort_query = true;
  static const struct ccase both[] = {
    OK("http://a/?z=1&sid=9&a=2&z=0", "http://a/?a=2&z=1&z=0"),
  };
  check_cases(both, N_OF(both), &o);
}

/* Never a truncation: too long in or out is an error. */
static void test_max_len(void **state)
{
  (void)state;
  char *in = malloc(5000), *out;
  assert_non_null(in);
  memcpy(in, "http://a/", 9);
  memset(in + 9, 'x', 5000 - 9);
  assert_int_equal(url_canon(in, 2048, NULL, &out), URL_OK);
  assert_int_equal(strlen(out), 2048);
  mem_free(out);
  out = (char *)1;
  assert_int_equal(url_canon(in, 2049, NULL, &out), URL_ERR_TOO_LONG);
  assert_null(out);
  /* Leading spaces count: the limit is on what the caller sent. */
  char sp[2100];
  memset(sp, ' ', sizeof sp);
  memcpy(sp + sizeof sp - 9, "http://a/", 9);
  assert_int_equal(url_canon(sp, sizeof sp, NULL, &out), URL_ERR_TOO_LONG);
  /* The result grows by encoding: 700 spaces become 2100 bytes. */
  memset(in + 9, ' ', 700);
  in[709] = 'x';
  assert_int_equal(url_canon(in, 710, NULL, &out), URL_ERR_TOO_LONG);
  assert_null(out);
  struct url_opts o = url_opts_default();
  o.max_len = 12;
  assert_int_equal(url_canon("http://a/bcd", 12, &o, &out), URL_OK);
  mem_free(out);
  assert_int_equal(url_canon("http://a/bcde", 13, &o, &out), URL_ERR_TOO_LONG);
  /* An input within the limit whose result is not: "http://a" -> "http://a/". */
  o.max_len = 8;
  assert_int_equal(url_canon("http://a", 8, &o, &out), URL_ERR_TOO_LONG);
  o.max_len = 0;  /* the default */
  assert_int_equal(url_canon(in, 2048, &o, &out), URL_ERR_TOO_LONG);
  free(in);
}

static void test_canon_ref(void **state)
{
  (void)state;
  char *out;
  const char base[] = "HTTP://Example.com:80/a/b/c?q";
  assert_int_equal(url_canon_ref(base, sizeof base - 1, " ../D E#f ", 10, NULL, &out),
                   URL_OK);
  assert_string_equal(out, "http://example.com/a/D%20E");
  mem_free(out);
  assert_int_equal(url_canon_ref(base, sizeof base - 1, "mailto:x@y", 10, NULL, &out),
                   URL_ERR_UNSUPPORTED_SCHEME);
  assert_int_equal(url_canon_ref("a/b", 3, "g", 1, NULL, &out),
                   URL_ERR_BASE_NOT_ABSOLUTE);
  struct url_opts o = url_opts_default();
  o.max_len = 10;
  assert_int_equal(url_canon_ref("http://a/", 9, "bbbbbbbbbbb", 11, &o, &out),
                   URL_ERR_TOO_LONG);
}

/* Every allocation of a canonicalization with every step active fails in
 * turn: each failure is URL_ERR_NOMEM and leaks nothing. */
static void nomem_loop(const char *url, const struct url_opts *o, const char *want)
{
  for(unsigned long k = 1;; k++) {
    long before = mem_live();
    char *out = NULL;
    mem_fail_at(k);
    url_err e = url_canon(url, strlen(url), o, &out);
    mem_fail_at(0);
    if(e == URL_OK) {
      assert_string_equal(out, want);
      mem_free(out);
    }
    assert_int_equal(mem_live(), before);
    if(e == URL_OK)
      break;
    assert_int_equal(e, URL_ERR_NOMEM);
    assert_null(out);
    assert_true(k < 1000);
  }
}

static void test_nomem(void **state)
{
  (void)state;
  struct url_opts o = url_opts_default();
  o.sort_query = o.strip_session_ids = true;
  nomem_loop("HTTP://B%C3%BCcher.de:80/a/./b/../%7e c;jsessionid=1?z=1&sid=2&a=%41#f",
             &o, "http://xn--bcher-kva.de/a/~%20c?a=A&z=1");
  nomem_loop("http://0x7f.1/", &o, "http://127.0.0.1/");
  nomem_loop("http://[::1]:8080", NULL, "http://[::1]:8080/");
  for(unsigned long k = 1;; k++) {
    char *out = NULL;
    long before = mem_live();
    mem_fail_at(k);
    url_err e = url_canon_ref("http://a/b/", 11, "../c?d", 6, &o, &out);
    mem_fail_at(0);
    mem_free(out);
    assert_int_equal(mem_live(), before);
    if(e == URL_OK)
      break;
    assert_int_equal(e, URL_ERR_NOMEM);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scheme_host_case),
    cmocka_unit_test(test_idna),
    cmocka_unit_test(test_ports),
    cmocka_unit_test(test_paths),
    cmocka_unit_test(test_percent_encoding),
    cmocka_unit_test(test_query_fragment),
    cmocka_unit_test(test_ipv4_spellings),
    cmocka_unit_test(test_ipv6),
    cmocka_unit_test(test_bad_hosts),
    cmocka_unit_test(test_host_lengths),
    cmocka_unit_test(test_userinfo_scheme),
    cmocka_unit_test(test_sort_query),
    cmocka_unit_test(test_strip_session_ids),
    cmocka_unit_test(test_max_len),
    cmocka_unit_test(test_canon_ref),
    cmocka_unit_test(test_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
