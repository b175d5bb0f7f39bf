/* The Lua scripts through hlfs/state/state.h, against a real redis-server:
 * queue order, dedup, quotas, politeness, leases (expiry, renewal, loss),
 * robots records, results (at-least-once), fairness, shards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "tests/integ/fixture/state.h"

static struct state_item item(const char *url, unsigned prio)
{
  return (struct state_item){ .url = url, .prio = prio, .max_age_s = 3600 };
}

static void test_order_lease_and_url_roundtrip(void **state)
{
  (void)state;
  struct state_item it[] = {
    item("http://a.test/low", 1),
    item("https://a.test:8443/high?q=1", 6),
    item("http://a.test/mid", 3),
    item("http://a.test/mid2", 3),
  };
  assert_int_equal(ts_submit("c1", it, 4), STORE_OK);
  for(int i = 0; i < 4; i++)
    assert_int_equal(it[i].code, STATE_SUB_ACCEPTED);
  assert_string_equal(it[0].rid, "0-1");
  static struct ts_claims cl;
  ts_claim(&cl, 4);
  /* one site, one lease: a single claim however many are asked */
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].url, "https://a.test:8443/high?q=1");
  assert_string_equal(cl.c[0].site, "a.test");
  assert_string_equal(cl.c[0].rid, it[1].rid);
  assert_int_equal(cl.c[0].q.prio, 6);
  assert_int_equal(cl.c[0].q.max_age_s, 3584);
  struct ts_claim first = cl.c[0];
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 0);
  assert_true(cl.wake > 20000);  /* nothing until the lease ends */
  assert_int_equal(ts_complete(&first, 0), 1);
  const char *want[] = { "http://a.test/mid", "http://a.test/mid2", "http://a.test/low" };
  for(int i = 0; i < 3; i++) {
    ts_claim(&cl, 4);
    assert_int_equal(cl.n, 1);
    assert_string_equal(cl.c[0].url, want[i]);
    assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  }
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 0);
  assert_int_equal(cl.wake, -1);
  /* every result, its URL rebuilt by the script from the folded member */
  const char *r = ts_stream("c1");
  assert_non_null(strstr(r, "url,https://a.test:8443/high?q=1,a,1,o,ok,hs,200"));
  assert_non_null(strstr(r, "rid,0-1,url,http://a.test/low"));
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 4);
  assert_int_equal(state_stats(ts_st)->completed, 4);
  assert_int_equal(state_stats(ts_st)->submit[STATE_SUB_ACCEPTED], 4);
}

/* The indexes keep a leased site away from every client; should one be
 * stale (here: forced), the claim still checks the lease and skips. */
static void test_lease_checked_despite_stale_index(void **state)
{
  (void)state;
  struct state_item a[] = { item("http://z.test/a", 0) };
  struct state_item b[] = { item("http://z.test/b", 0) };
  assert_int_equal(ts_submit("c1", a, 1), STORE_OK);
  assert_int_equal(ts_submit("c2", b, 1), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 1);
  const char *other = strcmp(cl.c[0].client, "c1") ? "c1" : "c2";
  char cmd[96];
  snprintf(cmd, sizeof cmd, "ZADD cd:{0}%s 0 z.test", other);
  assert_int_equal(it_int(ts_store, cmd), 0);  /* was there, due at lease end */
  ts_claim(&cl, 4);
  assert_int_equal(cl.n, 0);
  assert_int_equal(cl.skipped, 1);
  assert_int_equal(state_stats(ts_st)->lease_skipped, 1);
}

static void test_dedup_queued_and_in_flight(void **state)
{
  (void)state;
  struct state_item a[] = { item("http://d.test/x", 0), item("http://d.test/x", 5) };
  assert_int_equal(ts_submit("c1", a, 2), STORE_OK);
  assert_int_equal(a[0].code, STATE_SUB_ACCEPTED);
  assert_int_equal(a[1].code, STATE_SUB_DUP_QUEUED);
  assert_string_equal(a[1].rid, a[0].rid);
  /* another client's identical URL is its own request */
  struct state_item b[] = { item("http://d.test/x", 0) };
  assert_int_equal(ts_submit("c2", b, 1), STORE_OK);
  assert_int_equal(b[0].code, STATE_SUB_ACCEPTED);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  struct state_item c[] = { item(cl.c[0].url, 0) };
  assert_int_equal(ts_submit(cl.c[0].client, c, 1), STORE_OK);
  assert_int_equal(c[0].code, STATE_SUB_DUP_INFLIGHT);
  assert_string_equal(c[0].rid, cl.c[0].rid);
  assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  assert_int_equal(ts_submit(cl.c[0].client, c, 1), STORE_OK);
  assert_int_equal(c[0].code, STATE_SUB_ACCEPTED);
  assert_string_not_equal(c[0].rid, cl.c[0].rid);
  struct state_item bad[] = { item("not a url", 0), item("http://x|y.test/", 0) };
  assert_int_equal(ts_submit("c1", bad, 2), STORE_OK);
  assert_int_equal(bad[0].code, STATE_SUB_BAD_URL);
  assert_int_equal(bad[1].code, STATE_SUB_BAD_URL);
}

