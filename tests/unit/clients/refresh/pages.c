/* clients/refresh/pages.c and input.c: the heap gives the page due first
 * through every change of due time; visits become intervals in a ring of
 * RF_OBS_MAX and an estimate; 404s double the interval and three retire
 * a page; planning spreads the budget and plans each next visit from the
 * copy's time (a stale cached copy soon, not at once); the input list's
 * weights, comments and refusals; the change log replayed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/refresh/pages.c"
#include "clients/refresh/pages.h"
#include "clients/refresh/refresh.h"

static void add(struct rf_pages *ps, const char *url, double w, uint64_t due)
{
  bool added;
  assert_int_equal(rf_pages_add(ps, url, w, due, &added), CRAWL_OK);
  assert_true(added);
}

static void test_heap(void **st)
{
  (void)st;
  struct rf_pages ps;
  char url[64];
  rf_pages_init(&ps, 5000, 3, 86400);
  for(int i = 0; i < 2000; i++) {
    snprintf(url, sizeof url, "http://a.test/%d", i);
    add(&ps, url, 1, (uint64_t)((i * 7919) % 2000) + 10);
  }
  bool added;
  assert_int_equal(rf_pages_add(&ps, "http://a.test/5", 1, 0, &added), CRAWL_OK);
  assert_false(added);  /* known: kept as it was */
  /* move every third page to the far end, then drain in order */
  for(size_t i = 0; i < ps.n; i += 3)
    rf_pages_set_due(&ps, &ps.v[i], 1000000 + i);
  uint64_t last = 0;
  for(int k = 0; k < 2000; k++) {
    struct rf_page *p = rf_pages_top(&ps);
    assert_non_null(p);
    assert_true(p->due_ms >= last);
    last = p->due_ms;
    rf_page_retire(&ps, p);
  }
  assert_null(rf_pages_top(&ps));
  assert_non_null(rf_pages_find(&ps, "http://a.test/1999"));
  assert_null(rf_pages_find(&ps, "http://a.test/2000"));
  rf_pages_free(&ps);
}

static void test_observe(void **st)
{
  (void)st;
  struct rf_pages ps;
  rf_pages_init(&ps, 10, 3, 86400);
  add(&ps, "http://a.test/", 1, 0);
  struct rf_page *p = &ps.v[0];
  uint64_t t = 1700000000000ull;
  rf_page_observe(&ps, p, RF_SEEN_FIRST, t, 11);
  assert_int_equal(p->nobs, 0);
  assert_int_equal(p->digest, 11);
  for(int i = 1; i <= 20; i++)  /* every 10 s, a change every other visit */
    rf_page_observe(&ps, p, i % 2 ? RF_SEEN_CHANGED : RF_SEEN_UNCHANGED, t + 10000u * i, 11 + i);
  assert_int_equal(p->nobs, RF_OBS_MAX);
  assert_int_equal(p->changes, 10);
  assert_int_equal(p->obs[0] >> 1, 100);  /* tenths of a second */
  double want = -log((16 - 8 + 0.5) / (16 + 0.5)) / 10;
  assert_true(fabs(p->lambda - want) < 1e-9);
  /* an older copy (from the gateway's cache) adds no interval */
  rf_page_observe(&ps, p, RF_SEEN_UNCHANGED, t, 31);
  assert_int_equal(p->last_ms, t + 200000);
  rf_pages_free(&ps);
}

/* Last-Modified: a first visit's is an observation (a change at its
 * date, none since: the page's own date); a change's gives the time
 * since it; one that contradicts the content
 * (older than the copy before, though the body changed) is not trusted
 * again and the page is estimated from its visits alone. */
