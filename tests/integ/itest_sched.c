/* hlfs/sched/sched.c on a real redis-server with a fake fetch that records when
 * each fetch starts and ends: politeness (one in flight per site, gaps),
 * Retry-After and backoff, robots.txt first, lease renewal and loss, stop,
 * fairness under concurrency, and two scheduler processes sharing one
 * Redis with one of them killed by SIGKILL mid-run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "hlfs/policy/robots_policy.h"
#include "tests/integ/fixture/sched.h"

/* ---- politeness ----------------------------------------------------------- */

static void plan_20ms(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)info;
  (void)nth;
  a->ms = 20;
}

static void test_politeness_gaps_and_budget(void **state)
{
  (void)state;
  fake_plan = plan_20ms;
  sc_submit_urls("c1", "http://p%d.test/%d", 60, 6);
  struct sched_cfg c = sc_cfg(4, 5000, 150);
  struct sched *s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 60, 20000);
  uint64_t min_gap = sc_check_site_gaps(150);
  print_message("# 60 fetches on 6 sites, min_delay 150 ms: smallest gap %.1f ms, "
                "at most %u in flight (budget 4)\n", (double)min_gap / 1000, fake_max_inflight);
  assert_true(fake_max_inflight <= 4);
  assert_int_equal(fake_nev, 60);
  assert_int_equal(sched_stats(s)->fetches, 60);
  assert_int_equal(state_stats(ts_st)->completed, 60);
  sc_stop(&s);
}

static void plan_lagging(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)info;
  (void)nth;
  a->ms = 10;
  a->lag_ms = 300;  /* as when storing the page took that long */
}

/* The delay counts from when the answer was in (sj_credit), not from
 * when the completion reached Redis: with answers in 300 ms before they
 * are handed over, a 400 ms delay leaves about 100 ms between the
 * hand-over and the next fetch, and never less than 400 ms after the
 * answer. */
static void test_delay_counts_from_the_answer(void **state)
{
  (void)state;
  fake_plan = plan_lagging;
  sc_submit_urls("c1", "http://lag%d.test/%d", 4, 1);
  struct sched_cfg c = sc_cfg(4, 5000, 400);
  struct sched *s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 4, 10000);
  uint64_t most = 0, least = UINT64_MAX;
  for(unsigned i = 1; i < fake_nev; i++) {
    uint64_t after_handover = fake_evs[i].start_us - fake_evs[i - 1].end_us;
    uint64_t after_answer = after_handover + 300000;
    if(after_handover > most)
      most = after_handover;
    if(after_answer < least)
      least = after_answer;
  }
  print_message("# 400 ms delay, answers in 300 ms before the hand-over: next fetch %.1f ms at "
                "most after the hand-over, %.1f ms at least after the answer\n",
                (double)most / 1000, (double)least / 1000);
  assert_int_equal(fake_nev, 4);
  assert_true(least >= 399000);  /* the site rests the whole delay */
  assert_true(most < 250000);    /* without the credit: 400 ms and more */
  sc_stop(&s);
}

static void plan_throttle(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)nth;
  a->ms = 5;
  if(strstr(info->url, "/ra"))
    a->status = 503, a->retry_after = "1";
  else if(strstr(info->url, "/err"))
    a->status = 500;
  else if(strstr(info->url, "/reset"))
    a->status = 0, a->transport_err = true;
}

/* Retry-After: 1 holds the site a second; 5xx and resets back off 100,
 * 200, 400 ms; a success resets the streak. */
