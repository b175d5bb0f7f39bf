/* POST /v1/batches: validate every URL, submit the valid ones in one state
 * call, answer per URL in input order. */
#include <stdio.h>
#include <string.h>

#include "api/jin.h"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/gw/gw.h"
#include "hlfs/fetch/fetch.h"
#include "hlfs/sched/sched.h"

#define GW_BATCH_MAGIC 0x6ba7c400u

struct batch_url {
  const char *input;    /* the URL as given (borrowed from the body) */
  char *canon;          /* mem_alloc'd, NULL when rejected here */
  char *opts;           /* its options (gw_req_opts), mem_alloc'd, or NULL */
  const char *reason;   /* rejection reason name */
  const char *url_error;
  long long prio, max_age, follow, max_attempts;
  char follow_s[8];     /* follow as the state layer takes it */
  int sub;              /* index in the state items, -1 if not submitted */
  char addr[FETCH_ADDR_MAX];  /* site = IP: the address the host resolves to */
};

struct gw_batch {
  unsigned magic;
  struct gw *g;
  struct api_req *rq;
  json_t *body;         /* owns the input strings */
  struct batch_url *items;
  size_t n;
  struct state_item *sub;
  size_t nsub;
  const char **urls;    /* site = IP, while resolving: the items' URLs */
  char (*addr)[FETCH_ADDR_MAX];  /* and their addresses (fetch_resolve) */
  const struct state_client *client;
  bool aborted;
};

static void batch_free(struct gw_batch *b)
{
  for(size_t i = 0; i < b->n; i++) {
    mem_free(b->items[i].canon);
    mem_free(b->items[i].opts);
  }
  mem_free(b->items);
  mem_free(b->sub);
  mem_free(b->urls);
  mem_free(b->addr);
  json_decref(b->body);
  b->magic = 0;
  mem_free(b);
}

/* ---- decoding ------------------------------------------------------------ */

/* Defaults of the items, from the batch's top level. */
struct batch_url_defaults {
  long long prio, max_age, follow, max_attempts;
};

static int item_decode(struct gw *g, const struct state_client *c, json_t *v, size_t i,
                       const struct batch_url_defaults *d, struct batch_url *it, struct jin_err *e)
{
  char pre[32];
  static const char *const known[] = { "url", "priority", "max_age_s", "follow_redirects",
                                       "max_attempts", "method", "headers", NULL };
  snprintf(pre, sizeof pre, "urls[%zu]", i);
  it->prio = d->prio;
  it->max_attempts = d->max_attempts;
  it->max_age = d->max_age;
  it->follow = d->follow;
  it->sub = -1;
  if(json_is_string(v)) {
    it->input = json_string_value(v);
  } else if(!json_is_object(v) || jin_only(v, pre, known, e) ||
            jin_str(v, pre, "url", true, 1 << 16, &it->input, e) ||
            jin_int(v, pre, "priority", false, 0, QENC_PRIO_MAX, &it->prio, e) ||
            jin_int(v, pre, "max_age_s", false, -1, 31536000000LL, &it->max_age, e) ||
            jin_int(v, pre, "follow_redirects", false, 0, g->cfg.max_redirects, &it->follow, e) ||
            jin_int(v, pre, "max_attempts", false, 1, QENC_ATTEMPTS_MAX + 1, &it->max_attempts,
                    e)) {
    if(!json_is_object(v) && !json_is_string(v))
      jin_set(e, "", pre, "must be a URL string or an object with \"url\"");
    return -1;
  }
  if(gw_req_opts(g, c, json_is_object(v) ? v : NULL, pre, &it->opts, e))
    return -1;
  struct url_opts o = url_opts_default();
  o.max_len = g->cfg.max_url_len;
  url_err ue = url_canon(it->input, strlen(it->input), &o, &it->canon);
  if(ue == URL_ERR_NOMEM) {
    jin_set(e, pre, "url", "out of memory");
    return -1;
  }
  if(ue != URL_OK) {
    it->reason = ue == URL_ERR_TOO_LONG ? "url_too_long"
               : ue == URL_ERR_UNSUPPORTED_SCHEME ? "unsupported_scheme" : "invalid_url";
    it->url_error = url_err_name(ue);
  }
  return 0;
}

