/* tests/testweb routing, with no socket: which response a request gets,
 * the generated world's determinism, and the bytes a plan hands out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/testweb/tw_route.c"
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
#include "tests/testweb/tw_world.h"

static struct tw_world W;
static struct tw_bomb B;
static struct tw_route_env ENV;

static void world(const char *gen, const char *sites_json)
{
  char err[256];
  tw_world_free(&W);
  tw_world_init(&W, 100);
  W.link_port = 8080;
  assert_int_equal(tw_gen_parse(&W.gen, gen, err, sizeof err), TW_OK);
  assert_int_equal(tw_gen_world(&W, err, sizeof err), TW_OK);
  if(sites_json) {
    json_t *root = json_loads(sites_json, 0, NULL);
    assert_non_null(root);
    tw_err e = tw_load_sites(&W, root, err, sizeof err);
    if(e)
      fail_msg("%s", err);
    json_decref(root);
  }
  ENV.w = &W;
  ENV.bombs = &B;
}

/* Route one request; the head text is parsed as a client would send it. */
static void route(const char *site, const char *head, struct tw_plan *pl)
{
  struct tw_req req;
  assert_int_equal(tw_http_parse(head, strlen(head), 65536, &req), TW_OK);
  tw_plan_init(pl);
  tw_route(&ENV, site ? tw_world_find(&W, site, strlen(site)) : NULL, &req, pl);
}

static void get(const char *site, const char *path, struct tw_plan *pl)
{
  char head[512];
  snprintf(head, sizeof head, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, site ? site : "x");
  route(site, head, pl);
}

/* Everything the plan hands out, framing included (bounded). */
static char *wire(struct tw_plan *pl, size_t *len)
{
  uv_buf_t iov[TW_PLAN_IOV];
  struct buf b;
  buf_init(&b, 64u << 20);
  while(!tw_plan_finished(pl)) {
    unsigned n = tw_plan_fill(pl, iov, 4096);
    if(!n)
      break;
    for(unsigned i = 0; i < n; i++)
      buf_add(&b, iov[i].base, iov[i].len);
  }
  return buf_steal(&b, len);
}

static char *body_of(struct tw_plan *pl)
{
  size_t len;
  char *w = wire(pl, &len);
  char *b = strstr(w, "\r\n\r\n");
  char *copy = strdup(b ? b + 4 : "");
  mem_free(w);
  return copy;
}

static const char *header(const struct tw_plan *pl, const char *name, char *out, size_t len)
{
  const char *p = strstr(pl->head.data, name);
  if(!p)
    return NULL;
  p += strlen(name) + 2;
  size_t n = strcspn(p, "\r");
  snprintf(out, len, "%.*s", (int)n, p);
  return out;
}

static int setup(void **state)
{
  (void)state;
  tw_fill_init();
  tw_world_init(&W, 100);
  return tw_bomb_init(&B, 1u << 20) ? -1 : 0;
}

static int teardown(void **state)
{
  (void)state;
  tw_world_free(&W);
  tw_bomb_free(&B);
  return 0;
}

static void test_pages_deterministic_and_duplicates(void **state)
{
  (void)state;
  struct tw_plan pl;
  world("sites=4,pages=5,seed=7,links=6,cross=0.5", NULL);
  get("site1.test", "/p/2.html", &pl);
  assert_int_equal(pl.status, 200);
  char *a = body_of(&pl);
  tw_plan_free(&pl);
  static const char *const dups[] = { "/p/2", "/p/2.html?ref=9", "/p/2.html#top" };
  for(size_t i = 0; i < 3; i++) {
    get("SITE1.test:8080", dups[i], &pl);
    char *d = body_of(&pl);
    assert_string_equal(a, d);
    free(d);
    tw_plan_free(&pl);
  }
  world("sites=4,pages=5,seed=7,links=6,cross=0.5", NULL);
  get("site1.test", "/p/2.html", &pl);
  char *b = body_of(&pl);
  tw_plan_free(&pl);
  assert_string_equal(a, b);  /* same seed, same world */
  world("sites=4,pages=5,seed=8,links=6,cross=0.5", NULL);
  get("site1.test", "/p/2.html", &pl);
  char *c = body_of(&pl);
  tw_plan_free(&pl);
  assert_string_not_equal(a, c);
  free(a);
  free(b);
  free(c);
}