static void test_retry_after_and_backoff(void **state)
{
  (void)state;
  fake_plan = plan_throttle;
  const char *urls[] = { "http://t.test/ra", "http://t.test/after",
                         "http://b.test/err1", "http://b.test/err2", "http://b.test/reset3",
                         "http://b.test/ok", "http://b.test/after" };
  struct state_item it[7];
  for(int i = 0; i < 7; i++)
    it[i] = (struct state_item){ .url = urls[i], .prio = (unsigned)(7 - i) };
  assert_int_equal(ts_submit("c1", it, 7), STORE_OK);
  struct sched_cfg c = sc_cfg(4, 5000, 10);
  c.max_attempts = 1;  /* the politeness of single answers: no retry (gateway_retry.sh) */
  struct sched *s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 7, 20000);
  uint64_t t_ra_end = 0, t_after = 0, b[5] = { 0 }, b_end[5] = { 0 };
  for(unsigned i = 0; i < fake_nev; i++) {
    if(!strcmp(fake_evs[i].url, "http://t.test/ra"))
      t_ra_end = fake_evs[i].end_us;
    if(!strcmp(fake_evs[i].url, "http://t.test/after"))
      t_after = fake_evs[i].start_us;
    for(int k = 0; k < 5; k++)
      if(!strcmp(fake_evs[i].url, urls[2 + k])) {
        b[k] = fake_evs[i].start_us;
        b_end[k] = fake_evs[i].end_us;
      }
  }
  print_message("# after Retry-After: 1: %.0f ms; backoff gaps %.0f %.0f %.0f then %.0f ms\n",
                (double)(t_after - t_ra_end) / 1000, (double)(b[1] - b_end[0]) / 1000,
                (double)(b[2] - b_end[1]) / 1000, (double)(b[3] - b_end[2]) / 1000,
                (double)(b[4] - b_end[3]) / 1000);
  assert_true(t_after - t_ra_end >= 998000);
  assert_true(b[1] - b_end[0] >= 98000);   /* streak 1: 100 ms */
  assert_true(b[2] - b_end[1] >= 198000);  /* streak 2: 200 ms */
  assert_true(b[3] - b_end[2] >= 398000);  /* streak 3: 400 ms */
  assert_true(b[4] - b_end[3] < 300000);   /* success: back to min_delay */
  const char *r = ts_stream("c1");
  assert_non_null(strstr(r, "url,http://t.test/ra,a,1,o,http_error,hs,503"));
  assert_non_null(strstr(r, "url,http://b.test/reset3,a,1,o,transport_error,hs,0"));
  sc_stop(&s);
}

/* ---- robots.txt first ------------------------------------------------------ */


static void plan_robots(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)nth;
  a->ms = 10;
  if(info->kind == SCHED_ROBOTS)
    a->body = "User-agent: *\nCrawl-delay: 0.3\nDisallow: /private\n";
  /* The answer comes at the end of a millisecond and the digest ends in
   * the next: a delay counted from whole milliseconds read at both ends
   * took 1 ms off for 0.1 (sched_hop.c), and the first page came early. */
  a->ms_end = info->kind == SCHED_ROBOTS;
  robots_digest_slow = info->kind == SCHED_ROBOTS;
}

