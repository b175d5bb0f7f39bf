/* clients/crawl/frontier.c and frontier_score.c, scored (a focused crawl): the
 * best URL first, ties in arrival order (equal scores are breadth first);
 * hosts with max_per_host URLs outstanding skipped and served again when
 * one comes back; a better link raising a queued URL (and its meta, of
 * another length); retries back in their place; the bound, which drops
 * the worst URL for a better one and refuses a worse one; checkpoints
 * that keep scores, arrival order and meta; and a long random run checked
 * step by step against a sorted list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/crawl/frontier_score.c"
#include "clients/crawl/frontier.h"
#include "common/hash.h"
#include "common/mem.h"

static struct frontier *open_scored(size_t bytes, unsigned per_host)
{
  struct frontier_opts o = { bytes, per_host, NULL, NULL, 0, true };
  struct frontier *f;
  assert_int_equal(frontier_open(&o, &f), CRAWL_OK);
  return f;
}

static void url_of(char *out, size_t n, const char *host, int page)
{
  snprintf(out, n, "http://%s/%d", host, page);
}

static uint64_t fp_of(const char *host, int page)
{
  char url[128];
  url_of(url, sizeof url, host, page);
  return hash_fp64(url, strlen(url));
}

static crawl_err push_s(struct frontier *f, const char *host, int page, double score,
                        const char *meta)
{
  char url[128];
  url_of(url, sizeof url, host, page);
  struct frontier_score sc = { score, meta, meta ? strlen(meta) : 0 };
  return frontier_push_scored(f, url, host, 1, &sc);
}

static void take_expect(struct frontier *f, size_t max, const char *const *want, size_t nwant)
{
  struct frontier_item it[64];
  size_t n = frontier_take(f, max, it);
  assert_int_equal(n, nwant);
  for(size_t i = 0; i < n; i++)
    assert_string_equal(it[i].url, want[i]);
}

/* Best first across hosts; equal scores in arrival order; the gateway
 * priority is the score in eighths. */
static void test_order(void **state)
{
  (void)state;
  struct frontier *f = open_scored(1 << 20, 0);
  assert_int_equal(push_s(f, "a.test", 0, 0.2, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "b.test", 0, 0.9, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "a.test", 1, 0.5, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "c.test", 0, 0.5, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "b.test", 1, 0.5, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "c.test", 1, 1.0, NULL), CRAWL_OK);
  struct frontier_item it[8];
  assert_int_equal(frontier_take(f, 8, it), 6);
  const char *want[] = { "http://c.test/1", "http://b.test/0", "http://a.test/1",
                         "http://c.test/0", "http://b.test/1", "http://a.test/0" };
  unsigned level[] = { 7, 7, 4, 4, 4, 1 };
  for(int i = 0; i < 6; i++) {
    assert_string_equal(it[i].url, want[i]);
    assert_int_equal(it[i].level, level[i]);
  }
  assert_int_equal(push_s(f, "a.test", 0, 0.7, NULL), CRAWL_ERR_INVALID);  /* there already */
  frontier_close(&f);
}

/* All scores equal: the frontier is a FIFO queue (breadth first). */
static void test_equal_scores_fifo(void **state)
{
  (void)state;
  struct frontier *f = open_scored(1 << 20, 0);
  const char *hosts[] = { "x.test", "y.test", "z.test" };
  for(int i = 0; i < 30; i++)
    assert_int_equal(push_s(f, hosts[(i * 7) % 3], i, 0, NULL), CRAWL_OK);
  struct frontier_item it[30];
  assert_int_equal(frontier_take(f, 30, it), 30);
  for(int i = 0; i < 30; i++) {
    char url[64];
    url_of(url, sizeof url, hosts[(i * 7) % 3], i);
    assert_string_equal(it[i].url, url);
  }
  frontier_close(&f);
}

/* A host with max_per_host outstanding is skipped, however good its URLs,
 * and comes back first once one of them is done. */
static void test_per_host_bound(void **state)
{
  (void)state;
  struct frontier *f = open_scored(1 << 20, 2);
  for(int i = 0; i < 4; i++)
    assert_int_equal(push_s(f, "big.test", i, 0.9 - i * 0.01, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "small.test", 0, 0.1, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "small.test", 1, 0.05, NULL), CRAWL_OK);
  const char *first[] = { "http://big.test/0", "http://big.test/1", "http://small.test/0" };
  take_expect(f, 3, first, 3);
  const char *second[] = { "http://small.test/1" };
  take_expect(f, 8, second, 1);
  take_expect(f, 8, NULL, 0);
  assert_int_equal(frontier_done(f, fp_of("big.test", 0), NULL), CRAWL_OK);
  const char *third[] = { "http://big.test/2" };
  take_expect(f, 8, third, 1);
  /* Retried: back in its place by its score, ahead of big.test/3. */
  assert_int_equal(frontier_retry(f, fp_of("big.test", 2)), CRAWL_OK);
  assert_int_equal(frontier_done(f, fp_of("big.test", 1), NULL), CRAWL_OK);
  const char *fourth[] = { "http://big.test/2", "http://big.test/3" };
  take_expect(f, 8, fourth, 2);
  frontier_close(&f);
}

