/* clients/crawl/robots_wait.c: which causes wait, the per-host rounds
 * (their start, their doubling waits, URLs joining a round under way, the
 * end of a round releasing every URL of it, the last round spent), hosts
 * apart, release in batches, the memory bound, and a checkpoint that
 * keeps each host's rounds and the end of its round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clients/crawl/robots_wait.c"
#include "clients/base/ckfile.h"

#define A 0xa1u  /* hosts' keys */
#define B 0xb2u
#define C 0xc3u

/* Rounds host has had (0: none, or unknown). */
static unsigned rwait_rounds(struct rwait *r, uint64_t host)
{
  struct rw_host *h = host_get(r, host, false);
  return h ? h->rounds : 0;
}

static const struct rwait_opts opts3 = { 3, 30000, 300000, 1u << 20 };

static void test_transient(void **state)
{
  (void)state;
  const char *passing[] = { "timeout", "connect_timeout", "reset", "connect_error",
                            "dns_servfail", "dns_timeout", "robots_5xx", "robots_429",
                            "fetcher_unavailable", "robots_hop_busy", "robots_hop_timeout" };
  const char *final[] = { "dns_nxdomain", "blocked_address", "connect_refused", "tls_error",
                          "dns_error", "protocol_error", "robots_hop_bad_url",
                          "robots_unavailable", "unknown", "", "timeouts" };
  for(size_t i = 0; i < sizeof passing / sizeof passing[0]; i++)
    assert_true(rwait_transient(passing[i]));
  for(size_t i = 0; i < sizeof final / sizeof final[0]; i++)
    assert_false(rwait_transient(final[i]));
  assert_false(rwait_transient(NULL));
}

static void test_delay(void **state)
{
  (void)state;
  const uint64_t want[] = { 30000, 60000, 120000, 240000, 300000, 300000 };
  for(unsigned r = 1; r <= 6; r++)
    assert_int_equal(rwait_delay(&opts3, r), want[r - 1]);
  assert_int_equal(rwait_delay(&opts3, 4000000000u), 300000);  /* no overflow */
  struct rwait_opts z = { 3, 0, 0, 1u << 20 };
  assert_int_equal(rwait_delay(&z, 5), 0);
}

/* Park fp of host at now: the verdict, and the round it waits in. */
static enum rwait_verdict park(struct rwait *r, uint64_t host, uint64_t fp, uint64_t now,
                               unsigned *round, bool *started, uint64_t *due)
{
  return rwait_park(r, host, fp, now, 0, round, started, due);
}

/* The gateway said when it fetches robots.txt again: a round it starts
 * ends after that (and a margin), never before its own length, never past
 * max_ms from now; a URL joining a round under way keeps the round's end. */
static void test_gateway_time(void **state)
{
  (void)state;
  struct rwait *r;
  uint64_t due;
  assert_int_equal(rwait_open(&opts3, &r), CRAWL_OK);
  assert_int_equal(rwait_park(r, A, 1, 1000, 50000, NULL, NULL, &due), RWAIT_WAITS);
  assert_int_equal(due, 50000 + RWAIT_GW_MARGIN_MS);
  assert_int_equal(rwait_park(r, A, 2, 2000, 90000, NULL, NULL, &due), RWAIT_WAITS);
  assert_int_equal(due, 50000 + RWAIT_GW_MARGIN_MS);
  assert_int_equal(rwait_park(r, B, 3, 1000, 5000, NULL, NULL, &due), RWAIT_WAITS);
  assert_int_equal(due, 31000);  /* the gateway's time is sooner: the round's own */
  assert_int_equal(rwait_park(r, C, 4, 1000, 10000000, NULL, NULL, &due), RWAIT_WAITS);
  assert_int_equal(due, 1000 + opts3.max_ms);
  rwait_close(&r);
}

