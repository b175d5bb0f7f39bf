/* clients/html*.c: link extraction (every source of links, base, canonical,
 * nofollow, filtering of schemes, repeats, cap), visible text, and the
 * parser's bounds (nesting estimate, memory budget, out of memory). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "clients/web/html_text.h"
#include "common/mem.h"

static void parse(const char *html, struct html_doc *doc)
{
  assert_int_equal(html_parse(html, strlen(html), NULL, doc), CRAWL_OK);
}

static void extract(const char *html, const char *page, struct html_links *l)
{
  struct html_doc doc;
  parse(html, &doc);
  assert_int_equal(html_links_extract(&doc, page, NULL, l), CRAWL_OK);
  html_free(&doc);
}

static const struct html_link *find(const struct html_links *l, const char *url)
{
  for(size_t i = 0; i < l->n; i++)
    if(!strcmp(l->v[i].url, url))
      return &l->v[i];
  return NULL;
}

static void test_every_source(void **state)
{
  (void)state;
  struct html_links l;
  extract("<html><head>"
          "<link rel=canonical href='/canon'>"
          "<link rel='alternate' hreflang=fr href='/fr/'>"
          "<link rel='alternate stylesheet' href='/alt.css'>"
          "<link rel=stylesheet href='/s.css'>"
          "<meta http-equiv=Refresh content='5; URL=/next'>"
          "</head><body>"
          "<a href='a.html'>a</a><map><area href='area.html'></map>"
          "<iframe src='//other.test/frame'></iframe>"
          "<frameset><frame src='f.html'></frameset>"
          "</body></html>",
          "http://example.test/dir/page.html", &l);
  assert_non_null(find(&l, "http://example.test/dir/a.html"));
  assert_int_equal(find(&l, "http://example.test/dir/a.html")->kind, HTML_LINK_A);
  assert_int_equal(find(&l, "http://example.test/dir/area.html")->kind, HTML_LINK_AREA);
  assert_int_equal(find(&l, "http://other.test/frame")->kind, HTML_LINK_IFRAME);
  assert_int_equal(find(&l, "http://example.test/fr/")->kind, HTML_LINK_ALTERNATE);
  assert_int_equal(find(&l, "http://example.test/next")->kind, HTML_LINK_REFRESH);
  assert_null(find(&l, "http://example.test/alt.css"));
  assert_null(find(&l, "http://example.test/s.css"));
  assert_null(find(&l, "http://example.test/canon"));  /* apart */
  assert_string_equal(l.canonical, "http://example.test/canon");
  assert_string_equal(html_link_kind_name(HTML_LINK_IFRAME), "iframe");
  html_links_free(&l);
}

static void test_frames(void **state)
{
  (void)state;
  struct html_links l;
  extract("<frameset><frame src='left.html'><frame src='right.html'></frameset>",
          "http://example.test/", &l);
  assert_int_equal(l.n, 2);
  assert_int_equal(find(&l, "http://example.test/left.html")->kind, HTML_LINK_FRAME);
  html_links_free(&l);
}

static void test_base_changes_resolution(void **state)
{
  (void)state;
  struct html_links l;
  extract("<head><base href='http://cdn.test/b/'><base href='http://ignored.test/'></head>"
          "<a href='x'>x</a><a href='/y'>y</a>", "http://example.test/p", &l);
  assert_string_equal(l.base, "http://cdn.test/b/");
  assert_non_null(find(&l, "http://cdn.test/b/x"));
  assert_non_null(find(&l, "http://cdn.test/y"));
  html_links_free(&l);
  /* A relative base resolves against the page; a base of another scheme is ignored. */
  extract("<base href='sub/'><a href='x'>", "http://example.test/d/p", &l);
  assert_non_null(find(&l, "http://example.test/d/sub/x"));
  html_links_free(&l);
  extract("<base href='ftp://f.test/'><a href='x'>", "http://example.test/d/p", &l);
  assert_non_null(find(&l, "http://example.test/d/x"));
  html_links_free(&l);
}

static void test_nofollow(void **state)
{
  (void)state;
  struct html_links l;
  extract("<a rel='external NoFollow' href='/n'>n</a><a rel=external href='/f'>f</a>",
          "http://example.test/", &l);
  assert_true(find(&l, "http://example.test/n")->nofollow);
  assert_false(find(&l, "http://example.test/f")->nofollow);
  assert_false(l.meta_nofollow);
  html_links_free(&l);
  extract("<meta name=ROBOTS content='noindex,nofollow'><a href=/x>", "http://e.test/", &l);
  assert_true(l.meta_nofollow);
  assert_true(l.meta_noindex);
  html_links_free(&l);
  extract("<meta name=robots content=none>", "http://e.test/", &l);
  assert_true(l.meta_nofollow && l.meta_noindex);
  html_links_free(&l);
}