static int batch_decode(struct gw *g, struct gw_batch *b, struct jin_err *e)
{
  static const char *const known[] = { "urls", "priority", "max_age_s", "follow_redirects",
                                       "max_attempts", NULL };
  struct batch_url_defaults d = { .prio = 0, .max_age = -1, .follow = 0, .max_attempts = 0 };
  json_t *urls = json_object_get(b->body, "urls");
  if(jin_only(b->body, "", known, e) ||
     jin_int(b->body, "", "priority", false, 0, QENC_PRIO_MAX, &d.prio, e) ||
     jin_int(b->body, "", "max_age_s", false, -1, 31536000000LL, &d.max_age, e) ||
     jin_int(b->body, "", "follow_redirects", false, 0, g->cfg.max_redirects, &d.follow, e) ||
     jin_int(b->body, "", "max_attempts", false, 1, QENC_ATTEMPTS_MAX + 1, &d.max_attempts, e))
    return -1;
  if(!json_is_array(urls) || json_array_size(urls) == 0) {
    jin_set(e, "", "urls", "must be a non-empty array");
    return -1;
  }
  b->n = json_array_size(urls);
  b->items = mem_calloc(b->n, sizeof *b->items);
  b->sub = mem_calloc(b->n, sizeof *b->sub);
  if(!b->items || !b->sub) {
    jin_set(e, "", "urls", "out of memory");
    return -1;
  }
  for(size_t i = 0; i < b->n; i++)
    if(item_decode(g, b->client, json_array_get(urls, i), i, &d, &b->items[i], e))
      return -1;
  return 0;
}

/* ---- answering -------------------------------------------------------------- */

static json_t *item_json(const struct batch_url *it, const struct state_item *s)
{
  json_t *o = json_pack("{s:s}", "url", it->input);
  if(!s) {
    json_object_set_new(o, "status", json_string("rejected"));
    json_object_set_new(o, "reason", json_string(it->reason));
    if(it->url_error)
      json_object_set_new(o, "url_error", json_string(it->url_error));
    return o;
  }
  json_object_set_new(o, "canonical_url", json_string(it->canon));
  bool ok = s->code == STATE_SUB_ACCEPTED;
  bool dup = s->code == STATE_SUB_DUP_QUEUED || s->code == STATE_SUB_DUP_INFLIGHT;
  json_object_set_new(o, "status", json_string(ok ? "accepted" : dup ? "duplicate" : "rejected"));
  if(ok || dup)
    json_object_set_new(o, "id", json_string(s->rid));
  if(!ok)
    json_object_set_new(o, "reason", json_string(state_sub_name(s->code)));
  if(s->retry_ms)
    json_object_set_new(o, "retry_after_ms", json_integer(s->retry_ms));
  return o;
}

static void batch_reply(struct gw_batch *b)
{
  json_t *items = json_array();
  size_t acc = 0, rej = 0, over = 0;
  uint32_t retry = 0;
  for(size_t i = 0; i < b->n; i++) {
    const struct batch_url *it = &b->items[i];
    const struct state_item *s = it->sub >= 0 ? &b->sub[it->sub] : NULL;
    json_array_append_new(items, item_json(it, s));
    tenant_submitted(&b->g->tenants, b->client->name, s ? s->code : STATE_SUB_BAD_URL);
    if(s && (s->code == STATE_SUB_ACCEPTED || s->code == STATE_SUB_DUP_QUEUED ||
             s->code == STATE_SUB_DUP_INFLIGHT))
      acc++;
    else
      rej++;
    if(s && (s->code == STATE_SUB_OVER_RATE || s->code == STATE_SUB_OVER_QUEUE)) {
      over++;
      retry = s->retry_ms > retry ? s->retry_ms : retry;
    }
  }
  json_t *ans = json_pack("{s:I, s:I, s:o}", "accepted", (json_int_t)acc, "rejected",
                          (json_int_t)rej, "items", items);
  unsigned status = 200;
  if(acc == 0 && over > 0) {  /* nothing taken because of a quota: say when to retry */
    char ra[24];
    snprintf(ra, sizeof ra, "%u", (retry + 999) / 1000);
    api_reply_header(b->rq, "Retry-After", ra);
    status = 429;
  }
  api_reply_json(b->rq, status, ans);
}