static void test_quotas(void **state)
{
  (void)state;
  char urls[10][64];
  struct state_item it[10];
  for(int i = 0; i < 10; i++) {
    snprintf(urls[i], sizeof urls[i], "http://q%d.test/", i);
    it[i] = item(urls[i], 0);
  }
  /* 5 URLs/s, bucket of 5: the sixth waits 200 ms for its token */
  struct state_client rc = { .name = "rated", .weight = 1, .rate = 5, .burst = 5 };
  assert_int_equal(ts_submit_c(&rc, it, 8), STORE_OK);
  for(int i = 0; i < 5; i++)
    assert_int_equal(it[i].code, STATE_SUB_ACCEPTED);
  for(int i = 5; i < 8; i++) {
    assert_int_equal(it[i].code, STATE_SUB_OVER_RATE);
    assert_true(it[i].retry_ms > 0 && it[i].retry_ms <= 200);
  }
  ts_sleep(450);  /* two tokens back */
  assert_int_equal(ts_submit_c(&rc, it + 5, 3), STORE_OK);
  assert_int_equal(it[5].code, STATE_SUB_ACCEPTED);
  assert_int_equal(it[6].code, STATE_SUB_ACCEPTED);
  assert_int_equal(it[7].code, STATE_SUB_OVER_RATE);
  /* at most 3 URLs queued or in flight */
  struct state_client qc = { .name = "capped", .weight = 1, .max_queued = 3 };
  assert_int_equal(ts_submit_c(&qc, it, 5), STORE_OK);
  assert_int_equal(it[2].code, STATE_SUB_ACCEPTED);
  assert_int_equal(it[3].code, STATE_SUB_OVER_QUEUE);
  assert_int_equal(it[3].retry_ms, 5000);
  assert_int_equal(it[4].code, STATE_SUB_OVER_QUEUE);
  /* a completion frees a slot */
  static struct ts_claims cl;
  ts_claim(&cl, 8);
  for(size_t i = 0; i < cl.n; i++)
    if(!strcmp(cl.c[i].client, "capped")) {
      assert_int_equal(ts_complete(&cl.c[i], 0), 1);
      break;
    }
  assert_int_equal(ts_submit_c(&qc, it + 4, 1), STORE_OK);
  assert_int_equal(it[4].code, STATE_SUB_ACCEPTED);
  assert_int_equal(state_stats(ts_st)->submit[STATE_SUB_OVER_QUEUE], 2);
  assert_int_equal(state_stats(ts_st)->submit[STATE_SUB_OVER_RATE], 4);
}

/* A site's next allowed time is kept to the microsecond: Redis's clock at
 * the completion plus the delay, not rounded up to the millisecond (which
 * left each site waiting 0.5 ms on average past its delay). Checked
 * against TIME before and after each completion, on several sites: a
 * rounding can fall inside one call's span by chance, not in all. */
static void test_politeness_next_at_us(void **state)
{
  (void)state;
  enum { N = 6 };
  static char urls[N][32];
  struct state_item it[N];
  for(int i = 0; i < N; i++) {
    snprintf(urls[i], sizeof urls[i], "http://u%d.test/", i);
    it[i] = item(urls[i], 0);
  }
  assert_int_equal(ts_submit("c1", it, N), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, N);
  assert_int_equal(cl.n, N);
  for(int i = 0; i < N; i++) {
    uint64_t t0 = ts_redis_now_us();
    assert_int_equal(ts_complete_d(0, &cl.c[i], 400, DELAY_CRAWL_DELAY, NULL), 1);
    uint64_t t1 = ts_redis_now_us();
    char cmd[160];
    snprintf(cmd, sizeof cmd, "HGET s:{0}%s na", cl.c[i].site);
    uint64_t na_us = (uint64_t)llround(strtod(it_cmd(ts_store, cmd), NULL) * 1000);
    print_message("# next_at - completion window: %lld..%lld us\n",
                  (long long)(na_us - 400000 - t0), (long long)(na_us - 400000 - t1));
    assert_true(na_us >= t0 + 400000 && na_us <= t1 + 400000);
  }
}

/* The due index scores a site in whole microseconds (lib.lua's DU): an
 * integer that a listpack keeps as one, where text with decimals is parsed
 * at each entry walked. While the client holds the site's lease, the site
 * is in neither of its indexes (the lease's end puts it back); then its
 * score is the next allowed time, exactly. An entry in milliseconds (an
 * older version's) or 0 (the rollback of docs/operations.md) is early,
 * never late: the claim checks the site and writes it back in
 * microseconds. */
static void test_due_index_us(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://du.test/1", 0), item("http://du.test/2", 0) };
  assert_int_equal(ts_submit("c1", it, 2), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 2);
  assert_int_equal(cl.n, 1);
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 du.test"), "(nil)");
  assert_string_equal(it_cmd(ts_store, "ZSCORE cr:{0}c1 du.test"), "(nil)");
  assert_int_equal(ts_complete_d(0, &cl.c[0], 400, DELAY_CRAWL_DELAY, NULL), 1);
  assert_string_equal(it_cmd(ts_store, "OBJECT ENCODING cd:{0}c1"), "listpack");
  char na[40], cmd[96], want[32];
  snprintf(na, sizeof na, "%s", it_cmd(ts_store, "HGET s:{0}du.test na"));
  snprintf(want, sizeof want, "%lld", llround(strtod(na, NULL) * 1000));
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 du.test"), want);
  snprintf(cmd, sizeof cmd, "ZADD cd:{0}c1 %s du.test", na);
  for(int i = 0; i < 2; i++) {
    if(i == 0)
      assert_int_equal(it_int(ts_store, cmd), 0);
    else
      assert_int_equal(it_int(ts_store, "ZUNIONSTORE cd:{0}c1 1 cd:{0}c1 WEIGHTS 0"), 1);
    assert_string_not_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 du.test"), want);
    ts_claim(&cl, 2);
    assert_int_equal(cl.n, 0);
    assert_true(cl.wake_us > 300000 && cl.wake_us <= 400000);
    assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 du.test"), want);
  }
}

/* A claim ahead (hlfs --claim-ahead-us): a site due within ahead_us is
 * claimed with how long is left, counted from the claim's clock; the
 * wake-up comes ahead_us before the due time. */
