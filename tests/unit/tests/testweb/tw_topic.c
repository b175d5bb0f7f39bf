/* tests/testweb/tw_topic*.c, with no socket: the topical web has the shape
 * it promises. Labels: the target's share, its sites, the hidden ones pure;
 * the same seed gives the same web. The link graph: links mostly within a
 * topic, the hidden sites linked only from their own pages and from the
 * bridge topic, the next page last; the pages link exactly the graph, with
 * anchors that mostly name their target's topic and text mostly from the
 * page's own and neighbouring vocabularies. The control resources: the
 * harvest of recorded requests in arrival order, and the simulated crawls
 * (the oracle never below breadth first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testweb/tw_topic.c"
#include "common/mem.h"
#include "tests/testweb/tw_beh.h"
#include "tests/testweb/tw_bomb.h"
#include "tests/testweb/tw_churn.h"
#include "tests/testweb/tw_err.h"
#include "tests/testweb/tw_fill.h"
#include "tests/testweb/tw_gen.h"
#include "tests/testweb/tw_http.h"
#include "tests/testweb/tw_load.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_plan.h"
#include "tests/testweb/tw_rec.h"
#include "tests/testweb/tw_robots.h"
#include "tests/testweb/tw_route.h"
#include "tests/testweb/tw_site.h"
#include "tests/testweb/tw_topic.h"
#include "tests/testweb/tw_topic_ctl.h"
#include "tests/testweb/tw_world.h"

#define SITES 100
#define PAGES 60

static struct tw_world W;

static void world(long seed, const char *spec)
{
  char err[256], gen[128];
  tw_world_free(&W);
  tw_world_init(&W, 1000);
  W.link_port = 8080;
  snprintf(gen, sizeof gen, "sites=%d,pages=%d,links=8,seed=%ld", SITES, PAGES, seed);
  assert_int_equal(tw_gen_parse(&W.gen, gen, err, sizeof err), TW_OK);
  assert_int_equal(tw_gen_world(&W, err, sizeof err), TW_OK);
  tw_err e = tw_topic_build(&W, spec, err, sizeof err);
  if(e)
    fail_msg("%s", err);
}

static int teardown(void **state)
{
  (void)state;
  tw_world_free(&W);
  memset(&W, 0, sizeof W);  /* world() frees it again */
  return 0;
}

static void test_labels(void **state)
{
  (void)state;
  world(7, "topics=12,share=0.05,hidden=0.4");
  const struct tw_topics *t = W.topics;
  int target_sites = 0, hidden = 0;
  size_t target_pages = 0;
  for(size_t s = 0; s < SITES; s++) {
    target_sites += t->site_topic[s] == 0;
    hidden += t->site_hidden[s];
    if(t->site_hidden[s]) {
      assert_int_equal(t->site_topic[s], 0);
      for(long j = 0; j < PAGES; j++)
        assert_int_equal(tw_topic_of(t, s, j), 0);  /* pure: reached as one cluster */
    }
    assert_int_equal(tw_topic_of(t, s, 0), t->site_topic[s]);
    for(long j = 0; j < PAGES; j++)
      target_pages += tw_topic_of(t, s, j) == 0;
  }
  assert_int_equal(target_sites, 5);
  assert_int_equal(hidden, 2);
  double share = (double)target_pages / (SITES * PAGES);
  print_message("# target pages: %zu (%.1f %%)\n", target_pages, 100 * share);
  assert_true(share > 0.04 && share < 0.08);
  assert_int_equal(tw_topic_of(t, SITES, 0), -1);
  assert_int_equal(tw_topic_of(t, 0, PAGES), -1);
  /* The same seed, the same labels; another seed, others. */
  uint8_t first[SITES];
  memcpy(first, t->site_topic, SITES);
  world(7, "topics=12,share=0.05,hidden=0.4");
  assert_memory_equal(first, W.topics->site_topic, SITES);
  world(8, "topics=12,share=0.05,hidden=0.4");
  assert_memory_not_equal(first, W.topics->site_topic, SITES);
  char err[128];
  assert_int_equal(tw_topic_build(&W, "topics=40", err, sizeof err), TW_CONFIG);
  assert_int_equal(tw_topic_build(&W, "colour=red", err, sizeof err), TW_CONFIG);
  assert_non_null(strstr(err, "colour"));
}

/* Links stay mostly on their topic; hidden sites get links only from
 * themselves and from topic 1; the next page comes last. */
