/* Redirect records in the Redis scripts, against a real redis-server: a
 * request that follows redirects keeps its record along the chain, a
 * queued hop publishes nothing, the last hop publishes under the first id
 * and URL with the URLs followed, hops cost no token, and a follower is
 * never folded into another client's fetch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/integ/fixture/state.h"

static struct state_item item(const char *url, const char *follow)
{
  return (struct state_item){ .url = url, .prio = 3, .max_age_s = 3600, .follow = follow };
}

static int complete_hopped(const struct ts_claim *c)
{
  static const char *fields[] = { "o", "ok", "hs", "301" };
  struct state_done d = { .site = c->site, .token = c->token, .fields = fields, .nfields = 4,
                          .hopped = true };
  struct ts_done r = { 0 };
  assert_int_equal(state_complete(ts_st, 0, &d, ts_on_done, &r), STORE_OK);
  assert_true(it_run_until(&r.done, 10000));
  assert_int_equal(r.err, STORE_OK);
  return r.held;
}

static void test_a_chain_publishes_once_as_the_first_request(void **state)
{
  (void)state;
  /* a client with a token bucket of 1: the hop must not need a token */
  struct state_client cl = { .name = "ca", .weight = 2, .rate = 0.001, .burst = 1 };
  struct state_item a = item("http://f1.test/a", "2");
  assert_int_equal(ts_submit_c(&cl, &a, 1), STORE_OK);
  assert_int_equal(a.code, STATE_SUB_ACCEPTED);
  char want[160];
  snprintf(want, sizeof want, "2\n%s\nhttp://f1.test/a", a.rid);
  char cmd[96];
  snprintf(cmd, sizeof cmd, "HGET fr:{0} ca|%s", a.rid);
  assert_string_equal(it_cmd(ts_store, cmd), want);
  static struct ts_claims c;
  ts_claim(&c, 1);
  assert_int_equal(c.n, 1);
  /* the fetch answered 301: the scheduler queues the hop, then completes */
  snprintf(want, sizeof want, "1\n%s\nhttp://f1.test/a\nhttp://f2.test/b", a.rid);
  struct state_client hops = { .name = "ca", .hops = true };
  struct state_item h = item("http://f2.test/b", want);
  assert_int_equal(ts_submit_c(&hops, &h, 1), STORE_OK);
  assert_int_equal(h.code, STATE_SUB_ACCEPTED);
  assert_string_equal(it_cmd(ts_store, "HGET cl:{0}ca w"), "2");  /* weight kept */
  /* the same hop again (an earlier attempt of the 3xx queued it): accepted
   * as that one; a different chain to the same URL is a duplicate */
  struct state_item again = item("http://f2.test/b", want);
  assert_int_equal(ts_submit_c(&hops, &again, 1), STORE_OK);
  assert_int_equal(again.code, STATE_SUB_ACCEPTED);
  assert_string_equal(again.rid, h.rid);
  struct state_item other = item("http://f2.test/b", "1\n0-999\nhttp://f9.test/\nhttp://f2.test/b");
  assert_int_equal(ts_submit_c(&hops, &other, 1), STORE_OK);
  assert_int_equal(other.code, STATE_SUB_DUP_QUEUED);
  assert_int_equal(it_int(ts_store, "ZCARD q:{0}f2.test|ca"), 1);
  assert_int_equal(complete_hopped(&c.c[0]), 1);
  assert_int_equal(it_int(ts_store, "EXISTS x:{0}ca"), 0);  /* nothing published yet */
  snprintf(cmd, sizeof cmd, "HEXISTS fr:{0} ca|%s", a.rid);
  assert_int_equal(it_int(ts_store, cmd), 0);
  ts_claim(&c, 1);
  assert_int_equal(c.n, 1);
  assert_string_equal(c.c[0].url, "http://f2.test/b");
  assert_int_equal(ts_complete(&c.c[0], 0), 1);
  snprintf(want, sizeof want, "rid,%s,url,http://f1.test/a,a,1,rd,http://f2.test/b,o,ok", a.rid);
  assert_non_null(strstr(ts_stream("ca"), want));
  assert_int_equal(it_int(ts_store, "XLEN x:{0}ca"), 1);
  assert_int_equal(it_int(ts_store, "HLEN fr:{0}"), 0);
  assert_int_equal(it_int(ts_store, "HINCRBY cl:{0}ca n 0"), 0);
  assert_int_equal(it_int(ts_store, "HINCRBY cl:{0}ca qn 0"), 0);
}

static void test_followers_are_not_folded(void **state)
{
  (void)state;
  struct state_item a = item("http://f3.test/x", NULL), b = item("http://f3.test/x", "3");
  assert_int_equal(ts_submit("ca", &a, 1), STORE_OK);
  assert_int_equal(ts_submit("cb", &b, 1), STORE_OK);
  static struct ts_claims c;
  ts_claim(&c, 1);
  assert_string_equal(c.c[0].client, "ca");
  assert_int_equal(c.c[0].waiters, 0);  /* cb's request follows: not absorbed */
  /* submitted while ca's is in flight: queued, not joined */
  struct state_item cc = item("http://f3.test/x", "1");
  assert_int_equal(ts_submit("cc", &cc, 1), STORE_OK);
  assert_int_equal(cc.code, STATE_SUB_ACCEPTED);
  assert_int_equal(it_int(ts_store, "ZCARD q:{0}f3.test|cc"), 1);
  assert_int_equal(ts_complete(&c.c[0], 0), 1);
  assert_null(strstr(ts_stream("ca"), "co,"));
}

static void test_an_abandoned_hop_is_the_first_request_abandoned(void **state)
{
  (void)state;
  struct state_client hops = { .name = "ca", .hops = true };
  struct state_item h = item("http://f4.test/b", "0\n0-99\nhttp://f0.test/a\nhttp://f4.test/b");
  assert_int_equal(ts_submit_c(&hops, &h, 1), STORE_OK);
  static struct ts_claims c;
  ts_claim_opt(&c, 0, 1, 100, 1);
  assert_int_equal(c.n, 1);
  ts_sleep(150);
  ts_claim_opt(&c, 0, 1, 100, 1);
  assert_int_equal(c.abandoned, 1);
  assert_non_null(strstr(ts_stream("ca"),
                         "rid,0-99,url,http://f0.test/a,a,1,rd,http://f4.test/b,o,abandoned"));
  assert_int_equal(it_int(ts_store, "HLEN fr:{0}"), 0);
}

int main(void)
{
  it_loop_init();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_a_chain_publishes_once_as_the_first_request, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_followers_are_not_folded, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_an_abandoned_hop_is_the_first_request_abandoned, ts_setup, ts_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