static void test_claim_ahead(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://ah.test/1", 0), item("http://ah.test/2", 0) };
  assert_int_equal(ts_submit("c1", it, 2), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 2);
  assert_int_equal(cl.n, 1);
  assert_int_equal(cl.c[0].hold_us, 0);
  assert_int_equal(ts_complete_d(0, &cl.c[0], 400, DELAY_CRAWL_DELAY, NULL), 1);
  uint64_t na_us = (uint64_t)llround(strtod(it_cmd(ts_store, "HGET s:{0}ah.test na"), NULL) * 1000);
  ts_claim(&cl, 2);
  assert_int_equal(cl.n, 0);
  assert_true(cl.wake_us > 300000 && cl.wake_us <= 400000);
  ts_ahead_us = 100000;
  ts_claim(&cl, 2);
  assert_int_equal(cl.n, 0);
  assert_true(cl.wake_us > 200000 && cl.wake_us <= 300000);
  ts_ahead_us = 500000;
  uint64_t t0 = ts_redis_now_us();
  ts_claim(&cl, 2);
  uint64_t t1 = ts_redis_now_us();
  ts_ahead_us = 0;
  assert_int_equal(cl.n, 1);
  print_message("# hold %llu us, window %llu..%llu\n", (unsigned long long)cl.c[0].hold_us,
                (unsigned long long)(na_us - t1), (unsigned long long)(na_us - t0));
  assert_true(cl.c[0].hold_us >= na_us - t1 && cl.c[0].hold_us <= na_us - t0);
  assert_true(cl.c[0].hold_us > 200000);
}

/* The completing process's own next allowed time (local_due) comes back
 * with the site's claim while the site's na is the one it went with: a
 * completion without contact keeps both, a lost fetcher's charge (a new
 * na) drops it, as does a completion that brings none. */
static void test_claim_local_due(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://lo.test/1", 0), item("http://lo.test/2", 0),
                             item("http://lo.test/3", 0), item("http://lo.test/4", 0),
                             item("http://lo.test/5", 0) };
  assert_int_equal(ts_submit("c1", it, 5), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].local_due, "");
  ts_local_due = "inst1:777";
  assert_int_equal(ts_complete_d(0, &cl.c[0], 300, DELAY_CRAWL_DELAY, NULL), 1);
  ts_local_due = NULL;
  ts_ahead_us = 1000000;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_true(cl.c[0].hold_us > 0);
  assert_string_equal(cl.c[0].local_due, "inst1:777");
  /* not contacted (a robots verdict): na and its local_due stay */
  assert_int_equal(ts_complete_d(0, &cl.c[0], 0, DELAY_NONE, NULL), 1);
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].local_due, "inst1:777");
  /* the fetcher lost: the site rests 2 s from now (past its na), a time
   * of Redis's alone */
  struct ts_flags f = { 0 };
  assert_int_equal(state_abort(ts_st, 0, cl.c[0].site, cl.c[0].token, 2000, ts_on_flags, &f),
                   STORE_OK);
  assert_true(it_run_until(&f.done, 5000));
  ts_ahead_us = 3000000;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_true(cl.c[0].hold_us > 1000000);
  assert_string_equal(cl.c[0].local_due, "");
  ts_ahead_us = 1000000;
  ts_local_due = "inst1:888";
  assert_int_equal(ts_complete_d(0, &cl.c[0], 300, DELAY_CRAWL_DELAY, NULL), 1);
  ts_local_due = NULL;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].local_due, "inst1:888");
  /* a completion with contact and no local_due drops the old one */
  assert_int_equal(ts_complete_d(0, &cl.c[0], 300, DELAY_CRAWL_DELAY, NULL), 1);
  ts_claim(&cl, 1);
  ts_ahead_us = 0;
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].local_due, "");
}

/* The scripts' per-call work stays per call: a submission reads and writes
 * the request sequence and the client's backlog count once, not once per
 * URL (HINCRBY each, before), and a claim of many sites of one client
 * promotes its due sites once, not once per claim (ZRANGEBYSCORE), and
 * keeps the client's finish tag in its hash only as it leaves the
 * backlog (HSET). Each command a script runs costs the state Redis about
 * 2 us a page beyond its own work (docs/benchmarks.md, "Fewer commands a
 * page"). */
static void test_commands_per_call(void **state)
{
  (void)state;
  enum { N = 20 };
  static char urls[N][32];
  struct state_item it[N];
  for(int i = 0; i < N; i++) {
    snprintf(urls[i], sizeof urls[i], "http://k%d.test/", i);
    it[i] = item(urls[i], 0);
  }
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  assert_int_equal(ts_submit("c1", it, N), STORE_OK);
  assert_int_equal(ts_cmd_calls("hincrby"), 1);
  /* the sequence, the virtual time and the client's tag as it enters the
   * backlog; no look for the client among the waiters of a URL none
   * fetches (submit.lua) */
  assert_int_equal(ts_cmd_calls("hget"), 3);
  static struct ts_claims cl;
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  ts_claim(&cl, N);
  assert_int_equal(cl.n, N);
  assert_int_equal(ts_cmd_calls("zrangebyscore"), 2);  /* the reaper's, and one promote */
  /* a lease each, the virtual time, and the client's finish tag once, as
   * its backlog empties (not once per claim) */
  assert_int_equal(ts_cmd_calls("hset"), N + 2);
  /* one read of the head of vt:{N} for the call, not one per claim; each
   * due site's best request read once, the sites moved out of the due
   * index in one command and into the ready one in one ZADD; a claim pops
   * its site off the ready index (no ZRANGE then ZREM) and does not index
   * it again for its claimer while leased, nor read the waiters of a URL
   * none joined */
  assert_int_equal(ts_cmd_calls("zrange"), 1 + N);
  assert_int_equal(ts_cmd_calls("zremrangebyrank"), 1);
  assert_int_equal(ts_cmd_calls("zpopmin"), 2 * N);
  assert_int_equal(ts_cmd_calls("zadd"), 1 + N);  /* the ready index; the leases */
  assert_int_equal(ts_cmd_calls("zrem"), N + 1);  /* each emptied queue's site; the client */
  assert_int_equal(ts_cmd_calls("hvals"), 0);
  /* the client's claims charged at once: its weight and count read once,
   * its count written once, as its backlog empties (no finish tag in
   * vt:{N} for each claim then) */
  assert_int_equal(ts_cmd_calls("hmget"), N + 2);
  assert_int_equal(ts_cmd_calls("hincrby"), 1);
  /* the shard's virtual time and fence read in that one more HMGET */
  assert_int_equal(ts_cmd_calls("hget"), 0);
  /* and the order and ids are those of one at a time */
  for(int i = 0; i < N; i++)
    assert_string_equal(cl.c[i].url, urls[i]);
  /* a claim that finds nothing due leaves the virtual time unwritten */
  static struct ts_claims none;
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  ts_claim(&none, N);
  assert_int_equal(none.n, 0);
  assert_int_equal(ts_cmd_calls("hset"), 0);
  assert_int_equal(ts_cmd_calls("hget"), 0);
  /* a completion writes the site's politeness in one HSET, its local due
   * time too; its one HDEL is the lease's */
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  ts_local_due = "inst1:1";
  assert_int_equal(ts_complete_d(0, &cl.c[0], 300, DELAY_CRAWL_DELAY, NULL), 1);
  ts_local_due = NULL;
  assert_int_equal(ts_cmd_calls("hset"), 1);
  assert_int_equal(ts_cmd_calls("hdel"), 1);
  assert_non_null(strstr(it_cmd(ts_store, "HGET s:{0}k0.test lo"), "inst1:1|"));
  /* without one, 'lo' is emptied in the same HSET, not deleted apart */
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  assert_int_equal(ts_complete_d(0, &cl.c[1], 300, DELAY_CRAWL_DELAY, NULL), 1);
  assert_int_equal(ts_cmd_calls("hset"), 1);
  assert_int_equal(ts_cmd_calls("hdel"), 1);
  assert_string_equal(it_cmd(ts_store, "HGET s:{0}k1.test lo"), "");
}