static void test_robots_first_and_crawl_delay(void **state)
{
  (void)state;
  fake_plan = plan_robots;
  robots_checks = 0;
  sc_submit_urls("c1", "http://rob%d.test/public/%d", 3, 1);
  sc_submit_urls("c1", "http://rob%d.test/private/%d", 2, 1);
  struct sched_cfg c = sc_cfg(4, 5000, 50);
  c.robots = true;
  struct sched *s = sc_new(&c);
  sched_start(s);
  /* robots.txt's completion leaves the site's next allowed time in this
   * process's clock too (lo: "<instance>:<us>|<na>"), so that its own
   * claim of the first page holds it until then (sched_not_before) */
  for(int i = 0; i < 1000 && !state_stats(ts_st)->robots_stored; i++)
    ts_sleep(1);
  const char *lo = it_cmd(ts_store, "HGET s:{0}rob0.test lo");
  assert_non_null(lo);
  assert_int_equal(strspn(lo, "0123456789abcdef"), 16);
  assert_true(lo[16] == ':' && strchr(lo, '|'));
  sc_run_until_results("c1", 5, 20000);
  /* the first fetch was robots.txt, then only the three public pages */
  assert_int_equal(fake_nev, 4);
  assert_int_equal(fake_evs[0].kind, SCHED_ROBOTS);
  assert_string_equal(fake_evs[0].url, "http://rob0.test/robots.txt");
  for(unsigned i = 1; i < fake_nev; i++)
    assert_non_null(strstr(fake_evs[i].url, "/public/"));
  /* Crawl-delay 300 ms spaces every request, the robots fetch included */
  uint64_t gap = sc_check_site_gaps(300);
  print_message("# robots.txt first, then 3 pages: smallest gap %.3f ms (crawl-delay 300)\n",
                (double)gap / 1000);
  const struct sched_stats *ss = sched_stats(s);
  assert_int_equal(ss->robots_fetches, 1);
  assert_int_equal(ss->robots_disallowed, 2);
  assert_int_equal(ss->robots_lookups, 1);  /* then the replica's cache */
  assert_int_equal(state_stats(ts_st)->robots_stored, 1);
  const char *r = ts_stream("c1");
  assert_non_null(strstr(r, "/private/1,a,1,o,robots_disallowed,hs,0"));
  /* the robots request was not the client's: five results, no more */
  assert_int_equal(sc_results_len("c1"), 5);
  /* a second replica reads the record from Redis instead of fetching */
  sc_stop(&s);
  sc_reset();
  fake_plan = plan_robots;
  sc_submit_urls("c1", "http://rob%d.test/more/%d", 1, 1);
  s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 6, 20000);
  assert_int_equal(fake_nev, 1);
  assert_int_equal(sched_stats(s)->robots_fetches, 0);
  assert_int_equal(sched_stats(s)->robots_lookups, 1);
  sc_stop(&s);
}

/* ---- robots.txt redirects --------------------------------------------------- */

/* a.test: /robots.txt -> /r1 (same site) -> http://b.test/r2 (another site,
 * which has its own pages queued) -> rules. c.test: a redirect loop. */
static void plan_hops(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)nth;
  a->ms = 40;
  if(info->kind != SCHED_ROBOTS)
    return;
  if(!strcmp(info->url, "http://a.test/robots.txt"))
    a->status = 301, a->location = "http://a.test/r1";
  else if(!strcmp(info->url, "http://a.test/r1"))
    a->status = 302, a->location = "http://b.test/r2";
  else if(!strncmp(info->url, "http://c.test/", 14))
    a->status = 307, a->location = "http://c.test/loop";
  else
    a->body = "User-agent: *\nDisallow: /private\n";
}

static unsigned count_url(const char *url)
{
  unsigned n = 0;
  for(unsigned i = 0; i < fake_nev; i++)
    n += !strcmp(fake_evs[i].url, url);
  return n;
}

/* Each hop under the politeness of the site it is on: the hop to b.test
 * takes b.test's lease (never in flight with b.test's own fetches, spaced
 * by its minimum delay), the hop on a.test waits for a.test's delay. */
