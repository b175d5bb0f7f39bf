/* common/url.c, url_path.c, url_resolve.c: RFC 3986 splitting, every
 * resolution example of RFC 3986 §5.4, error names, out-of-memory paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/url.c"
#include "common/mem.h"
#include "common/url.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A copy of s in a heap block of exactly strlen(s) bytes, no NUL: under
 * AddressSanitizer any read past the length is caught. */
static char *exact(const char *s)
{
  size_t n = strlen(s);
  char *p = malloc(n ? n : 1);
  assert_non_null(p);
  memcpy(p, s, n);
  return p;
}

static char *resolve(const char *base, const char *ref)
{
  char *b = exact(base), *r = exact(ref), *out = NULL;
  url_err e = url_resolve(b, strlen(base), r, strlen(ref), &out);
  free(b);
  free(r);
  assert_int_equal(e, URL_OK);
  return out;
}

struct pair {
  const char *ref, *want;
};

/* RFC 3986 §5.4.1 */
static const struct pair rfc_normal[] = {
  { "g:h", "g:h" },
  { "g", "http://a/b/c/g" },
  { "./g", "http://a/b/c/g" },
  { "g/", "http://a/b/c/g/" },
  { "/g", "http://a/g" },
  { "//g", "http://g" },
  { "?y", "http://a/b/c/d;p?y" },
  { "g?y", "http://a/b/c/g?y" },
  { "#s", "http://a/b/c/d;p?q#s" },
  { "g#s", "http://a/b/c/g#s" },
  { "g?y#s", "http://a/b/c/g?y#s" },
  { ";x", "http://a/b/c/;x" },
  { "g;x", "http://a/b/c/g;x" },
  { "g;x?y#s", "http://a/b/c/g;x?y#s" },
  { "", "http://a/b/c/d;p?q" },
  { ".", "http://a/b/c/" },
  { "./", "http://a/b/c/" },
  { "..", "http://a/b/" },
  { "../", "http://a/b/" },
  { "../g", "http://a/b/g" },
  { "../..", "http://a/" },
  { "../../", "http://a/" },
  { "../../g", "http://a/g" },
};

/* RFC 3986 §5.4.2 */
static const struct pair rfc_abnormal[] = {
  { "../../../g", "http://a/g" },
  { "../../../../g", "http://a/g" },
  { "/./g", "http://a/g" },
  { "/../g", "http://a/g" },
  { "g.", "http://a/b/c/g." },
  { ".g", "http://a/b/c/.g" },
  { "g..", "http://a/b/c/g.." },
  { "..g", "http://a/b/c/..g" },
  { "./../g", "http://a/b/g" },
  { "./g/.", "http://a/b/c/g/" },
  { "g/./h", "http://a/b/c/g/h" },
  { "g/../h", "http://a/b/c/h" },
  { "g;x=1/./y", "http://a/b/c/g;x=1/y" },
  { "g;x=1/../y", "http://a/b/c/y" },
  { "g?y/./x", "http://a/b/c/g?y/./x" },
  { "g?y/../x", "http://a/b/c/g?y/../x" },
  { "g#s/./x", "http://a/b/c/g#s/./x" },
  { "g#s/../x", "http://a/b/c/g#s/../x" },
  { "http:g", "http:g" },  /* strict parser */
};

static void check_pairs(const char *base, const struct pair *v, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    char *got = resolve(base, v[i].ref);
    if(strcmp(got, v[i].want) != 0)
      fail_msg("resolve(%s, \"%s\") = %s, want %s", base, v[i].ref, got, v[i].want);
    mem_free(got);
  }
}

static void test_rfc3986_normal(void **state)
{
  (void)state;
  check_pairs("http://a/b/c/d;p?q", rfc_normal, N_OF(rfc_normal));
}

static void test_rfc3986_abnormal(void **state)
{
  (void)state;
  check_pairs("http://a/b/c/d;p?q", rfc_abnormal, N_OF(rfc_abnormal));
}