static void test_rounds(void **state)
{
  (void)state;
  struct rwait *r;
  unsigned round;
  bool started;
  uint64_t due, out[8];
  struct rwait_stats st;
  assert_int_equal(rwait_open(&opts3, &r), CRAWL_OK);
  assert_int_equal(park(r, A, 1, 1000, &round, &started, &due), RWAIT_WAITS);
  assert_int_equal(round, 1);
  assert_true(started);
  assert_int_equal(due, 31000);
  /* another URL of the host joins the round; the same URL again is one */
  assert_int_equal(park(r, A, 2, 5000, &round, &started, &due), RWAIT_WAITS);
  assert_false(started);
  assert_int_equal(due, 31000);
  assert_int_equal(park(r, A, 1, 6000, &round, &started, &due), RWAIT_WAITS);
  rwait_stats(r, &st);
  assert_int_equal(st.waiting, 2);
  assert_int_equal(st.hosts, 1);
  assert_int_equal(st.next_due, 31000);
  assert_int_equal(rwait_due(r, 30999, out, 8), 0);
  assert_int_equal(rwait_due(r, 31000, out, 8), 2);
  assert_true((out[0] == 1 && out[1] == 2) || (out[0] == 2 && out[1] == 1));
  rwait_stats(r, &st);
  assert_int_equal(st.waiting + st.hosts + st.next_due, 0);
  assert_int_equal(rwait_due(r, 99999, out, 8), 0);
  /* they failed again: round 2, twice as long; then round 3 */
  assert_int_equal(park(r, A, 2, 40000, &round, &started, &due), RWAIT_WAITS);
  assert_int_equal(round, 2);
  assert_true(started);
  assert_int_equal(due, 100000);
  assert_int_equal(rwait_due(r, 100000, out, 8), 1);
  assert_int_equal(park(r, A, 2, 100500, &round, &started, &due), RWAIT_WAITS);
  assert_int_equal(round, 3);
  assert_int_equal(due, 220500);
  assert_int_equal(park(r, A, 1, 100600, &round, &started, &due), RWAIT_WAITS);  /* joins */
  assert_int_equal(rwait_due(r, 300000, out, 8), 2);
  /* every round spent: final, whatever the URL */
  assert_int_equal(park(r, A, 2, 300001, &round, &started, &due), RWAIT_SPENT);
  assert_int_equal(park(r, A, 7, 300002, NULL, NULL, NULL), RWAIT_SPENT);
  assert_int_equal(rwait_rounds(r, A), 3);
  rwait_stats(r, &st);
  assert_int_equal(st.waiting, 0);
  /* another host has rounds of its own */
  assert_int_equal(rwait_rounds(r, B), 0);
  assert_int_equal(park(r, B, 9, 300003, &round, &started, &due), RWAIT_WAITS);
  assert_int_equal(round, 1);
  rwait_close(&r);
  assert_null(r);
}

static void test_hosts_apart(void **state)
{
  (void)state;
  struct rwait *r;
  uint64_t out[16], due;
  struct rwait_stats st;
  assert_int_equal(rwait_open(&opts3, &r), CRAWL_OK);
  assert_int_equal(park(r, A, 1, 0, NULL, NULL, &due), RWAIT_WAITS);  /* ends 30000 */
  assert_int_equal(park(r, B, 2, 10000, NULL, NULL, &due), RWAIT_WAITS);  /* ends 40000 */
  rwait_stats(r, &st);
  assert_int_equal(st.hosts, 2);
  assert_int_equal(st.next_due, 30000);
  assert_int_equal(rwait_due(r, 35000, out, 16), 1);
  assert_int_equal(out[0], 1);
  rwait_stats(r, &st);
  assert_int_equal(st.next_due, 40000);
  assert_int_equal(st.waiting, 1);
  assert_int_equal(rwait_due(r, 40000, out, 16), 1);
  assert_int_equal(out[0], 2);
  rwait_close(&r);
}

/* A round's URLs go back max at a time; its end comes with the last. */
static void test_batches(void **state)
{
  (void)state;
  struct rwait *r;
  uint64_t out[4];
  struct rwait_stats st;
  assert_int_equal(rwait_open(&opts3, &r), CRAWL_OK);
  for(uint64_t fp = 100; fp < 110; fp++)
    assert_int_equal(park(r, A, fp, 0, NULL, NULL, NULL), RWAIT_WAITS);
  uint64_t seen = 0;
  size_t n, total = 0;
  while((n = rwait_due(r, 30000, out, 4)) > 0) {
    assert_true(n <= 4);
    for(size_t i = 0; i < n; i++)
      seen |= 1ull << (out[i] - 100);
    total += n;
    rwait_stats(r, &st);
    assert_int_equal(st.hosts, total < 10 ? 1 : 0);
  }
  assert_int_equal(total, 10);
  assert_int_equal(seen, 0x3ff);
  /* the round is over: the next failure starts round 2 */
  unsigned round;
  assert_int_equal(park(r, A, 100, 30001, &round, NULL, NULL), RWAIT_WAITS);
  assert_int_equal(round, 2);
  rwait_close(&r);
}