static void test_robots_redirect_hops(void **state)
{
  (void)state;
  fake_plan = plan_hops;
  sc_submit_urls("c1", "http://b.test/%d/page/%d", 6, 1);
  sc_submit_urls("c2", "http://a.test/public/%d%d", 1, 1);
  sc_submit_urls("c2", "http://a.test/private/%d%d", 1, 1);
  sc_submit_urls("c2", "http://c.test/x/%d%d", 1, 1);
  struct sched_cfg c = sc_cfg(8, 5000, 200);
  c.robots = true;
  struct sched *s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 6, 30000);
  sc_run_until_results("c2", 3, 30000);
  uint64_t gap = sc_check_site_gaps(200);
  print_message("# hops: smallest gap per site %.0f ms (min delay 200)\n", (double)gap / 1000);
  assert_int_equal(count_url("http://a.test/r1"), 1);
  assert_int_equal(count_url("http://b.test/r2"), 1);
  assert_int_equal(count_url("http://a.test/public/00"), 1);
  assert_int_equal(count_url("http://a.test/private/00"), 0);
  /* the rules of the last hop apply to a.test, and the record says where
   * they came from */
  assert_string_equal(it_cmd(ts_store, "HGET r:{0}http://a.test:80 rh"), "2");
  assert_string_equal(it_cmd(ts_store, "HGET r:{0}http://a.test:80 ru"), "http://b.test/r2");
  /* the loop: /robots.txt and 5 hops, then the digest gives up */
  assert_int_equal(count_url("http://c.test/robots.txt"), 1);
  assert_int_equal(count_url("http://c.test/loop"), 5);
  assert_string_equal(it_cmd(ts_store, "HGET r:{0}http://c.test:80 rh"), "5");
  assert_int_equal(sched_stats(s)->robots_hops, 7);
  assert_int_equal(fake_max_inflight <= 8, 1);
  /* no lease is left behind: b.test's hop lease was given back */
  assert_int_equal(it_int(ts_store, "ZCARD lz:{0}"), 0);
  sc_stop(&s);
}

/* d.test redirects to e.test while e.test is busy with a long fetch: the
 * hop waits at most robots_hop_wait_ms, then counts as unreachable; e.test
 * never has two requests in flight. */
static void plan_busy(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)nth;
  a->ms = 30;
  if(!strcmp(info->url, "http://e.test/long"))
    a->ms = 3000;  /* far longer than the hop's 300 ms wait, even on a loaded machine */
  else if(!strcmp(info->url, "http://d.test/robots.txt"))
    a->status = 301, a->location = "http://e.test/r";
  else if(info->kind == SCHED_ROBOTS)
    a->body = "User-agent: *\n";
}

static void test_robots_hop_gives_up(void **state)
{
  (void)state;
  fake_plan = plan_busy;
  struct state_item it[2] = { { .url = "http://e.test/long", .prio = 7 },
                              { .url = "http://d.test/a", .prio = 7 } };
  assert_int_equal(ts_submit("c1", it, 1), STORE_OK);
  struct sched_cfg c = sc_cfg(4, 5000, 0);
  c.robots = true;
  c.robots_hop_wait_ms = 300;
  struct sched *s = sc_new(&c);
  sched_start(s);
  /* e.test's robots.txt, then its long page is under way */
  uint64_t end = clock_mono_ms() + 10000;
  while(count_url("http://e.test/long") == 0 && clock_mono_ms() < end)
    ts_sleep(10);
  assert_int_equal(ts_submit("c2", it + 1, 1), STORE_OK);
  sched_kick(s);
  sc_run_until_results("c2", 1, 20000);
  sc_run_until_results("c1", 1, 20000);
  sc_check_site_gaps(0);  /* e.test: never two in flight */
  assert_int_equal(count_url("http://e.test/r"), 0);
  assert_true(sched_stats(s)->robots_hop_waits >= 1);
  /* a hop not made is a network error: robots.txt unreachable, after one hop */
  char st[8];
  snprintf(st, sizeof st, "%d", ROBOTS_P_UNREACHABLE_DISALLOW);
  assert_string_equal(it_cmd(ts_store, "HGET r:{0}http://d.test:80 st"), st);
  assert_string_equal(it_cmd(ts_store, "HGET r:{0}http://d.test:80 rh"), "1");
  sc_stop(&s);
}

/* A replica that stalls between its claim and the fetch (CPU starved,
 * SIGSTOP) comes back to a lease that has expired and may already be
 * someone else's: it must not start the fetch. The first robots check of
 * the page stalls for longer than the lease; the page is fetched once, at
 * its second claim. */