static void test_last_modified(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t t = 1700000000000ull;
  rf_pages_init(&ps, 10, 3, 86400);
  add(&ps, "http://a.test/p", 1, t);
  struct rf_page *p = &ps.v[0];
  rf_page_observe_lm(&ps, p, RF_SEEN_FIRST, t, 1, t - 20000);
  assert_int_equal(p->nobs, 1);
  /* changed 19.5 s before (the date's second: half of it), none since */
  assert_true(fabs(p->lambda - 1 / 19.5) < 1e-9);
  rf_page_observe_lm(&ps, p, RF_SEEN_CHANGED, t + 30000, 2, t + 25000);
  rf_page_observe_lm(&ps, p, RF_SEEN_UNCHANGED, t + 60000, 2, t + 25000);
  assert_false(p->lm_bad);
  /* two changes over 19.5 + 4.5 + 30 s unchanged */
  assert_true(fabs(p->lambda - 2 / 54.0) < 1e-9);
  /* changed, yet modified before the copy before: not trusted */
  rf_page_observe_lm(&ps, p, RF_SEEN_CHANGED, t + 90000, 3, t + 10000);
  assert_true(p->lm_bad);
  struct rf_obs o[3] = { { 30, true, false, 0 }, { 30, false, false, 0 }, { 30, true, false, 0 } };
  assert_true(fabs(p->lambda - rf_estimate(o, 3, 1)) < 1e-9);
  /* a date after the fetch is not trusted either */
  add(&ps, "http://a.test/q", 1, t);
  rf_page_observe_lm(&ps, &ps.v[1], RF_SEEN_FIRST, t, 1, t + 5000);
  assert_true(ps.v[1].lm_bad);
  assert_int_equal(ps.v[1].nobs, 0);
  rf_pages_free(&ps);
}

/* Give page p n visits 20 s apart, each changed with a Last-Modified
 * age_ms before it. */
static void visits_lm(struct rf_pages *ps, struct rf_page *p, uint64_t t, int n, uint64_t age_ms)
{
  rf_page_observe_lm(ps, p, RF_SEEN_FIRST, t, 1, t - age_ms);
  for(int i = 1; i < n; i++)
    rf_page_observe_lm(ps, p, RF_SEEN_CHANGED, t + 20000u * i, (uint64_t)i + 1,
                       t + 20000u * i - age_ms);
}

/* A page with two visits is shrunk toward its site's rate: five pages of
 * a.test change every 10 s or so; a sixth, seen a second after its
 * Last-Modified twice (two changes in two seconds), is taken for less
 * than half as fast once planned; its own estimate is kept beside. */
static void test_site_prior(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t t = 1700000000000ull;
  char url[64];
  rf_pages_init(&ps, 10, 3, 86400);
  for(int i = 0; i < 6; i++) {
    snprintf(url, sizeof url, "http://a.test/%d", i);
    add(&ps, url, 1, t);
  }
  for(int i = 0; i < 5; i++)
    visits_lm(&ps, &ps.v[i], t, 16, 8500 + 1000u * (uint64_t)i);
  visits_lm(&ps, &ps.v[5], t + 300000, 2, 1500);
  struct rf_page *young = &ps.v[5];
  assert_true(fabs(young->lambda - 1.0) < 1e-9);  /* two changes in 1 + 1 s */
  rf_pages_plan(&ps, RF_OPTIMAL, 0.5, 0.01, t + 340000);
  print_message("young page: alone %.3f, under its site's prior %.3f\n", young->flat,
                young->lambda);
  assert_true(fabs(young->flat - 1.0) < 1e-9);
  assert_true(young->lambda < 0.5);
  /* a page with sixteen visits hardly moves */
  assert_true(fabs(ps.v[0].lambda / ps.v[0].flat - 1) < 0.1);
  rf_pages_free(&ps);
}

/* The two-part prior: among eight pages of a.test changing every 10 s
 * or so, one seen unchanged for 320 s (17 visits) is taken for one that
 * never changes and left at the floor (one visit a day), while the
 * others share the budget; alone on its own site, whose rate may be
 * anything (the vague spread of sites when one site is known), the same
 * page is less surely static and keeps visits. */