static void test_links(void **state)
{
  (void)state;
  world(7, "topics=12,share=0.05,hidden=0.4,local=0.8,bridge=0.1");
  const struct tw_topics *t = W.topics;
  struct tw_topic_link l[64];
  size_t total = 0, same = 0, into_hidden = 0;
  for(size_t s = 0; s < SITES; s++)
    for(long j = 0; j < PAGES; j++) {
      size_t n = tw_topic_links(t, s, j, l, 64);
      assert_true(n >= 2 && n <= 9);
      assert_int_equal(l[n - 1].site, s);
      assert_int_equal(l[n - 1].page, (uint32_t)((j + 1) % PAGES));
      int tp = tw_topic_of(t, s, j);
      for(size_t i = 0; i + 1 < n; i++) {
        total++;
        same += tw_topic_of(t, l[i].site, l[i].page) == tp;
        if(t->site_hidden[l[i].site] && l[i].site != s) {
          assert_int_equal(tp, 1);  /* only the bridge leads into a hidden site */
          into_hidden++;
        }
      }
      struct tw_topic_link again[64];
      assert_int_equal(tw_topic_links(t, s, j, again, 64), n);
      assert_memory_equal(again, l, n * sizeof *l);
    }
  double local = (double)same / (double)total;
  print_message("# %zu links, %.1f %% to the same topic, %zu into hidden sites\n", total,
                100 * local, into_hidden);
  assert_true(local > 0.78 && local < 0.9);
  assert_true(into_hidden > 10);
}

static bool in_vocab(size_t topic, const char *w, size_t n)
{
  struct tw_words v;
  tw_topic_words(topic, &v);
  for(size_t i = 0; i < v.n; i++)
    if(strlen(v.v[i]) == n && !memcmp(v.v[i], w, n))
      return true;
  return false;
}

/* Every word of an anchor in the topic's vocabulary. */
static bool anchor_named(size_t topic, const char *a, size_t n)
{
  for(size_t i = 0; i < n;) {
    size_t w = strcspn(a + i, " ");
    if(w > n - i)
      w = n - i;
    if(!in_vocab(topic, a + i, w))
      return false;
    i += w + 1;
  }
  return true;
}

/* The HTML links the graph, in order; most anchors name their target's
 * topic; a page's words come from its topic as promised. */
static void test_pages(void **state)
{
  (void)state;
  world(7, "topics=12,named=0.7,overlap=0.1,words=200");
  const struct tw_topics *t = W.topics;
  size_t anchors = 0, named = 0, words = 0, own = 0;
  for(size_t s = 0; s < 20; s++)
    for(long j = 0; j < PAGES; j++) {
      struct buf b;
      buf_init(&b, 1 << 20);
      assert_int_equal(tw_page_html(&W, W.sites[s], j, 0, &b), TW_OK);
      struct tw_topic_link l[64];
      size_t n = tw_topic_links(t, s, j, l, 64);
      const char *p = b.data;
      for(size_t i = 0; i < n; i++) {
        char want[128];
        char base[64] = "";
        if(l[i].site != s)
          snprintf(base, sizeof base, "http://site%u.test:8080", l[i].site);
        if(l[i].page)
          snprintf(want, sizeof want, "<a href=\"%s/p/%u.html\">", base, l[i].page);
        else
          snprintf(want, sizeof want, "<a href=\"%s/\">", base);
        p = strstr(p, want);
        assert_non_null(p);
        p += strlen(want);
        size_t alen = strcspn(p, "<");
        if(i + 1 < n) {
          anchors++;
          named += anchor_named((size_t)tw_topic_of(t, l[i].site, l[i].page), p, alen);
        }
      }
      assert_null(strstr(p, "<a href"));  /* no other link */
      /* The first paragraph: the page's own words and the rest. */
      int tp = tw_topic_of(t, s, j);
      const char *q = strstr(b.data, "</h1>\n<p>") + 9;
      size_t end = strcspn(q, ".");
      for(size_t i = 0; i < end;) {
        size_t w = strcspn(q + i, " .");
        words++;
        own += in_vocab((size_t)tp, q + i, w);
        i += w + 1;
      }
      buf_free(&b);
    }
  print_message("# %zu anchors, %.1f %% named; %.1f %% of the words from the page's topic\n",
                anchors, 100.0 * named / anchors, 100.0 * own / words);
  /* Named ones, plus misleading ones that happen to be of the same topic. */
  assert_true((double)named / anchors > 0.68 && (double)named / anchors < 0.85);
  assert_true((double)own / words > 0.27 && (double)own / words < 0.36);
}

static void record(const char *site, const char *path, uint64_t at)
{
  struct tw_site *s = tw_world_find(&W, site, strlen(site));
  struct tw_rec_in in = { TW_M_GET, { path, strlen(path) }, { "ua", 2 }, { NULL, 0 },
                          { NULL, 0 }, 1, at };
  tw_rec_end(&s->rec, tw_rec_begin(&s->rec, &in), 200, 10, TW_OUT_DONE, at + 1);
}

