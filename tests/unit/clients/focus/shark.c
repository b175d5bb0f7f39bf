/* clients/focus/shark.c and focus*.c: the SharkSearch formulas against
 * cases computed by hand; the scorer on real pages: each strategy's link
 * scores (shark: anchor, context, inheritance; best-first: the page's
 * similarity; bfs: all equal), the meta each link carries (inherited
 * score, off-topic distance, parent), the depth bound, the harvest counts
 * at 100, 200, 500 pages; the crawl log members read back as a resume
 * needs them; checkpoints. */
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

#include "clients/focus/shark.c"
#include "clients/focus/focus.c"
#include "clients/focus/focus_rec.c"
#include "clients/out/crawllog.h"
#include "clients/focus/focus.h"
#include "clients/focus/focus_int.h"
#include "clients/focus/shark.h"
#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "common/mem.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* gamma 0.6, delta 0.5, beta 0.8, d 2. */
static const struct shark_params P = { 0.6, 0.5, 0.8, 2 };

static void test_formulas(void **state)
{
  (void)state;
  struct shark_parent rel = { 0.7, true, 0.1, 1 }, irr = { 0.1, false, 0.3, 1 };
  /* inherited: delta * sim for a relevant parent, delta * its inherited else */
  NEAR(shark_inherited(&P, &rel), 0.35);
  NEAR(shark_inherited(&P, &irr), 0.15);
  /* context: 1 when the anchor matches, the text around it otherwise */
  NEAR(shark_context(0.4, 0.3), 1.0);
  NEAR(shark_context(0.0, 0.3), 0.3);
  /* neighbourhood: 0.8 * 0.4 + 0.2 * 1 = 0.52; 0.8 * 0 + 0.2 * 0.3 = 0.06 */
  NEAR(shark_neighbourhood(&P, 0.4, 0.3), 0.52);
  NEAR(shark_neighbourhood(&P, 0.0, 0.3), 0.06);
  /* score: 0.6 * 0.35 + 0.4 * 0.52 = 0.418; 0.6 * 0.15 + 0.4 * 0.06 = 0.114 */
  NEAR(shark_score(&P, 0.35, 0.52), 0.418);
  NEAR(shark_score(&P, 0.15, 0.06), 0.114);
  /* gamma 1: inheritance only; gamma 0: the link alone */
  struct shark_params g1 = { 1, 0.5, 0.8, 2 }, g0 = { 0, 0.5, 0.8, 2 };
  NEAR(shark_score(&g1, 0.35, 0.52), 0.35);
  NEAR(shark_score(&g0, 0.35, 0.52), 0.52);
  /* decay along an off-topic path: 0.7 -> 0.35 -> 0.175 -> 0.0875 */
  struct shark_parent a = { 0.7, true, 0, 0 };
  struct shark_parent b = { 0.05, false, shark_inherited(&P, &a), shark_off(&a) };
  struct shark_parent c = { 0.05, false, shark_inherited(&P, &b), shark_off(&b) };
  NEAR(b.inherited, 0.35);
  NEAR(c.inherited, 0.175);
  NEAR(shark_inherited(&P, &c), 0.0875);
  /* the depth bound d = 2: two irrelevant pages in a row, not three */
  assert_int_equal(b.off, 0);
  assert_int_equal(c.off, 1);
  struct shark_parent e = { 0.05, false, 0, shark_off(&c) };
  assert_int_equal(e.off, 2);
  assert_true(shark_follows(&P, &a));
  assert_true(shark_follows(&P, &b));
  assert_true(shark_follows(&P, &c));
  assert_false(shark_follows(&P, &e));
  e.relevant = true;
  assert_true(shark_follows(&P, &e));
  assert_int_equal(shark_off(&e), 0);
}

/* ---- The scorer on real pages ---------------------------------------------- */

struct page {
  struct html_links l;
  struct buf        text, log;
  struct frontier_score *scores;
  bool             *follow;
};

static void page_open(struct page *pg, const char *html)
{
  memset(pg, 0, sizeof *pg);
  struct html_links_opts o = html_links_opts_default();
  o.text_max = 1 << 16;
  assert_int_equal(html_links_extract(html, strlen(html), NULL, "http://p.test/page", &o, &pg->l,
                                      NULL), CRAWL_OK);
  buf_init(&pg->log, CRAWLLOG_EXTRA_MAX);
  pg->scores = calloc(pg->l.n + 1, sizeof *pg->scores);
  pg->follow = calloc(pg->l.n + 1, sizeof *pg->follow);
}

