/* hlfs/policy/site.c: site names, origins, shards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hlfs/policy/site.c"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/policy/robots.h"
#include "hlfs/policy/site.h"

static void test_site_modes(void **state)
{
  (void)state;
  char s[SITE_MAX];
  assert_int_equal(site_of_url(SITE_BY_HOST, "https://www.example.co.uk:8443/a", NULL, s, sizeof s), CM_OK);
  assert_string_equal(s, "www.example.co.uk");
  assert_int_equal(site_of_url(SITE_BY_DOMAIN, "https://www.example.co.uk/a", NULL, s, sizeof s), CM_OK);
  assert_string_equal(s, "example.co.uk");
  assert_int_equal(site_of_url(SITE_BY_DOMAIN, "http://a.b.blogspot.com/", NULL, s, sizeof s), CM_OK);
  assert_string_equal(s, "b.blogspot.com");  /* blogspot.com is a public suffix */
  assert_int_equal(site_of_url(SITE_BY_DOMAIN, "http://127.0.0.3/", NULL, s, sizeof s), CM_OK);
  assert_string_equal(s, "127.0.0.3");
  assert_int_equal(site_of_url(SITE_BY_IP, "http://www.example.com/", "192.0.2.7", s, sizeof s), CM_OK);
  assert_string_equal(s, "192.0.2.7");
  assert_int_equal(site_of_url(SITE_BY_IP, "http://www.example.com/", NULL, s, sizeof s), CM_OK);
  assert_string_equal(s, "www.example.com");
  assert_int_equal(site_of_url(SITE_BY_HOST, "http://[::1]:8080/", NULL, s, sizeof s), CM_OK);
  assert_string_equal(s, "[::1]");
}

static void test_site_rejects(void **state)
{
  (void)state;
  char s[SITE_MAX], tiny[4];
  assert_int_equal(site_of_url(SITE_BY_HOST, "not a url", NULL, s, sizeof s), CM_INVALID);
  assert_int_equal(site_of_url(SITE_BY_HOST, "http://example.com/", NULL, tiny, sizeof tiny), CM_TOO_LARGE);
  assert_int_equal(site_of_url(SITE_BY_IP, "http://example.com/", "a|b", s, sizeof s), CM_INVALID);
}

static void test_origin(void **state)
{
  (void)state;
  char o[SITE_ORIGIN_MAX];
  assert_int_equal(site_origin("https://example.com/x?y", o, sizeof o), CM_OK);
  assert_string_equal(o, "https://example.com:443");
  assert_int_equal(site_origin("http://[::1]:8080/", o, sizeof o), CM_OK);
  assert_string_equal(o, "http://[::1]:8080");
  /* canonical URLs only: the gateway keeps no other kind */
  assert_int_equal(site_origin("https://Example.com/x", o, sizeof o), CM_INVALID);
  assert_int_equal(site_origin("http://example.com:80/", o, sizeof o), CM_INVALID);
  assert_int_equal(site_origin("http://127.0.0.1:8080/x", o, sizeof o), CM_OK);
  assert_string_equal(o, "http://127.0.0.1:8080");
}

/* From url_split's parts, the origin is site_origin's, and the target the
 * one robots.txt rules are matched on. */
static void test_origin_split(void **state)
{
  (void)state;
  static const char *const urls[] = {
    "http://example.com/", "https://example.com/a?b=c", "http://example.com:8080/x",
    "https://127.0.0.1:8443/", "http://[::1]:8080/p", "http://[2001:db8::1]/",
    "http://xn--bcher-kva.example/", "https://a.b.c.example.co.uk:1/x?y#",
    "http://example.com/a%2Fb?", "http://example.com/%7Euser/?q=%20x&r",
  };
  char o1[SITE_ORIGIN_MAX], o2[SITE_ORIGIN_MAX], tiny[8];
  for(size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
    struct url_opts opt = url_opts_default();
    struct url_parts p;
    char *canon = NULL;
    assert_int_equal(url_canon(urls[i], strlen(urls[i]), &opt, &canon), URL_OK);
    assert_int_equal(url_split(canon, &p), URL_OK);
    assert_int_equal(site_origin(canon, o1, sizeof o1), CM_OK);
    assert_int_equal(site_origin_split(&p, o2, sizeof o2), CM_OK);
    assert_string_equal(o1, o2);
    assert_int_equal(site_origin_split(&p, tiny, sizeof tiny), CM_TOO_LARGE);
    /* and the request target is the path robots.txt rules are matched on */
    char *target;
    size_t tn;
    assert_int_equal(robots_url_target(canon, strlen(canon), &target, &tn), ROBOTS_OK);
    assert_int_equal(tn, p.target_len);
    assert_memory_equal(target, p.target, tn);
    mem_free(target);
    mem_free(canon);
  }
}

static void test_shard_and_modes(void **state)
{
  (void)state;
  unsigned seen[8] = { 0 };
  char name[32];
  for(int i = 0; i < 800; i++) {
    snprintf(name, sizeof name, "site%d.test", i);
    unsigned sh = site_shard(name, 8);
    assert_true(sh < 8);
    assert_int_equal(sh, site_shard(name, 8));
    seen[sh]++;
  }
  for(int i = 0; i < 8; i++)
    assert_true(seen[i] > 50);
  assert_int_equal(site_shard("x", 1), 0);
  enum site_mode m;
  assert_int_equal(site_mode_parse("domain", &m), 0);
  assert_int_equal(m, SITE_BY_DOMAIN);
  assert_int_equal(site_mode_parse("zone", &m), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_site_modes),
    cmocka_unit_test(test_site_rejects),
    cmocka_unit_test(test_origin),
    cmocka_unit_test(test_origin_split),
    cmocka_unit_test(test_shard_and_modes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