static void test_static_page(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t t = 1700000000000ull;
  char url[64];
  rf_pages_init(&ps, 20, 3, 86400);
  for(int i = 0; i < 9; i++) {
    snprintf(url, sizeof url, "http://a.test/%d", i);
    add(&ps, url, 1, t);
  }
  add(&ps, "http://b.test/alone", 1, t);
  for(int i = 0; i < 8; i++)
    visits_lm(&ps, &ps.v[i], t, 16, 8500 + 500u * (uint64_t)i);
  for(int k = 8; k < 10; k++) {
    struct rf_page *q = &ps.v[k];
    rf_page_observe_lm(&ps, q, RF_SEEN_FIRST, t, 7, t - 2000);
    for(int i = 1; i <= 16; i++)
      rf_page_observe_lm(&ps, q, RF_SEEN_UNCHANGED, t + 20000u * i, 7, t - 2000);
  }
  rf_pages_plan(&ps, RF_OPTIMAL, 0.5, 0.01, t + 330000);
  struct rf_page *still = &ps.v[8], *alone = &ps.v[9];
  print_message("still: p_static %.4f rate %.5f f %.6f; alone: p_static %.3f f %.5f; "
                "share %.3f\n", still->p_static, still->lambda, still->f, alone->p_static,
                alone->f, ps.static_share);
  assert_true(still->p_static > 0.99);
  assert_true(still->f < 2.0 / 86400);
  assert_true(alone->p_static < still->p_static - 0.05);
  assert_true(alone->f > 0.002);
  for(int i = 0; i < 8; i++) {
    assert_true(ps.v[i].p_static == 0);
    assert_true(ps.v[i].f > 0.02);
  }
  rf_pages_free(&ps);
}

/* Exploration: a page given up on (changing far faster than the budget
 * allows) after one visit (its copy 3 s old) may yet be slow enough to be
 * worth visits and is visited (at most at the uniform share); after
 * sixteen, certainly too fast, it is left at the floor. */
static void test_explore(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t t = 1700000000000ull;
  char url[64];
  rf_pages_init(&ps, 10, 3, 86400);
  for(int i = 0; i < 4; i++) {
    snprintf(url, sizeof url, "http://a.test/%d", i);
    add(&ps, url, 1, t);
    visits_lm(&ps, &ps.v[i], t, 16, 15000);  /* unchanged for 15 s at each change */
  }
  add(&ps, "http://b.test/fast", 1, t);
  struct rf_page *fast = &ps.v[4];
  visits_lm(&ps, fast, t, 1, 3000);
  rf_pages_plan(&ps, RF_OPTIMAL, 0.05, 0.01, t + 400000);
  print_message("one visit: rate %.3f sd %.2f f %.4f\n", fast->lambda, fast->sd, fast->f);
  assert_true(fast->lambda > 0.1 && fast->sd > 0.5);
  assert_true(fast->explore);
  assert_true(fast->f > 1e-3 && fast->f <= 0.05 / 5 + 1e-12);
  double sum = 0;
  for(int i = 0; i < 5; i++)
    sum += ps.v[i].f;
  assert_true(fabs(sum - 0.05) < 1e-9);
  for(int i = 1; i < 16; i++)
    rf_page_observe_lm(&ps, fast, RF_SEEN_CHANGED, t + 20000u * i, (uint64_t)i + 1,
                       t + 20000u * i - 3000);
  rf_pages_plan(&ps, RF_OPTIMAL, 0.05, 0.01, t + 400000);
  print_message("sixteen visits: rate %.3f sd %.2f f %.6f\n", fast->lambda, fast->sd, fast->f);
  assert_false(fast->explore);
  assert_true(fast->f < 1.0 / 86400 + 1e-9);
  /* the uniform policy explores nothing */
  rf_pages_plan(&ps, RF_UNIFORM, 0.05, 0.01, t + 400000);
  assert_false(fast->explore);
  rf_pages_free(&ps);
}

/* The first round: every page seen once, a few seconds after its
 * Last-Modified. When the six pages share that date (their site's: a
 * deployment, the start of its world) it is no change of theirs, only "no
 * change in a few seconds": a high rate that only says how short the look
 * was; they inform no prior (a site of them would look alike and pin each
 * other down), and none is left at the floor: the ones given up on are
 * explored. When each has a date of its own, each saw a change then: a
 * rate near one over its copy's age. */
static void first_round(struct rf_pages *ps, uint64_t t, bool shared)
{
  char url[64];
  rf_pages_init(ps, 10, 3, 86400);
  for(int i = 0; i < 6; i++) {
    snprintf(url, sizeof url, "http://a.test/%d", i);
    add(ps, url, 1, t);
    uint64_t at = t + 1000u * (uint64_t)i;
    rf_page_observe_lm(ps, &ps->v[i], RF_SEEN_FIRST, at, 1,
                       shared ? t - 3000 : at - 3000 - 4000u * (uint64_t)i);
  }
  rf_pages_plan(ps, RF_OPTIMAL, 0.05, 0.01, t + 10000);
}

