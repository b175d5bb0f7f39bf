/* hlfs/sched/sched_follow.c: the verdict on a 3xx of a request that follows
 * redirects, and the record its next hop carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hlfs/sched/sched_follow.c"
#include "common/mem.h"
#include "hlfs/sched/sched_follow.h"

static void test_hops_build_the_chain(void **state)
{
  (void)state;
  char *next;
  const char *rec = "2\n0-7\nhttp://a.test/";
  assert_int_equal(follow_next(rec, "http://a.test/", "http://b.test/x", &next), FOLLOW_HOP);
  assert_string_equal(next, "1\n0-7\nhttp://a.test/\nhttp://b.test/x");
  char *third;
  assert_int_equal(follow_next(next, "http://b.test/x", "https://c.test/", &third), FOLLOW_HOP);
  assert_string_equal(third, "0\n0-7\nhttp://a.test/\nhttp://b.test/x\nhttps://c.test/");
  char *none;
  assert_int_equal(follow_next(third, "https://c.test/", "http://d.test/", &none), FOLLOW_LIMIT);
  assert_null(none);
  mem_free(next);
  mem_free(third);
}

static void test_loops_are_seen(void **state)
{
  (void)state;
  char *next;
  const char *rec = "5\n0-7\nhttp://a.test/\nhttp://b.test/x\nhttp://b.test/y";
  /* back to the first URL, to a hop, to itself */
  assert_int_equal(follow_next(rec, "http://b.test/y", "http://a.test/", &next), FOLLOW_LOOP);
  assert_int_equal(follow_next(rec, "http://b.test/y", "http://b.test/x", &next), FOLLOW_LOOP);
  assert_int_equal(follow_next(rec, "http://b.test/y", "http://b.test/y", &next), FOLLOW_LOOP);
  assert_null(next);
  /* a prefix of a visited URL is another URL */
  assert_int_equal(follow_next(rec, "http://b.test/y", "http://b.test/", &next), FOLLOW_HOP);
  mem_free(next);
  /* a loop is a loop even with no hop left */
  assert_int_equal(follow_next("0\n0-7\nhttp://a.test/", "http://a.test/", "http://a.test/",
                               &next), FOLLOW_LOOP);
}

static void test_bad_records(void **state)
{
  (void)state;
  char *next;
  const char *bad[] = { "", "x\n0-1\nu", "2", "21\n0-1\nhttp://a.test/", "-1\n0-1\nu" };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(follow_next(bad[i], "http://a.test/", "http://b.test/", &next), FOLLOW_BAD);
  /* a target with a line break would corrupt the record */
  assert_int_equal(follow_next("2\n0-1\nhttp://a.test/", "http://a.test/", "http://b.test/\nx",
                               &next), FOLLOW_BAD);
  assert_null(next);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hops_build_the_chain),
    cmocka_unit_test(test_loops_are_seen),
    cmocka_unit_test(test_bad_records),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