static void test_filtering_and_counts(void **state)
{
  (void)state;
  struct html_links l;
  extract("<a href='mailto:a@b.test'>m</a><a href='javascript:void(0)'>j</a>"
          "<a href='ftp://f.test/'>f</a><a href='http://[::1'>bad</a>"
          "<a href='http://u:p@e.test/'>cred</a>"
          "<a href='/same#one'>1</a><a href='/same#two'>2</a><a href='/same'>3</a>"
          "<a>no href</a><a href=''>self</a>"
          "<a href='/x;jsessionid=0123456789ABCDEF?a=1'>sid</a>"
          "<a href='/wrapped\n/line\tbreak'>nl</a>",
          "http://example.test/d/", &l);
  assert_int_equal(l.not_http, 3);
  assert_int_equal(l.invalid, 2);
  assert_int_equal(l.repeated, 2);
  assert_non_null(find(&l, "http://example.test/same"));
  assert_non_null(find(&l, "http://example.test/d/"));
  assert_non_null(find(&l, "http://example.test/x?a=1"));
  assert_non_null(find(&l, "http://example.test/wrapped/linebreak"));
  assert_int_equal(l.n, 4);
  html_links_free(&l);
}

static void test_link_cap(void **state)
{
  (void)state;
  char html[40000];
  size_t n = 0;
  for(int i = 0; i < 1000; i++)
    n += (size_t)snprintf(html + n, sizeof html - n, "<a href='/%d'>", i);
  struct html_doc doc;
  parse(html, &doc);
  struct html_links_opts o = html_links_opts_default();
  o.max_links = 100;
  struct html_links l;
  assert_int_equal(html_links_extract(&doc, "http://e.test/", &o, &l), CRAWL_OK);
  assert_int_equal(l.n, 100);
  assert_int_equal(l.over_cap, 900);
  html_links_free(&l);
  assert_int_equal(html_links_extract(&doc, "not a url", &o, &l), CRAWL_ERR_INVALID);
  assert_int_equal(l.n, 0);
  html_free(&doc);
}

static void test_refresh_syntax(void **state)
{
  (void)state;
  size_t n;
  const char *u = html_refresh_url("0;url='/a b'", &n);
  assert_non_null(u);
  assert_int_equal(n, 4);
  assert_memory_equal(u, "/a b", 4);
  u = html_refresh_url(" 3 , http://x.test/ ", &n);
  assert_non_null(u);
  assert_int_equal(n, 14);
  u = html_refresh_url("1.5 URL = \"q\"", &n);
  assert_non_null(u);
  assert_memory_equal(u, "q", 1);
  assert_null(html_refresh_url("5", &n));
  assert_null(html_refresh_url("5;", &n));
  assert_null(html_refresh_url("5x;url=/a", &n));
}

static void test_visible_text(void **state)
{
  (void)state;
  struct html_doc doc;
  parse("<html><head><title>Title</title><style>p{}</style>"
        "<script>var x='<b>hidden</b>';</script></head>"
        "<body><p>One <b>two</b></p><noscript>ns</noscript><!-- c -->"
        "<template><p>tpl</p></template>three</body></html>", &doc);
  struct buf b;
  buf_init(&b, 1024);
  bool cut = true;
  assert_int_equal(html_text(&doc, &b, &cut), CRAWL_OK);
  assert_false(cut);
  assert_string_equal(b.data, "Title One two three ");
  buf_free(&b);
  buf_init(&b, 7);
  assert_int_equal(html_text(&doc, &b, &cut), CRAWL_OK);
  assert_true(cut);
  assert_string_equal(b.data, "Title O");
  buf_free(&b);
  html_free(&doc);
}

static char *repeat(const char *unit, size_t times, const char *tail)
{
  size_t u = strlen(unit), t = strlen(tail);
  char *s = mem_alloc(u * times + t + 1);
  for(size_t i = 0; i < times; i++)
    memcpy(s + i * u, unit, u);
  memcpy(s + u * times, tail, t + 1);
  return s;
}

