/* hlfs/state/state_done.c without Redis: which coalesced waiters a stored
 * copy of a given age serves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hlfs/state/state_done.c"
#include "hlfs/state/qenc.h"

/* The max_age code a stored copy satisfies, to the millisecond: waiters
 * below it go back to their queues; a fetch serves all. */
static void test_age_need(void **state)
{
  (void)state;
  assert_int_equal(state_age_need(false, 0), 0);
  assert_int_equal(state_age_need(false, 5000), 0);
  assert_int_equal(state_age_need(true, 0), 1);    /* not max_age_s 0 */
  assert_int_equal(state_age_need(true, 999), 1);
  assert_int_equal(state_age_need(true, 1000), 2);
  assert_int_equal(state_age_need(true, 14999), 15);
  assert_int_equal(qenc_maxage_secs(state_age_need(true, 100000)), 104);  /* > 100 s */
  assert_int_equal(state_age_need(true, UINT64_MAX / 2), 511);  /* only "any age" */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_age_need),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
