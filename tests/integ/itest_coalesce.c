/* Coalescing in the Redis scripts, against a real redis-server: requests of
 * several clients for one URL cost one claim, and every one of them gets
 * that claim's result, marked with the request it came from; a waiter that
 * wants a fresher copy than the one served goes back to its queue; the
 * quota counters come back to zero. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/integ/fixture/state.h"

static struct state_item item(const char *url, uint64_t max_age_s)
{
  return (struct state_item){ .url = url, .prio = 3, .max_age_s = max_age_s };
}

static void assert_counts_zero(const char *c)
{
  char cmd[64];
  snprintf(cmd, sizeof cmd, "HINCRBY cl:{0}%s n 0", c);  /* 0 when absent, too */
  assert_int_equal(it_int(ts_store, cmd), 0);
  snprintf(cmd, sizeof cmd, "HINCRBY cl:{0}%s qn 0", c);
  assert_int_equal(it_int(ts_store, cmd), 0);
}

/* Queued by three clients before any claim: the claim takes them all. */
static void test_queued_requests_join_the_claim(void **state)
{
  (void)state;
  struct state_item a = item("http://co.test/p", 3600), b = item("http://co.test/p", 60),
                    c = item("http://co.test/p", QENC_MAXAGE_ANY),
                    other = item("http://co.test/q", 3600);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  ts_submit1("cc", &c, STATE_SUB_ACCEPTED);
  ts_submit1("cb", &other, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].url, "http://co.test/p");
  assert_string_equal(cl.c[0].rid, a.rid);
  assert_int_equal(cl.c[0].waiters, 2);
  /* the claim must satisfy cb's max_age (60 s), not only ca's (3600 s) */
  assert_int_equal(cl.c[0].q.max_age_s, 60);
  assert_int_equal(it_int(ts_store, "ZCARD q:{0}co.test|cc"), 0);
  assert_int_equal(it_int(ts_store, "ZCARD q:{0}co.test|cb"), 1);  /* /q stays */
  assert_int_equal(it_int(ts_store, "SISMEMBER sc:{0}co.test cc"), 0);
  assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  char want[128];
  snprintf(want, sizeof want, "rid,%s,url,http://co.test/p,a,1,o,ok", a.rid);
  assert_non_null(strstr(ts_stream("ca"), want));
  assert_null(strstr(ts_stream("ca"), "co,"));
  snprintf(want, sizeof want, "rid,%s,url,http://co.test/p,a,1,co,%s,o,ok", b.rid, a.rid);
  assert_non_null(strstr(ts_stream("cb"), want));
  snprintf(want, sizeof want, "rid,%s,url,http://co.test/p,a,1,co,%s,o,ok", c.rid, a.rid);
  assert_non_null(strstr(ts_stream("cc"), want));
  assert_int_equal(state_stats(ts_st)->coalesce_served, 2);
  assert_int_equal(it_int(ts_store, "EXISTS w:{0}co.test|h/p"), 0);
  /* cb's other URL is next, then nothing */
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].url, "http://co.test/q");
  assert_int_equal(cl.c[0].waiters, 0);
  assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 0);
  assert_counts_zero("ca");
  assert_counts_zero("cb");
  assert_counts_zero("cc");
  assert_int_equal(it_int(ts_store, "ZCARD vt:{0}"), 0);
}

/* Submitted while the URL is in flight: accepted as waiters, never queued. */
static void test_submissions_join_the_fetch_in_flight(void **state)
{
  (void)state;
  struct state_item a = item("https://co.test/x", 3600);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_int_equal(cl.c[0].waiters, 0);
  struct state_item b = item("https://co.test/x", 3600), b2 = item("https://co.test/x", 0);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  assert_string_not_equal(b.rid, a.rid);
  ts_submit1("cb", &b2, STATE_SUB_DUP_INFLIGHT);  /* cb already waits for it */
  assert_string_equal(b2.rid, b.rid);
  assert_int_equal(it_int(ts_store, "EXISTS q:{0}co.test|cb"), 0);
  assert_int_equal(state_stats(ts_st)->coalesce_joined, 1);
  assert_string_equal(it_cmd(ts_store, "HGET cl:{0}cb n"), "1");  /* counts for its quota */
  assert_int_equal(ts_complete(&cl.c[0], 5), 1);
  char want[128];
  snprintf(want, sizeof want, "rid,%s,url,https://co.test/x,a,1,co,%s,o,ok", b.rid, a.rid);
  assert_non_null(strstr(ts_stream("cb"), want));
  assert_counts_zero("cb");
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 0);  /* no second fetch */
}

/* A stored copy of 100 s served to the claim: the waiter that accepts 10 s
 * at most is not served it, but queued to be fetched. */