static void page_close(struct page *pg)
{
  html_links_free(&pg->l);
  buf_free(&pg->log);
  free(pg->scores);
  free(pg->follow);
}

static void page_score(struct focus *f, struct page *pg, const struct frontier_score *own)
{
  const struct crawl_scorer *h = focus_scorer(f);
  struct crawl_scored sp = { "http://p.test/page", "ok", 200, own, pg->l.text.data,
                             pg->l.text.len, &pg->l, false, pg->scores, pg->follow, &pg->log,
                             false };
  assert_int_equal(h->page(h->arg, &sp), CRAWL_OK);
}

static struct focus *open_focus(enum focus_strategy s, double threshold)
{
  struct focus_opts o = focus_opts_default();
  o.strategy = s;
  o.shark = P;
  o.threshold = threshold;
  o.context_bytes = 40;
  struct focus *f;
  assert_int_equal(focus_open(&o, &f), CRAWL_OK);
  const char topic[] = "sailing yachts regatta";
  assert_int_equal(focus_topic_words(f, topic, sizeof topic - 1), CRAWL_OK);
  return f;
}

static const char sail_page[] =
  "<p>The yachts sailed the regatta; sailing crews sail yachts.</p>"
  "<p><a href=/a>yacht regatta</a></p>"
  "<p>word word word regatta sailing yachts <a href=/b>next</a> word word</p>"
  "<p>market people city trade goods prices <a href=/c>more</a> bread cheese fruit</p>";

static double link_score(const struct page *pg, const char *url)
{
  for(size_t i = 0; i < pg->l.n; i++)
    if(strstr(pg->l.v[i].url, url))
      return pg->scores[i].score;
  fail_msg("no link %s", url);
  return -1;
}

/* shark: the anchor that names the topic first, then the one whose words
 * around name it, then the one with neither, which keeps only its
 * inheritance: gamma * delta * sim(page). */
static void test_shark_links(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_SHARK, 0.2);
  struct page pg;
  page_open(&pg, sail_page);
  page_score(f, &pg, NULL);
  double sim = focus_sim(f, &f->scratch, pg.l.text.data, pg.l.text.len);
  assert_true(sim >= 0.2);
  double a = link_score(&pg, "/a"), b = link_score(&pg, "/b"), c = link_score(&pg, "/c");
  double anchor = focus_sim(f, &f->scratch, "yacht regatta", 13);
  NEAR(a, 0.6 * 0.5 * sim + 0.4 * (0.8 * anchor + 0.2 * 1.0));
  assert_true(b > c);
  assert_true(b < a);
  NEAR(c, 0.6 * 0.5 * sim);
  struct focus_link fl;
  focus_link_read(&pg.scores[0], &fl);
  assert_true(fabs(fl.inherited - 0.5 * sim) < 1e-6);
  assert_int_equal(fl.off, 0);
  assert_int_equal(fl.parent_len, strlen("http://p.test/page"));
  assert_memory_equal(fl.parent, "http://p.test/page", fl.parent_len);
  for(size_t i = 0; i < pg.l.n; i++)
    assert_true(pg.follow[i]);
  /* The log line's members. */
  assert_non_null(strstr(pg.log.data, "\"relevant\":true"));
  assert_non_null(strstr(pg.log.data, "\"parent\":null"));
  assert_non_null(strstr(pg.log.data, "\"off_topic\":0"));
  page_close(&pg);
  focus_close(&f);
}

static const char market_page[] =
  "<p><a href=/b>fruit</a> market people city trade goods prices bread cheese butter milk "
  "eggs fish meat wine beer coffee tea sugar salt stall baker grocer <a href=/a>yacht</a></p>";

/* An irrelevant page: its links inherit delta * its own inherited score,
 * one more off-topic step; at the depth bound they are not followed. */
