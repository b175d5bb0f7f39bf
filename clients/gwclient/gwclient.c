#include "clients/gwclient/gwclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/list.h"
#include "common/curluv.h"
#include "common/mem.h"

#define GW_REQ_MAGIC 0x6a3c51d9u
#define REQ_BODY_MAX (64u << 20)

enum req_kind { REQ_BATCH, REQ_RESULTS, REQ_ACK, REQ_SITEMAPS, REQ_FETCH };

union req_cb {
  gwclient_batch_fn    *batch;
  gwclient_results_fn  *results;
  gwclient_ack_fn      *ack;
  gwclient_sitemaps_fn *sitemaps;
  gwclient_fetch_fn    *fetch;
};

struct gw_req {
  unsigned           magic;
  struct gwclient   *g;
  struct gw_req     *prev, *next;  /* in g->reqs while under way */
  enum req_kind      kind;
  CURL              *easy;
  struct curl_slist *hdrs;
  struct buf         body, resp;
  long               retry_after_ms;
  union req_cb       cb;   /* the member of kind */
  void              *arg;
};

CLIST_HEAD(gw_reqs, struct gw_req);
CLIST_FUNCS(gr, gw_reqs, struct gw_req, prev, next)

struct gwclient {
  struct curluv *cu;
  char          *base, *auth, *agent;
  long           timeout_ms;
  size_t         max_answer;
  struct gw_reqs reqs;  /* under way */
};

crawl_err gwclient_open(uv_loop_t *loop, const struct gwclient_opts *o, struct gwclient **out)
{
  struct gwclient *g = mem_calloc(1, sizeof *g);
  *out = NULL;
  if(!g)
    return CRAWL_ERR_NOMEM;
  size_t tl = strlen(o->token ? o->token : "");
  g->base = mem_strdup(o->base_url);
  g->agent = mem_strdup(o->user_agent ? o->user_agent : "wpfs-discover");
  g->auth = mem_alloc(tl + 24);
  g->cu = curluv_new(loop);
  g->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
  g->max_answer = o->max_answer ? o->max_answer : (128u << 20);
  if(!g->base || !g->agent || !g->auth || !g->cu) {
    gwclient_close(&g);
    return CRAWL_ERR_NOMEM;
  }
  snprintf(g->auth, tl + 24, "Authorization: Bearer %s", o->token ? o->token : "");
  while(strlen(g->base) > 1 && g->base[strlen(g->base) - 1] == '/')
    g->base[strlen(g->base) - 1] = '\0';
  *out = g;
  return CRAWL_OK;
}

static void req_free(struct gw_req *r)
{
  struct gwclient *g = r->g;
  gr_remove(&g->reqs, r);
  curl_easy_cleanup(r->easy);
  curl_slist_free_all(r->hdrs);
  buf_free(&r->body);
  buf_free(&r->resp);
  r->magic = 0;
  mem_free(r);
}

void gwclient_close(struct gwclient **gp)
{
  struct gwclient *g = *gp;
  if(!g)
    return;
  *gp = NULL;
  while(g->reqs.first) {
    curluv_remove(g->cu, g->reqs.first->easy);
    req_free(g->reqs.first);
  }
  curluv_free(&g->cu);
  mem_free(g->base);
  mem_free(g->auth);
  mem_free(g->agent);
  mem_free(g);
}

/* ---- Answers ------------------------------------------------------------------ */

