/* GET /v1/results (long-poll, at-least-once) and POST /v1/results/ack.
 * A read first takes over results delivered long ago and never
 * acknowledged (any replica's), then reads new ones; with wait_ms and
 * nothing to give, it waits for a wake-up from the client's channel
 * (hlfs/state/notify.h) and reads again, until one arrives or the wait ends
 * (no connection blocked per waiting client, no polling). Each result
 * carries its page, inlined from the page store. */
#include <assert.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jin.h"
#include "api/metrics.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/mem.h"
#include "hlfs/gw/gw.h"
#include "hlfs/gw/gw_tries.h"
#include "hlfs/fetch/fresh_pages.h"

#define GW_READ_MAGIC 0x6e5d7ea1u

/* ---- one result as JSON ----------------------------------------------------- */

struct gw_render {
  struct gw *g;
  json_t *res;
  gw_result_cb *cb;
  void *arg;
  bool raw_body;
};

static json_t *b64_json(const char *p, size_t n)
{
  char *out = mem_alloc(4 * ((n + 2) / 3) + 1);
  if(!out)
    return NULL;
  EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)p, (int)n);
  json_t *j = json_string(out);
  mem_free(out);
  return j;
}

/* The stored header list as text for the framed answer to splice: only a
 * copy page_get verified (the JSON text page_put stored, jansson's own
 * output), and only if it is an array. Anything else is parsed. */
static bool render_splice(const struct page *p, bool raw_body)
{
  size_t n = p->headers_json ? strlen(p->headers_json) : 0;
  return raw_body && p->verified && n >= 2 && p->headers_json[0] == '[' &&
         p->headers_json[n - 1] == ']';
}

static void render_page(json_t *res, const struct page *p, bool raw_body, const char *agent)
{
  json_error_t je;
  json_object_set_new(res, "age_s", json_integer((json_int_t)page_age_s(p, clock_wall_ms())));
  json_object_set_new(res, "fetched_at", json_integer((json_int_t)p->fetched_at));
  if(render_splice(p, raw_body)) {
    json_object_set_new(res, GW_RAW_HEADERS_KEY, json_string_nocheck(p->headers_json));
  } else {
    json_t *hdrs = p->headers_json ? json_loads(p->headers_json, 0, &je) : NULL;
    json_object_set_new(res, "headers", hdrs ? hdrs : json_array());
  }
  if(p->redirect)
    json_object_set_new(res, "redirect", json_string(p->redirect));
  gw_xrobots_render(res, p->headers_json, agent);
  json_object_set_new(res, "truncated", json_boolean(p->truncated));
  json_object_set_new(res, "body_bytes", json_integer((json_int_t)p->body_len));
  /* Raw, the bytes ride in a string jansson does not check, under a key
   * the framed answer takes out before writing the rest as JSON. */
  json_object_set_new(res, raw_body ? GW_RAW_BODY_KEY : "body_base64",
                      raw_body ? json_stringn_nocheck(p->body, p->body_len)
                               : b64_json(p->body, p->body_len));
}

static void render_got(void *arg, store_err err, const struct page *p)
{
  struct gw_render *r = arg;
  if(p)
    render_page(r->res, p, r->raw_body, r->g->cfg.agent);
  else
    json_object_set_new(r->res, "page", json_string(err ? "unavailable" : "expired"));
  if(!p && !err)
    r->g->stats.results_page_expired++;
  r->cb(r->arg, r->res);
  mem_free(r);
}

static void res_field(json_t *o, const struct state_result *r, const char *f, const char *k,
                      bool num)
{
  const char *v = state_result_field(r, f);
  if(!v)
    return;
  json_object_set_new(o, k, num ? json_integer(strtoll(v, NULL, 10)) : json_string(v));
}

/* Whether the fetch opened a connection to the site (only for a fetch
 * that contacted it), and the site's count after it (whenever it has one:
 * a request robots.txt answered counts the robots.txt fetch's). */
static void res_conns(json_t *o, const struct state_result *r)
{
  const char *nc = state_result_field(r, "nc");
  if(nc)
    json_object_set_new(o, "new_connection", json_boolean(!strcmp(nc, "1")));
  res_field(o, r, "sn", "site_connections", true);
}