static void ctl(const char *path, const char *query, int want_status, struct buf *out)
{
  int status;
  const char *ctype = "application/json";
  buf_reset(out);
  assert_true(tw_topic_ctl(&W, path, query, out, &status, &ctype));
  assert_int_equal(status, want_status);
}

/* The harvest of what the sites were asked, in arrival order (not site
 * by site), counting page requests only. */
static void test_harvest(void **state)
{
  (void)state;
  world(7, "topics=12,share=0.05");
  const struct tw_topics *t = W.topics;
  size_t target = 0, other = 0;
  while(t->site_topic[target] != 0)
    target++;
  while(t->site_topic[other] == 0)
    other++;
  char ts[32], os[32];
  snprintf(ts, sizeof ts, "site%zu.test", target);
  snprintf(os, sizeof os, "site%zu.test", other);
  record(ts, "/", 10);            /* 1: relevant (a home page is its site's) */
  record(os, "/", 20);            /* 2 */
  record(os, "/robots.txt", 25);  /* not a page */
  record(ts, "/?ref=1", 30);      /* 3: relevant, a duplicate URL of / */
  record(os, "/p/3.html", 40);    /* 4 */
  struct buf out;
  buf_init(&out, 1 << 20);
  ctl("/topics/harvest", "at=1,2,3,4,5", 200, &out);
  assert_non_null(strstr(out.data, "\"pages\":4,\"relevant\":2,"));
  assert_non_null(strstr(out.data, "\"at\":{\"1\":1.0000,\"2\":0.5000,\"3\":0.6667,\"4\":0.5000}"));
  ctl("/topics", "", 200, &out);
  assert_non_null(strstr(out.data, "\"names\":[\"sailing\",\"fishing\""));
  ctl("/topics/labels", "", 200, &out);
  assert_int_equal(strlen(out.data) > 0, 1);
  char line[64];
  snprintf(line, sizeof line, "\n%s /p/3.html %d\n", os, tw_topic_of(t, other, 3));
  assert_non_null(strstr(out.data, line));
  ctl("/topics/nothing", "", 404, &out);
  assert_false(tw_topic_ctl(&W, "/sites", "", &out, &(int){ 0 }, &(const char *){ NULL }));
  buf_free(&out);
}

/* Crawls simulated on the graph: the oracle, which knows the labels, is
 * never behind breadth first; bad queries are refused. */
static void test_simulate(void **state)
{
  (void)state;
  world(7, "topics=12,share=0.05");
  const struct tw_topics *t = W.topics;
  char seeds[256] = "";
  for(size_t s = 0, n = 0; n < 3; s++)
    if(t->site_topic[s] > 1) {
      snprintf(seeds + strlen(seeds), sizeof seeds - strlen(seeds), "%ssite%zu.test",
               n++ ? "," : "", s);
    }
  char q[512];
  struct buf out;
  buf_init(&out, 1 << 20);
  double h[2][3];
  const char *strat[2] = { "bfs", "oracle" };
  for(int k = 0; k < 2; k++) {
    snprintf(q, sizeof q, "strategy=%s&seeds=%s&max=1000&at=100,500,1000", strat[k], seeds);
    ctl("/topics/simulate", q, 200, &out);
    json_t *o = json_loads(out.data, 0, NULL);
    assert_non_null(o);
    assert_int_equal(json_integer_value(json_object_get(o, "pages")), 1000);
    assert_int_equal(json_integer_value(json_object_get(o, "reachable")), SITES * PAGES);
    json_t *at = json_object_get(o, "at");
    h[k][0] = json_real_value(json_object_get(at, "100"));
    h[k][1] = json_real_value(json_object_get(at, "500"));
    h[k][2] = json_real_value(json_object_get(at, "1000"));
    json_decref(o);
  }
  print_message("# bfs %.3f %.3f %.3f, oracle %.3f %.3f %.3f\n", h[0][0], h[0][1], h[0][2],
                h[1][0], h[1][1], h[1][2]);
  for(int i = 0; i < 3; i++)
    assert_true(h[1][i] >= h[0][i]);
  assert_true(h[1][1] > 5 * h[0][1]);
  ctl("/topics/simulate", "strategy=dfs&seeds=site1.test", 400, &out);
  ctl("/topics/simulate", "strategy=bfs&seeds=nosuch.test", 400, &out);
  ctl("/topics/simulate", "strategy=bfs", 400, &out);
  buf_free(&out);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_teardown(test_labels, teardown),
    cmocka_unit_test_teardown(test_links, teardown),
    cmocka_unit_test_teardown(test_pages, teardown),
    cmocka_unit_test_teardown(test_harvest, teardown),
    cmocka_unit_test_teardown(test_simulate, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
