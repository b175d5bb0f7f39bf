/* clients/gwclient/gwproto.c (the gateway's JSON both ways, strict where it must
 * be), crawllog.c (lines, partial last line cut, scan), sitemap.c (urlset
 * and index, gzip, bombs, pieces) and gunzip.c, progress.c (the line's text; nothing when not a terminal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "clients/gwclient/gwproto.c"
#include "clients/base/tally.h"
#include "clients/out/crawllog.h"
#include "clients/gwclient/gwproto.h"
#include "clients/loop/progress.h"
#include "clients/web/sitemap.h"
#include "common/mem.h"
#include "common/robots_tag.h"

static void test_batch_body(void **state)
{
  (void)state;
  struct gw_url u[] = { { "http://a.test/\"q\"", 7, -1 }, { "http://b.test/", 9, 3600 } };
  struct buf b;
  buf_init(&b, 1024);
  assert_int_equal(gwproto_batch_body(u, 2, &b), CRAWL_OK);
  assert_string_equal(b.data, "{\"urls\":[{\"url\":\"http://a.test/\\\"q\\\"\",\"priority\":7,"
                              "\"max_age_s\":-1},{\"url\":\"http://b.test/\",\"priority\":7,"
                              "\"max_age_s\":3600}]}");
  buf_free(&b);
  buf_init(&b, 10);
  assert_int_equal(gwproto_batch_body(u, 2, &b), CRAWL_ERR_TOO_LARGE);
  buf_free(&b);
  const char *d[] = { "1:2-3", "4:5-6" };
  buf_init(&b, 1024);
  assert_int_equal(gwproto_ack_body(d, 2, &b), CRAWL_OK);
  assert_string_equal(b.data, "{\"deliveries\":[\"1:2-3\",\"4:5-6\"]}");
  buf_free(&b);
}

static void test_batch_answer(void **state)
{
  (void)state;
  const char *j = "{\"accepted\":2,\"rejected\":1,\"items\":["
                  "{\"url\":\"http://a/\",\"canonical_url\":\"http://a/\",\"status\":\"accepted\",\"id\":\"0-1\"},"
                  "{\"url\":\"http://b/\",\"status\":\"duplicate\",\"id\":\"0-2\"},"
                  "{\"url\":\"http://c/\",\"status\":\"rejected\",\"reason\":\"over_queue_quota\","
                  "\"retry_after_ms\":1500}]}";
  struct gw_batch_answer a;
  assert_int_equal(gwproto_batch_answer(j, strlen(j), &a), CRAWL_OK);
  assert_int_equal(a.n, 3);
  assert_int_equal(a.items[0].status, GW_ACCEPTED);
  assert_string_equal(a.items[0].id, "0-1");
  assert_int_equal(a.items[1].status, GW_DUPLICATE);
  assert_null(a.items[1].canonical_url);
  assert_int_equal(a.items[2].status, GW_REJECTED);
  assert_string_equal(a.items[2].reason, "over_queue_quota");
  assert_int_equal(a.items[2].retry_after_ms, 1500);
  assert_int_equal(a.items[0].retry_after_ms, -1);
  gwproto_batch_free(&a);
  const char *bad[] = { "", "{}", "{\"items\":[{\"status\":\"accepted\"}]}",
                        "{\"items\":[{\"url\":\"x\",\"status\":\"maybe\"}]}",
                        "{\"items\":[{\"url\":5,\"status\":\"accepted\"}]}", "[1,2]" };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(gwproto_batch_answer(bad[i], strlen(bad[i]), &a), CRAWL_ERR_INVALID);
    assert_int_equal(a.n, 0);
  }
}

/* The framed answer: pages as they are, newlines and NULs in them too;
 * every framing fault refused. */
/* What bin/wpfs passes on is each element as the gateway wrote it: keys
 * in its order, its escapes, members gwproto does not know. */
static void test_kept(void **state)
{
  (void)state;
  const char *items = "{\"items\":[{\"url\":\"http://a/\\u00e9\",\"status\":\"accepted\","
                      "\"id\":\"0-1\",\"zz\":[1.5,null]},{\"url\":\"ftp://x/\","
                      "\"status\":\"rejected\",\"reason\":\"unsupported_scheme\"}]}";
  struct gw_batch_answer a;
  assert_int_equal(gwproto_batch_answer_kept(items, strlen(items), &a), CRAWL_OK);
  assert_int_equal(a.n, 2);
  assert_string_equal(a.items[0].json, "{\"url\":\"http://a/\xc3\xa9\",\"status\":\"accepted\","
                                       "\"id\":\"0-1\",\"zz\":[1.5,null]}");
  assert_int_equal(a.items[1].status, GW_REJECTED);
  assert_string_equal(a.items[1].reason, "unsupported_scheme");
  gwproto_batch_free(&a);
  assert_int_equal(gwproto_batch_answer(items, strlen(items), &a), CRAWL_OK);
  assert_null(a.items[0].json);  /* the crawlers do not pay for it */
  gwproto_batch_free(&a);
  const char *res = "{\"results\":[{\"delivery\":\"d-1\",\"url\":\"http://a/\",\"outcome\":\"ok\","
                    "\"status\":200,\"body_base64\":\"aGk=\",\"detail\":\"a\\\"b\\n\"}]}";
  struct gw_results r;
  assert_int_equal(gwproto_results_kept(res, strlen(res), &r), CRAWL_OK);
  assert_int_equal(r.n, 1);
  assert_string_equal(r.v[0].delivery, "d-1");
  assert_string_equal(r.v[0].json,
                      "{\"delivery\":\"d-1\",\"url\":\"http://a/\",\"outcome\":\"ok\","
                      "\"status\":200,\"body_base64\":\"aGk=\",\"detail\":\"a\\\"b\\n\"}");
  gwproto_results_free(&r);
}

