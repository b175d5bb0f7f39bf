/* clients/web/html_links.c with text_max: the page's visible text collected in
 * the same parse as the links, the same text html_text gives (scripts and
 * noscript out), and each link's place and anchor text in it; the text
 * cap; and html_scan's events nesting as the tags do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "clients/web/html_links.c"
#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "clients/web/html_text.h"
#include "common/mem.h"

static const char page[] =
  "<html><head><title>T</title><script>var x = '<a href=/s>no</a>';</script></head>"
  "<body><p>before words <a href='/x'>the anchor</a> after words</p>"
  "<noscript><a href='/n'>hidden link</a></noscript>"
  "<a href='/y'><b>bold</b> anchor</a><iframe src='/f'></iframe><p>tail</p></body></html>";

static const struct html_link *link_to(const struct html_links *l, const char *url)
{
  for(size_t i = 0; i < l->n; i++)
    if(!strcmp(l->v[i].url, url))
      return &l->v[i];
  fail_msg("no link to %s", url);
  return NULL;
}

static void anchor_is(const struct html_links *l, const char *url, const char *want)
{
  const struct html_link *k = link_to(l, url);
  assert_true(k->text_at + k->anchor_len <= l->text.len);
  assert_int_equal(k->anchor_len, strlen(want));
  assert_memory_equal(l->text.data + k->text_at, want, k->anchor_len);
}

static void test_anchors(void **state)
{
  (void)state;
  long live = mem_live();
  struct html_links_opts o = html_links_opts_default();
  o.text_max = 1 << 16;
  struct html_links l;
  assert_int_equal(html_links_extract(page, sizeof page - 1, NULL, "http://a.test/", &o, &l, NULL),
                   CRAWL_OK);
  struct buf t;
  buf_init(&t, 1 << 16);
  assert_int_equal(html_text(page, sizeof page - 1, NULL, &t, NULL), CRAWL_OK);
  assert_int_equal(l.text.len, t.len);
  assert_memory_equal(l.text.data, t.data, t.len);  /* the same rules */
  assert_null(strstr(l.text.data, "hidden"));
  assert_null(strstr(l.text.data, "var x"));
  anchor_is(&l, "http://a.test/x", "the anchor ");
  anchor_is(&l, "http://a.test/y", "bold  anchor ");
  anchor_is(&l, "http://a.test/n", "");   /* inside noscript: no text */
  anchor_is(&l, "http://a.test/f", "");   /* an iframe has no anchor */
  const struct html_link *x = link_to(&l, "http://a.test/x");
  assert_memory_equal(l.text.data + x->text_at - 13, "before words ", 13);
  const struct html_link *f = link_to(&l, "http://a.test/f");
  assert_memory_equal(l.text.data + f->text_at, "tail ", 5);  /* where it sits */
  html_links_free(&l);
  /* Without text_max: no text, and the links as before. */
  o.text_max = 0;
  assert_int_equal(html_links_extract(page, sizeof page - 1, NULL, "http://a.test/", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.text.len, 0);
  assert_int_equal(l.n, 4);
  assert_int_equal(link_to(&l, "http://a.test/x")->anchor_len, 0);
  html_links_free(&l);
  buf_free(&t);
  assert_int_equal(mem_live(), live);
}

/* The text cap: text stops, links go on (placed at the end). */
static void test_text_cap(void **state)
{
  (void)state;
  struct html_links_opts o = html_links_opts_default();
  o.text_max = 10;
  struct html_links l;
  assert_int_equal(html_links_extract(page, sizeof page - 1, NULL, "http://a.test/", &o, &l, NULL),
                   CRAWL_OK);
  assert_int_equal(l.text.len, 10);
  assert_int_equal(l.n, 4);
  const struct html_link *y = link_to(&l, "http://a.test/y");
  assert_int_equal(y->text_at, 10);
  assert_int_equal(y->anchor_len, 0);
  assert_true(l.text_cut);
  html_links_free(&l);
}

/* Every start has its end, in reverse order, whatever the markup left
 * unclosed; names are the page's, in lower case. */
struct nest {
  char stack[64][16];
  int  depth, max, starts, ends;
};

static int nest_start(void *arg, const char *name, const char *const *attrs)
{
  struct nest *s = arg;
  (void)attrs;
  assert_true(s->depth < 64 && strlen(name) < 16);
  strcpy(s->stack[s->depth++], name);
  s->max = s->depth > s->max ? s->depth : s->max;
  s->starts++;
  return 0;
}

static int nest_end(void *arg, const char *name)
{
  struct nest *s = arg;
  assert_true(s->depth > 0);
  assert_string_equal(s->stack[--s->depth], name);
  s->ends++;
  return 0;
}

static void test_events_nest(void **state)
{
  (void)state;
  static const char messy[] = "<DIV><p>a<b>b<i>c</b>d<table><tr><td>e<td>f</table><ul><li>g";
  const char *pages[] = { page, messy };
  size_t lens[] = { sizeof page - 1, sizeof messy - 1 };
  for(int k = 0; k < 2; k++) {
    struct nest s = { .depth = 0 };
    struct html_sink sink = { nest_start, nest_end, NULL, &s };
    assert_int_equal(html_scan(pages[k], lens[k], NULL, &sink, NULL), CRAWL_OK);
    assert_int_equal(s.depth, 0);
    assert_true(s.starts >= 8);
    assert_int_equal(s.ends, s.starts);
  }
}

/* A meta refresh content: the URL after the delay, quoted or not. */
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

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_anchors),
    cmocka_unit_test(test_text_cap),
    cmocka_unit_test(test_events_nest),
    cmocka_unit_test(test_refresh_syntax),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