static void test_first_round(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t t = 1700000000000ull;
  first_round(&ps, t, true);
  for(int i = 0; i < 6; i++) {
    print_message("shared date, page %d: rate %.3f sd %.2f f %.5f%s\n", i, ps.v[i].lambda,
                  ps.v[i].sd, ps.v[i].f, ps.v[i].explore ? " explored" : "");
    assert_true(ps.v[i].lm_epoch);
    assert_true(ps.v[i].sd > 1);
    assert_true(ps.v[i].f > 1e-3);
  }
  rf_pages_free(&ps);
  first_round(&ps, t, false);
  for(int i = 0; i < 6; i++) {
    double age = 3 + 4 * i - 0.5;
    print_message("own dates, page %d: rate %.3f (1/age %.3f) sd %.2f\n", i, ps.v[i].lambda,
                  1 / age, ps.v[i].sd);
    assert_false(ps.v[i].lm_epoch);
    assert_true(fabs(ps.v[i].flat - 1 / age) < 1e-9);  /* alone: one change in age */
    assert_true(ps.v[i].lambda > 0.03 && ps.v[i].lambda < 0.5);
  }
  rf_pages_free(&ps);
}

/* An overdue page keeps its time at the next plans: pushed a quarter
 * interval ahead at every plan (every 5 s), a page of a 40 s interval
 * never came before the pages of shorter ones and starved. A page planned
 * far ahead whose interval shrinks is brought in. */
static void test_plan_keeps_overdue(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t t = 1700000000000ull;
  rf_pages_init(&ps, 10, 3, 86400);
  add(&ps, "http://a.test/a", 1, t);
  add(&ps, "http://a.test/b", 1, t);
  struct rf_page *a = &ps.v[0];
  rf_page_observe(&ps, a, RF_SEEN_FIRST, t, 1);
  rf_page_observe(&ps, &ps.v[1], RF_SEEN_FIRST, t, 1);
  rf_pages_plan(&ps, RF_UNIFORM, 0.05, 0.01, t + 1000);  /* 40 s each */
  assert_int_equal(a->due_ms, t + 40000);
  /* overdue at the next plans: it keeps its time (it was pushed to a
   * quarter interval ahead, t + 70 s, then t + 75 s, ...) */
  rf_pages_plan(&ps, RF_UNIFORM, 0.05, 0.01, t + 60000);
  assert_int_equal(a->due_ms, t + 40000);
  rf_pages_plan(&ps, RF_UNIFORM, 0.05, 0.01, t + 65000);
  assert_int_equal(a->due_ms, t + 40000);
  rf_pages_plan(&ps, RF_UNIFORM, 0.5, 0.01, t + 66000);  /* a shorter interval: still due */
  assert_int_equal(a->due_ms, t + 40000);
  /* planned far ahead, then a shorter interval: brought in */
  rf_page_observe(&ps, a, RF_SEEN_UNCHANGED, t + 67000, 1);
  rf_pages_plan(&ps, RF_UNIFORM, 0.01, 0.01, t + 67000);  /* 200 s */
  assert_int_equal(a->due_ms, t + 267000);
  rf_pages_plan(&ps, RF_UNIFORM, 0.5, 0.01, t + 80000);   /* 4 s: overdue, a quarter ahead */
  assert_int_equal(a->due_ms, t + 81000);
  rf_pages_free(&ps);
}