/* A better link raises a queued URL and gives it its meta; a worse one or
 * one to an outstanding URL changes nothing. */
static void test_raise(void **state)
{
  (void)state;
  long live = mem_live();
  struct frontier *f = open_scored(1 << 20, 0);
  assert_int_equal(push_s(f, "a.test", 0, 0.3, "p1"), CRAWL_OK);
  assert_int_equal(push_s(f, "a.test", 1, 0.4, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "b.test", 0, 0.6, "xyz"), CRAWL_OK);
  struct frontier_score hi = { 0.8, "a much longer meta", 18 };
  struct frontier_score lo = { 0.1, "q", 1 };
  assert_true(frontier_raise(f, fp_of("a.test", 0), &hi));
  assert_true(frontier_raise(f, fp_of("a.test", 1), &lo));
  assert_false(frontier_raise(f, fp_of("c.test", 0), &hi));
  struct frontier_score got;
  assert_true(frontier_score_of(f, fp_of("a.test", 0), &got));
  assert_int_equal(got.meta_len, 18);
  assert_memory_equal(got.meta, "a much longer meta", 18);
  assert_true(frontier_score_of(f, fp_of("a.test", 1), &got));
  assert_true(got.score > 0.39 && got.score < 0.41);
  assert_int_equal(got.meta_len, 0);
  const char *want[] = { "http://a.test/0", "http://b.test/0" };
  take_expect(f, 2, want, 2);
  struct frontier_score top = { 1.0, "z", 1 };
  assert_true(frontier_raise(f, fp_of("b.test", 0), &top));  /* outstanding */
  assert_true(frontier_score_of(f, fp_of("b.test", 0), &got));
  assert_memory_equal(got.meta, "xyz", 3);
  struct frontier_stats st;
  frontier_stats(f, &st);
  assert_int_equal(st.raised, 1);
  frontier_close(&f);
  assert_int_equal(mem_live(), live);
}

/* Bounded: past the budget a better URL takes the worst one's place, a
 * worse (or equal, later) one is refused; the bytes stay under the cap. */
static void test_bound(void **state)
{
  (void)state;
  long live = mem_live();
  size_t cap = 16 << 10;
  struct frontier *f = open_scored(cap, 0);
  int n = 0;
  while(push_s(f, "h.test", n, 0.5, NULL) == CRAWL_OK)
    n++;
  assert_true(n > 20);
  assert_int_equal(push_s(f, "h.test", n, 0.5, NULL), CRAWL_ERR_FULL);  /* equal, later */
  assert_int_equal(push_s(f, "h.test", n + 1, 0.4, NULL), CRAWL_ERR_FULL);
  assert_int_equal(push_s(f, "h.test", n + 2, 0.6, NULL), CRAWL_OK);
  struct frontier_stats st;
  frontier_stats(f, &st);
  assert_int_equal(st.evicted, 1);
  assert_null(frontier_url(f, fp_of("h.test", n - 1)));  /* the newest of the worst */
  assert_non_null(frontier_url(f, fp_of("h.test", 0)));
  assert_true(st.bytes <= cap);
  struct frontier_item it[1];
  assert_int_equal(frontier_take(f, 1, it), 1);
  assert_int_equal(it[0].fp, fp_of("h.test", n + 2));
  print_message("# a 16 KiB scored frontier holds %d URLs\n", n);
  frontier_close(&f);
  assert_int_equal(mem_live(), live);
}

/* Saved and loaded: the same order (scores, then arrival), meta kept;
 * outstanding URLs are queued again; a discovery frontier refuses it. */