/* While a client's request holds a site's lease, the site is in neither
 * of that client's indexes: not when the claim takes it, not when the
 * client queues more there (enter), not when the lease is renewed; other
 * clients queued there are due at the lease's end. The completion then
 * indexes the site for all at its next allowed time, and does not touch
 * the ready index of the lease's own client (one ZREM a page less). */
static void test_claimer_not_indexed_while_leased(void **state)
{
  (void)state;
  struct state_item a = item("http://own.test/1", 0);
  assert_int_equal(ts_submit("c1", &a, 1), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  struct state_item b = item("http://own.test/2", 0), c = item("http://own.test/3", 0);
  assert_int_equal(ts_submit("c1", &b, 1), STORE_OK);
  assert_int_equal(ts_submit("c2", &c, 1), STORE_OK);
  char want[32];
  snprintf(want, sizeof want, "%llu", (unsigned long long)cl.c[0].lease_until * 1000);
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 own.test"), "(nil)");
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c2 own.test"), want);
  const char *sites[] = { cl.c[0].site }, *tokens[] = { cl.c[0].token };
  struct ts_flags f = { 0 };
  assert_int_equal(state_renew(ts_st, 0, 60000, sites, tokens, 1, ts_on_flags, &f), STORE_OK);
  assert_true(it_run_until(&f.done, 5000));
  assert_int_equal(f.held[0], 1);
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 own.test"), "(nil)");
  assert_string_equal(it_cmd(ts_store, "ZSCORE cr:{0}c1 own.test"), "(nil)");
  assert_string_not_equal(it_cmd(ts_store, "ZSCORE cd:{0}c2 own.test"), want);
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  assert_int_equal(ts_complete_d(0, &cl.c[0], 300, DELAY_CRAWL_DELAY, NULL), 1);
  assert_int_equal(ts_cmd_calls("zrem"), 2);  /* the lease index; c2's ready index */
  char na[40];
  snprintf(na, sizeof na, "%s", it_cmd(ts_store, "HGET s:{0}own.test na"));
  snprintf(want, sizeof want, "%lld", llround(strtod(na, NULL) * 1000));
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c1 own.test"), want);
  assert_string_equal(it_cmd(ts_store, "ZSCORE cd:{0}c2 own.test"), want);
}

/* GET /status's busiest sites count a site whose lease the client's own
 * request holds (in neither of its indexes meanwhile): its queue there
 * is found through the lease index. */
static void test_fleet_counts_leased_sites(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://busy.test/1", 0), item("http://busy.test/2", 0),
                             item("http://busy.test/3", 0), item("http://calm.test/1", 0) };
  assert_int_equal(ts_submit("c1", it, 4), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].site, "busy.test");
  const char *clients[] = { "c1" };
  struct state_fleet_args a = { .replica_ttl_ms = 10000, .top = 4, .examine = 100,
                                .clients = clients, .nclients = 1 };
  struct ts_fleet g = { 0 };
  assert_int_equal(state_fleet(ts_st, &a, ts_on_fleet, &g), STORE_OK);
  assert_true(it_run_until(&g.done, 5000));
  assert_int_equal(g.err, STORE_OK);
  assert_int_equal(g.nsites, 2);
  assert_string_equal(g.site[0], "busy.test");
  assert_int_equal(g.queued[0], 2);
  assert_string_equal(g.site[1], "calm.test");
  assert_int_equal(g.queued[1], 1);
  assert_int_equal(g.pairs, 2);
  assert_int_equal(g.examined, 2);
  /* within the bound: one pair examined, the leased one not reached */
  a.examine = 1;
  g = (struct ts_fleet){ 0 };
  assert_int_equal(state_fleet(ts_st, &a, ts_on_fleet, &g), STORE_OK);
  assert_true(it_run_until(&g.done, 5000));
  assert_int_equal(g.nsites, 1);
  assert_int_equal(g.examined, 1);
}