static void test_stall_past_lease_does_not_fetch(void **state)
{
  (void)state;
  fake_plan = plan_robots;
  stall_checks = 0;
  stall_on = true;
  sc_submit_urls("c1", "http://st%d.test/stall/%d", 1, 1);
  struct sched_cfg c = sc_cfg(4, 300, 0);
  c.robots = true;
  struct sched *s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 1, 20000);
  assert_int_equal(count_url("http://st0.test/stall/0"), 1);
  assert_true(sched_stats(s)->cancelled >= 1);
  const char *r = ts_stream("c1");
  assert_non_null(strstr(r, ",a,2,"));  /* the fetch came from the second claim */
  sc_stop(&s);
}

/* ---- leases ---------------------------------------------------------------- */

static void plan_slow(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)info;
  (void)nth;
  a->ms = 1000;
}

static void plan_slower(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)info;
  (void)nth;
  a->ms = 3000;
}

/* A 3 s fetch under a 2 s lease: renewals keep the site; a second
 * scheduler sharing the Redis gets nothing from it meanwhile. The lease
 * leaves 1.3 s of slack per renewal, so a loaded machine (sanitizers, other
 * tests) cannot make it expire by accident. */
static void test_renewal_keeps_long_fetch(void **state)
{
  (void)state;
  fake_plan = plan_slower;
  sc_submit_urls("c1", "http://long%d.test/%d", 2, 1);
  struct sched_cfg c = sc_cfg(2, 2000, 0);
  struct sched *s1 = sc_new(&c);
  struct sched *s2 = sc_new(&c);
  sched_start(s1);
  ts_sleep(30);
  sched_start(s2);
  sc_run_until_results("c1", 2, 15000);
  sc_check_site_gaps(0);
  assert_int_equal(fake_nev, 2);
  assert_true(state_stats(ts_st)->renewed >= 6);
  assert_int_equal(state_stats(ts_st)->lease_lost, 0);
  assert_int_equal(state_stats(ts_st)->leases_reaped, 0);
  assert_int_equal(sched_stats(s1)->cancelled + sched_stats(s2)->cancelled, 0);
  sc_stop(&s1);
  sc_stop(&s2);
}

/* Another claim took the site (here: the lease field rewritten in Redis):
 * the next renewal fails and the fetch is cancelled, not completed. When
 * that foreign lease expires in turn, the request is reaped and run again
 * (second attempt) and completes once. */
static void test_lost_lease_cancels_fetch(void **state)
{
  (void)state;
  fake_plan = plan_slow;
  sc_submit_urls("c1", "http://lost%d.test/%d", 1, 1);
  struct sched_cfg c = sc_cfg(2, 300, 0);
  struct sched *s = sc_new(&c);
  sched_start(s);
  while(fake_nev == 0)
    ts_sleep(10);
  assert_string_equal(it_cmd(ts_store, "HSET s:{0}lost0.test lt someone-else"), "0");
  uint64_t end = clock_mono_ms() + 5000;
  while(!fake_evs[0].cancelled && clock_mono_ms() < end)
    ts_sleep(10);
  assert_true(fake_evs[0].cancelled);
  assert_int_equal(fake_evs[0].end_us, 0);
  assert_int_equal(sc_results_len("c1"), 0);
  assert_int_equal(sched_stats(s)->cancelled, 1);
  assert_true(state_stats(ts_st)->lease_lost >= 1);
  sc_run_until_results("c1", 1, 5000);
  assert_int_equal(fake_nev, 2);
  assert_int_equal(state_stats(ts_st)->leases_reaped, 1);
  assert_non_null(strstr(ts_stream("c1"), ",a,2,o,ok,"));
  sc_stop(&s);
}

/* A stopping replica cancels its fetches and gives the claims back at once
 * (attempts unchanged); another replica finishes them. */