static void test_checkpoint(void **state)
{
  (void)state;
  struct frontier *f = open_scored(1 << 20, 0);
  assert_int_equal(push_s(f, "a.test", 0, 0.5, "m-a0"), CRAWL_OK);
  assert_int_equal(push_s(f, "b.test", 0, 0.5, "m-b0"), CRAWL_OK);
  assert_int_equal(push_s(f, "a.test", 1, 0.5, NULL), CRAWL_OK);
  assert_int_equal(push_s(f, "c.test", 0, 0.9, "m-c0"), CRAWL_OK);
  assert_int_equal(push_s(f, "c.test", 1, 0.1, NULL), CRAWL_OK);
  struct frontier_item it[8];
  assert_int_equal(frontier_take(f, 1, it), 1);  /* c.test/0 outstanding */
  char path[] = "/tmp/wpfs-fscore-ck.XXXXXX";
  close(mkstemp(path));
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "TESTFSCO"), CRAWL_OK);
  frontier_save(f, &c);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  frontier_close(&f);
  f = open_scored(1 << 20, 0);
  assert_int_equal(ckfile_open(&c, path, "TESTFSCO"), CRAWL_OK);
  frontier_load(f, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  struct frontier_score got;
  assert_true(frontier_score_of(f, fp_of("b.test", 0), &got));
  assert_memory_equal(got.meta, "m-b0", 4);
  const char *want[] = { "http://c.test/0", "http://a.test/0", "http://b.test/0",
                         "http://a.test/1", "http://c.test/1" };
  take_expect(f, 8, want, 5);
  frontier_close(&f);
  struct frontier_opts lo = { 1 << 20, 0, NULL, NULL, 0, false };
  assert_int_equal(frontier_open(&lo, &f), CRAWL_OK);
  assert_int_equal(ckfile_open(&c, path, "TESTFSCO"), CRAWL_OK);
  frontier_load(f, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_ERR_CORRUPT);
  frontier_close(&f);
  unlink(path);
}

/* ---- Against a model ------------------------------------------------------ */

#define MODEL_MAX 600

struct model_ent {
  int      page;
  float    score;
  uint64_t seq;
  int      state;  /* 0 absent, 1 queued, 2 outstanding, 3 done */
  int      host;
};

static uint64_t rnd(uint64_t *s)
{
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* The model's next take: the best queued URL of a host under the bound. */
static int model_best(const struct model_ent *m, const int *out_of_host, unsigned per_host)
{
  int best = -1;
  for(int i = 0; i < MODEL_MAX; i++) {
    if(m[i].state != 1 || (per_host && out_of_host[m[i].host] >= (int)per_host))
      continue;
    if(best < 0 || m[i].score > m[best].score ||
       (m[i].score == m[best].score && m[i].seq < m[best].seq))
      best = i;
  }
  return best;
}

static void model_step(struct frontier *f, struct model_ent *m, int *out_of_host,
                       uint64_t *seq, uint64_t *s)
{
  static const char *const hosts[] = { "h0.test", "h1.test", "h2.test", "h3.test", "h4.test" };
  int i = (int)(rnd(s) % MODEL_MAX), op = (int)(rnd(s) % 10);
  float score = (float)(rnd(s) % 20) / 20.0f;  /* few values: many ties */
  struct frontier_score sc = { score, NULL, 0 };
  char url[64];
  url_of(url, sizeof url, hosts[m[i].host], i);
  if(op < 5 && m[i].state == 0) {
    assert_int_equal(frontier_push_scored(f, url, hosts[m[i].host], 0, &sc), CRAWL_OK);
    m[i] = (struct model_ent){ i, score, ++*seq, 1, m[i].host };
  } else if(op < 7 && m[i].state == 1) {
    assert_true(frontier_raise(f, hash_fp64(url, strlen(url)), &sc));
    if(score > m[i].score)
      m[i].score = score;
  } else if(op < 9) {
    struct frontier_item it;
    int want = model_best(m, out_of_host, 2);
    size_t n = frontier_take(f, 1, &it);
    assert_int_equal(n, want >= 0);
    if(want < 0)
      return;
    url_of(url, sizeof url, hosts[m[want].host], want);
    assert_string_equal(it.url, url);
    m[want].state = 2;
    out_of_host[m[want].host]++;
  } else if(m[i].state == 2) {
    assert_int_equal(frontier_done(f, hash_fp64(url, strlen(url)), NULL), CRAWL_OK);
    m[i].state = 3;
    out_of_host[m[i].host]--;
  }
}

static void test_against_model(void **state)
{
  (void)state;
  long live = mem_live();
  struct frontier *f = open_scored(1 << 22, 2);
  struct model_ent *m = calloc(MODEL_MAX, sizeof *m);
  int out_of_host[5] = { 0 };
  uint64_t seq = 0, s = 42;
  for(int i = 0; i < MODEL_MAX; i++)
    m[i].host = (int)(rnd(&s) % 5);
  for(int step = 0; step < 20000; step++)
    model_step(f, m, out_of_host, &seq, &s);
  struct frontier_stats st;
  frontier_stats(f, &st);
  size_t queued = 0;
  for(int i = 0; i < MODEL_MAX; i++)
    queued += m[i].state == 1;
  assert_int_equal(st.queued, queued);
  free(m);
  frontier_close(&f);
  assert_int_equal(mem_live(), live);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_order),
    cmocka_unit_test(test_equal_scores_fifo),
    cmocka_unit_test(test_per_host_bound),
    cmocka_unit_test(test_raise),
    cmocka_unit_test(test_bound),
    cmocka_unit_test(test_checkpoint),
    cmocka_unit_test(test_against_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