static void test_page_links(void **state)
{
  (void)state;
  struct tw_plan pl;
  world("sites=3,pages=5,links=6,cross=1,page_bytes=4000", NULL);
  get("site0.test", "/", &pl);
  char *body = body_of(&pl);
  int n = 0;
  for(const char *p = body; (p = strstr(p, "<a href=")); p++)
    n++;
  assert_int_equal(n, 7);  /* 6 links and the next page */
  assert_non_null(strstr(body, "http://site1.test:8080/") ? body : strstr(body, "http://site2.test:8080/"));
  assert_null(strstr(body, "http://site0.test:8080/"));  /* never to itself */
  assert_true(strlen(body) >= 4000);
  free(body);
  tw_plan_free(&pl);
  get("site0.test", "/p/5.html", &pl);
  assert_int_equal(pl.status, 404);
  tw_plan_free(&pl);
  get("site0.test", "/sitemap.xml", &pl);
  body = body_of(&pl);
  assert_non_null(strstr(body, "<loc>http://site0.test:8080/p/4.html</loc>"));
  free(body);
  tw_plan_free(&pl);
}

static void test_robots_chain(void **state)
{
  (void)state;
  struct tw_plan pl;
  char v[256];
  world("sites=0", "[{\"name\":\"r.test\",\"address\":\"127.20.0.1\",\"robots\":"
                   "{\"n\":3,\"crawl_delay\":2.5,\"disallow\":[\"/a\",\"/b\"]}},"
                   "{\"name\":\"t.test\",\"robots\":{\"n\":1,\"code\":308,\"to\":\"http://r.test/x\"}},"
                   "{\"name\":\"m.test\",\"robots\":false}]");
  get("r.test", "/robots.txt", &pl);
  assert_int_equal(pl.status, 301);
  assert_string_equal(header(&pl, "Location", v, sizeof v), "/_b/robots/1");
  tw_plan_free(&pl);
  get("127.20.0.1", "/_b/robots/2", &pl);
  assert_string_equal(header(&pl, "Location", v, sizeof v), "/_b/robots/3");
  tw_plan_free(&pl);
  get("r.test", "/_b/robots/3", &pl);
  assert_int_equal(pl.status, 200);
  char *body = body_of(&pl);
  assert_string_equal(body, "User-agent: *\nCrawl-delay: 2.5\nDisallow: /a\nDisallow: /b\n"
                            "Sitemap: http://r.test:8080/sitemap.xml\n");
  free(body);
  tw_plan_free(&pl);
  get("t.test", "/robots.txt", &pl);
  assert_int_equal(pl.status, 308);
  assert_string_equal(header(&pl, "Location", v, sizeof v), "http://r.test/x");
  tw_plan_free(&pl);
  get("m.test", "/robots.txt", &pl);
  assert_int_equal(pl.status, 404);
  tw_plan_free(&pl);
}