static void req_answer(struct gw_req *r, const struct gwclient_answer *a)
{
  const char *p = r->resp.data ? r->resp.data : "";
  size_t n = r->resp.len;
  struct gwclient_answer ans = *a;
  bool json_ok = a->err == CRAWL_OK && (a->http == 200 || (a->http == 429 && r->kind == REQ_BATCH));
  if(r->kind == REQ_BATCH) {
    struct gw_batch_answer b = { 0 };
    if(json_ok && (ans.err = gwproto_batch_answer(p, n, &b)) != CRAWL_OK)
      memset(&b, 0, sizeof b);
    r->cb.batch(r->arg, &ans, json_ok && !ans.err ? &b : NULL);
    gwproto_batch_free(&b);
  } else if(r->kind == REQ_RESULTS) {
    struct gw_results res = { 0 };
    char *ct = NULL;
    curl_easy_getinfo(r->easy, CURLINFO_CONTENT_TYPE, &ct);
    bool framed = ct && !strncasecmp(ct, GWPROTO_RESULTS_FRAMED, strlen(GWPROTO_RESULTS_FRAMED));
    if(json_ok && (ans.err = (framed ? gwproto_results_framed : gwproto_results)(p, n, &res)))
      memset(&res, 0, sizeof res);
    r->cb.results(r->arg, &ans, json_ok && !ans.err ? &res : NULL);
    gwproto_results_free(&res);
  } else if(r->kind == REQ_FETCH) {
    struct gw_result res;
    memset(&res, 0, sizeof res);
    if(json_ok)
      ans.err = gwproto_result(p, n, &res);
    r->cb.fetch(r->arg, &ans, json_ok && !ans.err ? &res : NULL);
    gwproto_result_free(&res);
  } else if(r->kind == REQ_SITEMAPS) {
    char **v = NULL;
    if(json_ok)
      ans.err = gwproto_sitemaps(p, n, &v);
    r->cb.sitemaps(r->arg, &ans, v);
    gwproto_strv_free(v);
  } else {
    r->cb.ack(r->arg, &ans);
  }
}

static void req_done(CURL *easy, CURLcode rc, void *arg)
{
  struct gw_req *r = arg;
  if(!r || r->magic != GW_REQ_MAGIC)
    abort();  /* a callback for something that is not ours */
  long http = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &http);
  struct gwclient_answer a = { rc == CURLE_OK ? CRAWL_OK : CRAWL_ERR_IO, (int)http,
                               r->retry_after_ms };
  if(rc == CURLE_WRITE_ERROR)
    a.err = CRAWL_ERR_TOO_LARGE;  /* the answer went over max_answer */
  req_answer(r, &a);
  req_free(r);
}

/* ---- Requests ------------------------------------------------------------------ */

static size_t on_body(char *p, size_t sz, size_t n, void *arg)
{
  struct gw_req *r = arg;
  return buf_add(&r->resp, p, sz * n) == CM_OK ? sz * n : 0;
}

static size_t on_header(char *p, size_t sz, size_t n, void *arg)
{
  struct gw_req *r = arg;
  static const char name[] = "retry-after:";
  if(sz * n > sizeof name - 1 && !strncasecmp(p, name, sizeof name - 1)) {
    char *end;
    long s = strtol(p + sizeof name - 1, &end, 10);
    r->retry_after_ms = s >= 0 && end != p + sizeof name - 1 ? s * 1000 : -1;
  }
  return sz * n;
}

static crawl_err req_setup(struct gw_req *r, const char *url, bool post, long timeout_ms)
{
  CURL *e = r->easy;
  r->hdrs = curl_slist_append(NULL, r->g->auth);
  if(post && r->hdrs)
    r->hdrs = curl_slist_append(r->hdrs, "Content-Type: application/json");
  if(r->kind == REQ_RESULTS && r->hdrs)  /* a gateway that does not frame answers JSON */
    r->hdrs = curl_slist_append(r->hdrs, "Accept: " GWPROTO_RESULTS_FRAMED
                                         ", application/json;q=0.5");
  if(!r->hdrs)
    return CRAWL_ERR_NOMEM;
  int bad = curl_easy_setopt(e, CURLOPT_URL, url) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_USERAGENT, r->g->agent) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, r) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
  bad |= curl_easy_setopt(e, CURLOPT_HEADERDATA, r) != CURLE_OK;
  const char *ca = getenv("WPFS_CA_FILE");  /* a gateway behind a private CA */
  if(ca && *ca)
    bad |= curl_easy_setopt(e, CURLOPT_CAINFO, ca) != CURLE_OK;
  if(post) {
    bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body.data) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body.len) != CURLE_OK;
  }
  return bad ? CRAWL_ERR_NOMEM : CRAWL_OK;
}

