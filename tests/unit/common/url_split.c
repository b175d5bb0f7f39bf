/* common/url_split.c and url_registrable_domain: the pieces the gateway and
 * the fetcher take from a canonical URL, and the refusal of anything that
 * url_canon would not have produced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/url_split.c"
#include "common/mem.h"
#include "common/url.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_split_fields(void **state)
{
  (void)state;
  struct url_parts p;
  const char *u = "https://www.example.com:8443/a/b?c=d";
  assert_int_equal(url_split(u, &p), URL_OK);
  assert_string_equal(p.scheme, "https");
  assert_true(p.https);
  assert_string_equal(p.host, "www.example.com");
  assert_int_equal(p.host_kind, URL_HOST_NAME);
  assert_int_equal(p.port, 8443);
  assert_int_equal(p.authority_len, strlen("www.example.com:8443"));
  assert_memory_equal(p.authority, "www.example.com:8443", p.authority_len);
  assert_string_equal(p.target, "/a/b?c=d");
  assert_int_equal(p.target_len, 8);

  assert_int_equal(url_split("http://10.1.2.3/", &p), URL_OK);
  assert_string_equal(p.scheme, "http");
  assert_false(p.https);
  assert_int_equal(p.host_kind, URL_HOST_IPV4);
  assert_string_equal(p.host, "10.1.2.3");
  assert_int_equal(p.port, 80);
  assert_string_equal(p.target, "/");

  assert_int_equal(url_split("https://[2001:db8::1]/x", &p), URL_OK);
  assert_int_equal(p.host_kind, URL_HOST_IPV6);
  assert_string_equal(p.host, "2001:db8::1");  /* ready for inet_pton */
  assert_int_equal(p.port, 443);
  assert_memory_equal(p.authority, "[2001:db8::1]", p.authority_len);

  assert_int_equal(url_split("http://[::ffff:127.0.0.1]:81/", &p), URL_OK);
  assert_int_equal(p.host_kind, URL_HOST_IPV6);
  assert_string_equal(p.host, "::ffff:127.0.0.1");
  assert_int_equal(p.port, 81);
}

/* Whatever url_canon produces, url_split accepts, and the pieces put back
 * together give the URL again. */
static void test_split_accepts_canon(void **state)
{
  (void)state;
  static const char *const in[] = {
    "HTTP://EXAMPLE.COM", "http://0x7f.1:8080/a/../b?x#y", "https://[::1]:443",
    ("http://b\xc3\xbc" "cher.de/%7e/%2f/%c3%a9?%41=%zz"), "http://a/?",
    "http://a/;x=1/:@!$&'()*+,=[]", "http://a/%00", "https://_x.y-z.example./q?a/b?c",
    "http://a/..%2e/.x/x./..x", "http://a:1/", "http://a:65535/",
  };
  for(size_t i = 0; i < N_OF(in); i++) {
    char *c;
    struct url_parts p;
    assert_int_equal(url_canon(in[i], strlen(in[i]), NULL, &c), URL_OK);
    if(url_split(c, &p) != URL_OK)
      fail_msg("url_split(\"%s\") refused (from \"%s\")", c, in[i]);
    char back[512];
    snprintf(back, sizeof back, "%s://%.*s%s", p.scheme, (int)p.authority_len,
             p.authority, p.target);
    assert_string_equal(back, c);
    mem_free(c);
  }
}

static void test_split_refuses(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "", "http:/a/", "ftp://a/", "HTTP://a/", "Http://a/", "http://A/",
    "http://a", "http://a?x", "http://a#f", "http://a/#f", "http://a/b#",
    "http://u@a/", "http://:80/", "http:///", "http://a:80/", "https://a:443/",
    "http://a:0/", "http://a:080/", "http://a:65536/", "http://a:/",
    "http://a:123456/", "http://a..b/", "http://a./", "http://.a/",
    "http://127.1/", "http://0177.0.0.1/", "http://1.2.3.04/", "http://256.1.1.1/",
    "http://1.2.3/", "http://a.1/", "http://[::FFFF:1]/", "http://[0:0::1]/",
    "http://[::1/", "http://[::1]x/", "http://[]/", "http://[::1%25e]/",
    "http://a/b/../c", "http://a/./c", "http://a/b/.", "http://a/b/..",
    "http://a/b/.?x", "http://a/b/..?x", "http://a/%7e", "http://a/%41",
    "http://a/%2f", "http://a/%2F%", "http://a/%G1", "http://a/%2", "http://a/ ",
    "http://a/\x01", "http://a/\xc3\xa9", "http://a/\\", "http://a/\"",
    "http://a b/", "http://a*b/", "http://a%41/",
  };
  for(size_t i = 0; i < N_OF(bad); i++) {
    struct url_parts p;
    if(url_split(bad[i], &p) != URL_ERR_NOT_CANONICAL)
      fail_msg("url_split(\"%s\") accepted", bad[i]);
  }
}

static void test_split_host_lengths(void **state)
{
  (void)state;
  char url[600], lab[64];
  struct url_parts p;
  memset(lab, 'a', 63);
  lab[63] = '\0';
  snprintf(url, sizeof url, "http://%s.%s.%s.%.61s/", lab, lab, lab, lab);
  assert_int_equal(strlen(url), 7 + 253 + 1);
  assert_int_equal(url_split(url, &p), URL_OK);
  assert_int_equal(strlen(p.host), 253);
  snprintf(url, sizeof url, "http://%s.%s.%s.%.62s/", lab, lab, lab, lab);
  assert_int_equal(url_split(url, &p), URL_ERR_NOT_CANONICAL);
  snprintf(url, sizeof url, "http://%sa.com/", lab);
  assert_int_equal(url_split(url, &p), URL_ERR_NOT_CANONICAL);
}

static void test_registrable_domain(void **state)
{
  (void)state;
  assert_string_equal(url_registrable_domain("www.example.co.uk"), "example.co.uk");
  assert_string_equal(url_registrable_domain("a.b.example.com"), "example.com");
  assert_string_equal(url_registrable_domain("example.com"), "example.com");
  assert_string_equal(url_registrable_domain("a.b.blogspot.com"), "b.blogspot.com");
  assert_string_equal(url_registrable_domain("xn--bcher-kva.de"), "xn--bcher-kva.de");
  /* No registrable domain: the host itself is the site. */
  const char *h[] = { "co.uk", "localhost", "com", "127.0.0.1", "10.0.0.1",
                      "2001:db8::1", "::ffff:127.0.0.1", "" };
  for(size_t i = 0; i < N_OF(h); i++)
    assert_ptr_equal(url_registrable_domain(h[i]), h[i]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_split_fields),
    cmocka_unit_test(test_split_accepts_canon),
    cmocka_unit_test(test_split_refuses),
    cmocka_unit_test(test_split_host_lengths),
    cmocka_unit_test(test_registrable_domain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