/* The URLs a followed request went through, one per line in the stream. */
static void res_redirects(json_t *o, const char *rd)
{
  if(!rd)
    return;
  json_t *a = json_array();
  for(const char *p = rd; a && *p;) {
    size_t n = strcspn(p, "\n");
    const char *sep = memchr(p, QENC_OPT_SEP, n);  /* a request's options: not its URL */
    json_array_append_new(a, json_stringn(p, sep ? (size_t)(sep - p) : n));
    p += n + (p[n] == '\n');
  }
  json_object_set_new(o, "redirects", a);
}

/* The tries that made the result (docs/retries.md): the attempt log the
 * completion published, or, when there was only the one, that one, at the
 * time its entry was published. */
static void res_tries(json_t *o, const struct state_result *r)
{
  const char *al = state_result_field(r, "al");
  json_t *a = al ? gw_tries_parse(al) : json_array();
  if(a && !al) {
    const char *hs = state_result_field(r, "hs"), *ms = state_result_field(r, "ms");
    const char *oc = state_result_field(r, "o");
    json_t *t = json_pack("{s:s, s:I, s:I, s:I, s:b}", "outcome", oc ? oc : "unknown",
                          "status", (json_int_t)(hs ? strtoll(hs, NULL, 10) : 0),
                          "response_ms", (json_int_t)(ms ? strtoll(ms, NULL, 10) : 0),
                          "at", (json_int_t)strtoll(r->id, NULL, 10), "counted", 1);
    if(t)
      json_array_append_new(a, t);
  }
  json_object_set_new(o, "tries", a ? a : json_array());
}

void gw_result_render(struct gw *g, const struct state_result *r,
                      const struct state_client *reader, bool raw_body, gw_result_cb *cb,
                      void *arg)
{
  char delivery[64];
  snprintf(delivery, sizeof delivery, "%u:%s", r->shard, r->id);
  json_t *o = json_pack("{s:s}", "delivery", delivery);
  res_field(o, r, "rid", "id", false);
  const char *url = state_result_field(r, "url");
  if(url)  /* without the request's options (hlfs/fetch/reqopt.h) */
    json_object_set_new(o, "url", json_stringn(url, strcspn(url, QENC_OPT_SEPS)));
  res_field(o, r, "o", "outcome", false);
  res_field(o, r, "hs", "status", true);
  res_field(o, r, "ms", "response_ms", true);
  res_field(o, r, "a", "attempts", true);
  res_field(o, r, "err", "detail", false);
  res_field(o, r, "ca", "cause", false);
  const char *cs = state_result_field(r, "cs");
  if(cs && strcmp(cs, "0"))
    res_field(o, r, "cs", "cause_status", true);
  res_field(o, r, "rra", "robots_retry_at", true);
  res_field(o, r, "co", "coalesced_with", false);
  res_conns(o, r);
  res_redirects(o, state_result_field(r, "rd"));
  res_tries(o, r);
  const char *ref = state_result_field(r, "ref");
  const char *co = state_result_field(r, "co");
  struct page fresh;
  /* A request that met another client's fetch of its URL (coalesced)
   * points to that fetch's copy: not a private key's to another, nor
   * another's to a private key. */
  if(ref && !page_key_readable(ref, reader->name, auth_private(g->auth, reader))) {
    g->stats.results_page_withheld++;
    json_object_set_new(o, "page", json_string("withheld"));
    cb(arg, o);
    return;
  }
  if(ref && fresh_pages_get(g->fetch->fresh, ref, co ? co : state_result_field(r, "rid"), &fresh)) {
    g->stats.results_fresh++;
    render_page(o, &fresh, raw_body, g->cfg.agent);
    cb(arg, o);
    return;
  }
  struct gw_render *rd = ref ? mem_alloc(sizeof *rd) : NULL;
  if(rd) {
    *rd = (struct gw_render){ g, o, cb, arg, raw_body };
    if(page_get(g->pages, ref, render_got, rd) == STORE_OK)
      return;
    mem_free(rd);
  }
  if(ref)  /* the page cache is down, or out of memory */
    json_object_set_new(o, "page", json_string("unavailable"));
  cb(arg, o);
}

/* ---- GET /v1/results -------------------------------------------------------------- */

/* A read's steps: take over old results shard by shard (steps 0..nshards-1),
 * then read new ones from each state Redis in turn (steps nshards..), again
 * after each wake-up while the wait lasts. Renders may finish at once or later (a page to inline), so
 * the read holds a reference of its own while it starts them: whatever
 * finishes last moves the read on, exactly once. */
