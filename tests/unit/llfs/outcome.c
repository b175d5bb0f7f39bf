/* llfs/outcome.c: the table is append-only; names are stable snake_case,
 * each read back to its row (as a client of the API reads them); every
 * outcome but ok is an error. */
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

/* The table's error column. */
static bool is_error(enum outcome o)
{
  static const bool err[] = {
#define X(e, name, err, contact, txt) err,
    OUTCOMES(X)
#undef X
  };
  return (unsigned)o < OUTCOME__COUNT ? err[o] : true;
}

/* Inverse of outcome_name; -1 when name is not in the table. */
static int parse(const char *name, enum outcome *out)
{
  for(unsigned i = 0; i < OUTCOME__COUNT; i++)
    if(!strcmp(outcome_name((enum outcome)i), name)) {
      *out = (enum outcome)i;
      return 0;
    }
  return -1;
}

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
    assert_int_equal(parse(s, &back), 0);
    assert_int_equal(back, i);
    assert_true(strlen(outcome_text((enum outcome)i)) > 5);
    assert_int_equal(is_error((enum outcome)i), i != OUTCOME_OK);
  }
  enum outcome o;
  assert_int_equal(parse("nope", &o), -1);
  assert_string_equal(outcome_name(OUTCOME__COUNT), "unknown");
  assert_true(is_error(OUTCOME__COUNT));
}

/* The out-of-memory row keeps its wire name, no_memory, not the "nomem"
 * of the other tables (common/err.h). */
static void test_named_rows(void **state)
{
  (void)state;
  assert_true(is_error(OUTCOME_NOMEM));
  assert_false(is_error(OUTCOME_OK));
  enum outcome o;
  assert_int_equal(parse("dns_timeout", &o), 0);
  assert_int_equal(o, OUTCOME_DNS_TIMEOUT);
  assert_int_equal(parse("nomem", &o), -1);
  assert_int_equal(parse("no_memory", &o), 0);
  assert_int_equal(o, OUTCOME_NOMEM);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_append_only),
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_named_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