static void test_behaviour_precedence(void **state)
{
  (void)state;
  struct tw_plan pl;
  world("sites=1", "[{\"name\":\"p.test\",\"hold_ms\":100,\"paths\":{"
                   "\"/slow\":{\"kind\":\"body\",\"hold_ms\":500,\"size\":10},"
                   "\"/old/*\":{\"kind\":\"redirect\",\"to\":\"/new\",\"code\":301}}}]");
  get("p.test", "/", &pl);
  assert_int_equal(pl.hold_ms, 100);
  tw_plan_free(&pl);
  get("p.test", "/slow", &pl);
  assert_int_equal(pl.hold_ms, 500);
  assert_int_equal(tw_plan_body_len(&pl), 10);
  tw_plan_free(&pl);
  get("p.test", "/old/deep/page", &pl);
  assert_int_equal(pl.status, 301);
  tw_plan_free(&pl);
  get("p.test", "/_b/body?hold_ms=7&drip_bytes=3&drip_ms=20", &pl);
  assert_int_equal(pl.hold_ms, 7);
  assert_int_equal(pl.drip_bytes, 3);
  assert_int_equal(pl.drip_ms, 20);
  tw_plan_free(&pl);
  get("site0.test", "/", &pl);
  assert_int_equal(pl.hold_ms, 0);  /* other sites are not touched */
  tw_plan_free(&pl);
}

static void test_not_modified(void **state)
{
  (void)state;
  struct tw_plan pl;
  char etag[64], lm[64], head[512];
  world("sites=1,pages=3", NULL);
  get("site0.test", "/p/1.html", &pl);
  assert_non_null(header(&pl, "ETag", etag, sizeof etag));
  assert_string_equal(header(&pl, "Last-Modified", lm, sizeof lm), "Mon, 01 Jan 2024 00:00:00 GMT");
  tw_plan_free(&pl);
  snprintf(head, sizeof head, "GET /p/1.html HTTP/1.1\r\nIf-None-Match: W/\"zz\", %s\r\n\r\n", etag);
  route("site0.test", head, &pl);
  assert_int_equal(pl.status, 304);
  assert_int_equal(pl.nseg, 0);
  assert_null(strstr(pl.head.data, "Content-Length"));
  tw_plan_free(&pl);
  route("site0.test", "GET /p/1.html HTTP/1.1\r\nIf-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n", &pl);
  assert_int_equal(pl.status, 304);
  tw_plan_free(&pl);
  route("site0.test", "GET /p/1.html HTTP/1.1\r\nIf-Modified-Since: Sun, 31 Dec 2023 00:00:00 GMT\r\n\r\n", &pl);
  assert_int_equal(pl.status, 200);
  tw_plan_free(&pl);
}

static void test_change_every(void **state)
{
  (void)state;
  struct tw_plan pl;
  char e[5][64];
  world("sites=1", NULL);
  for(int i = 0; i < 5; i++) {
    get("site0.test", "/_b/change?every=2", &pl);
    header(&pl, "ETag", e[i], sizeof e[i]);
    tw_plan_free(&pl);
  }
  assert_string_equal(e[0], e[1]);
  assert_string_not_equal(e[1], e[2]);
  assert_string_equal(e[2], e[3]);
  assert_string_not_equal(e[3], e[4]);
}

/* The changing web: a POST makes it, /churn/urls lists it, a page's
 * validators answer 304, and freshness is integrated from the fetches:
 * a page fetched and never changing is fresh, one never fetched stale,
 * one changing every millisecond mostly stale, a gone page 404/410. */
static double ut_churn_fresh(const char *members, int j)
{
  struct buf out;
  int status;
  const char *ctype = NULL;
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, false, "/churn/fresh", "", &out, &status, &ctype));
  json_t *root = json_loads(out.data, 0, NULL);
  assert_non_null(root);
  double v = json_number_value(json_object_get(json_array_get(json_object_get(root, "pages"),
                                                              (size_t)j), members));
  json_decref(root);
  buf_free(&out);
  return v;
}

static void ut_churn_new(const char *query)
{
  struct buf out;
  int status;
  const char *ctype = NULL;
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, true, "/churn", query, &out, &status, &ctype));
  assert_int_equal(status, 200);
  buf_free(&out);
}