struct gw_read {
  unsigned magic;
  struct gw *g;
  struct api_req *rq;
  const struct state_client *c;
  unsigned max;
  uint64_t deadline_ms;   /* monotonic */
  unsigned step;
  json_t *results;
  size_t refs;            /* renders under way, plus one while starting them */
  size_t bytes;
  bool aborted, full, waiting;
  bool framed;            /* answer GW_RESULTS_FRAMED, not JSON */
  store_err err;          /* the last store error of this read */
  uint32_t down;          /* shard groups (state Redis) that failed this read */
  uv_timer_t timer;       /* the wait's end, or its safety re-read */
  struct notify_waiter nw;
};

static void read_closed(uv_handle_t *h)
{
  struct gw_read *rd = h->data;
  json_decref(rd->results);
  rd->magic = 0;
  mem_free(rd);
}

static int framed_add(const char *p, size_t n, void *arg)
{
  return buf_add(arg, p, n) ? -1 : 0;
}

/* Each result's JSON on a line, its page's bytes after it: no base64 and
 * no escaping of the bodies (openapi.yaml, GW_RESULTS_FRAMED). */
static void framed_reply(struct api_req *rq, json_t *results)
{
  struct buf b;
  buf_init(&b, SIZE_MAX / 2);  /* bounded by max_result_bytes (and one page past it) */
  size_t i;
  json_t *res;
  int bad = 0;
  json_array_foreach(results, i, res) {
    json_t *body = json_incref(json_object_get(res, GW_RAW_BODY_KEY));
    json_t *hdrs = json_incref(json_object_get(res, GW_RAW_HEADERS_KEY));
    json_object_del(res, GW_RAW_BODY_KEY);
    json_object_del(res, GW_RAW_HEADERS_KEY);
    bad |= json_dump_callback(res, framed_add, &b, JSON_COMPACT);
    if(!bad && hdrs) {  /* the object's closing brace makes way for the spliced list */
      assert(b.len > 0 && b.data[b.len - 1] == '}');
      b.len--;
      bad |= buf_adds(&b, ",\"headers\":") ||
             buf_add(&b, json_string_value(hdrs), json_string_length(hdrs)) || buf_add(&b, "}", 1);
    }
    json_decref(hdrs);
    bad |= buf_add(&b, "\n", 1);
    if(body)
      bad |= buf_add(&b, json_string_value(body), json_string_length(body)) ||
             buf_add(&b, "\n", 1);
    json_decref(body);
  }
  if(bad) {
    buf_free(&b);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  size_t len;
  char *data = buf_steal(&b, &len);
  api_reply(rq, 200, GW_RESULTS_FRAMED, data, len);
}

/* With a shard group down, a read answers what the others hold and names
 * the missing groups (their index, as hlfs_redis_shard_up's label): a
 * client that backed off on 503 would read every live shard's results
 * more slowly for the length of one group's outage. 503 only when no
 * group could be read. */
static bool read_all_down(const struct gw_read *rd)
{
  unsigned ns = state_nstores(rd->g->st);
  uint32_t all = ns >= 32 ? UINT32_MAX : (UINT32_C(1) << ns) - 1;
  return rd->err && (rd->down & all) == all;
}

/* The groups that failed this read, and those known down now: a read
 * that had enough from the first groups never asked the down one. */
static uint32_t read_down(const struct gw_read *rd)
{
  uint32_t m = rd->down;
  for(unsigned k = 0; k < rd->g->nstores; k++)
    if(!store_is_up(rd->g->store[k]))
      m |= UINT32_C(1) << k;
  return m;
}

static void read_missing(struct gw_read *rd)
{
  char list[STATE_STORES_MAX * 3 + 1];
  size_t len = 0;
  uint32_t down = read_down(rd);
  for(unsigned k = 0; k < state_nstores(rd->g->st); k++)
    if(down >> k & 1)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%u", len ? "," : "", k);
  if(len) {
    api_reply_header(rd->rq, "Wpfs-Missing-Shards", list);
    rd->g->stats.results_partial++;
  }
}

static json_t *read_body(const struct gw_read *rd)
{
  json_t *o = json_pack("{s:O}", "results", rd->results);
  uint32_t down = read_down(rd);
  if(!down || !o)
    return o;
  json_t *m = json_array();
  for(unsigned k = 0; k < state_nstores(rd->g->st); k++)
    if(down >> k & 1)
      json_array_append_new(m, json_integer(k));
  json_object_set_new(o, "missing_shards", m);
  return o;
}

static void read_end(struct gw_read *rd)
{
  notify_cancel(rd->g->notify, &rd->nw);
  if(!rd->aborted) {
    size_t n = json_array_size(rd->results);
    rd->g->stats.results_served += n;
    api_req_on_abort(rd->rq, NULL, NULL);
    if(n == 0 && read_all_down(rd)) {
      gw_store_down(rd->rq, rd->err);
    } else {
      read_missing(rd);
      if(rd->framed)
        framed_reply(rd->rq, rd->results);
      else
        api_reply_json(rd->rq, 200, read_body(rd));
    }
  }
  uv_timer_stop(&rd->timer);
  uv_close((uv_handle_t *)&rd->timer, read_closed);
}

static void read_send(struct gw_read *rd);

static void read_wake(struct notify_waiter *w)
{
  struct gw_read *rd = (struct gw_read *)(void *)((char *)w - offsetof(struct gw_read, nw));
  assert(rd->magic == GW_READ_MAGIC && rd->waiting);
  rd->waiting = false;
  uv_timer_stop(&rd->timer);
  rd->g->stats.results_wakes++;
  read_send(rd);
}

static void read_on_timer(uv_timer_t *t)
{
  struct gw_read *rd = t->data;
  notify_cancel(rd->g->notify, &rd->nw);
  rd->waiting = false;
  read_send(rd);
}

/* Nothing yet: wait for a wake-up, the safety re-read or the deadline. */
static void read_wait(struct gw_read *rd, uint64_t now)
{
  uint64_t left = rd->deadline_ms - now;
  rd->waiting = true;
  rd->nw = (struct notify_waiter){ .client = rd->c->name, .wake = read_wake };
  notify_wait(rd->g->notify, &rd->nw);
  uv_timer_start(&rd->timer, read_on_timer, left < NOTIFY_SAFETY_MS ? left : NOTIFY_SAFETY_MS, 0);
}

/* A step is over (its renders too): the next step, a wait, or the answer. */
static void read_next(struct gw_read *rd)
{
  unsigned nshards = state_cfg(rd->g->st)->nshards;
  size_t have = json_array_size(rd->results);
  if(rd->aborted || rd->full || have >= rd->max) {
    read_end(rd);
    return;
  }
  if(++rd->step < nshards + state_nstores(rd->g->st)) {  /* more to take over, or to read */
    read_send(rd);
    return;
  }
  rd->step = nshards;  /* from now on, only new ones */
  uint64_t now = clock_mono_ms();
  if(have || read_all_down(rd) || now >= rd->deadline_ms)  /* some groups down: wait on the others */
    read_end(rd);
  else
    read_wait(rd, now);
}

static void read_unref(struct gw_read *rd)
{
  if(--rd->refs == 0)
    read_next(rd);
}

static void read_rendered(void *arg, json_t *res)
{
  struct gw_read *rd = arg;
  if(res) {
    json_t *b = json_object_get(res, rd->framed ? GW_RAW_BODY_KEY : "body_base64");
    size_t add = b ? json_string_length(b) : 0;
    if(rd->bytes + add <= rd->g->cfg.max_result_bytes || json_array_size(rd->results) == 0) {
      rd->bytes += add;
      json_array_append(rd->results, res);
    } else {
      rd->full = true;  /* this one is delivered again after the visibility timeout */
    }
    json_decref(res);
  }
  read_unref(rd);
}

/* A result's first delivery: how long it waited since it was published
 * (its stream id is the Redis clock's ms then). */
static void delivery_lag(struct gw *g, const char *id)
{
  unsigned long long at = strtoull(id ? id : "0", NULL, 10);
  uint64_t now = clock_wall_ms();
  if(at)
    metrics_lat_add(&g->delivery_lag, now > at ? (now - at) * 1000 : 0);
}

/* Whether this read first takes over results left unacknowledged. That
 * look (XAUTOCLAIM) walks the client's delivered entries: in a crawl
 * about 270 us of the state Redis a read, for a result that can come due
 * only visibility_ms after its delivery. So a replica that found none
 * looks again for that client after visibility_ms / 4 (a second at most):
 * a redelivery comes up to that much later, no more. One that found some
 * looks again at the next read, for the rest (reclaim_more). */
#define RECLAIM_EVERY_MAX_MS 1000

static bool reclaim_due(struct gw *g, const char *client)
{
  struct tenant *t = tenant_get(&g->tenants, client);
  uint64_t now = clock_mono_ms(), every = g->cfg.visibility_ms / 4;
  if(!t)
    return true;
  if(now < t->reclaim_at)
    return false;
  t->reclaim_at = now + (every < RECLAIM_EVERY_MAX_MS ? every : RECLAIM_EVERY_MAX_MS);
  return true;
}

static void reclaim_more(struct gw *g, const char *client)
{
  struct tenant *t = tenant_get(&g->tenants, client);
  if(t)
    t->reclaim_at = 0;
}

/* The shard group (state Redis) the read's current step asks: shard s
 * lives on stores[s % nstores] (state.h). */
static unsigned read_store(const struct gw_read *rd)
{
  unsigned nshards = state_cfg(rd->g->st)->nshards, ns = state_nstores(rd->g->st);
  return rd->step < nshards ? rd->step % ns : rd->step - nshards;
}

static void read_got(void *arg, store_err err, const struct state_result *r, size_t n)
{
  struct gw_read *rd = arg;
  assert(rd->magic == GW_READ_MAGIC);
  if(err) {
    rd->err = err;
    rd->down |= UINT32_C(1) << read_store(rd);
  }
  if(n && rd->step < state_cfg(rd->g->st)->nshards)
    reclaim_more(rd->g, rd->c->name);
  rd->refs += n;
  for(size_t i = 0; i < n; i++) {
    if(!r[i].redelivered) {
      tenant_result(&rd->g->tenants, rd->c->name, state_result_field(&r[i], "o"));
      delivery_lag(rd->g, r[i].id);
    }
    gw_result_render(rd->g, &r[i], rd->c, rd->framed, read_rendered, rd);
  }
  read_unref(rd);  /* the reference read_send took */
}

static void read_send(struct gw_read *rd)
{
  struct gw *g = rd->g;
  unsigned want = rd->max - (unsigned)json_array_size(rd->results);
  store_err e;
  rd->refs++;
  unsigned nshards = state_cfg(g->st)->nshards;
  if(rd->step < nshards)
    e = state_results_reclaim(g->st, rd->step, rd->c->name, g->cfg.replica,
                              g->cfg.visibility_ms, want, read_got, rd);
  else
    e = state_results_read(g->st, rd->step - nshards, rd->c->name, g->cfg.replica, want, 0,
                           read_got, rd);
  if(e)
    read_got(rd, e, NULL, 0);
}

/* The client went away: a read waiting ends now; one under way ends when
 * its store call answers. */
static void read_abort(void *arg)
{
  struct gw_read *rd = arg;
  rd->aborted = true;
  if(rd->waiting) {
    rd->waiting = false;
    read_end(rd);
  }
}

/* A query integer: decimal digits only (strtoll would take "", " 5",
 * "+5" and "-0"), within lo..hi. */
static bool read_uint(const char *s, long long lo, long long hi, long long *out)
{
  size_t n = strspn(s, "0123456789");
  if(n == 0 || s[n] || n > 12)
    return false;
  long long v = strtoll(s, NULL, 10);
  if(v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

static int read_params(struct gw *g, struct api_req *rq, unsigned *max, uint32_t *wait)
{
  const char *m = api_req_arg(rq, "max"), *w = api_req_arg(rq, "wait_ms");
  long long v;
  if(m) {
    if(!read_uint(m, 1, STATE_RESULTS_MAX, &v)) {
      json_t *ext = json_pack("{s:s, s:s}", "field", "max", "reason", "1..1000");
      api_problem(rq, 400, "invalid-parameter", "Invalid parameter", ext,
                  "max must be an integer from 1 to %d", STATE_RESULTS_MAX);
      return -1;
    }
    *max = (unsigned)v;
  }
  if(w) {
    if(!read_uint(w, 0, g->cfg.max_wait_ms, &v)) {
      json_t *ext = json_pack("{s:s, s:s}", "field", "wait_ms", "reason", "out of range");
      api_problem(rq, 400, "invalid-parameter", "Invalid parameter", ext,
                  "wait_ms must be an integer from 0 to %u", g->cfg.max_wait_ms);
      return -1;
    }
    *wait = (uint32_t)v;
  }
  return 0;
}

void gw_h_results(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  unsigned max = 100;
  uint32_t wait = 0;
  const struct state_client *c = gw_auth(g, rq);
  if(!c || read_params(g, rq, &max, &wait))
    return;
  struct gw_read *rd = mem_calloc(1, sizeof *rd);
  json_t *results = json_array();
  if(!rd || !results) {
    mem_free(rd);
    json_decref(results);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  *rd = (struct gw_read){ .magic = GW_READ_MAGIC, .g = g, .rq = rq, .c = c, .max = max,
                          .deadline_ms = clock_mono_ms() + wait, .results = results,
                          .framed = gw_accepts(api_req_header(rq, "Accept"),
                                               GW_RESULTS_FRAMED) };
  if(!reclaim_due(g, c->name))
    rd->step = state_cfg(g->st)->nshards;
  uv_timer_init(g->loop, &rd->timer);
  rd->timer.data = rd;
  api_req_on_abort(rq, read_abort, rd);
  read_send(rd);
}

/* ---- POST /v1/results/ack ----------------------------------------------------------- */

struct gw_ack {
  struct api_req *rq;
  size_t calls;
  long long acked;
  store_err err;
  bool aborted;
};

static void ack_done(void *arg, store_err err, long long n)
{
  struct gw_ack *a = arg;
  if(err)
    a->err = err;
  else
    a->acked += n;
  if(--a->calls)
    return;
  if(!a->aborted) {
    if(a->err)
      gw_store_down(a->rq, a->err);
    else
      api_reply_json(a->rq, 200, json_pack("{s:I}", "acked", (json_int_t)a->acked));
  }
  mem_free(a);
}

static void ack_abort(void *arg) { ((struct gw_ack *)arg)->aborted = true; }

/* Split "shard:id" strings by shard and send one XACK per shard. */
static int ack_send(struct gw *g, const struct state_client *c, json_t *ids, struct gw_ack *a)
{
  unsigned nshards = state_cfg(g->st)->nshards;
  size_t n = json_array_size(ids);
  const char **list = mem_calloc(n ? n : 1, sizeof *list);
  if(!list)
    return -1;
  a->calls = 1;  /* held until every shard's call is sent */
  for(unsigned s = 0; s < nshards; s++) {
    size_t k = 0;
    for(size_t i = 0; i < n; i++) {
      const char *d = json_string_value(json_array_get(ids, i));
      char *colon;
      if(strtoul(d, &colon, 10) == s && *colon == ':')
        list[k++] = colon + 1;
    }
    if(!k)
      continue;
    store_err e = state_results_ack(g->st, s, c->name, list, k, ack_done, a);
    if(e == STORE_OK)
      a->calls++;
    else
      a->err = e;  /* answered as 503 once the other shards are done */
  }
  mem_free(list);
  ack_done(a, STORE_OK, 0);
  return 0;
}

static int ack_validate(json_t *ids, struct jin_err *e)
{
  size_t i;
  json_t *v;
  if(!json_is_array(ids) || json_array_size(ids) > STATE_RESULTS_MAX) {
    jin_set(e, "", "deliveries", "must be an array of at most %d delivery ids",
            STATE_RESULTS_MAX);
    return -1;
  }
  json_array_foreach(ids, i, v) {
    const char *d = json_string_value(v);
    char *colon;
    if(!d || json_string_length(v) > 64 || (strtoul(d, &colon, 10), *colon != ':') ||
       strspn(colon + 1, "0123456789-") != strlen(colon + 1) || !colon[1]) {
      char f[32];
      snprintf(f, sizeof f, "[%zu]", i);
      jin_set(e, "deliveries", f, "is not a delivery id from GET /v1/results");
      return -1;
    }
  }
  return 0;
}

void gw_h_ack(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  static const char *const known[] = { "deliveries", NULL };
  struct jin_err e;
  const struct state_client *c = gw_auth(g, rq);
  if(!c)
    return;
  json_t *body = jin_body(rq);
  if(!body)
    return;
  json_t *ids = json_object_get(body, "deliveries");
  if(jin_only(body, "", known, &e) || ack_validate(ids, &e)) {
    jin_reply(rq, &e);
    json_decref(body);
    return;
  }
  struct gw_ack *a = mem_calloc(1, sizeof *a);
  if(!a) {
    gw_store_down(rq, STORE_NOMEM);
    json_decref(body);
    return;
  }
  a->rq = rq;
  api_req_on_abort(rq, ack_abort, a);  /* answering clears it */
  if(ack_send(g, c, ids, a)) {
    api_req_on_abort(rq, NULL, NULL);
    mem_free(a);
    gw_store_down(rq, STORE_NOMEM);
  }
  json_decref(body);
}