static void test_robots_answer(void **state)
{
  (void)state;
  const char *j = "{\"allowed\":false,\"robots_status\":\"ok\",\"rule\":\"/p/\","
                  "\"rule_type\":\"disallow\",\"line\":3,\"age_s\":42,\"crawl_delay_s\":1.5,"
                  "\"retry_at\":17,\"origin\":\"http://x\",\"agent\":\"wpfs\","
                  "\"product_token\":\"wpfs\",\"robots_url\":\"http://x/robots.txt\"}";
  struct gw_robots_answer a;
  assert_int_equal(gwproto_robots_answer(j, strlen(j), &a), CRAWL_OK);
  assert_false(a.allowed);
  assert_string_equal(a.rule, "/p/");
  assert_string_equal(a.rule_type, "disallow");
  assert_string_equal(a.robots_url, "http://x/robots.txt");
  assert_int_equal(a.line, 3);
  assert_int_equal(a.age_s, 42);
  assert_int_equal(a.retry_at, 17);
  assert_true(a.crawl_delay_s == 1.5);
  gwproto_robots_answer_free(&a);
  const char *k = "{\"allowed\":true,\"crawl_delay_s\":\"x\"}";  /* the rest absent */
  assert_int_equal(gwproto_robots_answer(k, strlen(k), &a), CRAWL_OK);
  assert_true(a.allowed);
  assert_null(a.rule);
  assert_int_equal(a.retry_at, -1);
  assert_true(a.crawl_delay_s < 0);
  gwproto_robots_answer_free(&a);
  assert_int_equal(gwproto_robots_answer("[1]", 3, &a), CRAWL_ERR_INVALID);
}

static void test_problem(void **state)
{
  (void)state;
  const char *j = "{\"type\":\"urn:wpfs:problem:no-page\",\"title\":\"No page\","
                  "\"outcome\":\"robots_disallowed\",\"detail\":7}";
  struct gw_problem p;
  assert_int_equal(gwproto_problem(j, strlen(j), &p), CRAWL_OK);
  assert_string_equal(p.type, "urn:wpfs:problem:no-page");
  assert_string_equal(p.outcome, "robots_disallowed");
  assert_null(p.detail);  /* not a string: absent */
  gwproto_problem_free(&p);
  assert_int_equal(gwproto_problem("nope", 4, &p), CRAWL_ERR_INVALID);
  assert_null(p.type);
  uint64_t n = 9;
  assert_int_equal(gwproto_acked("{\"acked\":3}", 11, &n), CRAWL_OK);
  assert_int_equal(n, 3);
  assert_int_equal(gwproto_acked("{}", 2, &n), CRAWL_OK);
  assert_int_equal(n, 0);
  assert_int_equal(gwproto_acked("{", 1, &n), CRAWL_ERR_INVALID);
}

static void test_indent(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 1024);
  const char *j = "{\"b\":1,\"a\":{\"d\":[1,2.5],\"c\":null}}";
  assert_int_equal(gwproto_indent(j, strlen(j), &b), CRAWL_OK);
  assert_string_equal(b.data, "{\n  \"a\": {\n    \"c\": null,\n    \"d\": [\n      1,\n"
                              "      2.5\n    ]\n  },\n  \"b\": 1\n}");
  buf_free(&b);
  buf_init(&b, 8);
  assert_int_equal(gwproto_indent(j, strlen(j), &b), CRAWL_ERR_TOO_LARGE);
  buf_free(&b);
  char why[200];
  assert_true(gwproto_is_object("{}", 2, why, sizeof why));
  assert_false(gwproto_is_object("[1,2]", 5, why, sizeof why));
  assert_string_equal(why, "another JSON value");
  assert_false(gwproto_is_object("{\"a\":", 5, why, sizeof why));
  assert_non_null(strstr(why, "end of file"));
}

