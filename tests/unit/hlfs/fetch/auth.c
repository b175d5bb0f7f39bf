/* hlfs/fetch/auth.c: the tokens file's roles and private flag (a key without
 * a role is an operator; a bad role, or two keys of one client that
 * disagree, stop the load), and hlfs/state/pages.c: whose copy a page
 * cache key is, and who may read it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlfs/fetch/auth.c"
#include "hlfs/state/pages.c"
#include "hlfs/fetch/auth.h"
#include "hlfs/state/pages.h"
#include "tests/unit/hlfs/fetch/auth_file.h"

static void test_roles(void **state)
{
  (void)state;
  char err[256] = "";
  struct auth *a = load("{\"clients\": ["
                        "{\"name\": \"old\", \"token\": \"token-old-1\"},"
                        "{\"name\": \"cr\", \"token\": \"token-cr-1\", \"role\": \"crawler\"},"
                        "{\"name\": \"pv\", \"token\": \"token-pv-1\", \"role\": \"crawler\","
                        " \"private\": true},"
                        "{\"name\": \"mx\", \"token\": \"token-mx-1\", \"role\": \"metrics\"},"
                        "{\"name\": \"cr\", \"token\": \"token-cr-2\", \"role\": \"crawler\"}]}",
                        err, sizeof err);
  if(!a)
    fail_msg("%s", err);
  const struct state_client *old = auth_check(a, "Bearer token-old-1");
  const struct state_client *cr = auth_check(a, "Bearer token-cr-1");
  const struct state_client *cr2 = auth_check(a, "Bearer token-cr-2");
  const struct state_client *pv = auth_check(a, "Bearer token-pv-1");
  const struct state_client *mx = auth_check(a, "Bearer token-mx-1");
  assert_non_null(old);
  assert_int_equal(auth_role_of(a, old), AUTH_ROLE_OPERATOR);  /* what it was */
  assert_int_equal(auth_role_of(a, cr), AUTH_ROLE_CRAWLER);
  assert_int_equal(auth_role_of(a, cr2), AUTH_ROLE_CRAWLER);  /* a second key of cr */
  assert_int_equal(auth_role_of(a, mx), AUTH_ROLE_METRICS);
  assert_false(auth_private(a, cr));
  assert_true(auth_private(a, pv));
  assert_true(auth_any_private(a));
  assert_ptr_equal(auth_find(a, "pv"), pv);
  assert_null(auth_find(a, "sync.a"));
  /* a client that is no entry of the table: the least of roles */
  static struct state_client other = { .name = "pv" };
  /* through a pointer the compiler cannot follow: it would see the
   * table's bounds check fail and warn of the access behind it */
  const struct state_client *volatile op = &other;
  assert_int_equal(auth_role_of(a, op), AUTH_ROLE_CRAWLER);
  assert_false(auth_private(a, op));
  assert_string_equal(auth_role_name(AUTH_ROLE_METRICS), "metrics");
  auth_free(&a);

  a = load("{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\"}]}", err, sizeof err);
  assert_non_null(a);
  assert_false(auth_any_private(a));
  auth_free(&a);
}

static void test_bad_files(void **state)
{
  (void)state;
  char err[256];
  static const struct {
    const char *json, *says;
  } bad[] = {
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"role\": \"admin\"}]}",
      "role \"admin\"" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"role\": 3}]}", "clients[0]" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"private\": \"yes\"}]}",
      "clients[0]" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"role\": \"crawler\"},"
      "{\"name\": \"a\", \"token\": \"token-a-2\"}]}", "differ in role" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"private\": true},"
      "{\"name\": \"a\", \"token\": \"token-a-2\"}]}", "differ in role" },
  };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    struct auth *a = load(bad[i].json, err, sizeof err);
    if(a)
      fail_msg("loaded: %s", bad[i].json);
    if(!strstr(err, bad[i].says))
      fail_msg("\"%s\" does not say \"%s\"", err, bad[i].says);
  }
}

static void test_page_owner(void **state)
{
  (void)state;
  char shared[PAGE_KEY_MAX], own[PAGE_KEY_MAX], v6[PAGE_KEY_MAX], longest[PAGE_KEY_MAX];
  char name[65], url[300] = "http://";
  page_key_owned("http://a.test/x?session=1", NULL, shared, sizeof shared);
  page_key_owned("http://a.test/x?session=1", "pv", own, sizeof own);
  page_key_owned("http://[::1]:8080/x", "p.v-1", v6, sizeof v6);
  assert_null(page_key_owner(shared));
  assert_string_equal(page_key_owner(own), "pv");
  assert_string_equal(page_key_owner(v6), "p.v-1");
  assert_int_equal(strncmp(shared, own, strlen(shared)), 0);  /* same URL, same shard tag */
  assert_null(page_key_owner("page:{a}:1234"));
  assert_null(page_key_owner("other:{a}:0123456789abcdef:pv"));
  /* the longest host and client name still fit */
  memset(name, 'n', 64);
  name[64] = 0;
  memset(url + 7, 'h', 253);
  memcpy(url + 7 + 253, "/", 2);
  page_key_owned(url, name, longest, sizeof longest);
  assert_string_equal(page_key_owner(longest), name);

  assert_true(page_key_readable(shared, "ca", false));
  assert_false(page_key_readable(own, "ca", false));  /* a private key's copy */
  assert_true(page_key_readable(own, "pv", true));
  assert_false(page_key_readable(shared, "pv", true));  /* a private key reads no shared copy */
  assert_false(page_key_readable(own, "pv2", true));
  assert_false(page_key_readable(own, "pvx", true));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roles),
    cmocka_unit_test(test_bad_files),
    cmocka_unit_test(test_page_owner),
  };
  return cmocka_run_group_tests(tests, 0, 0);
}