static void test_shark_off_topic(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_SHARK, 0.2);
  /* Chosen by a link that carried inherited 0.4 and off-topic distance 1. */
  unsigned char *m = NULL;
  size_t mcap = 0, mlen;
  assert_int_equal(focus_meta(&m, &mcap, 0.4, 1, "http://q.test/", 14, &mlen), CRAWL_OK);
  struct frontier_score own = { 0.3, m, mlen };
  struct page pg;
  page_open(&pg, market_page);
  page_score(f, &pg, &own);
  assert_true(strstr(pg.log.data, "\"relevant\":false") != NULL);
  struct focus_link fl;
  focus_link_read(&pg.scores[0], &fl);
  assert_true(fabs(fl.inherited - 0.2) < 1e-6);  /* 0.5 * 0.4 */
  assert_int_equal(fl.off, 2);
  assert_true(pg.follow[0] && pg.follow[1]);
  NEAR(link_score(&pg, "/b"), 0.6 * (double)(float)0.2);  /* inheritance alone */
  page_close(&pg);
  /* Now two off-topic pages behind it already: the bound (d = 2). */
  assert_int_equal(focus_meta(&m, &mcap, 0.4, 2, "http://q.test/", 14, &mlen), CRAWL_OK);
  own = (struct frontier_score){ 0.3, m, mlen };
  page_open(&pg, market_page);
  page_score(f, &pg, &own);
  assert_false(pg.follow[0]);
  assert_false(pg.follow[1]);
  page_close(&pg);
  mem_free(m);
  focus_close(&f);
}

/* best-first: every link scores its page's similarity; bfs: all the same. */
static void test_other_strategies(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_BEST_FIRST, 0.2);
  struct page pg;
  page_open(&pg, sail_page);
  page_score(f, &pg, NULL);
  double sim = focus_sim(f, &f->scratch, pg.l.text.data, pg.l.text.len);
  for(size_t i = 0; i < pg.l.n; i++)
    NEAR(pg.scores[i].score, sim);
  page_close(&pg);
  focus_close(&f);
  f = open_focus(FOCUS_BFS, 0.2);
  page_open(&pg, sail_page);
  page_score(f, &pg, NULL);
  for(size_t i = 0; i < pg.l.n; i++) {
    NEAR(pg.scores[i].score, 0);
    assert_true(pg.follow[i]);
  }
  page_close(&pg);
  focus_close(&f);
  enum focus_strategy s;
  assert_true(focus_strategy_parse("best-first", &s) && s == FOCUS_BEST_FIRST);
  assert_false(focus_strategy_parse("dfs", &s));
}

/* The harvest at 100, 200, 500: relevant among the first N pages. */
static void test_harvest(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_SHARK, 0.2);
  const struct crawl_scorer *h = focus_scorer(f);
  const char on[] = "sailing yachts regatta sail", off[] = "market bread cheese";
  struct buf log;
  buf_init(&log, CRAWLLOG_EXTRA_MAX);
  for(int i = 0; i < 600; i++) {
    bool rel = (i < 100 && i % 4 == 0) || (i >= 100 && i % 2 == 0);
    struct crawl_scored sp = { "http://h.test/", "ok", 200, NULL, rel ? on : off,
                               rel ? sizeof on - 1 : sizeof off - 1, NULL, false, NULL, NULL,
                               &log, false };
    buf_reset(&log);
    assert_int_equal(h->page(h->arg, &sp), CRAWL_OK);
  }
  struct focus_stats st;
  focus_stats(f, &st);
  assert_int_equal(st.pages, 600);
  assert_int_equal(st.nat, 3);
  assert_int_equal(st.at[0], 100);
  assert_int_equal(st.relevant_at[0], 25);
  assert_int_equal(st.at[1], 200);
  assert_int_equal(st.relevant_at[1], 75);
  assert_int_equal(st.at[2], 500);
  assert_int_equal(st.relevant_at[2], 225);
  assert_int_equal(focus_at(3), 1000);
  assert_int_equal(focus_at(7), 20000);
  buf_reset(&log);
  assert_int_equal(h->summary(h->arg, &log), CRAWL_OK);
  assert_non_null(strstr(log.data, "\"harvest_at\":{\"100\":0.2500,\"200\":0.3750,"
                                   "\"500\":0.4500}"));
  char note[64];
  h->note(h->arg, note, sizeof note);  /* the progress line's words */
  assert_string_equal(note, "harvest 0.46 (275 relevant)");
  buf_free(&log);
  focus_close(&f);
}

/* What the log line holds is what a resume reads back: the link that chose
 * the page, and its verdict, used as recorded. */