static void results_framed(void)
{
  static const char ok[] =
    "{\"delivery\":\"0:1-0\",\"url\":\"http://a/\",\"outcome\":\"ok\",\"status\":200,"
    "\"headers\":[[\"Content-Type\",\"text/html\"]],\"body_bytes\":7}\n"
    "<p>\n\0x\n\n"
    "{\"url\":\"http://b/\",\"outcome\":\"fetch_failed\"}\n"
    "{\"url\":\"http://c/\",\"outcome\":\"ok\",\"body_bytes\":0}\n\n";
  struct gw_results r;
  assert_int_equal(gwproto_results_framed(ok, sizeof ok - 1, &r), CRAWL_OK);
  assert_int_equal(r.n, 3);
  assert_string_equal(r.v[0].delivery, "0:1-0");
  assert_int_equal(r.v[0].body_len, 7);
  assert_memory_equal(r.v[0].body, "<p>\n\0x\n", 8);  /* NUL-terminated */
  assert_int_equal(r.v[0].nheaders, 1);
  assert_null(r.v[1].body);
  assert_string_equal(r.v[2].url, "http://c/");
  assert_int_equal(r.v[2].body_len, 0);
  assert_non_null(r.v[2].body);
  gwproto_results_free(&r);
  assert_int_equal(gwproto_results_framed("", 0, &r), CRAWL_OK);
  assert_int_equal(r.n, 0);
  char many[40 * 64];
  size_t n = 0;
  for(int i = 0; i < 40; i++)
    n += (size_t)snprintf(many + n, sizeof many - n,
                          "{\"url\":\"http://m/%d\",\"outcome\":\"ok\",\"body_bytes\":1}\nx\n", i);
  assert_int_equal(gwproto_results_framed(many, n, &r), CRAWL_OK);
  assert_int_equal(r.n, 40);
  assert_string_equal(r.v[39].url, "http://m/39");
  gwproto_results_free(&r);
  static const char *const bad[] = {
    "{\"url\":\"x\",\"outcome\":\"ok\"}",                        /* no newline */
    "{\"url\":\"x\",\"outcome\":\"ok\",\"body_bytes\":3}\nab",      /* short page */
    "{\"url\":\"x\",\"outcome\":\"ok\",\"body_bytes\":3}\nabc",     /* no newline after it */
    "{\"url\":\"x\",\"outcome\":\"ok\",\"body_bytes\":2}\nabc\n",  /* not where it ends */
    "{\"url\":\"x\",\"outcome\":\"ok\",\"body_bytes\":-1}\n\n",
    "{\"url\":\"x\",\"outcome\":\"ok\",\"body_bytes\":\"1\"}\nx\n",
    "{\"url\":\"x\",\"outcome\":\"ok\",\"body_base64\":\"eA==\"}\n", /* JSON's form */
    "{\"url\":\"x\"}\n",                                           /* no outcome */
    "not json\n",
    "\n",
  };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(gwproto_results_framed(bad[i], strlen(bad[i]), &r), CRAWL_ERR_INVALID);
}

/* robots_tags as bits (a newer gateway's names ignored, a list of another
 * type refused); an unavailable_after date means noindex once past. */
static void test_results_robots(void **state)
{
  (void)state;
  const char *j = "{\"results\":[{\"id\":\"0-1\",\"url\":\"http://a/\",\"outcome\":\"ok\","
                  "\"robots_tags\":[\"nofollow\",\"unavailable_after\",\"nosnippet\"],"
                  "\"robots_unavailable_after\":1700000000000},"
                  "{\"id\":\"0-2\",\"url\":\"http://b/\",\"outcome\":\"ok\"}]}";
  struct gw_results r;
  assert_int_equal(gwproto_results(j, strlen(j), &r), CRAWL_OK);
  assert_int_equal(r.v[0].robots_tags, ROBOTS_TAG_NOFOLLOW | ROBOTS_TAG_UNAVAILABLE_AFTER);
  assert_int_equal(gwproto_robots(&r.v[0], 1699999999999ull), r.v[0].robots_tags);
  assert_int_equal(gwproto_robots(&r.v[0], 1700000000000ull),
                   r.v[0].robots_tags | ROBOTS_TAG_NOINDEX);
  assert_int_equal(gwproto_robots(&r.v[1], 1700000000000ull), 0);
  gwproto_results_free(&r);
  const char *bad[] = {
    "{\"results\":[{\"id\":\"0-1\",\"url\":\"http://a/\",\"outcome\":\"ok\",\"robots_tags\":\"noindex\"}]}",
    "{\"results\":[{\"id\":\"0-1\",\"url\":\"http://a/\",\"outcome\":\"ok\",\"robots_tags\":[1]}]}",
  };
  for(size_t i = 0; i < 2; i++)
    assert_int_equal(gwproto_results(bad[i], strlen(bad[i]), &r), CRAWL_ERR_INVALID);
}

