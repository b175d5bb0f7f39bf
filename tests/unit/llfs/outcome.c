/* llfs/outcome.c: the table is append-only; names are stable snake_case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <string.h>

#include "llfs/outcome.c"
#include "llfs/outcome.h"

/* The published order: a new outcome goes at the end of this list and of
 * the table; anything else breaks clients that stored the numbers. */
static const char *const published[] = {
  "ok", "dns_nxdomain", "dns_servfail", "dns_timeout", "dns_error", "connect_refused",
  "connect_timeout", "tls_error", "timeout", "too_large", "blocked_address", "protocol_error",
  "reset", "bad_url", "unsupported_scheme", "no_memory", "overloaded", "shutting_down",
  "internal", "connect_error", "bad_request", "proxy_error",
};

static void test_append_only(void **state)
{
  (void)state;
  size_t n = sizeof published / sizeof published[0];
  assert_true(OUTCOME__COUNT >= n);
  for(size_t i = 0; i < n; i++)
    assert_string_equal(outcome_name((enum outcome)i), published[i]);
}

static void test_names(void **state)
{
  (void)state;
  for(unsigned i = 0; i < OUTCOME__COUNT; i++) {
    const char *s = outcome_name((enum outcome)i);
    for(const char *p = s; *p; p++)
      assert_true(islower((unsigned char)*p) || *p == '_');
    for(unsigned k = 0; k < i; k++)
      assert_string_not_equal(s, outcome_name((enum outcome)k));
    enum outcome back;
    assert_int_equal(outcome_parse(s, &back), 0);
    assert_int_equal(back, i);
    assert_true(strlen(outcome_text((enum outcome)i)) > 5);
    assert_int_equal(outcome_is_error((enum outcome)i), i != OUTCOME_OK);
  }
  enum outcome o;
  assert_int_equal(outcome_parse("nope", &o), -1);
  assert_string_equal(outcome_name(OUTCOME__COUNT), "unknown");
  assert_true(outcome_is_error(OUTCOME__COUNT));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_append_only),
    cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