static void batch_submitted(void *arg, store_err err, struct state_item *items, size_t n)
{
  struct gw_batch *b = arg;
  size_t down = 0;
  for(size_t i = 0; i < n; i++)
    down += items[i].code == STATE_SUB_UNAVAILABLE;
  if(!b->aborted) {
    if(err && down == n)  /* nothing reached Redis: say so, not "rejected" */
      gw_store_down(b->rq, err);
    else
      batch_reply(b);
    sched_kick(b->g->sched);
  }
  batch_free(b);
}

static void batch_abort(void *arg)
{
  struct gw_batch *b = arg;
  b->aborted = true;  /* the state call answers later and frees */
}

static void batch_submit(struct gw_batch *b, const struct state_client *c)
{
  for(size_t i = 0; i < b->n; i++) {
    struct batch_url *it = &b->items[i];
    if(!it->canon)
      continue;
    it->sub = (int)b->nsub;
    snprintf(it->follow_s, sizeof it->follow_s, "%lld", it->follow);
    b->sub[b->nsub++] = (struct state_item){
      .url = it->canon, .prio = (unsigned)it->prio,
      .max_age_s = it->max_age < 0 ? QENC_MAXAGE_ANY : (uint64_t)it->max_age,
      .addr = it->addr[0] ? it->addr : NULL, .follow = it->follow ? it->follow_s : NULL,
      /* the request's own, else its client's (0: the gateway's) */
      .max_attempts = it->max_attempts ? (unsigned)it->max_attempts : c->max_attempts,
      .opts = it->opts,
    };
  }
  if(b->nsub == 0) {
    batch_reply(b);
    batch_free(b);
    return;
  }
  store_err e = state_submit(b->g->st, c, b->sub, b->nsub, batch_submitted, b);
  if(e) {
    gw_store_down(b->rq, e);
    batch_free(b);
    return;
  }
  api_req_on_abort(b->rq, batch_abort, b);
}

/* ---- site = IP: every host resolved (through the fetch layer) first --------- */

static void batch_resolved(void *arg)
{
  struct gw_batch *b = arg;
  for(size_t i = 0; i < b->n; i++)
    if(b->addr[i][0])  /* no address: the host is the site */
      memcpy(b->items[i].addr, b->addr[i], sizeof b->items[i].addr);
  mem_free(b->addr);
  mem_free(b->urls);
  b->addr = NULL;
  b->urls = NULL;
  if(b->aborted)
    batch_free(b);
  else
    batch_submit(b, b->client);
}

/* One resolution per distinct host name (fetch_resolve); out of memory,
 * each host is its site. */
static void batch_resolve(struct gw_batch *b)
{
  b->urls = mem_alloc((b->n ? b->n : 1) * sizeof *b->urls);
  b->addr = mem_calloc(b->n ? b->n : 1, sizeof *b->addr);
  for(size_t i = 0; b->urls && i < b->n; i++)
    b->urls[i] = b->items[i].canon;
  if(!b->urls || !b->addr ||
     fetch_resolve(b->g->fetch, b->urls, b->n, b->addr, batch_resolved, b)) {
    mem_free(b->addr);
    mem_free(b->urls);
    b->addr = NULL;
    b->urls = NULL;
    batch_submit(b, b->client);
  }
}

void gw_h_batches(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  struct jin_err e;
  const struct state_client *c = gw_auth(g, rq);
  if(!c)
    return;
  json_t *body = jin_body(rq);
  if(!body)
    return;
  struct gw_batch *b = mem_calloc(1, sizeof *b);
  if(!b) {
    json_decref(body);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  *b = (struct gw_batch){ .magic = GW_BATCH_MAGIC, .g = g, .rq = rq, .body = body };
  size_t n = json_array_size(json_object_get(body, "urls"));
  if(n > g->cfg.max_batch) {
    json_t *ext = json_pack("{s:s, s:I}", "field", "urls", "limit", (json_int_t)g->cfg.max_batch);
    api_problem(rq, 413, "batch-too-large", "Batch too large", ext,
                "%zu URLs; at most %u per batch", n, g->cfg.max_batch);
    batch_free(b);
    return;
  }
  b->client = c;
  if(batch_decode(g, b, &e)) {
    jin_reply(rq, &e);
    batch_free(b);
    return;
  }
  if(g->cfg.site_mode == SITE_BY_IP) {
    api_req_on_abort(rq, batch_abort, b);
    batch_resolve(b);
    return;
  }
  batch_submit(b, c);
}