static void test_results(void **state)
{
  (void)state;
  /* "<a href=/x>" in base64, and one result without a page. */
  const char *j = "{\"results\":[{\"delivery\":\"1:1-0\",\"id\":\"0-1\",\"url\":\"http://a/\","
                  "\"outcome\":\"ok\",\"status\":200,\"fetched_at\":1700000000000,\"response_ms\":12,"
                  "\"headers\":[[\"Content-Type\",\"text/html\"],[\"X\",\"y\"]],"
                  "\"body_base64\":\"PGEgaHJlZj0veD4=\",\"truncated\":true},"
                  "{\"delivery\":\"1:1-1\",\"id\":\"0-2\",\"url\":\"http://b/\","
                  "\"outcome\":\"robots_disallowed\"},"
                  "{\"id\":\"0-3\",\"url\":\"http://c/\",\"outcome\":\"ok\",\"status\":301,"
                  "\"redirect\":\"http://c/d\",\"body_base64\":\"\"}]}";
  struct gw_results r;
  assert_int_equal(gwproto_results(j, strlen(j), &r), CRAWL_OK);
  assert_int_equal(r.n, 3);
  assert_string_equal(r.v[0].delivery, "1:1-0");
  assert_int_equal(r.v[0].status, 200);
  assert_true(r.v[0].fetched_at == 1700000000000ull);
  assert_int_equal(r.v[0].response_ms, 12);
  assert_true(r.v[0].truncated);
  assert_int_equal(r.v[0].nheaders, 2);
  assert_string_equal(r.v[0].headers[0].name, "Content-Type");
  assert_int_equal(r.v[0].body_len, 11);
  assert_memory_equal(r.v[0].body, "<a href=/x>", 11);
  assert_string_equal(r.v[1].outcome, "robots_disallowed");
  assert_null(r.v[1].body);
  assert_int_equal(r.v[1].status, 0);
  assert_string_equal(r.v[2].redirect, "http://c/d");
  assert_int_equal(r.v[2].body_len, 0);
  gwproto_results_free(&r);
  const char *empty = "{\"results\":[]}";
  assert_int_equal(gwproto_results(empty, strlen(empty), &r), CRAWL_OK);
  assert_int_equal(r.n, 0);
  const char *bad[] = { "{\"results\":[{\"url\":\"x\"}]}",
                        "{\"results\":[{\"url\":\"x\",\"outcome\":\"ok\",\"body_base64\":\"abc\"}]}",
                        "{\"results\":[{\"url\":\"x\",\"outcome\":\"ok\",\"headers\":[[\"a\"]]}]}",
                        "{\"results\":{}}" };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(gwproto_results(bad[i], strlen(bad[i]), &r), CRAWL_ERR_INVALID);
  results_framed();
  const char *rb = "{\"origin\":\"http://a\",\"allowed\":true,\"robots_status\":\"ok\","
                   "\"sitemaps\":[\"http://a/s1.xml\",\"http://a/s2.xml\"]}";
  char **sm;
  assert_int_equal(gwproto_sitemaps(rb, strlen(rb), &sm), CRAWL_OK);
  assert_string_equal(sm[1], "http://a/s2.xml");
  assert_null(sm[2]);
  gwproto_strv_free(sm);
  const char *none = "{\"origin\":\"http://a\",\"allowed\":true,\"robots_status\":\"none\"}";
  assert_int_equal(gwproto_sitemaps(none, strlen(none), &sm), CRAWL_OK);
  assert_null(sm[0]);
  gwproto_strv_free(sm);
}

static crawl_err collect(void *arg, const struct crawllog_rec *r)
{
  struct buf *b = arg;
  buf_addf(b, "%s|%s|%d|%s|%s|%d;", r->url, r->outcome, r->status, r->warc ? r->warc : "-",
           r->duplicate_of ? r->duplicate_of : "-", r->sitemap);
  /* The whole line comes too: a focused crawl's members are read from it. */
  static const char want[] = ",\"score\":0.5}";
  const char *extra = memmem(r->line, r->line_len, want, sizeof want - 1);
  if(extra)
    buf_adds(b, "+extra;");
  if(r->cause)
    buf_addf(b, "cause=%s;", r->cause);
  return CRAWL_OK;
}

/* POST /v1/fetch: its body, and its answer, one result. */
static void test_fetch(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 4096);
  assert_int_equal(gwproto_fetch_body("http://a/\"x\"", 5000, 3600, &b), CRAWL_OK);
  assert_string_equal(b.data, "{\"url\":\"http://a/\\\"x\\\"\",\"wait_ms\":5000,\"max_age_s\":3600}");
  buf_reset(&b);
  assert_int_equal(gwproto_fetch_body("http://a/", 10, -1, &b), CRAWL_OK);
  assert_string_equal(b.data, "{\"url\":\"http://a/\",\"wait_ms\":10}");
  buf_free(&b);
  const char *j = "{\"id\":\"4c1f\",\"url\":\"http://a/\",\"outcome\":\"cached\",\"status\":200,"
                  "\"headers\":[[\"Content-Type\",\"text/html\"]],\"body_base64\":\"PGEgaHJlZj0veD4=\"}";
  struct gw_result r;
  assert_int_equal(gwproto_result(j, strlen(j), &r), CRAWL_OK);
  assert_string_equal(r.outcome, "cached");
  assert_null(r.delivery);
  assert_int_equal(r.body_len, 11);
  assert_memory_equal(r.body, "<a href=/x>", 11);
  gwproto_result_free(&r);
  const char *bad[] = { "{\"url\":\"x\"}", "[]", "{\"url\":1,\"outcome\":\"ok\"}", "nope" };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(gwproto_result(bad[i], strlen(bad[i]), &r), CRAWL_ERR_INVALID);
    assert_null(r.url);
  }
}