static void test_churn(void **state)
{
  (void)state;
  struct tw_plan pl;
  struct buf out;
  int status;
  const char *ctype = NULL;
  char etag[64], head[512];
  world("sites=3", NULL);
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, false, "/churn/urls", "", &out, &status, &ctype));
  assert_int_equal(status, 404);  /* none yet */
  buf_reset(&out);
  assert_true(tw_churn_ctl(&W, true, "/churn", "pages=0", &out, &status, &ctype));
  assert_int_equal(status, 400);
  assert_false(tw_churn_ctl(&W, false, "/sites", "", &out, &status, &ctype));
  ut_churn_new("pages=6&static=1&gone=0");
  buf_reset(&out);
  assert_true(tw_churn_ctl(&W, false, "/churn/urls", "", &out, &status, &ctype));
  assert_non_null(strstr(out.data, "http://site0.test:8080/_b/churn/0\t0.000\t0.000\n"));
  assert_non_null(strstr(out.data, "http://site2.test:8080/_b/churn/5\t"));
  buf_free(&out);
  get("site0.test", "/_b/churn/0", &pl);
  assert_int_equal(pl.status, 200);
  assert_non_null(header(&pl, "ETag", etag, sizeof etag));
  tw_plan_free(&pl);
  snprintf(head, sizeof head, "GET /_b/churn/0 HTTP/1.1\r\nIf-None-Match: %s\r\n\r\n", etag);
  route("site0.test", head, &pl);
  assert_int_equal(pl.status, 304);
  tw_plan_free(&pl);
  get("site0.test", "/_b/churn/99", &pl);
  assert_int_equal(pl.status, 404);
  tw_plan_free(&pl);
  usleep(40000);
  assert_true(ut_churn_fresh("fresh", 0) > 0.5);
  assert_true(ut_churn_fresh("fresh", 1) == 0);
  assert_true(ut_churn_fresh("not_modified", 0) == 1);
  assert_true(ut_churn_fresh("conditional", 0) == 1);
  ut_churn_new("pages=2&static=0&gone=0&min_s=0.001&max_s=0.001");
  get("site0.test", "/_b/churn/0", &pl);
  tw_plan_free(&pl);
  usleep(40000);
  assert_true(ut_churn_fresh("fresh", 0) < 0.3);
  assert_true(ut_churn_fresh("changes", 0) > 10);
  ut_churn_new("pages=2&static=0&gone=1&gone_s=0.001");
  usleep(10000);
  get("site0.test", "/_b/churn/0", &pl);
  assert_int_equal(pl.status, 404);
  tw_plan_free(&pl);
  get("site1.test", "/_b/churn/1", &pl);
  assert_int_equal(pl.status, 410);
  tw_plan_free(&pl);
  assert_true(ut_churn_fresh("after_gone", 1) == 1);
}

/* The changing web's Last-Modified is the time of the live version (its
 * start plus changed_s, to the second): what a refresh crawler's
 * last-modification estimator reads. */
static void test_churn_last_modified(void **state)
{
  (void)state;
  struct tw_plan pl;
  char lm[64];
  world("sites=2", NULL);
  ut_churn_new("pages=2&static=0&gone=0&min_s=0.01&max_s=0.01");
  usleep(1200000);  /* about a hundred changes: the live one is past the start */
  get("site0.test", "/_b/churn/0", &pl);
  assert_non_null(header(&pl, "Last-Modified", lm, sizeof lm));
  tw_plan_free(&pl);
  struct buf out;
  int status;
  const char *ctype = NULL;
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, false, "/churn/fresh", "", &out, &status, &ctype));
  json_t *root = json_loads(out.data, 0, NULL);
  assert_non_null(root);
  double start = json_number_value(json_object_get(root, "start_ms"));
  double changed = json_number_value(json_object_get(json_array_get(json_object_get(root,
                                                     "pages"), 0), "changed_s"));
  json_decref(root);
  buf_free(&out);
  assert_true(changed > 0.5);
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  assert_non_null(strptime(lm, "%a, %d %b %Y %H:%M:%S GMT", &tm));
  /* the page may have changed between the fetch and the report: at most a
   * few hundredths of a second at this rate, never before the start */
  double want = floor((start + changed * 1000) / 1000);
  assert_true(fabs((double)timegm(&tm) - want) <= 1);
  assert_true((double)timegm(&tm) * 1000 > start - 1000);
}