static void test_gone_and_plan(void **st)
{
  (void)st;
  struct rf_pages ps;
  uint64_t now = 1700000000000ull;
  rf_pages_init(&ps, 10, 3, 3600);
  add(&ps, "http://a.test/fast", 1, now);
  add(&ps, "http://a.test/slow", 1, now);
  add(&ps, "http://a.test/new", 1, now + 5);
  struct rf_page *fast = &ps.v[0], *slow = &ps.v[1], *fresh = &ps.v[2];
  rf_page_observe(&ps, fast, RF_SEEN_FIRST, now - 80000, 1);
  rf_page_observe(&ps, slow, RF_SEEN_FIRST, now - 80000, 1);
  for(int i = 1; i <= 8; i++) {
    rf_page_observe(&ps, fast, i % 2 ? RF_SEEN_CHANGED : RF_SEEN_UNCHANGED,
                    now - 80000 + 10000u * i, (uint64_t)i + 1);
    rf_page_observe(&ps, slow, RF_SEEN_UNCHANGED, now - 80000 + 10000u * i, 1);
  }
  assert_true(fast->lambda > 5 * slow->lambda);
  double fr = rf_pages_plan(&ps, RF_UNIFORM, 0.3, 0.01, now);
  assert_true(fr > 0 && fr < 1);
  assert_true(fabs(fast->f - 0.1) < 1e-9 && fabs(slow->f - 0.1) < 1e-9);
  assert_int_equal(fast->due_ms, now + 10000);  /* 1/f from the copy */
  assert_int_equal(fresh->due_ms, now + 5);     /* unvisited: untouched */
  /* optimal: the page that changes gets the visits */
  rf_pages_plan(&ps, RF_OPTIMAL, 0.3, 0.01, now);
  assert_true(fast->f > slow->f);
  assert_true(fabs(fast->f + slow->f + fresh->f - 0.3) < 1e-9);
  rf_pages_plan(&ps, RF_UNIFORM, 0.3, 0.01, now);
  /* a copy older than its interval (a cache's): looked at again after a
   * quarter of it, not at once */
  rf_page_observe(&ps, fresh, RF_SEEN_FIRST, now - 60000, 1);
  rf_page_replan(&ps, fresh, now);
  assert_int_equal(fresh->due_ms, now + 2500);
  /* 404s: the interval doubles, the third retires */
  rf_page_observe(&ps, fast, RF_SEEN_GONE, now, 0);
  rf_page_replan(&ps, fast, now);
  assert_int_equal(fast->due_ms, now + 20000);
  rf_page_observe(&ps, fast, RF_SEEN_GONE, now, 0);
  assert_false(fast->retired);
  rf_page_observe(&ps, fast, RF_SEEN_GONE, now, 0);
  assert_true(fast->retired);
  for(int i = 0; i < 3; i++) {
    struct rf_page *p = rf_pages_top(&ps);
    if(!p)
      break;
    assert_ptr_not_equal(p, fast);
    rf_page_retire(&ps, p);
  }
  rf_pages_free(&ps);
}

static void test_load(void **st)
{
  (void)st;
  char path[] = "/tmp/test_refresh_pagesXXXXXX", err[256] = "";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("# pages\nhttp://a.test/1\n\nhttp://a.test/2\t4.5\nhttp://a.test/1\t9\n"
        "ftp://a.test/x\nnot a url\n", f);
  fclose(f);
  struct rf_pages ps;
  struct tally refused = { 0 };
  rf_pages_init(&ps, 10, 3, 86400);
  assert_int_equal(rf_pages_load(&ps, path, 2, 1000, &refused, "test", err, sizeof err),
                   CRAWL_OK);
  assert_int_equal(ps.n, 2);
  /* Nothing dropped in silence: each URL not kept is counted by reason. */
  assert_int_equal(tally_get(&refused, "duplicate"), 1);
  assert_int_equal(tally_get(&refused, "malformed"), 2);
  assert_int_equal(refused.total, 3);
  assert_true(ps.v[1].weight == 4.5);
  assert_true(ps.v[0].weight == 1);         /* the first mention wins */
  assert_int_equal(ps.v[1].due_ms, 1500);   /* first visits spread at the rate */
  rf_pages_free(&ps);
  f = fopen(path, "w");
  fputs("http://a.test/1\nhttp://a.test/2\t0\n", f);
  fclose(f);
  rf_pages_init(&ps, 10, 3, 86400);
  assert_int_equal(rf_pages_load(&ps, path, 2, 1000, &refused, NULL, err, sizeof err), CRAWL_ERR_INVALID);
  assert_non_null(strstr(err, "line 2"));
  rf_pages_free(&ps);
  f = fopen(path, "w");
  fputs("http://a.test/1\nhttp://a.test/2\nhttp://a.test/3\n", f);
  fclose(f);
  rf_pages_init(&ps, 2, 3, 86400);
  assert_int_equal(rf_pages_load(&ps, path, 2, 1000, &refused, NULL, err, sizeof err), CRAWL_ERR_FULL);
  assert_non_null(strstr(err, "--max-pages"));
  rf_pages_free(&ps);
  unlink(path);
}