/* A result without a page names why in one word, the gateway's cause of
 * robots_unavailable decoded: a dead name, a dead server, a hanging one
 * and a server error read differently. */
static const char *cause_of(const char *json, char *buf)
{
  static char keep[GWPROTO_CAUSE_MAX];
  struct gw_result r;
  assert_int_equal(gwproto_result(json, strlen(json), &r), CRAWL_OK);
  const char *c = gwproto_cause(&r, buf, GWPROTO_CAUSE_MAX);
  snprintf(keep, sizeof keep, "%s", c ? c : "(page)");
  gwproto_result_free(&r);
  return keep;
}

static void test_cause(void **state)
{
  (void)state;
  char b[GWPROTO_CAUSE_MAX];
  static const char *const cases[][2] = {
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"dns_nxdomain\"}",
      "dns_nxdomain" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"connect_refused\"}",
      "connect_refused" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"timeout\"}",
      "timeout" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"ok\","
      "\"cause_status\":503}", "robots_5xx" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"ok\","
      "\"cause_status\":429}", "robots_429" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\"}", "robots_unavailable" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"Bad Word\"}",
      "unknown" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_disallowed\"}", "robots_disallowed" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"timeout\"}", "timeout" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"ok\",\"status\":200,\"page\":\"expired\"}",
      "page_expired" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"ok\",\"status\":404}", "(page)" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"not_modified\",\"status\":304}", "(page)" },
    { "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"cached\",\"status\":200}", "(page)" },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_string_equal(cause_of(cases[i][0], b), cases[i][1]);
  struct gw_result r;
  const char *j = "{\"url\":\"u\",\"id\":\"1\",\"outcome\":\"robots_unavailable\",\"cause\":\"ok\","
                  "\"cause_status\":503}";
  assert_int_equal(gwproto_result(j, strlen(j), &r), CRAWL_OK);
  assert_int_equal(r.cause_status, 503);
  gwproto_result_free(&r);
  j = "{\"url\":\"u\",\"outcome\":\"robots_unavailable\",\"cause\":5}";  /* not a word */
  assert_int_equal(gwproto_result(j, strlen(j), &r), CRAWL_ERR_INVALID);
}

/* Counts by name stay bounded whatever names come. */
static void test_tally(void **state)
{
  (void)state;
  struct tally t = { 0 };
  char name[32], text[256];
  tally_add(&t, "timeout", 2);
  tally_add(&t, "dns_nxdomain", 3);
  tally_add(&t, "timeout", 1);
  tally_add(&t, "Not A Word", 1);
  struct buf b;
  buf_init(&b, 4096);
  assert_int_equal(tally_json(&t, &b), CM_OK);
  assert_string_equal(b.data, "{\"dns_nxdomain\":3,\"timeout\":3,\"unknown\":1}");
  tally_text(&t, text, sizeof text);
  assert_string_equal(text, "dns_nxdomain 3, timeout 3, unknown 1");
  for(int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "made_up_%d", i);
    tally_add(&t, name, 1);
  }
  assert_int_equal(t.n, TALLY_MAX);
  assert_int_equal(t.total, 207);
  assert_int_equal(tally_get(&t, "other"), 207 - 3 - 3 - 1 - (TALLY_MAX - 4));
  buf_free(&b);
}

static void test_crawllog(void **state)
{
  (void)state;
  char path[] = "/tmp/wpfs-crawllog.XXXXXX";
  close(mkstemp(path));
  struct crawllog *l;
  assert_int_equal(crawllog_open(path, &l), CRAWL_OK);
  struct crawllog_entry e = { 0 };
  e.url = "http://a/\"x\"";
  e.outcome = "ok";
  e.status = 200;
  e.warc = "w.warc.gz";
  e.digest = "sha1:AAAA";
  assert_int_equal(crawllog_write(l, &e), CRAWL_OK);
  e = (struct crawllog_entry){ 0 };
  e.url = "http://b/";
  e.outcome = "ok";
  e.status = 200;
  e.duplicate_of = "http://a/\"x\"";
  e.dup = "near";
  e.distance = 2;
  e.sitemap = true;
  e.extra = ",\"score\":0.5";  /* a scorer's members, at the end */
  assert_int_equal(crawllog_write(l, &e), CRAWL_OK);
  e = (struct crawllog_entry){ 0 };
  e.url = "http://c/";
  e.outcome = "robots_unavailable";
  e.cause = "robots_5xx";
  e.cause_status = 503;
  assert_int_equal(crawllog_write(l, &e), CRAWL_OK);
  uint64_t size = crawllog_size(l);
  crawllog_close(&l);
  /* A crash in the middle of a line: the next open cuts it. */
  FILE *f = fopen(path, "a");
  fputs("{\"url\":\"http://half", f);
  fclose(f);
  struct buf got;
  buf_init(&got, 4096);
  assert_int_equal(crawllog_scan(path, 0, collect, &got), CRAWL_OK);
  assert_string_equal(got.data, "http://a/\"x\"|ok|200|w.warc.gz|-|0;"
                                "http://b/|ok|200|-|http://a/\"x\"|1;+extra;"
                                "http://c/|robots_unavailable|0|-|-|0;cause=robots_5xx;");
  assert_int_equal(crawllog_open(path, &l), CRAWL_OK);
  assert_int_equal(crawllog_size(l), size);
  crawllog_close(&l);
  buf_reset(&got);
  assert_int_equal(crawllog_scan(path, size, collect, &got), CRAWL_OK);
  assert_int_equal(got.len, 0);
  f = fopen(path, "a");
  fputs("not json\n", f);
  fclose(f);
  assert_int_equal(crawllog_scan(path, size, collect, &got), CRAWL_ERR_CORRUPT);
  buf_free(&got);
  unlink(path);
}