static struct gw_req *req_new(struct gwclient *g, enum req_kind kind, union req_cb cb, void *arg)
{
  struct gw_req *r = mem_calloc(1, sizeof *r);
  if(!r)
    return NULL;
  r->magic = GW_REQ_MAGIC;
  r->g = g;
  r->kind = kind;
  r->cb = cb;
  r->arg = arg;
  r->retry_after_ms = -1;
  buf_init(&r->body, REQ_BODY_MAX);
  buf_init(&r->resp, g->max_answer);
  r->easy = curl_easy_init();
  if(!r->easy) {
    mem_free(r);
    return NULL;
  }
  gr_push_front(&g->reqs, r);
  return r;
}

/* Start r on path; on error r is freed and no callback will run. */
static crawl_err req_start(struct gw_req *r, const char *path, bool post, long extra_ms)
{
  struct gwclient *g = r->g;
  size_t n = strlen(g->base) + strlen(path) + 1;
  char *url = mem_alloc(n);
  crawl_err e = url ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e) {
    snprintf(url, n, "%s%s", g->base, path);
    e = req_setup(r, url, post, g->timeout_ms + extra_ms);
  }
  if(!e && curluv_add(g->cu, r->easy, req_done, r) != 0)
    e = CRAWL_ERR_NOMEM;
  mem_free(url);  /* libcurl copied it */
  if(e)
    req_free(r);
  return e;
}

crawl_err gwclient_batch(struct gwclient *g, const struct gw_url *u, size_t n,
                         gwclient_batch_fn *cb, void *arg)
{
  struct gw_req *r = req_new(g, REQ_BATCH, (union req_cb){ .batch = cb }, arg);
  if(!r)
    return CRAWL_ERR_NOMEM;
  crawl_err e = gwproto_batch_body(u, n, &r->body);
  if(e) {
    req_free(r);
    return e;
  }
  return req_start(r, "/v1/batches", true, 0);
}

crawl_err gwclient_results(struct gwclient *g, unsigned max, unsigned wait_ms,
                           gwclient_results_fn *cb, void *arg)
{
  struct gw_req *r = req_new(g, REQ_RESULTS, (union req_cb){ .results = cb }, arg);
  if(!r)
    return CRAWL_ERR_NOMEM;
  char path[80];
  snprintf(path, sizeof path, "/v1/results?max=%u&wait_ms=%u", max, wait_ms);
  return req_start(r, path, false, (long)wait_ms);
}

crawl_err gwclient_ack(struct gwclient *g, const char *const *deliveries, size_t n,
                       gwclient_ack_fn *cb, void *arg)
{
  struct gw_req *r = req_new(g, REQ_ACK, (union req_cb){ .ack = cb }, arg);
  if(!r)
    return CRAWL_ERR_NOMEM;
  crawl_err e = gwproto_ack_body(deliveries, n, &r->body);
  if(e) {
    req_free(r);
    return e;
  }
  return req_start(r, "/v1/results/ack", true, 0);
}

crawl_err gwclient_sitemaps(struct gwclient *g, const char *url, gwclient_sitemaps_fn *cb,
                            void *arg)
{
  struct gw_req *r = req_new(g, REQ_SITEMAPS, (union req_cb){ .sitemaps = cb }, arg);
  if(!r)
    return CRAWL_ERR_NOMEM;
  char *esc = curl_easy_escape(r->easy, url, 0);
  size_t n = esc ? strlen(esc) + 20 : 0;
  char *path = esc ? mem_alloc(n) : NULL;
  if(!path) {
    curl_free(esc);
    req_free(r);
    return CRAWL_ERR_NOMEM;
  }
  snprintf(path, n, "/v1/robots?url=%s", esc);
  curl_free(esc);
  crawl_err e = req_start(r, path, false, 0);
  mem_free(path);
  return e;
}

crawl_err gwclient_fetch(struct gwclient *g, const char *url, unsigned wait_ms, long max_age_s,
                         gwclient_fetch_fn *cb, void *arg)
{
  struct gw_req *r = req_new(g, REQ_FETCH, (union req_cb){ .fetch = cb }, arg);
  if(!r)
    return CRAWL_ERR_NOMEM;
  crawl_err e = gwproto_fetch_body(url, wait_ms, max_age_s, &r->body);
  if(e) {
    req_free(r);
    return e;
  }
  return req_start(r, "/v1/fetch", true, (long)wait_ms);
}