static void test_stop_gives_back(void **state)
{
  (void)state;
  fake_plan = plan_slow;
  sc_submit_urls("c1", "http://stop%d.test/%d", 4, 4);
  struct sched_cfg c = sc_cfg(4, 30000, 0);
  struct sched *s = sc_new(&c);
  sched_start(s);
  while(fake_nev < 4)
    ts_sleep(10);
  sc_stop(&s);
  assert_int_equal(state_stats(ts_st)->aborted, 4);
  for(unsigned i = 0; i < 4; i++)
    assert_true(fake_evs[i].cancelled);
  fake_plan = plan_20ms;
  s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("c1", 4, 5000);
  const char *r = ts_stream("c1");
  assert_null(strstr(r, ",a,2,"));  /* no attempt was charged */
  sc_stop(&s);
}

/* ---- fairness under concurrency ------------------------------------------- */

/* A has 100,000 URLs queued over 1,000 sites, then B submits 100 on 100 of
 * them. Zero delays, instant fetches, budget 32: B's requests all start
 * within the first 2 x 100 + 2 x 32 fetches after B's submission. */
static void test_fair_share_with_scheduler(void **state)
{
  (void)state;
  for(int b = 0; b < 20; b++) {
    static char fmt[64];
    snprintf(fmt, sizeof fmt, "http://s%%04d.test/a%d/%%06d", b);
    sc_submit_urls("A", fmt, 5000, 1000);
  }
  sc_submit_urls("B", "http://s%04d.test/b/%d", 100, 1000);
  struct sched_cfg c = sc_cfg(32, 30000, 0);
  struct sched *s = sc_new(&c);
  sched_start(s);
  sc_run_until_results("B", 100, 30000);
  unsigned last_b = 0, nb = 0;
  for(unsigned i = 0; i < fake_nev; i++)
    if(!strcmp(fake_evs[i].client, "B")) {
      nb++;
      last_b = i + 1;
    }
  print_message("# B's 100 fetches started by fetch %u of %u (bound %u)\n", last_b, fake_nev,
                2 * 100 + 2 * 32);
  assert_int_equal(nb, 100);
  assert_true(last_b <= 2 * 100 + 2 * 32);
  sc_stop(&s);
}

/* ---- two processes, one killed ------------------------------------------- */

/* In the replica to be killed, fetches from the HANG_FROM-th on never
 * answer: the kill then surely finds fetches open, however the two
 * processes were scheduled (a kill between two short fetches found none). */
enum { HANG_FROM = 20 };
static bool hang;

static void plan_kill(const struct sched_job_info *info, unsigned nth, struct fake_answer *a)
{
  (void)info;
  a->ms = hang && nth >= HANG_FROM ? 600000 : 20 + (nth * 7919u) % 40;
}

static volatile sig_atomic_t child_term;
static void child_on_term(uv_signal_t *h, int sig)
{
  (void)sig;
  child_term = 1;
  uv_signal_stop(h);
}

/* A scheduler process: runs until SIGTERM (then stops cleanly and writes
 * its counters) or SIGKILL. */
static void child_main(const char *logpath, bool hangs)
{
  it_loop_init();
  fake_logfd = open(logpath, O_WRONLY | O_APPEND);
  log_init("itest", LOG_ERROR);
  sc_reset();
  fake_plan = plan_kill;
  hang = hangs;
  ts_connect(1);
  /* a lease of 1 s: a child starved of CPU for a few hundred ms (a loaded CI
   * machine) keeps its claims, so only the SIGKILL moves work */
  struct sched_cfg c = sc_cfg(8, 1000, 0);
  struct sched *s = sc_new(&c);
  uv_signal_t sig;
  uv_signal_init(it_loop, &sig);
  uv_signal_start(&sig, child_on_term, SIGTERM);
  sched_start(s);
  it_run_until((volatile int *)&child_term, 120000);
  sc_halt(s);
  char line[128];
  int n = snprintf(line, sizeof line, "T x x %d 0 %llu %llu\n", (int)getpid(),
                   (unsigned long long)state_stats(ts_st)->leases_reaped,
                   (unsigned long long)state_stats(ts_st)->completed);
  if(write(fake_logfd, line, (size_t)n) != n)
    _exit(3);
  _exit(0);
}