static uint64_t path_size(const char *path)
{
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return (uint64_t)st.st_size;
}

/* Added lines wait for the flush, and count in the size once written. */
static void test_crawllog_add(void **state)
{
  (void)state;
  char path[] = "/tmp/wpfs-crawllog.XXXXXX";
  close(mkstemp(path));
  struct crawllog *l;
  assert_int_equal(crawllog_open(path, &l), CRAWL_OK);
  struct crawllog_entry e = { 0 };
  e.url = "http://c/";
  e.outcome = "ok";
  assert_int_equal(crawllog_write(l, &e), CRAWL_OK);
  uint64_t one = crawllog_size(l);
  assert_int_equal(path_size(path), one);
  for(int i = 0; i < 3; i++)
    assert_int_equal(crawllog_add(l, &e), CRAWL_OK);
  assert_int_equal(crawllog_pending(l), 3 * one);
  assert_int_equal(crawllog_size(l), one);
  assert_int_equal(path_size(path), one);
  assert_int_equal(crawllog_flush(l), CRAWL_OK);
  assert_int_equal(crawllog_pending(l), 0);
  assert_int_equal(crawllog_size(l), 4 * one);
  assert_int_equal(path_size(path), 4 * one);
  assert_int_equal(crawllog_add(l, &e), CRAWL_OK);
  crawllog_close(&l);  /* a line added and not flushed is written at close */
  assert_int_equal(path_size(path), 5 * one);
  unlink(path);
}

static int loc_cb(void *arg, const struct sitemap_entry *e)
{
  struct buf *b = arg;
  buf_addf(b, "%s%.*s;", e->index ? "I:" : "", (int)e->len, e->loc);
  return 0;
}

