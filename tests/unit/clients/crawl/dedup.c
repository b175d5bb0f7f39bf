/* clients/web/simhash.c and dedup.c: SimHash keeps small edits close and
 * unrelated texts far; the content-seen test finds exact and near copies,
 * through the band index (not a scan), keeps pointing at the original,
 * respects its budgets and survives a checkpoint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/crawl/dedup.c"
#include "clients/crawl/dedup.h"
#include "clients/web/simhash.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/mem.h"

static const char *const words[] = {
  "crawl", "fetch", "page", "link", "site", "robots", "delay", "cache", "index",
  "server", "request", "answer", "loopback", "world", "test", "queue", "host",
  "politeness", "gateway", "fetcher", "body", "header", "status", "redirect",
  "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
};
#define NW (sizeof words / sizeof words[0])

/* A text of n words from a seeded stream; word number edit (if < n) is
 * replaced by a word of no other text. */
static void text_edit(uint64_t seed, size_t n, size_t edit, struct buf *b)
{
  buf_init(b, 1 << 20);
  for(size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    buf_adds(b, i == edit ? "changed" : words[(seed >> 33) % NW]);
    buf_addc(b, ' ');
  }
}

static void text(uint64_t seed, size_t n, struct buf *b)
{
  text_edit(seed, n, n, b);
}

/* Pages of 400 words from 32: one word changed keeps most pairs within the
 * default threshold (the expected distance is 64/pi times the angle between
 * the feature vectors, about 2.5 bits for 3 of 398 shingles changed);
 * unrelated pages are far apart. Prints the distributions. */
static void test_simhash_distances(void **state)
{
  (void)state;
  unsigned within = 0, edit_max = 0, unrelated_min = 64;
  double edit_sum = 0, unrelated_sum = 0;
  const unsigned trials = 200;
  for(uint64_t k = 1; k <= trials; k++) {
    struct buf a, b, c;
    text(k, 400, &a);
    text_edit(k, 400, 200, &b);
    text(k + 100000, 400, &c);
    uint64_t ha = simhash_text(a.data, a.len, NULL);
    unsigned de = simhash_distance(ha, simhash_text(b.data, b.len, NULL));
    unsigned du = simhash_distance(ha, simhash_text(c.data, c.len, NULL));
    within += de <= 3;
    edit_sum += de;
    edit_max = de > edit_max ? de : edit_max;
    unrelated_min = du < unrelated_min ? du : unrelated_min;
    unrelated_sum += du;
    buf_free(&a);
    buf_free(&b);
    buf_free(&c);
  }
  print_message("# 400-word pages, one word changed: mean distance %.2f, max %u, "
                "%u%% within 3; unrelated: min %u, mean %.1f\n", edit_sum / trials,
                edit_max, within * 100 / trials, unrelated_min, unrelated_sum / trials);
  assert_true(within * 100 / trials >= 70);
  assert_true(unrelated_min > 10);
}