static void test_politeness_next_at(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://p.test/1", 0), item("http://p.test/2", 0) };
  assert_int_equal(ts_submit("c1", it, 2), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 2);
  assert_int_equal(cl.n, 1);
  uint64_t next_at;
  assert_int_equal(ts_complete_d(0, &cl.c[0], 400, DELAY_CRAWL_DELAY, &next_at), 1);
  uint64_t done_at = clock_mono_ms();
  struct ts_site si;
  ts_site_info("p.test", &si);
  assert_int_equal(si.s.next_at, next_at);
  assert_string_equal(si.reason, "crawl_delay");
  assert_int_equal(si.s.queued, 1);
  assert_int_equal(si.s.clients, 1);
  assert_false(si.s.in_flight);
  ts_claim(&cl, 2);
  assert_int_equal(cl.n, 0);
  assert_true(cl.wake > 300 && cl.wake <= 401);  /* next_at rounds up */
  /* to the microsecond: the scheduler's timer is armed with it */
  assert_true(cl.wake_us > 300000 && cl.wake_us <= 401000);
  while(cl.n == 0) {
    ts_sleep(20);
    ts_claim(&cl, 2);
  }
  assert_true(clock_mono_ms() - done_at >= 390);
  assert_true(cl.now >= next_at);
  assert_int_equal(cl.c[0].streak, 0);
  /* an error streak is stored with a backoff and handed back at claim */
  struct state_done d = { .site = cl.c[0].site, .token = cl.c[0].token };
  d.delay = (struct delay_out){ .delay_ms = 50, .reason = DELAY_BACKOFF, .streak = 3, .backoff = true };
  struct ts_done r = { 0 };
  assert_int_equal(state_complete(ts_st, 0, &d, ts_on_done, &r), STORE_OK);
  assert_true(it_run_until(&r.done, 5000));
  ts_site_info("p.test", &si);
  assert_int_equal(si.s.error_streak, 3);
  assert_int_equal(si.s.backoff_until, si.s.next_at);
  assert_string_equal(si.reason, "backoff");
  assert_int_equal(si.s.queued, 0);
  /* the next completion without a backoff clears it */
  struct state_item more[] = { item("http://p.test/3", 0) };
  assert_int_equal(ts_submit("c1", more, 1), STORE_OK);
  do {
    ts_sleep(20);
    ts_claim(&cl, 2);
  } while(cl.n == 0);
  assert_int_equal(ts_complete_d(0, &cl.c[0], 100, DELAY_CRAWL_DELAY, NULL), 1);
  ts_site_info("p.test", &si);
  assert_int_equal(si.s.backoff_until, 0);
  assert_string_equal(si.reason, "crawl_delay");
}

static void test_lease_expiry_reap_and_abandon(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://l.test/a", 0) };
  assert_int_equal(ts_submit("c1", it, 1), STORE_OK);
  static struct ts_claims cl;
  ts_claim_opt(&cl, 0, 1, 150, 3);
  assert_int_equal(cl.n, 1);
  struct ts_claim dead = cl.c[0];
  ts_claim_opt(&cl, 0, 1, 150, 3);
  assert_int_equal(cl.n, 0);
  ts_sleep(200);
  /* the holder died: its request is claimed again, one attempt more */
  ts_claim_opt(&cl, 0, 1, 150, 3);
  assert_int_equal(cl.reaped, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].rid, dead.rid);
  assert_int_equal(cl.c[0].q.attempts, 1);
  assert_string_not_equal(cl.c[0].token, dead.token);
  /* the old holder's late completion is refused and publishes nothing */
  assert_int_equal(ts_complete(&dead, 0), 0);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 0);
  assert_int_equal(state_stats(ts_st)->lease_lost, 1);
  /* third expiry with max_attempts 3: given up, published as abandoned */
  ts_sleep(200);
  ts_claim_opt(&cl, 0, 1, 150, 3);
  assert_int_equal(cl.reaped, 1);
  assert_int_equal(cl.c[0].q.attempts, 2);
  ts_sleep(200);
  ts_claim_opt(&cl, 0, 1, 150, 3);
  assert_int_equal(cl.abandoned, 1);
  assert_int_equal(cl.n, 0);
  const char *r = ts_stream("c1");
  assert_non_null(strstr(r, "url,http://l.test/a,a,3,o,abandoned"));
  assert_int_equal(state_stats(ts_st)->abandoned, 1);
  assert_int_equal(state_stats(ts_st)->leases_reaped, 2);
  /* the quota count went back to zero */
  assert_string_equal(it_cmd(ts_store, "HGET cl:{0}c1 n"), "0");
}

static void test_renew_and_abort(void **state)
{
  (void)state;
  struct state_item it[] = { item("http://r.test/a", 0), item("http://r2.test/b", 0) };
  assert_int_equal(ts_submit("c1", it, 2), STORE_OK);
  static struct ts_claims cl;
  ts_claim_opt(&cl, 0, 2, 200, 3);
  assert_int_equal(cl.n, 2);
  const char *sites[] = { cl.c[0].site, cl.c[1].site, "r.test" };
  const char *tokens[] = { cl.c[0].token, cl.c[1].token, "bogus" };
  for(int k = 0; k < 3; k++) {
    ts_sleep(120);
    struct ts_flags f = { 0 };
    assert_int_equal(state_renew(ts_st, 0, 200, sites, tokens, 3, ts_on_flags, &f), STORE_OK);
    assert_true(it_run_until(&f.done, 5000));
    assert_int_equal(f.n, 3);
    assert_int_equal(f.held[0], 1);
    assert_int_equal(f.held[1], 1);
    assert_int_equal(f.held[2], 0);
  }
  /* 360 ms after the claim, the renewed leases still hold */
  static struct ts_claims c2;
  ts_claim_opt(&c2, 0, 2, 200, 3);
  assert_int_equal(c2.n, 0);
  assert_int_equal(c2.reaped, 0);
  /* give one back: it is claimable at once, attempts unchanged */
  struct ts_flags f = { 0 };
  assert_int_equal(state_abort(ts_st, 0, cl.c[0].site, cl.c[0].token, 0, ts_on_flags, &f), STORE_OK);
  assert_true(it_run_until(&f.done, 5000));
  assert_int_equal(f.held[0], 1);
  ts_claim_opt(&c2, 0, 2, 200, 3);
  assert_int_equal(c2.n, 1);
  assert_string_equal(c2.c[0].rid, cl.c[0].rid);
  assert_int_equal(c2.c[0].q.attempts, 0);
  assert_int_equal(state_stats(ts_st)->aborted, 1);
  assert_int_equal(state_stats(ts_st)->renewed, 6);
}