static void test_waiter_wanting_fresher_copy_is_requeued(void **state)
{
  (void)state;
  struct state_item a = item("http://co.test/old", QENC_MAXAGE_ANY);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  struct ts_claim first = cl.c[0];
  struct state_item b = item("http://co.test/old", 10), c = item("http://co.test/old", 3600);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  ts_submit1("cc", &c, STATE_SUB_ACCEPTED);
  assert_int_equal(ts_complete_age(0, &first, 0, DELAY_NONE, NULL, true, 100000), 1);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}cc"), 1);
  assert_int_equal(it_int(ts_store, "EXISTS x:{0}cb"), 0);
  assert_int_equal(state_stats(ts_st)->coalesce_served, 1);
  assert_int_equal(state_stats(ts_st)->coalesce_requeued, 1);
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].client, "cb");
  assert_string_equal(cl.c[0].rid, b.rid);  /* its own request id, kept */
  assert_int_equal(cl.c[0].q.max_age_s, 10);
  assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}cb"), 1);
  assert_counts_zero("cb");
  assert_counts_zero("cc");
}

/* A stored copy 400 ms old: not younger than max_age_s 0, so that waiter
 * is queued to be fetched; younger than 1 s, so that one is served. Ages
 * in whole seconds (0) served both. */
static void test_waiter_max_age_0_not_served_a_stored_copy(void **state)
{
  (void)state;
  struct state_item a = item("http://co.test/new", QENC_MAXAGE_ANY);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  struct ts_claim first = cl.c[0];
  struct state_item b = item("http://co.test/new", 0), c = item("http://co.test/new", 1);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  ts_submit1("cc", &c, STATE_SUB_ACCEPTED);
  assert_int_equal(ts_complete_age(0, &first, 0, DELAY_NONE, NULL, true, 400), 1);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}cc"), 1);
  assert_int_equal(it_int(ts_store, "EXISTS x:{0}cb"), 0);
  assert_int_equal(state_stats(ts_st)->coalesce_requeued, 1);
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].rid, b.rid);
  assert_int_equal(cl.c[0].q.max_age_s, 0);
  assert_int_equal(ts_complete(&cl.c[0], 0), 1);  /* a fetch serves max_age_s 0 */
  assert_int_equal(it_int(ts_store, "XLEN x:{0}cb"), 1);
  assert_counts_zero("cb");
  assert_counts_zero("cc");
}

/* The fetch keeps dying: its waiters hear it was abandoned, too. */
static void test_waiters_of_an_abandoned_request(void **state)
{
  (void)state;
  struct state_item a = item("http://co.test/dies", 3600), b = item("http://co.test/dies", 3600);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim_opt(&cl, 0, 1, 100, 2);
  assert_int_equal(cl.c[0].waiters, 1);
  ts_sleep(150);
  ts_claim_opt(&cl, 0, 1, 100, 2);  /* reaped, claimed again: the waiter stays */
  assert_int_equal(cl.reaped, 1);
  assert_int_equal(cl.c[0].waiters, 1);
  ts_sleep(150);
  ts_claim_opt(&cl, 0, 1, 100, 2);
  assert_int_equal(cl.abandoned, 1);
  assert_non_null(strstr(ts_stream("ca"), "o,abandoned"));
  char want[96];
  snprintf(want, sizeof want, "co,%s,o,abandoned", a.rid);
  assert_non_null(strstr(ts_stream("cb"), want));
  assert_counts_zero("ca");
  assert_counts_zero("cb");
}

/* A claim given back (aborted) leaves its waiters for the next claim, and
 * marks the site (wl) so that the waiters are looked at: a waiter that
 * submits the URL again is a duplicate, and the next claim serves it. */
static void test_waiters_of_an_aborted_claim(void **state)
{
  (void)state;
  struct state_item a = item("http://co.test/back", 3600), b = item("http://co.test/back", 60);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.c[0].waiters, 1);
  struct ts_flags f = { 0 };
  assert_int_equal(state_abort(ts_st, 0, cl.c[0].site, cl.c[0].token, 0, ts_on_flags, &f),
                   STORE_OK);
  assert_true(it_run_until(&f.done, 5000));
  assert_int_equal(f.held[0], 1);
  struct state_item again = item("http://co.test/back", 60);
  ts_submit1("cb", &again, STATE_SUB_DUP_INFLIGHT);
  assert_string_equal(again.rid, b.rid);
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].rid, a.rid);
  assert_int_equal(cl.c[0].waiters, 1);
  assert_int_equal(cl.c[0].q.max_age_s, 60);
  assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  char want[128];
  snprintf(want, sizeof want, "rid,%s,url,http://co.test/back,a,1,co,%s,o,ok", b.rid, a.rid);
  assert_non_null(strstr(ts_stream("cb"), want));
  assert_counts_zero("ca");
  assert_counts_zero("cb");
}

int main(void)
{
  it_loop_init();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_queued_requests_join_the_claim, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_submissions_join_the_fetch_in_flight, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_waiter_wanting_fresher_copy_is_requeued, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_waiter_max_age_0_not_served_a_stored_copy, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_waiters_of_an_abandoned_request, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_waiters_of_an_aborted_claim, ts_setup, ts_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
