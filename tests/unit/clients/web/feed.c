/* clients/web/feed.c: the links of RSS 2.0, RSS 1.0 (RDF) and Atom feeds,
 * feeds told apart from other XML, broken and hostile ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "clients/web/feed.c"
#include "clients/web/feed.h"

struct got {
  char   v[16][128];
  size_t n;
  size_t stop_at;  /* 0: never */
};

static int on_link(void *arg, const char *url, size_t len)
{
  struct got *g = arg;
  if(g->n < 16)
    snprintf(g->v[g->n++], sizeof g->v[0], "%.*s", (int)len, url);
  return g->stop_at && g->n == g->stop_at;
}

static struct feed_info read_feed(const char *xml, struct got *g)
{
  struct feed_info fi;
  memset(g, 0, sizeof *g);
  assert_int_equal(feed_read(xml, strlen(xml), 0, on_link, g, &fi), CRAWL_OK);
  return fi;
}

static void test_rss(void **state)
{
  (void)state;
  struct got g;
  struct feed_info fi = read_feed(
    "<?xml version=\"1.0\"?>\n<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\">"
    "<channel><title>t</title><link>http://a.test/</link>"
    "<atom:link href=\"http://a.test/feed.xml\" rel=\"self\" type=\"application/rss+xml\"/>"
    "<item><title>one</title><link>\n  http://a.test/1.html  \n</link></item>"
    "<item><link>/2.html</link><enclosure url=\"http://a.test/a.mp3\"/></item>"
    "<item><link><![CDATA[http://a.test/3.html?a=1&b=2]]></link></item>"
    "<item><link>http://a.test/4.html?a=1&amp;b=2</link></item>"
    "</channel></rss>", &g);
  assert_int_equal(fi.kind, FEED_RSS);
  assert_false(fi.broken);
  assert_int_equal(g.n, 5);
  assert_string_equal(g.v[0], "http://a.test/");
  assert_string_equal(g.v[1], "http://a.test/1.html");
  assert_string_equal(g.v[2], "/2.html");
  assert_string_equal(g.v[3], "http://a.test/3.html?a=1&b=2");
  assert_string_equal(g.v[4], "http://a.test/4.html?a=1&b=2");
}

static void test_atom(void **state)
{
  (void)state;
  struct got g;
  struct feed_info fi = read_feed(
    "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>"
    "<link href=\"http://b.test/\"/><link rel=\"self\" href=\"http://b.test/atom\"/>"
    "<entry><link rel=\"alternate\" type=\"text/html\" href=\"http://b.test/e1\"/>"
    "<link rel=\"edit\" href=\"http://b.test/edit/1\"/>"
    "<link rel=\"enclosure\" href=\"http://b.test/x.mp3\"/></entry>"
    "<entry><link href=\"e2\"/></entry></feed>", &g);
  assert_int_equal(fi.kind, FEED_ATOM);
  assert_int_equal(g.n, 3);
  assert_string_equal(g.v[0], "http://b.test/");
  assert_string_equal(g.v[1], "http://b.test/e1");
  assert_string_equal(g.v[2], "e2");
}

static void test_rdf(void **state)
{
  (void)state;
  struct got g;
  struct feed_info fi = read_feed(
    "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
    "xmlns=\"http://purl.org/rss/1.0/\"><channel rdf:about=\"http://c.test/\">"
    "<link>http://c.test/</link></channel>"
    "<item rdf:about=\"http://c.test/i\"><link>http://c.test/i</link></item></rdf:RDF>", &g);
  assert_int_equal(fi.kind, FEED_RDF);
  assert_int_equal(g.n, 2);
  assert_string_equal(g.v[1], "http://c.test/i");
}

static void test_detect(void **state)
{
  (void)state;
  const char *rss = "\xEF\xBB\xBF<?xml version='1.0'?><!-- c --><rss><channel/></rss>";
  assert_true(feed_detect("application/rss+xml; charset=utf-8", "", 0));
  assert_true(feed_detect("Application/Atom+XML", "", 0));
  assert_true(feed_detect("text/xml", rss, strlen(rss)));
  assert_true(feed_detect(NULL, rss, strlen(rss)));
  assert_true(feed_detect("application/xml", "<feed xmlns='x'>", 16));
  assert_false(feed_detect("text/html", rss, strlen(rss)));
  assert_false(feed_detect("application/xml", "<urlset>", 8));
  assert_false(feed_detect("application/rss+xmlx", "", 0));
  assert_false(feed_detect("text/xml", "<rssx>", 6));
  assert_false(feed_detect(NULL, "", 0));
  assert_false(feed_detect(NULL, "<?xml", 5));
}

static void test_broken_and_stop(void **state)
{
  (void)state;
  struct got g;
  struct feed_info fi = read_feed(
    "<rss><channel><item><link>http://d.test/1</link></item><item><link>http://d.te", &g);
  assert_true(fi.broken);
  assert_int_equal(g.n, 1);
  memset(&g, 0, sizeof g);
  g.stop_at = 1;
  const char *two = "<rss><item><link>http://d.test/1</link><link>http://d.test/2</link></item></rss>";
  assert_int_equal(feed_read(two, strlen(two), 0, on_link, &g, &fi), CRAWL_OK);
  assert_int_equal(g.n, 1);
  assert_false(fi.broken);
  /* past max_bytes: cut */
  memset(&g, 0, sizeof g);
  assert_int_equal(feed_read(two, strlen(two), 60, on_link, &g, &fi), CRAWL_OK);
  assert_true(fi.cut);
  assert_true(g.n <= 1);  /* the second link is past the cut */
  assert_string_equal(g.n ? g.v[0] : "http://d.test/1", "http://d.test/1");
}

/* A feed is data: no external entity is read, no DTD loaded. */
static void test_no_entities(void **state)
{
  (void)state;
  struct got g;
  read_feed("<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
            "<rss><channel><link>http://e.test/&x;</link></channel></rss>", &g);
  for(size_t i = 0; i < g.n; i++)
    assert_null(strstr(g.v[i], "root:"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rss),
    cmocka_unit_test(test_atom),
    cmocka_unit_test(test_rdf),
    cmocka_unit_test(test_detect),
    cmocka_unit_test(test_broken_and_stop),
    cmocka_unit_test(test_no_entities),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