static void test_robots_first(void **state)
{
  (void)state;
  struct ts_rob o;
  ts_robots_get("http://rb.test:80", &o);
  assert_int_equal(o.r.status, 0);  /* no record yet */
  struct state_item it[] = { item("http://rb.test/page", 0) };
  assert_int_equal(ts_submit("c1", it, 1), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 1);
  /* the scheduler decides robots.txt comes first: the fetch it makes under
   * this lease counts for the site, the request goes back to the head */
  struct state_done d = { .site = cl.c[0].site, .token = cl.c[0].token, .response_ms = 5 };
  d.delay = (struct delay_out){ .delay_ms = 250, .reason = DELAY_MIN_DELAY };
  struct state_robots rec = { .status = 2, .body = "User-agent: *\nDisallow: /private\n",
                              .crawl_delay_ms = 1500, .ttl_ms = 60000 };
  rec.body_len = strlen(rec.body);
  struct ts_done r = { 0 };
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  assert_int_equal(state_robots_done(ts_st, 0, &d, "http://rb.test:80", &rec, ts_on_done, &r),
                   STORE_OK);
  assert_true(it_run_until(&r.done, 5000));
  assert_int_equal(r.held, 1);
  /* the site's politeness in one HSET, the record whole in another */
  assert_int_equal(ts_cmd_calls("hset"), 2);
  ts_robots_get("http://rb.test:80", &o);
  assert_int_equal(o.r.status, 2);
  assert_string_equal(o.body, rec.body);
  assert_int_equal(o.r.crawl_delay_ms, 1500);
  assert_int_equal(o.r.expires_at - o.r.fetched_at, 60000);
  assert_int_equal(o.r.retry_at, 0);
  assert_true(it_int(ts_store, "PTTL r:{0}http://rb.test:80") > 86400000);
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 0);  /* politeness of the robots fetch */
  ts_sleep(260);
  ts_claim(&cl, 1);
  assert_int_equal(cl.n, 1);
  assert_string_equal(cl.c[0].rid, it[0].rid);
  assert_int_equal(cl.c[0].q.attempts, 0);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 0);  /* no result for robots */
}

static void test_results_at_least_once(void **state)
{
  (void)state;
  static struct ts_res o;
  ts_results_read("gw1", &o, 0);  /* no stream yet: created, empty */
  assert_int_equal(o.n, 0);
  char urls[3][32];
  struct state_item it[3];
  for(int i = 0; i < 3; i++) {
    snprintf(urls[i], sizeof urls[i], "http://res%d.test/", i);
    it[i] = item(urls[i], 0);
  }
  assert_int_equal(ts_submit("c1", it, 3), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, 3);
  assert_int_equal(cl.n, 3);
  for(int i = 0; i < 3; i++)
    assert_int_equal(ts_complete(&cl.c[i], 0), 1);
  ts_results_read("gw1", &o, 0);
  assert_int_equal(o.n, 3);
  assert_int_equal(o.shard[0], 0);
  const char *first[] = { o.id[0] };
  assert_int_equal(ts_ack(first, 1), 1);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 2);  /* acked = deleted */
  static struct ts_res again;
  ts_results_read("gw2", &again, 0);
  assert_int_equal(again.n, 0);  /* delivered, not yet due for redelivery */
  ts_sleep(120);
  memset(&again, 0, sizeof again);
  assert_int_equal(state_results_reclaim(ts_st, 0, "c1", "gw2", 100, 16, ts_on_results, &again),
                   STORE_OK);
  assert_true(it_run_until(&again.done, 5000));
  assert_int_equal(again.n, 2);
  assert_string_equal(again.rid[0], o.rid[1]);
  assert_string_equal(again.rid[1], o.rid[2]);
  const char *rest[] = { again.id[0], again.id[1] };
  assert_int_equal(ts_ack(rest, 2), 2);
  assert_int_equal(ts_ack(rest, 2), 0);
  memset(&again, 0, sizeof again);
  assert_int_equal(state_results_reclaim(ts_st, 0, "c1", "gw2", 0, 16, ts_on_results, &again),
                   STORE_OK);
  assert_true(it_run_until(&again.done, 5000));
  assert_int_equal(again.n, 0);
  struct state_stats *s = state_stats(ts_st);
  assert_int_equal(s->results_read, 3);
  assert_int_equal(s->results_redelivered, 2);
  assert_int_equal(s->results_acked, 3);
  /* a blocking read waits for the next result, not longer */
  uint64_t t0 = clock_mono_ms();
  ts_results_read("gw1", &o, 150);
  assert_int_equal(o.n, 0);
  assert_true(clock_mono_ms() - t0 >= 140);
}

/* An acknowledgement drops its results from the stream: those below the
 * first result still pending (below the last delivered when none is) by
 * one XTRIM, those acknowledged out of order by XDEL. Results not yet
 * delivered stay, whatever ids an acknowledgement names. */
static void test_ack_trims_in_order(void **state)
{
  (void)state;
  static struct ts_res o;
  ts_results_read("gw1", &o, 0);  /* the group, from the stream's start */
  enum { N = 6 };
  char urls[N][32];
  struct state_item it[N];
  for(int i = 0; i < N; i++) {
    snprintf(urls[i], sizeof urls[i], "http://tr%d.test/", i);
    it[i] = item(urls[i], 0);
  }
  assert_int_equal(ts_submit("c1", it, N), STORE_OK);
  static struct ts_claims cl;
  ts_claim(&cl, N);
  assert_int_equal(cl.n, N);
  for(int i = 0; i < N; i++)
    assert_int_equal(ts_complete(&cl.c[i], 0), 1);
  memset(&o, 0, sizeof o);
  assert_int_equal(state_results_read(ts_st, 0, "c1", "gw1", 4, 0, ts_on_results, &o), STORE_OK);
  assert_true(it_run_until(&o.done, 5000));
  assert_int_equal(o.n, 4);
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  const char *late[] = { o.id[2], o.id[3] }, *early[] = { o.id[0], o.id[1] },
             *bogus[] = { "99999999999999-0", "0-1" };
  assert_int_equal(ts_ack(late, 2), 2);  /* out of order: 0 and 1 still pending */
  assert_int_equal(ts_cmd_calls("xdel"), 1);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), N - 2);
  assert_int_equal(ts_ack(bogus, 2), 0);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), N - 2);  /* none undelivered lost */
  assert_string_equal(it_cmd(ts_store, "CONFIG RESETSTAT"), "OK");
  assert_int_equal(ts_ack(early, 2), 2);  /* in order: trimmed, not found one by one */
  assert_int_equal(ts_cmd_calls("xdel"), 0);
  assert_int_equal(ts_cmd_calls("xtrim"), 1);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 2);  /* the two not delivered */
  ts_results_read("gw1", &o, 0);
  assert_int_equal(o.n, 2);
  const char *last[] = { o.id[0], o.id[1] };
  assert_int_equal(ts_ack(last, 2), 2);
  assert_int_equal(it_int(ts_store, "XLEN x:{0}c1"), 0);
}