/* GET /churn/changes?to_s=T as text, status into *status. */
static char *ut_churn_changes(double to_s, int *status)
{
  struct buf out;
  const char *ctype = NULL;
  char q[64];
  snprintf(q, sizeof q, "to_s=%.3f", to_s);
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, false, "/churn/changes", to_s >= 0 ? q : "", &out, status, &ctype));
  size_t len;
  return buf_steal(&out, &len);
}

/* /churn/changes replays the change times the pages went through: as
 * many as /churn/fresh counted up to the same instant, the last one its
 * changed_s; born 0 without a history. With history=1 the changes are
 * the same, the first version's last change (and its Last-Modified)
 * before the start. Too many changes: 413. */
static void test_churn_changes(void **state)
{
  (void)state;
  struct tw_plan pl;
  int status;
  world("sites=2", NULL);
  ut_churn_new("pages=3&static=0&gone=0&min_s=0.005&max_s=0.02&seed=7");
  usleep(300000);
  struct buf out;
  const char *ctype = NULL;
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, false, "/churn/fresh", "", &out, &status, &ctype));
  json_t *root = json_loads(out.data, 0, NULL);
  assert_non_null(root);
  buf_free(&out);
  double at = json_number_value(json_object_get(root, "elapsed_s"));
  char *ch = ut_churn_changes(at, &status), *line = ch;
  assert_int_equal(status, 200);
  for(int j = 0; j < 3; j++) {
    json_t *pg = json_array_get(json_object_get(root, "pages"), (size_t)j);
    char *end;
    assert_int_equal(strtol(line, &end, 10), j);
    assert_int_equal(strtoll(end, &end, 10), 0);  /* born: new at the start */
    long n = 0;
    double last = 0, prev = 0;
    while(*end == ' ') {
      last = strtod(end, &end);
      assert_true(last > prev);
      prev = last;
      n++;
    }
    assert_int_equal(*end, '\n');
    line = end + 1;
    assert_true(n > 5);
    assert_int_equal(n, (long)json_number_value(json_object_get(pg, "changes")));
    assert_float_equal(last / 1000, json_number_value(json_object_get(pg, "changed_s")), 1e-6);
  }
  json_decref(root);
  char *first = ut_churn_changes(0.2, &status);
  ut_churn_new("pages=3&static=0&gone=0&min_s=0.005&max_s=0.02&seed=7&history=1");
  usleep(250000);
  char *again = ut_churn_changes(0.2, &status), *a = first, *b = again;
  for(int j = 0; j < 3; j++) {  /* the same after the born field */
    char *ea, *eb;
    strtol(a, &ea, 10);
    strtol(b, &eb, 10);
    assert_int_equal(strtoll(ea, &ea, 10), 0);
    assert_true(strtoll(eb, &eb, 10) < 0);
    a = strchr(ea, '\n');
    b = strchr(eb, '\n');
    assert_true(a - ea == b - eb && !memcmp(ea, eb, (size_t)(a - ea)));
    a++;
    b++;
  }
  mem_free(first);
  mem_free(again);
  mem_free(ch);
  ut_churn_new("pages=2&static=1&gone=0&history=1");
  get("site0.test", "/_b/churn/0", &pl);
  char lm[64];
  assert_non_null(header(&pl, "Last-Modified", lm, sizeof lm));
  tw_plan_free(&pl);
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  assert_non_null(strptime(lm, "%a, %d %b %Y %H:%M:%S GMT", &tm));
  assert_true((double)timegm(&tm) < (double)time(NULL) - 29 * 86400.0);
  ut_churn_new("pages=3000&static=0&gone=0&min_s=0.0005&max_s=0.0005");  /* 1 ms apart at least */
  usleep(700000);
  mem_free(ut_churn_changes(-1, &status));
  assert_int_equal(status, 413);
}

