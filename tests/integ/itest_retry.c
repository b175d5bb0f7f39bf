/* The retry policy in the Redis scripts (docs/retries.md), against a real
 * redis-server: a transient failure goes back to its queue with one more
 * attempt until its maximum (its own, else the gateway's), a lost fetcher
 * goes back without one until its bound, an expired lease counts; the
 * final result carries every try (al), and no retry record outlives its
 * request, waiters' included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/integ/fixture/state.h"

static struct state_item item(const char *url, unsigned max_attempts)
{
  return (struct state_item){ .url = url, .prio = 3, .max_age_s = QENC_MAXAGE_ANY,
                              .max_attempts = max_attempts };
}

/* Complete claim c as a try that ended with status hs; retry: 0, 'r', 'l'.
 * Returns held (2: back to its queue). */
static int try_end(const struct ts_claim *c, char retry, int hs, unsigned max_attempts,
                   unsigned lost_max)
{
  char hss[16], attempt[64];
  snprintf(hss, sizeof hss, "%d", hs);
  snprintf(attempt, sizeof attempt, "%s,%d,7", retry == 'l' ? "fetcher_unavailable" : "ok", hs);
  const char *fields[] = { "o", retry == 'l' ? "fetcher_unavailable" : "ok", "hs", hss };
  struct state_done d = { .site = c->site, .token = c->token, .response_ms = 7,
                          .fields = fields, .nfields = 4, .retry = retry,
                          .max_attempts = max_attempts, .lost_max = lost_max,
                          .attempt = attempt };
  struct ts_done r = { 0 };
  assert_int_equal(state_complete(ts_st, 0, &d, ts_on_done, &r), STORE_OK);
  assert_true(it_run_until(&r.done, 10000));
  assert_int_equal(r.err, STORE_OK);
  return r.held;
}

static long lines_of(const char *s, const char *what)
{
  long n = 0;
  for(const char *p = s; (p = strstr(p, what)); p += strlen(what))
    n++;
  return n;
}

static void claim_one(struct ts_claims *cl, const char *rid, unsigned attempts)
{
  ts_claim(cl, 1);
  assert_int_equal(cl->n, 1);
  assert_string_equal(cl->c[0].rid, rid);
  assert_int_equal(cl->c[0].q.attempts, attempts);
}

/* 503, 503, then the gateway's maximum (3) is reached: final at attempt 3,
 * with three tries; the record is gone. */
static void test_transient_until_max(void **state)
{
  (void)state;
  struct state_item a = item("http://r.test/a", 0);
  ts_submit1("c1", &a, STATE_SUB_ACCEPTED);
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 0);  /* nothing stored for it */
  static struct ts_claims cl;
  claim_one(&cl, a.rid, 0);
  assert_int_equal(try_end(&cl.c[0], 'r', 503, 3, 5), 2);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 0);
  assert_int_equal(it_int(ts_store, "HINCRBY cl:{0}c1 n 0"), 1);  /* still counted */
  claim_one(&cl, a.rid, 1);
  assert_int_equal(try_end(&cl.c[0], 'r', 503, 3, 5), 2);
  claim_one(&cl, a.rid, 2);
  assert_int_equal(try_end(&cl.c[0], 'r', 503, 3, 5), 1);
  const char *s = ts_stream("c1");
  assert_non_null(strstr(s, "a,3,o,ok,hs,503,al,ok,503,7,"));
  assert_int_equal(lines_of(s, ",1\n"), 3);
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 0);
  assert_int_equal(it_int(ts_store, "HINCRBY cl:{0}c1 n 0"), 0);
}