/* Client A queues 100,000 URLs over 1,000 sites, then client B 100 URLs
 * on 100 of the same sites. With zero delays and claims of 16 at a time,
 * start-time fair queuing serves B every other claim: all of B's requests
 * are claimed within the first 2 x 100 + 16 claims after B's submission. */
static void test_fair_share_small_client_not_starved(void **state)
{
  (void)state;
  enum { SITES = 1000, PER = 100, BATCH = 5000 };
  static char urls[BATCH][48];
  static struct state_item it[BATCH];
  uint64_t t0 = clock_mono_ms();
  for(int b = 0; b < SITES * PER / BATCH; b++) {
    for(int i = 0; i < BATCH; i++) {
      int k = b * BATCH + i;
      snprintf(urls[i], sizeof urls[i], "http://s%04d.test/a/%06d", k % SITES, k);
      it[i] = item(urls[i], 0);
    }
    assert_int_equal(ts_submit("A", it, BATCH), STORE_OK);
    assert_int_equal(it[BATCH - 1].code, STATE_SUB_ACCEPTED);
  }
  print_message("# submit 100000 URLs: %llu ms\n", (unsigned long long)(clock_mono_ms() - t0));
  for(int i = 0; i < 100; i++) {
    snprintf(urls[i], sizeof urls[i], "http://s%04d.test/b/%d", i * 7 % SITES, i);
    it[i] = item(urls[i], 0);
  }
  assert_int_equal(ts_submit("B", it, 100), STORE_OK);
  static struct ts_claims cl;
  unsigned claims = 0, b_done = 0, last_b = 0;
  while(b_done < 100 && claims < 5000) {
    ts_claim(&cl, 16);
    assert_true(cl.n > 0);
    for(size_t i = 0; i < cl.n; i++) {
      claims++;
      if(!strcmp(cl.c[i].client, "B")) {
        b_done++;
        last_b = claims;
      }
      assert_int_equal(ts_complete(&cl.c[i], 0), 1);
    }
  }
  print_message("# B's 100 requests claimed by claim %u\n", last_b);
  assert_int_equal(b_done, 100);
  assert_true(last_b <= 2 * 100 + 16);
}

/* Weights: 3 to 1 over the first 400 claims, both backlogged. */
/* A claim of many keeps its own copy of the head of vt:{N} instead of
 * reading it again after each claim (lua_claim's vt_head, vt_moved), and
 * writes each client's charges once (lib.lua's cl_flush): the clients it
 * serves, in order, and their counts and tags after it, are those of the
 * same claims made one at a time. Weights 2 and 1 make finish tags equal, which Redis orders by
 * name; a head (scan_clients) of 3, smaller than the 6 clients
 * backlogged, makes a client charged past the copy's end, or leaving it,
 * let in one the copy does not hold (each case below fails when one of
 * those three checks is taken out). */
static void submit_six(const unsigned weight[6])
{
  static char urls[6][10][40];
  for(int c = 0; c < 6; c++) {
    struct state_item it[10];
    for(int i = 0; i < 10; i++) {
      snprintf(urls[c][i], sizeof urls[c][i], "http://o%d-%d.test/", c, i);
      it[i] = item(urls[c][i], 0);
    }
    char name[8];
    snprintf(name, sizeof name, "c%d", c);
    struct state_client cl = { .name = name, .weight = weight[c] };
    assert_int_equal(ts_submit_c(&cl, it, 10), STORE_OK);
  }
}

/* The clients claimed, in order, and after 30 claims each client's queued
 * count and finish tag as Redis holds them. */
static void claim_order(unsigned scan, const unsigned weight[6], char order[61],
                        char counts[512], unsigned per_call)
{
  static struct ts_claims cl;
  ts_open(1);
  ts_scan_clients = scan;
  submit_six(weight);
  for(unsigned n = 0; n < 60; n += per_call) {
    ts_claim(&cl, per_call);
    assert_int_equal(cl.n, per_call);
    for(unsigned i = 0; i < per_call; i++)
      order[n + i] = cl.c[i].client[1];
    if(n + per_call != 30)
      continue;
    size_t len = 0;
    for(int c = 0; c < 6; c++) {
      char cmd[64];
      snprintf(cmd, sizeof cmd, "HGET cl:{0}c%d qn", c);
      len += (size_t)snprintf(counts + len, 512 - len, "c%d %s ", c, it_cmd(ts_store, cmd));
      snprintf(cmd, sizeof cmd, "ZSCORE vt:{0} c%d", c);
      len += (size_t)snprintf(counts + len, 512 - len, "%s; ", it_cmd(ts_store, cmd));
    }
  }
  order[60] = '\0';
  ts_close();
}

static void test_claim_order_as_one_at_a_time(void **state)
{
  (void)state;
  static const struct { unsigned scan, weight[6]; } cases[] = {
    { 1000, { 2, 1, 1, 2, 1, 1 } }, { 3, { 2, 1, 1, 2, 1, 1 } }, { 3, { 3, 1, 2, 3, 1, 2 } },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char one[61], many[61], one_counts[512], many_counts[512];
    claim_order(cases[i].scan, cases[i].weight, one, one_counts, 1);
    claim_order(cases[i].scan, cases[i].weight, many, many_counts, 30);
    print_message("# scan_clients %u, clients claimed: %s\n", cases[i].scan, one);
    print_message("# after 30: %s\n", one_counts);
    assert_string_equal(many, one);
    assert_string_equal(many_counts, one_counts);
  }
}