/* Cases outside §5.4 that the merge rules (§5.2.3) single out. */
static void test_resolve_merge_edges(void **state)
{
  (void)state;
  static const struct pair empty_path[] = { { "g", "http://a/g" },
                                            { "?y", "http://a?y" },
                                            { "", "http://a" } };
  check_pairs("http://a", empty_path, N_OF(empty_path));
  static const struct pair no_auth[] = { { "g", "mailto:g" },
                                         { "../x", "mailto:x" } };
  check_pairs("mailto:b", no_auth, N_OF(no_auth));
  /* Spaces and controls around either input are ignored, as browsers do. */
  char *got = resolve(" \thttp://a/b/c\n", "  g \r\n");
  assert_string_equal(got, "http://a/b/g");
  mem_free(got);
}

static void test_resolve_errors(void **state)
{
  (void)state;
  char *out = (char *)1;
  assert_int_equal(url_resolve("/rel", 4, "g", 1, &out), URL_ERR_BASE_NOT_ABSOLUTE);
  assert_null(out);
  assert_int_equal(url_resolve("http://[::1/", 12, "g", 1, &out), URL_ERR_BAD_IPV6);
  assert_int_equal(url_resolve("http://a/", 9, "//b:x/", 6, &out), URL_ERR_BAD_PORT);
  assert_null(out);
}

/* Dot removal must be linear: 200k segments would take minutes if each
 * ".." rescanned the output from the start. */
static void test_resolve_many_dots(void **state)
{
  (void)state;
  size_t k = 100000, n = 3 * k + 1;
  char *ref = malloc(2 * n);
  assert_non_null(ref);
  for(size_t i = 0; i < k; i++)
    memcpy(ref + 3 * i, "ab/", 3);
  for(size_t i = 0; i < k; i++)
    memcpy(ref + 3 * k + 3 * i, "../", 3);
  ref[6 * k] = 'g';
  char *out;
  assert_int_equal(url_resolve("http://a/", 9, ref, 6 * k + 1, &out), URL_OK);
  assert_string_equal(out, "http://a/g");
  mem_free(out);
  free(ref);
}

static void test_parse_components(void **state)
{
  (void)state;
  struct url u;
  const char s[] = "HTTP://us:pw@[::1]:8080/p/a?q=1#frag";
  assert_int_equal(url_parse(s, sizeof s - 1, &u), URL_OK);
  assert_string_equal(u.scheme.p, "HTTP");
  assert_string_equal(u.userinfo.p, "us:pw");
  assert_string_equal(u.host.p, "[::1]");
  assert_string_equal(u.port.p, "8080");
  assert_string_equal(u.path.p, "/p/a");
  assert_string_equal(u.query.p, "q=1");
  assert_string_equal(u.fragment.p, "frag");
  url_free(&u);
  assert_null(u.mem);
  url_free(&u);  /* safe twice */
}

static void test_parse_absent_vs_empty(void **state)
{
  (void)state;
  struct url u;
  assert_int_equal(url_parse("http://a/?", 10, &u), URL_OK);
  assert_non_null(u.query.p);
  assert_int_equal(u.query.n, 0);
  assert_null(u.fragment.p);
  assert_null(u.userinfo.p);
  url_free(&u);
  assert_int_equal(url_parse("g;x?y", 5, &u), URL_OK);
  assert_null(u.scheme.p);
  assert_null(u.host.p);
  assert_string_equal(u.path.p, "g;x");
  url_free(&u);
  assert_int_equal(url_parse("", 0, &u), URL_OK);
  assert_non_null(u.path.p);
  assert_int_equal(u.path.n, 0);
  url_free(&u);
  /* "http://@a" has an empty userinfo; "http://" an empty host. */
  assert_int_equal(url_parse("http://@a", 9, &u), URL_OK);
  assert_int_equal(u.userinfo.n, 0);
  assert_non_null(u.userinfo.p);
  url_free(&u);
}

static void test_parse_lenient_scheme(void **state)
{
  (void)state;
  struct url u;
  /* Not a scheme: the reference is a relative path. */
  assert_int_equal(url_parse("1x:y", 4, &u), URL_OK);
  assert_null(u.scheme.p);
  assert_string_equal(u.path.p, "1x:y");
  url_free(&u);
  assert_int_equal(url_parse("a+b.c-d:y", 9, &u), URL_OK);
  assert_string_equal(u.scheme.p, "a+b.c-d");
  url_free(&u);
}