/* A request's own maximum wins over the gateway's, both ways. */
static void test_request_max(void **state)
{
  (void)state;
  struct state_item one = item("http://r.test/one", 1), four = item("http://r2.test/four", 4);
  ts_submit1("c1", &one, STATE_SUB_ACCEPTED);
  ts_submit1("c1", &four, STATE_SUB_ACCEPTED);
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 2);
  static struct ts_claims cl;
  claim_one(&cl, one.rid, 0);
  assert_int_equal(try_end(&cl.c[0], 'r', 500, 3, 5), 1);  /* final at once */
  assert_non_null(strstr(ts_stream("c1"), "a,1,o,ok,hs,500,al,ok,500,7,"));
  for(unsigned k = 0; k < 3; k++) {
    claim_one(&cl, four.rid, k);
    assert_int_equal(try_end(&cl.c[0], 'r', 429, 3, 5), 2);  /* past the gateway's 3 */
  }
  claim_one(&cl, four.rid, 3);
  assert_int_equal(try_end(&cl.c[0], 0, 200, 3, 5), 1);
  const char *s = ts_stream("c1");
  assert_non_null(strstr(s, "url,http://r2.test/four,a,4,o,ok,hs,200,al,ok,429"));
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 0);
}

/* A lost fetcher costs no attempt, up to lost_max losses: then the result
 * is final, every try uncounted. */
static void test_lost_fetcher_bounded(void **state)
{
  (void)state;
  struct state_item a = item("http://r.test/lost", 0);
  ts_submit1("c1", &a, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  for(unsigned k = 0; k < 2; k++) {
    claim_one(&cl, a.rid, 0);
    assert_int_equal(try_end(&cl.c[0], 'l', 0, 3, 2), 2);
  }
  claim_one(&cl, a.rid, 0);
  assert_int_equal(try_end(&cl.c[0], 'l', 0, 3, 2), 1);
  const char *s = ts_stream("c1");
  assert_non_null(strstr(s, "a,1,o,fetcher_unavailable"));
  assert_int_equal(lines_of(s, ",0\n"), 3);
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 0);
}

/* An expired lease counts as an attempt and is listed as lease_expired. */
static void test_expired_lease_listed(void **state)
{
  (void)state;
  struct state_item a = item("http://r.test/reaped", 0);
  ts_submit1("c1", &a, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim_opt(&cl, 0, 1, 50, 3);
  assert_int_equal(cl.n, 1);
  usleep(80000);
  ts_claim(&cl, 1);
  assert_int_equal(cl.reaped, 1);
  assert_int_equal(cl.n, 1);
  assert_int_equal(cl.c[0].q.attempts, 1);
  assert_int_equal(try_end(&cl.c[0], 0, 200, 3, 5), 1);
  const char *s = ts_stream("c1");
  assert_non_null(strstr(s, "a,2,o,ok,hs,200,al,lease_expired,0,0,"));
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 0);
}

/* Waiters wait through the retries and get the final result; their own
 * records go with it. */
static void test_waiters_through_retries(void **state)
{
  (void)state;
  struct state_item a = item("http://w.test/p", 0), b = item("http://w.test/p", 2);
  ts_submit1("ca", &a, STATE_SUB_ACCEPTED);
  ts_submit1("cb", &b, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].rid, a.rid);
  assert_int_equal(cl.c[0].waiters, 1);
  assert_int_equal(try_end(&cl.c[0], 'r', 502, 3, 5), 2);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}cb"), 0);
  claim_one(&cl, a.rid, 1);
  assert_int_equal(cl.c[0].waiters, 1);
  assert_int_equal(try_end(&cl.c[0], 0, 200, 3, 5), 1);
  char want[96];
  snprintf(want, sizeof want, "co,%s,o,ok,hs,200,al,ok,502", a.rid);
  assert_non_null(strstr(ts_stream("cb"), want));
  assert_int_equal(it_int(ts_store, "HLEN ra:{0}"), 0);
  assert_int_equal(it_int(ts_store, "HINCRBY cl:{0}cb n 0"), 0);
}

int main(void)
{
  it_loop_init();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_transient_until_max, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_request_max, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_lost_fetcher_bounded, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_expired_lease_listed, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_waiters_through_retries, ts_setup, ts_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