static void test_no_rounds_and_budget(void **state)
{
  (void)state;
  struct rwait *r;
  struct rwait_opts none = { 0, 30000, 300000, 1u << 20 };
  assert_int_equal(rwait_open(&none, &r), CRAWL_OK);
  assert_int_equal(park(r, A, 1, 0, NULL, NULL, NULL), RWAIT_FULL);
  rwait_close(&r);
  struct rwait_opts tiny = { 3, 30000, 300000, 8192 };
  assert_int_equal(rwait_open(&tiny, &r), CRAWL_OK);
  size_t waits = 0, full = 0;
  for(uint64_t fp = 1; fp <= 5000; fp++) {
    enum rwait_verdict v = park(r, fp % 7, fp, 0, NULL, NULL, NULL);
    waits += v == RWAIT_WAITS;
    full += v == RWAIT_FULL;
  }
  assert_true(waits > 0 && full > 0);
  assert_int_equal(waits + full, 5000);
  struct rwait_stats st;
  rwait_stats(r, &st);
  assert_int_equal(st.waiting, waits);
  uint64_t out[64];
  size_t n, back = 0;
  while((n = rwait_due(r, 30000, out, 64)) > 0)
    back += n;
  assert_int_equal(back, waits);
  /* the rounds are over: their URL lists' memory is free again */
  size_t held = st.bytes;
  rwait_stats(r, &st);
  assert_true(st.bytes > 0 && st.bytes <= held - waits * sizeof(uint64_t));
  rwait_close(&r);
}

static void test_checkpoint(void **state)
{
  (void)state;
  static const char magic[8] = { 'T', 'R', 'W', 'A', 'I', 'T', '0', '1' };
  char path[64];
  snprintf(path, sizeof path, "/tmp/test_rwait_%d", (int)getpid());
  struct rwait *r;
  uint64_t due, out[8];
  unsigned round;
  bool started;
  assert_int_equal(rwait_open(&opts3, &r), CRAWL_OK);
  /* A: two rounds had, the second under way; B: one round under way */
  assert_int_equal(park(r, A, 1, 0, NULL, NULL, NULL), RWAIT_WAITS);
  assert_int_equal(rwait_due(r, 30000, out, 8), 1);
  assert_int_equal(park(r, A, 1, 30000, NULL, NULL, &due), RWAIT_WAITS);
  assert_int_equal(due, 90000);
  assert_int_equal(park(r, B, 2, 50000, NULL, NULL, NULL), RWAIT_WAITS);  /* ends 80000 */
  struct ckfile ck;
  assert_int_equal(ckfile_create(&ck, path, magic), CRAWL_OK);
  rwait_save(r, &ck);
  assert_int_equal(ckfile_commit(&ck), CRAWL_OK);
  rwait_close(&r);

  assert_int_equal(rwait_open(&opts3, &r), CRAWL_OK);
  assert_int_equal(ckfile_open(&ck, path, magic), CRAWL_OK);
  rwait_load(r, &ck);
  assert_int_equal(ckfile_close(&ck), CRAWL_OK);
  unlink(path);
  assert_int_equal(rwait_rounds(r, A), 2);
  assert_int_equal(rwait_rounds(r, B), 1);
  struct rwait_stats st;
  rwait_stats(r, &st);
  assert_int_equal(st.waiting, 0);  /* the URLs are the frontier's, queued again */
  assert_int_equal(st.hosts, 2);
  assert_int_equal(st.next_due, 80000);
  /* A's URL fails again before its round's end: it joins the round */
  assert_int_equal(park(r, A, 1, 60000, &round, &started, &due), RWAIT_WAITS);
  assert_int_equal(round, 2);
  assert_false(started);
  assert_int_equal(due, 90000);
  /* B's round ends with none of its URLs back: no URL, the round over */
  assert_int_equal(rwait_due(r, 80000, out, 8), 0);
  rwait_stats(r, &st);
  assert_int_equal(st.hosts, 1);
  assert_int_equal(rwait_due(r, 90000, out, 8), 1);
  assert_int_equal(out[0], 1);
  assert_int_equal(park(r, A, 1, 90001, &round, &started, NULL), RWAIT_WAITS);
  assert_int_equal(round, 3);
  assert_int_equal(rwait_due(r, 1000000, out, 8), 1);
  assert_int_equal(park(r, A, 1, 1000001, NULL, NULL, NULL), RWAIT_SPENT);
  rwait_close(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transient),
    cmocka_unit_test(test_delay),
    cmocka_unit_test(test_rounds),
    cmocka_unit_test(test_gateway_time),
    cmocka_unit_test(test_hosts_apart),
    cmocka_unit_test(test_batches),
    cmocka_unit_test(test_no_rounds_and_budget),
    cmocka_unit_test(test_checkpoint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