static void test_parse_authority(void **state)
{
  (void)state;
  struct url u;
  /* The last '@' ends the userinfo, as in browsers. */
  assert_int_equal(url_parse("http://a@b@c/", 13, &u), URL_OK);
  assert_string_equal(u.userinfo.p, "a@b");
  assert_string_equal(u.host.p, "c");
  url_free(&u);
  assert_int_equal(url_parse("http://[::1", 11, &u), URL_ERR_BAD_IPV6);
  assert_null(u.mem);
  assert_int_equal(url_parse("http://[::1]x/", 14, &u), URL_ERR_BAD_IPV6);
  assert_int_equal(url_parse("http://a:8x/", 12, &u), URL_ERR_BAD_PORT);
  assert_int_equal(url_parse("http://a:b:80/", 14, &u), URL_ERR_BAD_PORT);
}

/* Bytes a C string would stop at are data to the parser. */
static void test_parse_embedded_nul(void **state)
{
  (void)state;
  struct url u;
  const char s[] = "http://a/x\0y?q\0r";
  assert_int_equal(url_parse(s, sizeof s - 1, &u), URL_OK);
  assert_int_equal(u.path.n, 4);
  assert_memory_equal(u.path.p, "/x\0y", 4);
  assert_int_equal(u.query.n, 3);
  url_free(&u);
}

static void test_err_names(void **state)
{
  (void)state;
  assert_string_equal(url_err_name(URL_OK), "ok");
  assert_string_equal(url_err_name(URL_ERR_TOO_LONG), "too_long");
  assert_string_equal(url_err_text(URL_ERR_TOO_LONG),
                      "URL longer than the maximum length (default 2048 bytes)");
  assert_string_equal(url_err_name(URL_ERR__LAST), "unknown");
  assert_string_equal(url_err_name((url_err)-1), "unknown");
  /* Every name is snake_case and distinct from the others. */
  for(int i = 0; i < URL_ERR__LAST; i++) {
    const char *n = url_err_name((url_err)i);
    assert_true(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(n));
    for(int j = 0; j < i; j++)
      assert_string_not_equal(n, url_err_name((url_err)j));
  }
}

static void test_nomem_parse_resolve(void **state)
{
  (void)state;
  for(unsigned long k = 1;; k++) {
    long before = mem_live();
    struct url u;
    mem_fail_at(k);
    url_err e = url_parse("http://a/b?c#d", 14, &u);
    mem_fail_at(0);
    if(e == URL_OK)
      url_free(&u);
    assert_int_equal(mem_live(), before);
    if(e == URL_OK)
      break;
    assert_int_equal(e, URL_ERR_NOMEM);
  }
  for(unsigned long k = 1;; k++) {
    long before = mem_live();
    char *out;
    mem_fail_at(k);
    url_err e = url_resolve("http://a/b/c/d;p?q", 18, "../x/./y?z#f", 12, &out);
    mem_fail_at(0);
    if(e == URL_OK) {
      assert_string_equal(out, "http://a/b/x/y?z#f");
      mem_free(out);
    }
    assert_int_equal(mem_live(), before);
    if(e == URL_OK)
      break;
    assert_int_equal(e, URL_ERR_NOMEM);
    assert_true(k < 100);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rfc3986_normal),
    cmocka_unit_test(test_rfc3986_abnormal),
    cmocka_unit_test(test_resolve_merge_edges),
    cmocka_unit_test(test_resolve_errors),
    cmocka_unit_test(test_resolve_many_dots),
    cmocka_unit_test(test_parse_components),
    cmocka_unit_test(test_parse_absent_vs_empty),
    cmocka_unit_test(test_parse_lenient_scheme),
    cmocka_unit_test(test_parse_authority),
    cmocka_unit_test(test_parse_embedded_nul),
    cmocka_unit_test(test_err_names),
    cmocka_unit_test(test_nomem_parse_resolve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