struct lrec { char what; char site[48]; char rid[24]; int pid; uint64_t us, a, b; };

static size_t read_log(const char *path, struct lrec *out, size_t cap)
{
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = 0;
  char w[4];
  while(n < cap && fscanf(f, "%3s %47s %23s %d %llu", w, out[n].site, out[n].rid, &out[n].pid,
                          (unsigned long long *)&out[n].us) == 5) {
    out[n].what = w[0];
    if(w[0] == 'T' && fscanf(f, "%llu %llu", (unsigned long long *)&out[n].a,
                             (unsigned long long *)&out[n].b) != 2)
      break;
    n++;
  }
  fclose(f);
  return n;
}

/* Fetches of pid started, in the shared log */
static size_t started_by(const char *path, pid_t pid)
{
  static struct lrec l[4096];
  size_t n = read_log(path, l, 4096), s = 0;
  for(size_t i = 0; i < n; i++)
    s += l[i].what == 'S' && l[i].pid == pid;
  return s;
}

/* When did fetch k (an S record) end: its E, its C, or the kill. */
static uint64_t fetch_end(const struct lrec *l, size_t n, size_t k, int killed, uint64_t kill_us)
{
  for(size_t i = k + 1; i < n; i++)
    if((l[i].what == 'E' || l[i].what == 'C') && l[i].pid == l[k].pid
       && !strcmp(l[i].rid, l[k].rid) && !strcmp(l[i].site, l[k].site))
      return l[i].us;
  return l[k].pid == killed ? kill_us : UINT64_MAX;
}

/* For a failure: each fetch open at the kill that the survivor did not
 * run again, with every record of its site. */
static void dump_unmatched(const struct lrec *l, size_t n, const pid_t *kids, uint64_t kill_us)
{
  for(size_t i = 0; i < n; i++) {
    if(l[i].what != 'S' || l[i].pid != kids[0] || fetch_end(l, n, i, kids[0], kill_us) != kill_us)
      continue;
    bool rerun = false;
    for(size_t k = i + 1; k < n; k++)
      rerun |= l[k].what == 'S' && l[k].pid == kids[1] && !strcmp(l[k].site, l[i].site)
               && !strcmp(l[k].rid, l[i].rid);
    if(rerun)
      continue;
    print_message("# not run again: %s %s (kill at %llu)\n", l[i].site, l[i].rid,
                  (unsigned long long)kill_us);
    for(size_t k = 0; k < n; k++)
      if(!strcmp(l[k].site, l[i].site))
        print_message("#   %c %s pid %d at %llu\n", l[k].what, l[k].rid, l[k].pid,
                      (unsigned long long)l[k].us);
  }
}