static void test_recorded(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_SHARK, 0.2);
  const struct crawl_scorer *h = focus_scorer(f);
  unsigned char *m = NULL;
  size_t mcap = 0, mlen;
  assert_int_equal(focus_meta(&m, &mcap, 0.25, 3, "http://up.test/\"q\"", 18, &mlen), CRAWL_OK);
  struct frontier_score own = { 0.625, m, mlen };
  struct buf log;
  buf_init(&log, CRAWLLOG_EXTRA_MAX);
  struct crawl_scored sp = { "http://h.test/", "ok", 200, &own, "sailing yachts", 14, NULL,
                             false, NULL, NULL, &log, false };
  assert_int_equal(h->page(h->arg, &sp), CRAWL_OK);
  char line[4096];
  snprintf(line, sizeof line, "{\"url\":\"http://h.test/\"%s}", log.data);
  struct frontier_score back;
  assert_int_equal(h->recorded(h->arg, line, strlen(line), &back), CRAWL_OK);
  NEAR(back.score, 0.625);
  assert_int_equal(back.meta_len, mlen);
  assert_memory_equal(back.meta, m, mlen);
  /* Replayed without its text (a duplicate has no record): counted as logged. */
  struct crawl_scored rp = { "http://h.test/", "ok", 200, &back, NULL, 0, NULL, true, NULL,
                             NULL, &log, false };
  assert_int_equal(h->page(h->arg, &rp), CRAWL_OK);
  struct focus_stats st;
  focus_stats(f, &st);
  assert_int_equal(st.pages, 2);
  assert_int_equal(st.relevant, 2);
  assert_int_equal(h->recorded(h->arg, "{\"url\":\"x\"}", 11, &back), CRAWL_ERR_CORRUPT);
  buf_free(&log);
  mem_free(m);
  focus_close(&f);
}

/* A checkpoint brings the crawl's own topic, IDF and counts back. */
static void test_checkpoint(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_SHARK, 0.2);
  const struct crawl_scorer *h = focus_scorer(f);
  struct page pg;
  page_open(&pg, sail_page);
  page_score(f, &pg, NULL);
  page_close(&pg);
  double before = focus_sim(f, &f->scratch, "regatta crews", 13);
  char path[] = "/tmp/wpfs-focus-ck.XXXXXX";
  close(mkstemp(path));
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "TESTFOCU"), CRAWL_OK);
  h->save(h->arg, &c);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  focus_close(&f);
  struct focus_opts o = focus_opts_default();
  assert_int_equal(focus_open(&o, &f), CRAWL_OK);  /* no topic of its own */
  h = focus_scorer(f);
  assert_int_equal(ckfile_open(&c, path, "TESTFOCU"), CRAWL_OK);
  h->load(h->arg, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  unlink(path);
  NEAR(focus_sim(f, &f->scratch, "regatta crews", 13), before);
  struct focus_stats st;
  focus_stats(f, &st);
  assert_int_equal(st.pages, 1);
  assert_int_equal(st.relevant, 1);
  assert_int_equal(st.idf_docs, 1);
  focus_close(&f);
}

/* A near duplicate with links of its own has them scored, but its words
 * are not learned again: the IDF counts original pages. */
static void test_near_copy_not_learned(void **state)
{
  (void)state;
  struct focus *f = open_focus(FOCUS_SHARK, 0.2);
  const struct crawl_scorer *h = focus_scorer(f);
  struct page pg;
  page_open(&pg, sail_page);
  page_score(f, &pg, NULL);
  struct crawl_scored sp = { "http://p.test/copy", "ok", 200, NULL, pg.l.text.data,
                             pg.l.text.len, &pg.l, false, pg.scores, pg.follow, &pg.log, true };
  assert_int_equal(h->page(h->arg, &sp), CRAWL_OK);
  struct focus_stats st;
  focus_stats(f, &st);
  assert_int_equal(st.pages, 2);
  assert_int_equal(st.idf_docs, 1);
  assert_true(st.links_scored >= 2 * pg.l.n);
  page_close(&pg);
  focus_close(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_formulas),
    cmocka_unit_test(test_shark_links),
    cmocka_unit_test(test_shark_off_topic),
    cmocka_unit_test(test_other_strategies),
    cmocka_unit_test(test_harvest),
    cmocka_unit_test(test_recorded),
    cmocka_unit_test(test_checkpoint),
    cmocka_unit_test(test_near_copy_not_learned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