static void test_weights_and_priorities(void **state)
{
  (void)state;
  static char urls[800][48];
  static struct state_item it[400];
  for(int i = 0; i < 400; i++) {
    snprintf(urls[i], sizeof urls[i], "http://w%03d.test/%d", i % 100, i);
    it[i] = item(urls[i], i < 200 ? 0 : 5);  /* the later half more urgent */
  }
  struct state_client heavy = { .name = "heavy", .weight = 3 };
  struct state_client light = { .name = "light", .weight = 1 };
  assert_int_equal(ts_submit_c(&heavy, it, 400), STORE_OK);
  for(int i = 0; i < 400; i++) {
    snprintf(urls[400 + i], sizeof urls[0], "http://v%03d.test/%d", i % 100, i);
    it[i] = item(urls[400 + i], 0);
  }
  assert_int_equal(ts_submit_c(&light, it, 400), STORE_OK);
  static struct ts_claims cl;
  unsigned n_heavy = 0, n = 0, heavy_low_early = 0;
  while(n < 400) {
    ts_claim(&cl, 16);
    for(size_t i = 0; i < cl.n && n < 400; i++, n++) {
      if(!strcmp(cl.c[i].client, "heavy")) {
        n_heavy++;
        /* 200 urgent ones first: none of priority 0 among the first 200 */
        if(n_heavy <= 200 && cl.c[i].q.prio != 5)
          heavy_low_early++;
      }
    }
    for(size_t i = 0; i < cl.n; i++)
      assert_int_equal(ts_complete(&cl.c[i], 0), 1);
  }
  print_message("# heavy (weight 3) got %u of 400 claims\n", n_heavy);
  assert_true(n_heavy >= 290 && n_heavy <= 310);
  assert_int_equal(heavy_low_early, 0);
}

/* Registrable-domain sites: hosts under one domain share a site, and the
 * script rebuilds each URL from its folded member (H/S/u forms). */
static void test_domain_sites_roundtrip(void **state)
{
  (void)state;
  state_free(&ts_st);
  struct state_cfg c = ts_cfg(1);
  c.site_mode = SITE_BY_DOMAIN;
  ts_st = state_new(&ts_store, 1, &c);
  ts_wait_ready(ts_st);
  /* canonical URLs: the state layer is given no other kind */
  const char *urls[] = { "https://www.b.co.uk/x", "http://shop.b.co.uk:81/y?z",
                         "http://b.co.uk/z", "https://a.b.b.co.uk/", "http://b.co.uk:8080/p%20q" };
  struct state_item it[5];
  for(int i = 0; i < 5; i++)
    it[i] = item(urls[i], 0);
  assert_int_equal(ts_submit("c1", it, 5), STORE_OK);
  static struct ts_claims cl;
  for(int i = 0; i < 5; i++) {
    ts_claim(&cl, 5);
    assert_int_equal(cl.n, 1);
    assert_string_equal(cl.c[0].site, "b.co.uk");
    assert_string_equal(cl.c[0].url, urls[i]);
    assert_int_equal(ts_complete(&cl.c[0], 0), 1);
  }
  const char *r = ts_stream("c1");
  for(int i = 0; i < 5; i++) {
    char want[96];
    snprintf(want, sizeof want, "url,%s,", urls[i]);
    assert_non_null(strstr(r, want));
  }
}

static void test_shards(void **state)
{
  (void)state;
  ts_open(4);
  static char urls[40][40];
  struct state_item it[40];
  for(int i = 0; i < 40; i++) {
    snprintf(urls[i], sizeof urls[i], "http://sh%02d.test/x", i);
    it[i] = item(urls[i], 0);
  }
  assert_int_equal(ts_submit("c1", it, 40), STORE_OK);
  unsigned per[4] = { 0 }, total = 0;
  static struct ts_claims cl;
  for(unsigned s = 0; s < 4; s++) {
    ts_claim_opt(&cl, s, 64, 30000, 3);
    per[s] = (unsigned)cl.n;
    total += per[s];
    for(size_t i = 0; i < cl.n; i++) {
      assert_int_equal(site_shard(cl.c[i].site, 4), s);
      assert_int_equal(ts_complete_d(s, &cl.c[i], 0, DELAY_NONE, NULL), 1);
    }
  }
  assert_int_equal(total, 40);
  for(unsigned s = 0; s < 4; s++)
    assert_true(per[s] > 0);
  /* one read gathers the results of every shard */
  unsigned got = 0, shards_seen = 0;
  for(int k = 0; k < 4 && got < 40; k++) {
    static struct ts_res o;
    memset(&o, 0, sizeof o);
    assert_int_equal(state_results_read(ts_st, 0, "c1", "gw", 16, 0, ts_on_results, &o), STORE_OK);
    assert_true(it_run_until(&o.done, 5000));
    got += (unsigned)o.n;
    for(size_t i = 0; i < o.n; i++)
      shards_seen |= 1u << o.shard[i];
  }
  assert_int_equal(got, 40);
  assert_int_equal(shards_seen, 15);
  ts_close();
}

int main(void)
{
  it_loop_init();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_order_lease_and_url_roundtrip, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_lease_checked_despite_stale_index, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_dedup_queued_and_in_flight, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_quotas, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_politeness_next_at, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_politeness_next_at_us, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_due_index_us, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_claimer_not_indexed_while_leased, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_fleet_counts_leased_sites, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_claim_ahead, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_claim_local_due, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_commands_per_call, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_lease_expiry_reap_and_abandon, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_renew_and_abort, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_robots_first, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_results_at_least_once, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_ack_trims_in_order, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_fair_share_small_client_not_starved, ts_setup, ts_teardown),
    cmocka_unit_test_setup_teardown(test_weights_and_priorities, ts_setup, ts_teardown),
    cmocka_unit_test_teardown(test_claim_order_as_one_at_a_time, ts_teardown),
    cmocka_unit_test_setup_teardown(test_domain_sites_roundtrip, ts_setup, ts_teardown),
    cmocka_unit_test_teardown(test_shards, ts_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