/* cluster=c: each site's pages fall within a band c of the log range of
 * mean intervals; without it a site holds pages from all over the range. */
static double ut_churn_site_spread(size_t sites)
{
  struct buf out;
  int status;
  const char *ctype = NULL;
  double lo[16], hi[16], worst = 0;
  buf_init(&out, 1u << 20);
  assert_true(tw_churn_ctl(&W, false, "/churn/urls", "", &out, &status, &ctype));
  for(size_t s = 0; s < sites; s++) {
    lo[s] = 1e300;
    hi[s] = 0;
  }
  char *line = out.data;
  for(size_t j = 0; line && *line; j++) {
    double l = log(strtod(strchr(line, '\t') + 1, NULL));
    size_t s = j % sites;
    lo[s] = l < lo[s] ? l : lo[s];
    hi[s] = l > hi[s] ? l : hi[s];
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  buf_free(&out);
  for(size_t s = 0; s < sites; s++)
    worst = hi[s] - lo[s] > worst ? hi[s] - lo[s] : worst;
  return worst / log(1800.0 / 3);
}

static void test_churn_cluster(void **state)
{
  (void)state;
  struct buf out;
  int status;
  const char *ctype = NULL;
  world("sites=10", NULL);
  ut_churn_new("pages=200&static=0&gone=0&min_s=3&max_s=1800&seed=4&cluster=0.15");
  assert_true(ut_churn_site_spread(10) <= 0.15 + 1e-6);
  ut_churn_new("pages=200&static=0&gone=0&min_s=3&max_s=1800&seed=4");
  assert_true(ut_churn_site_spread(10) > 0.6);
  buf_init(&out, 4096);
  assert_true(tw_churn_ctl(&W, true, "/churn", "cluster=1.5", &out, &status, &ctype));
  assert_int_equal(status, 400);
  buf_free(&out);
}

static void test_chunked_and_head(void **state)
{
  (void)state;
  struct tw_plan pl;
  size_t len;
  world("sites=1", NULL);
  get("site0.test", "/_b/body?size=70000&chunked=1", &pl);
  assert_non_null(strstr(pl.head.data, "Transfer-Encoding: chunked"));
  char *w = wire(&pl, &len);
  /* Decode the chunks: the sizes must add up and the stream must end. */
  char *p = strstr(w, "\r\n\r\n") + 4;
  size_t total = 0;
  for(;;) {
    char *end;
    size_t n = strtoul(p, &end, 16);
    assert_memory_equal(end, "\r\n", 2);
    if(!n)
      break;
    total += n;
    p = end + 2 + n;
    assert_memory_equal(p, "\r\n", 2);
    p += 2;
  }
  assert_int_equal(total, 70000);
  assert_string_equal(p, "0\r\n\r\n");
  mem_free(w);
  tw_plan_free(&pl);
  route("site0.test", "HEAD /_b/body?size=500 HTTP/1.1\r\n\r\n", &pl);
  assert_non_null(strstr(pl.head.data, "Content-Length: 500\r\n"));
  assert_int_equal(pl.nseg, 0);
  tw_plan_free(&pl);
}

static void test_cut_and_endless(void **state)
{
  (void)state;
  struct tw_plan pl;
  size_t len;
  world("sites=1", NULL);
  get("site0.test", "/_b/body?size=100000&reset_after=5000", &pl);
  char *w = wire(&pl, &len);
  assert_int_equal(pl.body_sent, 5000);
  assert_true(pl.cut_reached);
  assert_int_equal(pl.cut, TW_CUT_RESET);
  assert_true(pl.close);
  mem_free(w);
  tw_plan_free(&pl);
  get("site0.test", "/_b/endless?chunked=0", &pl);
  assert_true(pl.close);
  assert_null(strstr(pl.head.data, "Content-Length"));
  uv_buf_t iov[TW_PLAN_IOV];
  for(int i = 0; i < 1000; i++)
    assert_true(tw_plan_fill(&pl, iov, 1u << 20) > 0);
  assert_false(tw_plan_finished(&pl));
  tw_plan_free(&pl);
}

static void test_errors(void **state)
{
  (void)state;
  struct tw_plan pl;
  world("sites=1", NULL);
  get("site0.test", "/_b/body?nope=1", &pl);
  assert_int_equal(pl.status, 400);
  tw_plan_free(&pl);
  get("site0.test", "/_b/body?size=12q", &pl);
  assert_int_equal(pl.status, 400);
  tw_plan_free(&pl);
  get("site0.test", "/_b/nokind", &pl);
  assert_int_equal(pl.status, 404);
  tw_plan_free(&pl);
  get(NULL, "/", &pl);
  assert_int_equal(pl.status, 404);
  tw_plan_free(&pl);
  get("site0.test", "/_b/status/429?retry_after=30", &pl);
  assert_int_equal(pl.status, 429);
  assert_non_null(strstr(pl.head.data, "Retry-After: 30\r\n"));
  tw_plan_free(&pl);
  get("site0.test", "/_b/malformed/no-colon", &pl);
  assert_string_equal(pl.head.data, "HTTP/1.1 200 OK\r\nX-Broken header without a colon\r\n"
                                    "Content-Length: 6\r\n\r\n");
  assert_true(pl.close);
  tw_plan_free(&pl);
  get("site0.test", "/_b/hang", &pl);
  assert_true(pl.hang);
  tw_plan_free(&pl);
}

static void test_bad_site_files(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "[{\"name\":\"a.test\",\"sizee\":1}]",
    "[{\"name\":\"a.test\",\"paths\":{\"/x\":{\"kind\":\"nope\"}}}]",
    "[{\"name\":\"a.test\",\"paths\":{\"x\":{}}}]",
    "[{\"address\":\"300.1.1.1\"}]",
    "[{\"name\":\"site0.test\"}]",  /* taken by the generated site */
    "[{}]",
    "[{\"name\":\"a.test\",\"robots\":{\"disallow\":[1]}}]",
  };
  char err[256];
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    world("sites=1", NULL);
    json_t *root = json_loads(bad[i], 0, NULL);
    assert_non_null(root);
    assert_int_not_equal(tw_load_sites(&W, root, err, sizeof err), TW_OK);
    assert_true(err[0] != '\0');
    json_decref(root);
  }
}

static void test_fetch_counts_cap(void **state)
{
  (void)state;
  struct tw_site *s = tw_site_new();
  char path[32];
  for(int i = 0; i < 5000; i++) {
    snprintf(path, sizeof path, "/p%d", i);
    tw_site_count(s, path, strlen(path));
  }
  assert_int_equal(s->counts.used, 4096);
  assert_int_equal(tw_site_count(s, "/p7", 3), 2);      /* still exact */
  assert_int_equal(tw_site_count(s, "/new", 4), 905);   /* shared overflow */
  tw_site_free(&s);
  assert_null(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pages_deterministic_and_duplicates),
    cmocka_unit_test(test_page_links),
    cmocka_unit_test(test_robots_chain),
    cmocka_unit_test(test_behaviour_precedence),
    cmocka_unit_test(test_not_modified),
    cmocka_unit_test(test_change_every),
    cmocka_unit_test(test_churn),
    cmocka_unit_test(test_churn_last_modified),
    cmocka_unit_test(test_churn_changes),
    cmocka_unit_test(test_churn_cluster),
    cmocka_unit_test(test_chunked_and_head),
    cmocka_unit_test(test_cut_and_endless),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_bad_site_files),
    cmocka_unit_test(test_fetch_counts_cap),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