static void test_depth_estimate(void **state)
{
  (void)state;
  char *deep = repeat("<div>", 3000, "");
  assert_int_equal(html_depth_cut(deep, strlen(deep), 2000), 2000 * 5);
  mem_free(deep);
  /* Closed elements, implicitly closed ones and void ones do not nest. */
  char *flat = repeat("<div><p>x<li>y<br><img src=a></div>", 5000, "");
  assert_int_equal(html_depth_cut(flat, strlen(flat), 10), strlen(flat));
  mem_free(flat);
  /* A stray end tag of another name closes nothing. */
  char *stray = repeat("<span></div>", 50, "");
  assert_int_equal(html_depth_cut(stray, strlen(stray), 20), 20 * 12);
  mem_free(stray);
  /* '>' inside quoted values, script text and comments hides no tag... */
  const char *q = "<a title='>'><div title=\">\"><script>'<div><div>'</script>"
                  "<!-- <div> --><!-- x --!><div>";
  assert_int_equal(html_depth_cut(q, strlen(q), 2), strlen(q));
  assert_int_equal(html_depth_cut(q, strlen(q), 1), (size_t)(strrchr(q, '<') - q));
  /* ...but a quote that does not open a value hides nothing either. */
  const char *odd = "<div a=x\"><div><div>";
  assert_int_equal(html_depth_cut(odd, strlen(odd), 2), strlen(odd) - 5);
}

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 MiB of nesting would take minutes (gumbo is quadratic in depth) and
 * overflow the stack in gumbo's destructor; cut, it is fast and whole. */
static void test_deep_input_is_bounded(void **state)
{
  (void)state;
  const char *units[] = { "<div>", "<b a=1>", "<span></div>", "<svg><g>", "<table><div>" };
  for(size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
    char *s = repeat(units[k], (1u << 20) / strlen(units[k]), "<a href=/end>");
    struct html_doc doc;
    double t0 = seconds();
    assert_int_equal(html_parse(s, strlen(s), NULL, &doc), CRAWL_OK);
    double dt = seconds() - t0;
    print_message("# %-14s parsed %zu of %zu bytes in %.3f s, %zu KiB of parser memory\n",
                  units[k], doc.parsed, strlen(s), dt, doc.mem >> 10);
    assert_true(dt < 20.0);
    struct html_links l;
    assert_int_equal(html_links_extract(&doc, "http://e.test/", NULL, &l), CRAWL_OK);
    html_links_free(&l);
    html_free(&doc);
    mem_free(s);
  }
}

static void test_size_and_memory_bounds(void **state)
{
  (void)state;
  char *s = repeat("<p>some text <a href=/x>x</a></p>", 2000, "");
  struct html_opts o = { 1000, 0, 0 };
  struct html_doc doc;
  assert_int_equal(html_parse(s, strlen(s), &o, &doc), CRAWL_OK);
  assert_int_equal(doc.parsed, 1000);
  assert_int_equal(doc.cut, HTML_CUT_SIZE);
  html_free(&doc);
  long live = mem_live();
  o = (struct html_opts){ 0, 300000, 0 };
  assert_int_equal(html_parse(s, strlen(s), &o, &doc), CRAWL_ERR_TOO_LARGE);
  assert_null(doc.out);
  assert_int_equal(mem_live(), live);
  assert_int_equal(html_parse("", 0, NULL, &doc), CRAWL_OK);
  html_free(&doc);
  mem_free(s);
}

static void test_nomem_every_allocation(void **state)
{
  (void)state;
  const char *html = "<base href=/b/><a href=x>1</a><a href=y rel=nofollow>2</a>"
                     "<link rel=canonical href=c><meta http-equiv=refresh content='0;u'>"
                     "<p>text\nhere</p>";
  for(unsigned long k = 1;; k++) {
    long live = mem_live();
    mem_fail_at(k);
    struct html_doc doc;
    crawl_err e = html_parse(html, strlen(html), NULL, &doc);
    struct html_links l = { 0 };
    if(!e)
      e = html_links_extract(&doc, "http://e.test/p", NULL, &l);
    struct buf b;
    buf_init(&b, 1024);
    if(!e)
      e = html_text(&doc, &b, NULL);
    mem_fail_at(0);
    buf_free(&b);
    if(doc.out)
      html_free(&doc);
    size_t n = l.n;
    html_links_free(&l);
    assert_int_equal(mem_live(), live);
    if(!e) {
      assert_int_equal(n, 3);
      break;
    }
    assert_int_equal(e, CRAWL_ERR_NOMEM);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_source),
    cmocka_unit_test(test_frames),
    cmocka_unit_test(test_base_changes_resolution),
    cmocka_unit_test(test_nofollow),
    cmocka_unit_test(test_filtering_and_counts),
    cmocka_unit_test(test_link_cap),
    cmocka_unit_test(test_refresh_syntax),
    cmocka_unit_test(test_visible_text),
    cmocka_unit_test(test_depth_estimate),
    cmocka_unit_test(test_deep_input_is_bounded),
    cmocka_unit_test(test_size_and_memory_bounds),
    cmocka_unit_test(test_nomem_every_allocation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
