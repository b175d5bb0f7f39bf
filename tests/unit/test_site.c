/* hlfs/site.c: site names, origins, shards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hlfs/site.h"

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
  assert_int_equal(site_of_url(SITE_BY_DOMAIN, "http://127.0.0.3:80/", NULL, s, sizeof s), CM_OK);
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
  assert_int_equal(site_origin("https://Example.com/x?y", o, sizeof o), CM_OK);
  assert_true(!strcmp(o, "https://Example.com:443") || !strcmp(o, "https://example.com:443"));
  assert_int_equal(site_origin("http://127.0.0.1:8080/x", o, sizeof o), CM_OK);
  assert_string_equal(o, "http://127.0.0.1:8080");
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
    cmocka_unit_test(test_shard_and_modes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