static void test_exact_near_new(void **state)
{
  (void)state;
  struct dedup *d = NULL;
  assert_int_equal(dedup_open(NULL, &d), CRAWL_OK);
  struct buf a, b, c;
  text(7, 1000, &a);
  text_edit(7, 1000, 500, &b);
  text(8, 1000, &c);
  size_t sa, sb, sc;
  uint64_t ha = simhash_text(a.data, a.len, &sa), hb = simhash_text(b.data, b.len, &sb);
  uint64_t hc = simhash_text(c.data, c.len, &sc);
  struct dedup_hit h;
  assert_int_equal(dedup_check(d, "http://o/a", hash_fp64(a.data, a.len), ha, sa, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEW);
  assert_int_equal(dedup_check(d, "http://o/a2", hash_fp64(a.data, a.len), ha, sa, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_EXACT);
  assert_string_equal(h.of, "http://o/a");
  assert_int_equal(dedup_check(d, "http://o/b", hash_fp64(b.data, b.len), hb, sb, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_string_equal(h.of, "http://o/a");
  assert_true(h.distance <= 3);
  /* The near copy was not remembered: its exact twin is near to a. */
  assert_int_equal(dedup_check(d, "http://o/b2", hash_fp64(b.data, b.len), hb, sb, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_string_equal(h.of, "http://o/a");
  assert_int_equal(dedup_check(d, "http://o/c", hash_fp64(c.data, c.len), hc, sc, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEW);
  /* Too few features: exact test only. */
  assert_int_equal(dedup_check(d, "http://o/s1", 1, ha, 2, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEW);
  struct dedup_stats st;
  dedup_stats(d, &st);
  assert_int_equal(st.pages, 6);
  assert_int_equal(st.exact, 1);
  assert_int_equal(st.near, 2);
  buf_free(&a);
  buf_free(&b);
  buf_free(&c);
  dedup_close(&d);
  assert_null(d);
}

/* A near duplicate whose links are the original's (in any order) has
 * nothing of its own; one that links elsewhere says so, and a checkpoint
 * keeps the originals' link sets. */
static void test_near_own_links(void **state)
{
  (void)state;
  struct dedup *d = NULL;
  assert_int_equal(dedup_open(NULL, &d), CRAWL_OK);
  struct buf a, b;
  text(7, 1000, &a);
  text_edit(7, 1000, 500, &b);
  size_t sa, sb;
  uint64_t ha = simhash_text(a.data, a.len, &sa), hb = simhash_text(b.data, b.len, &sb);
  uint64_t la = dedup_links_add(dedup_links_add(0, "http://o/x"), "http://o/y");
  uint64_t same = dedup_links_add(dedup_links_add(0, "http://o/y"), "http://o/x");
  uint64_t more = dedup_links_add(same, "http://o/z");
  assert_true(la == same && la != more && dedup_links_add(0, "http://o/x") != la);
  struct dedup_hit h;
  assert_int_equal(dedup_check(d, "http://o/a", 1, ha, sa, la, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEW);
  assert_int_equal(dedup_check(d, "http://o/b", 2, hb, sb, same, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_false(h.own_links);
  assert_int_equal(dedup_check(d, "http://o/c", 3, hb, sb, more, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_true(h.own_links);
  assert_int_equal(dedup_check(d, "http://o/e", 4, hb, sb, 0, NULL, &h), CRAWL_OK);
  assert_true(h.verdict == DEDUP_NEAR && h.own_links);  /* no links where a has some */
  struct dedup_stats st;
  dedup_stats(d, &st);
  assert_int_equal(st.near, 3);
  assert_int_equal(st.near_own_links, 2);
  buf_free(&a);
  buf_free(&b);
  dedup_close(&d);
}

/* Unicode's spaces separate words as ASCII's do: runs of &nbsp; (code
 * listings indent with them) are not words whose shingles, repeated,
 * outweigh the text. */
static void test_simhash_unicode_spaces(void **state)
{
  (void)state;
  size_t sh;
  uint64_t a = simhash_text("one two three four", 18, &sh);
  assert_int_equal(sh, 2);
  static const char *const spaced[] = {
    "one\xc2\xa0two\xc2\xa0\xc2\xa0three\xe2\x80\x83" "four",
    "one\xe2\x80\x8btwo\xe3\x80\x80three\xef\xbb\xbf\xe2\x80\xaf four\xe2\x81\x9f",
  };
  for(size_t i = 0; i < 2; i++) {
    assert_true(simhash_text(spaced[i], strlen(spaced[i]), &sh) == a);
    assert_int_equal(sh, 2);
  }
  /* Other non-ASCII bytes are still letters: one word, and an incomplete
   * sequence at the end of the text is one too. */
  simhash_text("caf\xc3\xa9 na\xc3\xafve \xc2", 13, &sh);
  assert_int_equal(sh, 1);
  /* Two texts that share only runs of no-break spaces are far apart. */
  struct buf x, y;
  buf_init(&x, 1u << 16);
  buf_init(&y, 1u << 16);
  for(int i = 0; i < 200; i++) {
    buf_addf(&x, "alpha%d beta%d \xc2\xa0\xc2\xa0\xc2\xa0\xc2\xa0 ", i, i);
    buf_addf(&y, "gamma%d delta%d \xc2\xa0\xc2\xa0\xc2\xa0\xc2\xa0 ", i, i);
  }
  assert_true(simhash_distance(simhash_text(x.data, x.len, NULL),
                               simhash_text(y.data, y.len, NULL)) > 10);
  buf_free(&x);
  buf_free(&y);
}

/* 100,000 originals: a lookup compares with a handful, not all. */
static void test_band_index_is_not_a_scan(void **state)
{
  (void)state;
  struct dedup *d = NULL;
  assert_int_equal(dedup_open(NULL, &d), CRAWL_OK);
  uint64_t x = 0x1234567;
  struct dedup_hit h;
  char url[64];
  uint64_t target = 0;
  for(int i = 0; i < 100000; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t sim = x ^ (x >> 29);
    if(i == 5000)
      target = sim;
    snprintf(url, sizeof url, "http://o/%d", i);
    assert_int_equal(dedup_check(d, url, x, sim, 100, 0, NULL, &h), CRAWL_OK);
  }
  struct dedup_stats before, after;
  dedup_stats(d, &before);
  /* 3 bits off the 5000th page, one in each of three bands. */
  uint64_t probe = target ^ 1ull ^ (1ull << 20) ^ (1ull << 40);
  assert_int_equal(dedup_check(d, "http://o/probe", 42, probe, 100, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_string_equal(h.of, "http://o/5000");
  assert_int_equal(h.distance, 3);
  dedup_stats(d, &after);
  print_message("# 100,000 pages: a near lookup made %" PRIu64 " comparisons; "
                "index %zu KiB (%.1f bytes/page)\n", after.comparisons - before.comparisons,
                after.mem_bytes >> 10, (double)after.mem_bytes / 100000);
  assert_true(after.comparisons - before.comparisons < 100);
  dedup_close(&d);
}

static void test_budget_and_checkpoint(void **state)
{
  (void)state;
  struct dedup_opts o = dedup_opts_default();
  o.max_pages = 3;
  struct dedup *d = NULL;
  assert_int_equal(dedup_open(&o, &d), CRAWL_OK);
  struct dedup_hit h;
  const uint64_t mul = 0x9E3779B97F4A7C15ull;  /* far-apart fingerprints */
  for(uint64_t i = 1; i <= 5; i++)
    assert_int_equal(dedup_check(d, "http://o/x", i, i * mul, 100, i * 7, NULL, &h), CRAWL_OK);
  struct dedup_stats st;
  dedup_stats(d, &st);
  assert_int_equal(st.untracked, 2);
  char path[] = "/tmp/wpfs-dedup-ck.XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "TESTDDUP"), CRAWL_OK);
  dedup_save(d, &c);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  dedup_close(&d);
  assert_int_equal(dedup_open(&o, &d), CRAWL_OK);
  assert_int_equal(ckfile_open(&c, path, "TESTDDUP"), CRAWL_OK);
  dedup_load(d, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  unlink(path);
  assert_int_equal(dedup_check(d, "http://o/y", 2, 0, 0, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_EXACT);
  assert_int_equal(dedup_check(d, "http://o/y", 4, 0, 0, 0, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEW);  /* 4 was over the budget */
  /* Near lookups work after the reload too, and the original's link set
   * came back with it. */
  assert_int_equal(dedup_check(d, "http://o/z", 99, (3 * mul) ^ 1, 100, 3 * 7, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_false(h.own_links);
  assert_int_equal(dedup_check(d, "http://o/w", 98, (3 * mul) ^ 2, 100, 5, NULL, &h), CRAWL_OK);
  assert_int_equal(h.verdict, DEDUP_NEAR);
  assert_true(h.own_links);
  dedup_close(&d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_simhash_distances),
    cmocka_unit_test(test_exact_near_new),
    cmocka_unit_test(test_near_own_links),
    cmocka_unit_test(test_simhash_unicode_spaces),
    cmocka_unit_test(test_band_index_is_not_a_scan),
    cmocka_unit_test(test_budget_and_checkpoint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
