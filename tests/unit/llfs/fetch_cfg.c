/* llfs/fetch_cfg.c: the engine's config rows, their defaults, and the
 * allow-list gathered from every source. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "llfs/fetch_cfg.c"
#include "llfs/fetch.h"

static void test_cfg_table(void **state)
{
  (void)state;
  struct fetch_cfg c;
  fetch_cfg_defaults(&c);
  assert_int_equal(c.timeout_ms, 30000);
  assert_int_equal(c.connect_timeout_ms, 10000);
  assert_int_equal(c.max_body_bytes, 10 << 20);
  assert_int_equal(c.max_decoded_bytes, 20 << 20);
  assert_int_equal(c.max_header_bytes, 64 << 10);
  assert_int_equal(c.low_speed_time_ms, 20000);
  assert_int_equal(c.max_in_flight, 256);
  assert_null(c.allow_cidrs);
  assert_string_equal(c.user_agent, "wpfs-llfs/0.1");
  for(size_t i = 1; i < fetch_cfg_nkeys; i++)   /* sorted by name */
    assert_true(strcmp(fetch_cfg_keys[i - 1].name, fetch_cfg_keys[i].name) < 0);
  fetch_cfg_clear(&c);
  assert_null(c.user_agent);
}

static void test_cfg_allow_list_sources(void **state)
{
  (void)state;
  struct fetch_cfg c;
  memset(&c, 0, sizeof c);
  const struct cfg_prog p = { "t", "", fetch_cfg_keys, fetch_cfg_nkeys, NULL };
  setenv("WPFS_ALLOW_CIDRS", "127.0.0.0/8", 1);
  char *argv[] = { "t", "--allow-cidr", "::1", "--allow-cidr=10.9.0.0/16", "--dns-servers",
                   "127.0.0.1:5353", NULL };
  assert_int_equal(cfg_load(&p, &c, 6, argv), CFG_OK);
  unsetenv("WPFS_ALLOW_CIDRS");
  assert_string_equal(c.allow_cidrs, "127.0.0.0/8,::1,10.9.0.0/16");
  assert_string_equal(c.dns_servers, "127.0.0.1:5353");
  cfg_free(&p, &c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cfg_table),
    cmocka_unit_test(test_cfg_allow_list_sources),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
