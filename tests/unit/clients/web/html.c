/* clients/web/html*.c: link extraction (every source of links, base,
 * canonical, nofollow, filtering of schemes, repeats, cap, anchor text),
 * visible text, the event stream, and the parser's bounds (nesting
 * estimate, size, out of memory, memory proportional to the input). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clients/web/html.c"
#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "clients/web/html_text.h"
#include "common/buf.h"
#include "common/mem.h"
#include "common/robots_tag.h"

static void extract(const char *html, const char *page, struct html_links *l)
{
  assert_int_equal(html_links_extract(html, strlen(html), NULL, page, NULL, l, NULL), CRAWL_OK);
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
  static const char *const kind_names[] = {  /* the names the kinds are listed with */
#define X(e, name) #name,
    HTML_LINK_KINDS(X)
#undef X
  };
  assert_string_equal(kind_names[HTML_LINK_IFRAME], "iframe");
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

/* <meta name="AGENT"> speaks only to the crawler of that product token. */
static void test_meta_agent(void **state)
{
  (void)state;
  const char *page = "<meta name=WPFS content='nofollow'><meta name=otherbot content=noindex>"
                     "<a href=/x>x</a>";
  struct html_links_opts o = html_links_opts_default();
  struct html_links l;
  o.robots_agent = "wpfs";
  assert_int_equal(html_links_extract(page, strlen(page), NULL, "http://e.test/", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.robots, ROBOTS_TAG_NOFOLLOW);
  html_links_free(&l);
  o.robots_agent = "otherbot";
  assert_int_equal(html_links_extract(page, strlen(page), NULL, "http://e.test/", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.robots, ROBOTS_TAG_NOINDEX);
  html_links_free(&l);
  o.robots_agent = NULL;
  assert_int_equal(html_links_extract(page, strlen(page), NULL, "http://e.test/", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.robots, 0);
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
  assert_int_equal(l.robots, 0);
  html_links_free(&l);
  extract("<meta name=ROBOTS content='noindex,nofollow'><a href=/x>", "http://e.test/", &l);
  assert_int_equal(l.robots, ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOFOLLOW);
  html_links_free(&l);
  extract("<meta name=robots content=none>", "http://e.test/", &l);
  assert_int_equal(l.robots, ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOFOLLOW);
  html_links_free(&l);
  extract("<meta name=robots content=noarchive><meta name=otherbot content=nofollow>",
          "http://e.test/", &l);
  assert_int_equal(l.robots, ROBOTS_TAG_NOARCHIVE);
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
  struct html_links_opts o = html_links_opts_default();
  o.max_links = 100;
  struct html_links l;
  assert_int_equal(html_links_extract(html, n, NULL, "http://e.test/", &o, &l, NULL), CRAWL_OK);
  assert_int_equal(l.n, 100);
  assert_int_equal(l.over_cap, 900);
  html_links_free(&l);
  assert_int_equal(html_links_extract(html, n, NULL, "not a url", &o, &l, NULL), CRAWL_ERR_INVALID);
  assert_int_equal(l.n, 0);
}

static void test_visible_text(void **state)
{
  (void)state;
  const char *doc = "<html><head><title>Title</title><style>p{}</style>"
                    "<script>var x='<b>hidden</b>';</script></head>"
                    "<body><p>One <b>two</b></p><noscript>ns</noscript><!-- c -->"
                    "<template><p>tpl</p></template>three\n  <p>caf&eacute; &amp; "
                    "b&#233;b&#xE9;</p>\n</body></html>";
  struct buf b;
  buf_init(&b, 1024);
  bool cut = true;
  assert_int_equal(html_text(doc, strlen(doc), NULL, &b, &cut), CRAWL_OK);
  assert_false(cut);
  /* References are decoded and do not split words; white space between
   * blocks adds nothing. */
  assert_string_equal(b.data, "Title One two three\n  caf\xc3\xa9 & b\xc3\xa9" "b\xc3\xa9 ");
  buf_free(&b);
  buf_init(&b, 7);
  assert_int_equal(html_text(doc, strlen(doc), NULL, &b, &cut), CRAWL_OK);
  assert_true(cut);
  assert_string_equal(b.data, "Title O");
  buf_free(&b);
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

/* Inline SVG: elements closed by "/>" never nest, since the parser ends
 * them at once (in foreign content as the standard says; for void and
 * HTML elements too, as libxml2 does), and script and style are raw text
 * inside <svg> as well, as the parser reads them. The estimate counted each
 * <path/> as open and cut real pages after an icon sprite. */
static void test_depth_self_closing(void **state)
{
  (void)state;
  char *paths = repeat("<path d=\"M0 0h24v24H0z\" fill=\"none\"/><circle r='2' />", 3000,
                       "<div>");
  assert_int_equal(html_depth_cut(paths, strlen(paths), 2), strlen(paths));
  mem_free(paths);
  char *divs = repeat("<div/><mspace width=1 /><g/>", 3000, "");
  assert_int_equal(html_depth_cut(divs, strlen(divs), 2), strlen(divs));
  mem_free(divs);
  /* A '/' ending an unquoted value, or followed by a space, closes nothing. */
  char *open = repeat("<g a=x/>", 10, "");
  assert_int_equal(html_depth_cut(open, strlen(open), 5), 5 * 8);
  mem_free(open);
  char *spaced = repeat("<g / a>", 10, "");
  assert_int_equal(html_depth_cut(spaced, strlen(spaced), 5), 5 * 7);
  mem_free(spaced);
  /* <script/> is closed: what follows is markup, and counts. */
  const char *sc = "<script src=x /><div><div><div>";
  assert_int_equal(html_depth_cut(sc, strlen(sc), 2), strlen(sc) - 5);
  /* Script text inside <svg> hides its tags as it does outside. */
  char *js = repeat("<svg><script>'<div><div><div>'</script></svg>", 1000, "");
  assert_int_equal(html_depth_cut(js, strlen(js), 2), strlen(js));
  mem_free(js);
}

/* The page as real documentation sites serve it: a 3,000-element inline
 * SVG (an icon sprite), then the page's links. Every link comes out and
 * nothing is cut. */
static void test_links_after_inline_svg(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 1u << 22);
  buf_adds(&b, "<!DOCTYPE html><html><head><title>t</title></head><body>"
               "<a href=/first>first</a><svg xmlns=\"http://www.w3.org/2000/svg\""
               " style=\"display:none\"><defs>");
  for(int i = 0; i < 1000; i++)
    buf_addf(&b, "<symbol id=\"i%d\" viewBox=\"0 0 24 24\"><path d=\"M%d 0L24 24\"/>"
                 "<circle cx=\"12\" cy=\"12\" r=\"3\"/></symbol>", i, i);
  buf_adds(&b, "</defs></svg><math><mi>x</mi><mspace width=\"1em\"/></math><ul>");
  for(int i = 0; i < 200; i++)
    buf_addf(&b, "<li><a href=\"/doc/p%d.html\"><svg class=i><use href=\"#i%d\"/></svg>"
                 "page %d</a>", i, i, i);
  buf_adds(&b, "</ul></body></html>");
  struct html_links l;
  struct html_scan sc;
  assert_int_equal(html_links_extract(b.data, b.len, NULL, "http://e.test/", NULL, &l, &sc),
                   CRAWL_OK);
  assert_int_equal(sc.cut, HTML_CUT_NONE);
  assert_int_equal(sc.parsed, b.len);
  assert_int_equal(l.n, 201);
  assert_non_null(find(&l, "http://e.test/first"));
  char u[64];
  for(int i = 0; i < 200; i++) {
    snprintf(u, sizeof u, "http://e.test/doc/p%d.html", i);
    assert_non_null(find(&l, u));
  }
  html_links_free(&l);
  buf_free(&b);
}

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 512 KiB of nesting would be quadratic (closing an element searches the
 * open ones: 43,000 deep, <span></div> would take seconds); split by the
 * estimate into segments parsed anew, it is fast, and the links of the
 * whole page are found, the last one too. (Under ASan the slowest takes
 * about 1 s.) */
static void test_deep_input_is_bounded(void **state)
{
  (void)state;
  const char *units[] = { "<div>", "<b a=1>", "<span></div>", "<svg><g>", "<table><div>",
                          "<title><div>", "<textarea><div>" };
  for(size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
    char *s = repeat(units[k], (1u << 19) / strlen(units[k]), "<a href=/end>");
    memcpy(s, "<a href=/start>", 15);
    struct html_links l;
    struct html_scan sc;
    double t0 = seconds();
    assert_int_equal(html_links_extract(s, strlen(s), NULL, "http://e.test/", NULL, &l, &sc),
                     CRAWL_OK);
    double dt = seconds() - t0;
    print_message("# %-16s parsed %zu of %zu bytes in %u segments in %.3f s\n", units[k],
                  sc.parsed, strlen(s), sc.restarts + 1, dt);
    assert_true(dt < 5.0);
    assert_int_equal(sc.cut, HTML_CUT_NONE);
    assert_int_equal(sc.parsed, strlen(s));
    assert_true(sc.restarts > 0);
    assert_non_null(find(&l, "http://e.test/start"));
    assert_non_null(find(&l, "http://e.test/end"));
    html_links_free(&l);
    mem_free(s);
  }
}

static void test_size_bound(void **state)
{
  (void)state;
  /* Under the default bound, a 3 MiB page (real manuals have pages over
   * 2 MiB) is read to its last link. */
  char *big = repeat("<p>some text, <b>a few</b> words</p>\n", (3u << 20) / 38,
                     "<a href=/last>last</a>");
  struct html_links l;
  struct html_scan bs;
  assert_int_equal(html_links_extract(big, strlen(big), NULL, "http://e.test/", NULL, &l, &bs),
                   CRAWL_OK);
  assert_int_equal(bs.cut, HTML_CUT_NONE);
  assert_non_null(find(&l, "http://e.test/last"));
  html_links_free(&l);
  mem_free(big);
  char *s = repeat("<p>some text <a href=/x>x</a></p>", 2000, "");
  struct html_opts o = { .max_bytes = 1000 };
  struct html_scan sc;
  assert_int_equal(html_scan(s, strlen(s), &o, NULL, &sc), CRAWL_OK);
  assert_int_equal(sc.parsed, 1000);
  assert_int_equal(sc.cut, HTML_CUT_SIZE);
  assert_int_equal(html_scan("", 0, NULL, NULL, &sc), CRAWL_OK);
  assert_int_equal(sc.parsed, 0);
  mem_free(s);
}

/* The events as a string: "<name a=v b>" for a start, "</name>" for an
 * end, the text between; stops after stop_after starts. */
struct trace {
  struct buf b;
  int        starts, stop_after;
};

static int tr_start(void *arg, const char *name, const char *const *attrs)
{
  struct trace *t = arg;
  buf_addf(&t->b, "<%s", name);
  for(; attrs[0]; attrs += 2)
    buf_addf(&t->b, attrs[1] ? " %s=%s" : " %s", attrs[0], attrs[1]);
  buf_adds(&t->b, ">");
  return ++t->starts == t->stop_after;
}

static int tr_end(void *arg, const char *name)
{
  buf_addf(&((struct trace *)arg)->b, "</%s>", name);
  return 0;
}

static int tr_text(void *arg, const char *s, size_t n)
{
  buf_add(&((struct trace *)arg)->b, s, n);
  return 0;
}

static char *trace_n(const char *html, size_t n, int stop_after, bool *stopped)
{
  struct trace t = { .stop_after = stop_after };
  buf_init(&t.b, 4096);
  struct html_sink sink = { tr_start, tr_end, tr_text, &t };
  struct html_scan sc;
  assert_int_equal(html_scan(html, n, NULL, &sink, &sc), CRAWL_OK);
  *stopped = sc.stopped;
  char *r = mem_strdup(t.b.data ? t.b.data : "");
  buf_free(&t.b);
  return r;
}

static char *trace(const char *html, int stop_after, bool *stopped)
{
  return trace_n(html, strlen(html), stop_after, stopped);
}

/* Names in lower case, every start with its end (implied and unclosed
 * ones too), attributes decoded, script content not reported, a sink
 * that returns non-zero stops the parse. */
static void test_events(void **state)
{
  (void)state;
  bool stopped;
  char *t = trace("<DIV Class=X><p>a<p>b &lt;<br><IMG SRC='i.png' alt>"
                  "<script>if(a<b)x()</script><ul><li>c<li>d</ul></div><span>e", 0, &stopped);
  assert_string_equal(t, "<div class=X><p>a</p><p>b <<br></br><img src=i.png alt></img>"
                         "<script></script></p><ul><li>c</li><li>d</li></ul></div><span>e</span>");
  assert_false(stopped);
  mem_free(t);
  t = trace("<a>1</a><b>2</b><i>3</i>", 2, &stopped);
  assert_string_equal(t, "<a>1</a><b>");
  assert_true(stopped);
  mem_free(t);
}

/* A page is UTF-8 unless a byte order mark or a meta charset says
 * otherwise; bytes that are not UTF-8 are read as Latin-1. Events are
 * UTF-8 either way. */
static void test_encodings(void **state)
{
  (void)state;
  static const struct {
    const char *page, *events;
  } cases[] = {
    { "<p>caf\xc3\xa9</p><a href='/\xc3\xa9'>x</a>", "<p>caf\xc3\xa9</p><a href=/\xc3\xa9>x</a>" },
    { "<meta charset=iso-8859-1><p>caf\xe9", "<meta charset=iso-8859-1></meta><p>caf\xc3\xa9</p>" },
    { "<meta charset=windows-1252><i>\x93q\x94", "<meta charset=windows-1252></meta>"
                                                  "<i>\xe2\x80\x9cq\xe2\x80\x9d</i>" },
    { "\xef\xbb\xbf<p>caf\xc3\xa9", "<p>caf\xc3\xa9</p>" },
    { "<p>caf\xe9 not UTF-8", "<p>caf\xc3\xa9 not UTF-8</p>" },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bool stopped;
    char *t = trace(cases[i].page, 0, &stopped);
    assert_string_equal(t, cases[i].events);
    mem_free(t);
  }
}

/* Past the nesting bound the parser starts anew on the rest of the page:
 * the open elements are ended, every later byte is read, and the encoding
 * a meta charset chose still applies (it is read once, at the top). */
static void test_restart_keeps_encoding(void **state)
{
  (void)state;
  struct trace t = { 0 };
  buf_init(&t.b, 4096);
  struct html_sink sink = { tr_start, tr_end, tr_text, &t };
  struct html_opts o = { .max_depth = 2 };
  struct html_scan sc;
  const char *page = "<meta charset=windows-1251><i><b><u>\xcf<a href=/\xe4>\xe0</a>";
  assert_int_equal(html_scan(page, strlen(page), &o, &sink, &sc), CRAWL_OK);
  assert_string_equal(t.b.data, "<meta charset=windows-1251></meta><i><b></b></i>"
                                "<u>\xd0\x9f<a href=/\xd0\xb4>\xd0\xb0</a></u>");
  assert_int_equal(sc.restarts, 1);
  assert_int_equal(sc.cut, HTML_CUT_NONE);
  assert_int_equal(sc.parsed, strlen(page));
  buf_free(&t.b);
}

static char *trace_cs(const char *html, const char *charset)
{
  struct trace t = { 0 };
  buf_init(&t.b, 4096);
  struct html_sink sink = { tr_start, tr_end, tr_text, &t };
  struct html_opts o = { .charset = charset };
  assert_int_equal(html_scan(html, strlen(html), &o, &sink, NULL), CRAWL_OK);
  char *r = mem_strdup(t.b.data ? t.b.data : "");
  buf_free(&t.b);
  return r;
}

/* The transport's charset (HTTP's Content-Type) comes after a byte order
 * mark and before a meta charset; one nobody knows is ignored. */
static void test_transport_charset(void **state)
{
  (void)state;
  static const char cp1251[] = "<p>\xcf\xf0\xe8\xe2\xe5\xf2";  /* "Привет" */
  static const char privet[] = "<p>\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82</p>";
  static const struct {
    const char *page, *charset, *events;
  } cases[] = {
    { cp1251, "windows-1251", privet },
    { cp1251, "WINDOWS-1251", privet },
    /* without it: not UTF-8, so read as Latin-1 */
    { cp1251, NULL, "<p>\xc3\x8f\xc3\xb0\xc3\xa8\xc3\xa2\xc3\xa5\xc3\xb2</p>" },
    { cp1251, "no-such-charset", "<p>\xc3\x8f\xc3\xb0\xc3\xa8\xc3\xa2\xc3\xa5\xc3\xb2</p>" },
    /* the transport over a meta charset */
    { "<meta charset=iso-8859-1><p>\xcf\xf0\xe8\xe2\xe5\xf2", "windows-1251",
      "<meta charset=iso-8859-1></meta><p>\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82</p>" },
    /* a byte order mark over the transport */
    { "\xef\xbb\xbf<p>caf\xc3\xa9", "windows-1251", "<p>caf\xc3\xa9</p>" },
    { "<p>caf\xc3\xa9", "utf-8", "<p>caf\xc3\xa9</p>" },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *t = trace_cs(cases[i].page, cases[i].charset);
    assert_string_equal(t, cases[i].events);
    mem_free(t);
  }
}

/* The charset parameter of a Content-Type, as the crawler hands it on. */
static void test_content_type_charset(void **state)
{
  (void)state;
  char cs[16];
  static const struct {
    const char *ct, *want;
  } cases[] = {
    { "text/html; charset=UTF-8", "UTF-8" },
    { "text/html;charset=\"windows-1251\"", "windows-1251" },
    { "text/html; q=1; Charset=koi8-r ; x=y", "koi8-r" },
    { "text/html", NULL },
    { "text/html; charset=", NULL },
    { "text/html; charset=\"\"", NULL },
    { "text/html; charset=a-name-longer-than-the-buffer", NULL },
    { "text/html; notcharset=x", NULL },
    { NULL, NULL },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *got = html_ct_charset(cases[i].ct, cs, sizeof cs);
    if(cases[i].want)
      assert_string_equal(got, cases[i].want);
    else
      assert_null(got);
  }
}

/* libxml2 takes a NUL inside a tag for the end of the input and leaves
 * what is open unclosed: a NUL is read as U+FFFD, and the page goes on;
 * what libxml2 leaves open where it gives up is still ended, in order. */
static void test_nul_bytes(void **state)
{
  (void)state;
  bool stopped;
  static const char page[] = "<div><a href=\"x\0y\">q</a><p\0>r</p><a href=/after>s</a></div>";
  char *t = trace_n(page, sizeof page - 1, 0, &stopped);
  assert_string_equal(t, "<div><a href=x\xef\xbf\xbdy>q</a><p>r</p>"
                         "<a href=/after>s</a></div>");
  mem_free(t);
  struct html_links_opts o = html_links_opts_default();
  struct html_links l;
  assert_int_equal(html_links_extract(page, sizeof page - 1, NULL, "http://e.test/", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.n, 2);
  assert_string_equal(l.v[1].url, "http://e.test/after");
  html_links_free(&l);
  /* A start tag libxml2 gives up on (an unclosed quote) is reported
   * started and never ended: the end of its parent ends it first. */
  t = trace("<body><a href='x></body></html>", 0, &stopped);
  assert_string_equal(t, "<body><a href=x></body></html>></a></body>");
  mem_free(t);
}

/* The first <base href> applies to the whole page, links before it too;
 * anchor text is where the link sits in the page's text. */
static void test_base_late_and_anchor_text(void **state)
{
  (void)state;
  const char *html = "<p>intro <a href=x>the x</a> and <a href=y><b>bold</b> y</a> end"
                     "<base href='http://cdn.test/b/'>";
  struct html_links_opts o = html_links_opts_default();
  o.text_max = 1000;
  struct html_links l;
  assert_int_equal(html_links_extract(html, strlen(html), NULL, "http://e.test/p", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.n, 2);
  assert_string_equal(l.v[0].url, "http://cdn.test/b/x");
  assert_memory_equal(l.text.data + l.v[0].text_at, "the x", 5);
  assert_int_equal(l.v[0].anchor_len, 6);  /* "the x " */
  assert_string_equal(l.v[1].url, "http://cdn.test/b/y");
  assert_memory_equal(l.text.data + l.v[1].text_at, "bold  y", 7);
  assert_false(l.text_cut);
  html_links_free(&l);
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
    struct html_links l = { 0 };
    struct html_links_opts o = html_links_opts_default();
    o.text_max = 100;
    crawl_err e = html_links_extract(html, strlen(html), NULL, "http://e.test/p", &o, &l, NULL);
    struct buf b;
    buf_init(&b, 1024);
    if(!e)
      e = html_text(html, strlen(html), NULL, &b, NULL);
    mem_fail_at(0);
    buf_free(&b);
    size_t n = l.n;
    html_links_free(&l);
    if(mem_live() != live)
      print_message("# leak at allocation %lu: %ld\n", k, mem_live() - live);
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
    cmocka_unit_test(test_meta_agent),
    cmocka_unit_test(test_filtering_and_counts),
    cmocka_unit_test(test_link_cap),
    cmocka_unit_test(test_visible_text),
    cmocka_unit_test(test_depth_estimate),
    cmocka_unit_test(test_depth_self_closing),
    cmocka_unit_test(test_links_after_inline_svg),
    cmocka_unit_test(test_deep_input_is_bounded),
    cmocka_unit_test(test_size_bound),
    cmocka_unit_test(test_events),
    cmocka_unit_test(test_nul_bytes),
    cmocka_unit_test(test_encodings),
    cmocka_unit_test(test_transport_charset),
    cmocka_unit_test(test_restart_keeps_encoding),
    cmocka_unit_test(test_content_type_charset),
    cmocka_unit_test(test_base_late_and_anchor_text),
    cmocka_unit_test(test_nomem_every_allocation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