static void test_sitemap(void **state)
{
  (void)state;
  const char *set = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
                    "<url><loc> http://a.test/1 </loc><lastmod>2024-01-01</lastmod></url>\n"
                    "<url><LOC>http://a.test/2?x=1&amp;y=2</LOC></url></urlset>";
  struct buf b;
  struct sitemap_info si;
  buf_init(&b, 4096);
  assert_int_equal(sitemap_read(set, strlen(set), NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_string_equal(b.data, "http://a.test/1;http://a.test/2?x=1&y=2;");
  assert_false(si.gzip);
  assert_int_equal(si.end, GUNZIP_WHOLE);
  assert_int_equal(si.text, strlen(set));
  buf_reset(&b);
  const char *idx = "<sitemapindex><sitemap><loc>http://a.test/s1.xml</loc></sitemap>"
                    "<sitemap><loc><![CDATA[http://a.test/s2.xml]]></loc></sitemap></sitemapindex>";
  assert_int_equal(sitemap_read(idx, strlen(idx), NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_non_null(strstr(b.data, "I:http://a.test/s1.xml;"));
  buf_free(&b);
}

struct hints {
  char    loc[8][64];
  int64_t lastmod[8];
  int     freq[8];
  double  prio[8];
  size_t  n;
};

static int hint_cb(void *arg, const struct sitemap_entry *e)
{
  struct hints *h = arg;
  if(h->n < 8) {
    snprintf(h->loc[h->n], sizeof h->loc[0], "%.*s", (int)e->len, e->loc);
    h->lastmod[h->n] = e->lastmod;
    h->freq[h->n] = (int)e->changefreq;
    h->prio[h->n++] = e->priority;
  }
  return 0;
}

/* lastmod, changefreq and priority come with their entry, before or after
 * its <loc>; what is not valid is not given. */
static void test_sitemap_hints(void **state)
{
  (void)state;
  const char *set =
    "<urlset><url><loc>http://a.test/1</loc><lastmod>2024-01-02</lastmod>"
    "<changefreq> Daily </changefreq><priority>0.8</priority></url>"
    "<url><priority>1.0</priority><lastmod>2024-01-02T10:00:00+02:00</lastmod>"
    "<loc>http://a.test/2</loc></url>"
    "<url><loc>http://a.test/3</loc><lastmod>yesterday</lastmod><changefreq>often</changefreq>"
    "<priority>1.5</priority></url>"
    "<url><loc>http://a.test/4</loc></url><loc>http://a.test/stray</loc></urlset>";
  struct hints h;
  struct sitemap_info si;
  memset(&h, 0, sizeof h);
  assert_int_equal(sitemap_read(set, strlen(set), NULL, hint_cb, &h, &si), CRAWL_OK);
  assert_int_equal(h.n, 5);
  assert_string_equal(h.loc[0], "http://a.test/1");
  assert_int_equal(h.lastmod[0], 1704153600);  /* 2024-01-02T00:00:00Z */
  assert_int_equal(h.freq[0], SITEMAP_FREQ_daily);
  assert_true(h.prio[0] > 0.79 && h.prio[0] < 0.81);
  assert_string_equal(h.loc[1], "http://a.test/2");
  assert_int_equal(h.lastmod[1], 1704153600 + 8 * 3600);
  assert_true(h.prio[1] == 1.0);
  assert_int_equal(h.lastmod[2], -1);
  assert_int_equal(h.freq[2], SITEMAP_FREQ_NONE);
  assert_true(h.prio[2] == -1);
  assert_int_equal(h.lastmod[3], -1);
  assert_true(h.prio[3] == -1);
  assert_string_equal(h.loc[4], "http://a.test/stray");
}

/* gzip of p[0..n) as one member (level 1: fast on megabytes of zeros). */
static void gz(const void *p, size_t n, struct buf *out)
{
  z_stream z = { 0 };
  assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  size_t bound = deflateBound(&z, (uLong)n);
  char *tmp = mem_alloc(bound);
  z.next_in = (Bytef *)(uintptr_t)p;
  z.avail_in = (uInt)n;
  z.next_out = (Bytef *)tmp;
  z.avail_out = (uInt)bound;
  assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
  assert_int_equal(buf_add(out, tmp, bound - z.avail_out), CM_OK);
  deflateEnd(&z);
  mem_free(tmp);
}

/* A compressed sitemap reads as the plain one; several members are one
 * stream; a damaged or cut stream gives what came before the damage. */
static void test_sitemap_gzip(void **state)
{
  (void)state;
  const char *set = "<urlset><url><loc>http://a.test/1</loc></url>"
                    "<url><loc>http://a.test/2</loc></url></urlset>";
  const char *more = "<urlset><url><loc>http://a.test/3</loc></url></urlset>";
  struct buf z, b;
  struct sitemap_info si;
  buf_init(&z, 1 << 20);
  buf_init(&b, 4096);
  gz(set, strlen(set), &z);
  assert_int_equal(sitemap_read(z.data, z.len, NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_string_equal(b.data, "http://a.test/1;http://a.test/2;");
  assert_true(si.gzip);
  assert_int_equal(si.end, GUNZIP_WHOLE);
  assert_int_equal(si.text, strlen(set));
  size_t one = z.len;
  gz(more, strlen(more), &z);
  buf_reset(&b);
  assert_int_equal(sitemap_read(z.data, z.len, NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_string_equal(b.data, "http://a.test/1;http://a.test/2;http://a.test/3;");
  assert_int_equal(si.end, GUNZIP_WHOLE);
  /* The second member cut short: the first one is whole. */
  buf_reset(&b);
  assert_int_equal(sitemap_read(z.data, one + 12, NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_string_equal(b.data, "http://a.test/1;http://a.test/2;");
  assert_int_equal(si.end, GUNZIP_SHORT);
  /* A wrong CRC in the first member's trailer. */
  z.data[one - 6] ^= 0x55;
  buf_reset(&b);
  assert_int_equal(sitemap_read(z.data, z.len, NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_int_equal(si.end, GUNZIP_BROKEN);
  assert_string_equal(b.data, "http://a.test/1;http://a.test/2;");
  /* Only the magic. */
  assert_int_equal(sitemap_read("\x1f\x8bxx", 4, NULL, loc_cb, &b, &si), CRAWL_OK);
  assert_int_equal(si.end, GUNZIP_BROKEN);
  assert_int_equal(si.text, 0);
  buf_free(&z);
  buf_free(&b);
}

static int count_cb(void *arg, const struct sitemap_entry *e)
{
  size_t *n = arg;
  n[e->index ? 1 : 0]++;
  return 0;
}

/* A gzip bomb (256 MiB of zeros in 1.1 MiB) stops at the cap; a stream
 * ending exactly at the cap is whole. */
static void test_sitemap_bomb(void **state)
{
  (void)state;
  size_t big = 256u << 20;
  char *zeros = mem_calloc(1, big);
  struct buf z;
  buf_init(&z, 8u << 20);
  gz(zeros, big, &z);
  mem_free(zeros);
  print_message("# bomb: %zu bytes inflate to %zu\n", z.len, big);
  struct sitemap_opts o = { { 0 }, 1u << 20 };
  struct sitemap_info si;
  size_t n[2] = { 0, 0 };
  assert_int_equal(sitemap_read(z.data, z.len, &o, count_cb, n, &si), CRAWL_OK);
  assert_int_equal(si.end, GUNZIP_CAP);
  assert_int_equal(si.text, o.max_text);
  assert_int_equal(n[0] + n[1], 0);
  const char *set = "<urlset><url><loc>http://a.test/1</loc></url></urlset>";
  buf_reset(&z);
  gz(set, strlen(set), &z);
  o.max_text = strlen(set);
  assert_int_equal(sitemap_read(z.data, z.len, &o, count_cb, n, &si), CRAWL_OK);
  assert_int_equal(si.end, GUNZIP_WHOLE);
  assert_int_equal(n[0], 1);
  o.max_text = strlen(set) - 1;
  assert_int_equal(sitemap_read(z.data, z.len, &o, count_cb, n, &si), CRAWL_OK);
  assert_int_equal(si.end, GUNZIP_CAP);
  assert_int_equal(sitemap_read(set, strlen(set), &o, count_cb, n, &si), CRAWL_OK);
  assert_int_equal(si.end, GUNZIP_CAP);  /* plain text has the same cap */
  buf_free(&z);
}

/* A sitemap of 50,000 URLs (5 MiB, more than the parser takes at once) is
 * read in pieces cut between entries: every <loc> is found once, and the
 * entries of an index keep their parent across the cuts. */
static void test_sitemap_pieces(void **state)
{
  (void)state;
  struct buf x, z;
  buf_init(&x, 16u << 20);
  buf_init(&z, 16u << 20);
  for(int idx = 0; idx < 2; idx++) {
    buf_reset(&x);
    buf_adds(&x, idx ? "<sitemapindex>" : "<urlset>");
    for(int i = 0; i < 50000; i++)
      buf_addf(&x, idx ? "<sitemap><loc>http://a.test/sitemap-%d.xml.gz</loc></sitemap>\n"
                       : "<url><loc>http://a.test/some/longer/path/%d.html</loc>"
                         "<lastmod>2024-01-01</lastmod><priority>0.5</priority></url>\n", i);
    buf_adds(&x, idx ? "</sitemapindex>" : "</urlset>");
    buf_reset(&z);
    gz(x.data, x.len, &z);
    size_t n[2] = { 0, 0 };
    struct sitemap_info si;
    assert_int_equal(sitemap_read(z.data, z.len, NULL, count_cb, n, &si), CRAWL_OK);
    assert_int_equal(n[idx], 50000);
    assert_int_equal(n[!idx], 0);
    assert_true(si.pieces >= x.len / SITEMAP_PIECE);
    assert_int_equal(si.text, x.len);
    print_message("# %s: %zu bytes, %zu pieces\n", idx ? "index" : "urlset", x.len, si.pieces);
  }
  buf_free(&x);
  buf_free(&z);
}

static void test_progress(void **state)
{
  (void)state;
  struct progress_counts c = { 1234, 5, 6, 7890, 321, 42, NULL, 0, 0 };
  char line[256];
  progress_format(line, sizeof line, &c, 56.78);
  assert_string_equal(line, "1234 pages  56.8 pages/s  frontier 321 (42 out)  seen 7890  "
                            "dups 6  errors 5");
  c.note = "harvest 0.52 (641 relevant)";  /* a focused crawl's words at the end */
  progress_format(line, sizeof line, &c, 56.78);
  assert_string_equal(line, "1234 pages  56.8 pages/s  frontier 321 (42 out)  seen 7890  "
                            "dups 6  errors 5  harvest 0.52 (641 relevant)");
  c.ruled = 17;  /* links the scope rules rejected */
  progress_format(line, sizeof line, &c, 56.78);
  assert_string_equal(line, "1234 pages  56.8 pages/s  frontier 321 (42 out)  seen 7890  "
                            "dups 6  errors 5  ruled out 17  harvest 0.52 (641 relevant)");
  c.note = NULL;
  c.ruled = 0;
  c.waiting = 40;  /* of the 42 outstanding, waiting for their host's robots.txt */
  progress_format(line, sizeof line, &c, 56.78);
  assert_string_equal(line, "1234 pages  56.8 pages/s  frontier 321 (42 out, 40 wait "
                            "robots.txt)  seen 7890  dups 6  errors 5");
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  struct progress p;
  progress_init(&p, fds[1]);
  assert_false(p.tty);  /* a pipe: nothing is drawn */
  progress_update(&p, &c, true);
  progress_end(&p);
  close(fds[1]);
  char buf[8];
  assert_int_equal(read(fds[0], buf, sizeof buf), 0);
  close(fds[0]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cause),
    cmocka_unit_test(test_tally),
    cmocka_unit_test(test_batch_body),
    cmocka_unit_test(test_batch_answer),
    cmocka_unit_test(test_kept),
    cmocka_unit_test(test_robots_answer),
    cmocka_unit_test(test_problem),
    cmocka_unit_test(test_indent),
    cmocka_unit_test(test_results),
    cmocka_unit_test(test_results_robots),
    cmocka_unit_test(test_fetch),
    cmocka_unit_test(test_crawllog),
    cmocka_unit_test(test_crawllog_add),
    cmocka_unit_test(test_sitemap),
    cmocka_unit_test(test_sitemap_hints),
    cmocka_unit_test(test_sitemap_gzip),
    cmocka_unit_test(test_sitemap_bomb),
    cmocka_unit_test(test_sitemap_pieces),
    cmocka_unit_test(test_progress),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