static void test_sigkill_loses_nothing(void **state)
{
  (void)state;
  enum { N = 400, SITES = 40 };
  char logpath[] = "/tmp/wpfs-itest-sched-XXXXXX";
  int fd = mkstemp(logpath);
  assert_true(fd >= 0);
  close(fd);
  sc_submit_urls("c1", "http://k%02d.test/page/%d", N, SITES);
  pid_t kids[2];
  for(int i = 0; i < 2; i++) {
    kids[i] = fork();
    assert_true(kids[i] >= 0);
    if(kids[i] == 0)
      child_main(logpath, i == 0);
  }
  uint64_t end = clock_mono_ms() + 30000;
  while((sc_results_len("c1") < N / 4 || started_by(logpath, kids[0]) <= HANG_FROM)
        && clock_mono_ms() < end)
    ts_sleep(5);
  uint64_t kill_us = clock_mono_us();
  kill(kids[0], SIGKILL);
  waitpid(kids[0], NULL, 0);
  long long at_kill = sc_results_len("c1");
  sc_run_until_results("c1", N, 60000);
  kill(kids[1], SIGTERM);
  int st = 0;
  waitpid(kids[1], &st, 0);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

  static struct lrec l[4 * N];
  size_t n = read_log(logpath, l, 4 * N);
  unlink(logpath);
  /* 1. one in flight per site across both processes, the killed one's open
   *    fetches counting as in flight until the kill */
  unsigned open_at_kill = 0, open_rerun = 0, reruns = 0, rerun_after_kill = 0;
  for(size_t i = 0; i < n; i++) {
    if(l[i].what != 'S')
      continue;
    uint64_t ei = fetch_end(l, n, i, kids[0], kill_us);
    bool open = l[i].pid == kids[0] && ei == kill_us;
    open_at_kill += open;
    for(size_t k = i + 1; k < n; k++) {
      if(l[k].what != 'S' || strcmp(l[k].site, l[i].site))
        continue;
      assert_true(l[k].us >= ei);  /* started after the previous ended */
      if(!strcmp(l[k].rid, l[i].rid)) {
        reruns++;
        rerun_after_kill += l[k].us >= kill_us;
        open_rerun += open && l[k].pid == kids[1];
      }
    }
  }
  /* 2. every request has exactly one result */
  const char *r = ts_stream("c1");
  static unsigned seen[N + 1];
  memset(seen, 0, sizeof seen);
  unsigned results = 0, second_attempts = 0;
  for(const char *p = r; (p = strstr(p, "rid,0-")); p += 6) {
    unsigned seq = (unsigned)strtoul(p + 6, NULL, 10);
    assert_true(seq >= 1 && seq <= N);
    seen[seq]++;
    results++;
    const char *a = strstr(p, ",a,");
    second_attempts += a && a[3] == '2';
  }
  for(unsigned i = 1; i <= N; i++)
    assert_int_equal(seen[i], 1);
  uint64_t reaped = 0;
  for(size_t i = 0; i < n; i++)
    if(l[i].what == 'T')
      reaped = l[i].a;
  if(open_rerun != open_at_kill)
    dump_unmatched(l, n, kids, kill_us);
  print_message("# %u results (%lld when one of two schedulers was killed); %u fetches "
                "open at the kill, all re-run by the survivor after the kill: %u; "
                "survivor reaped %llu leases, %u results at attempt 2\n", results, at_kill,
                open_at_kill, open_rerun, (unsigned long long)reaped, second_attempts);
  assert_int_equal(results, N);
  assert_true(open_at_kill >= 1);
  assert_int_equal(open_rerun, open_at_kill);     /* nothing in flight was lost */
  assert_int_equal(reruns, rerun_after_kill);     /* no second run before the kill */
  /* the killed replica's claims are exactly the reaped ones: its open
   * fetches plus claims it held without a fetch running (claim answered
   * after the kill, or completion not yet stored) */
  assert_true(reaped >= open_at_kill);
  assert_int_equal(second_attempts, reaped);
}

int main(void)
{
  it_loop_init();
  log_init("itest", LOG_ERROR);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_politeness_gaps_and_budget, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_delay_counts_from_the_answer, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_retry_after_and_backoff, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_robots_first_and_crawl_delay, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_robots_redirect_hops, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_robots_hop_gives_up, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_stall_past_lease_does_not_fetch, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_renewal_keeps_long_fetch, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_lost_lease_cancels_fetch, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_stop_gives_back, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_fair_share_with_scheduler, sc_setup, sc_teardown),
    cmocka_unit_test_setup_teardown(test_sigkill_loses_nothing, sc_setup, sc_teardown),
  };
  if(getenv("ITEST_FILTER"))  /* one test, e.g. to repeat a timing-sensitive one */
    cmocka_set_test_filter(getenv("ITEST_FILTER"));
  return cmocka_run_group_tests(tests, NULL, NULL);
}