/* The change log read back: each page's history rebuilt, a redirect's
 * target added, a refused URL retired, a line without an outcome (the
 * fuzzer's find: it crashed the replay) taken as a visit. */
static void test_replay(void **st)
{
  (void)st;
  char path[] = "/tmp/test_refresh_replayXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  const char *l = "{\"url\":\"%s\",\"status\":%d%s,\"seen\":\"%s\",\"time_ms\":%llu,"
                  "\"fp\":\"%s\"%s}\n";
  fprintf(f, l, "http://a.test/", 200, ",\"outcome\":\"ok\"", "first", 1000000ull, "a1", "");
  fprintf(f, l, "http://a.test/", 200, ",\"outcome\":\"ok\"", "changed", 1010000ull, "a2", "");
  fprintf(f, l, "http://a.test/", 200, "", "unchanged", 1030000ull, "a2", "");
  fprintf(f, l, "http://a.test/m", 301, ",\"outcome\":\"ok\"", "moved", 1000000ull, "0",
          ",\"redirect\":\"http://a.test/n\"");
  fprintf(f, l, "http://a.test/bad", 0, ",\"outcome\":\"rejected\"", "failed", 1000000ull, "0", "");
  fclose(f);
  struct rf_pages ps;
  uint64_t lines;
  rf_pages_init(&ps, 10, 3, 86400);
  assert_int_equal(refresh_replay(&ps, path, &lines), CRAWL_OK);
  assert_int_equal(lines, 5);
  struct rf_page *a = rf_pages_find(&ps, "http://a.test/");
  assert_non_null(a);
  assert_int_equal(a->visits, 3);
  assert_int_equal(a->nobs, 2);
  assert_int_equal(a->changes, 1);
  assert_int_equal(a->digest, 0xa2);
  assert_int_equal(a->last_ms, 1030000);
  assert_non_null(rf_pages_find(&ps, "http://a.test/n"));
  assert_true(rf_pages_find(&ps, "http://a.test/bad")->retired);
  rf_pages_free(&ps);
  f = fopen(path, "w");
  fputs("{\"url\":\"http://a.test/\",\"status\":200,\"seen\":\"sideways\",\"time_ms\":1,\"fp\":\"0\"}\n", f);
  fclose(f);
  rf_pages_init(&ps, 10, 3, 86400);
  assert_int_equal(refresh_replay(&ps, path, &lines), CRAWL_ERR_CORRUPT);
  rf_pages_free(&ps);
  unlink(path);
}

/* A parked page (another member's partition) is neither visited nor
 * planned, even when its result comes back and it is replanned; taken
 * back, it is due again at the time given. */
static void test_park(void **st)
{
  (void)st;
  struct rf_pages ps;
  rf_pages_init(&ps, 10, 3, 86400);
  add(&ps, "http://a.test/1", 1, 1000);
  add(&ps, "http://b.test/1", 1, 2000);
  struct rf_page *a = &ps.v[0], *b = &ps.v[1];
  rf_page_park(&ps, a, true, 0);
  assert_ptr_equal(rf_pages_top(&ps), b);
  rf_pages_set_due(&ps, a, 10);      /* its result came back: replanned */
  rf_pages_plan(&ps, RF_UNIFORM, 1, 0.01, 5000);
  assert_ptr_equal(rf_pages_top(&ps), b);
  assert_true(b->f > 0.99 && b->f < 1.01);  /* the whole budget is b's */
  rf_page_park(&ps, b, true, 0);
  assert_null(rf_pages_top(&ps));
  rf_page_park(&ps, a, false, 500);
  assert_ptr_equal(rf_pages_top(&ps), a);
  assert_int_equal(a->due_ms, 500);
  rf_page_park(&ps, a, false, 900);  /* already taken back: no change */
  assert_int_equal(a->due_ms, 500);
  rf_pages_free(&ps);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_heap),
    cmocka_unit_test(test_observe),
    cmocka_unit_test(test_gone_and_plan),
    cmocka_unit_test(test_last_modified),
    cmocka_unit_test(test_site_prior),
    cmocka_unit_test(test_static_page),
    cmocka_unit_test(test_explore),
    cmocka_unit_test(test_first_round),
    cmocka_unit_test(test_plan_keeps_overdue),
    cmocka_unit_test(test_load),
    cmocka_unit_test(test_replay),
    cmocka_unit_test(test_park),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
