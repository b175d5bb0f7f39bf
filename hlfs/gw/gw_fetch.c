/* POST /v1/fetch: one URL, answered when fetched (or from the cache), within
 * a deadline. The request is queued like any other, under the replica's own
 * client "sync.<replica>" (so politeness and robots apply unchanged and any
 * replica may fetch it) but paid for by the caller: its rate quota spends
 * a token, and a full queue of the caller refuses it (429, as a batch
 * would be; state_submit_as). Its result lands in the replica's stream,
 * which only this replica reads, and goes to the waiting HTTP request by
 * id. If the deadline passes first the answer is 504 with the request id.
 *
 * Cache hits take a shorter way: when robots.txt, as this replica last saw
 * it for the URL's origin, allows the URL (sched_robots_allows_now), the page
 * cache is read first (hlfs/gw/gw_page.c), and a copy young enough is the
 * answer at once: one page-cache command, nothing queued (docs/api.md).
 * Anything else (no such copy, too old, a robots record not in memory, the
 * cache unreachable) queues the URL as above. */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "api/jin.h"
#include "common/clock.h"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/gw/gw.h"
#include "hlfs/fetch/reqopt.h"
#include "hlfs/sched/sched.h"
#include "hlfs/sched/sched_robots.h"

#define GW_SYNC_READ_MAX 100
#define GW_WAITER_MAGIC 0x5a17e400u

struct gw_waiter {
  unsigned magic;
  struct gw *g;
  struct api_req *rq;      /* NULL once answered or gone */
  const struct state_client *client;  /* the caller (auth table: lives as long as the gateway) */
  struct state_item item;
  char *canon;
  char *opts;              /* the request's options (gw_req_opts), or NULL */
  char follow[8];          /* follow_redirects as the state layer takes it */
  uint64_t deadline_ms;
  uint64_t max_age_s;      /* exactly as asked (the queue keeps it rounded down) */
  char key[PAGE_KEY_MAX];  /* the page cache's key of canon */
  bool raw;                /* answer with the page itself (hlfs/gw/gw_raw.c) */
  bool submitted;
  struct gw_waiter *next;
};

static void waiter_unlink_free(struct gw *g, struct gw_waiter *w)
{
  for(struct gw_waiter **p = &g->waiters; *p; p = &(*p)->next)
    if(*p == w) {
      *p = w->next;
      break;
    }
  mem_free(w->canon);
  mem_free(w->opts);
  w->magic = 0;
  mem_free(w);
}

static struct gw_waiter *waiter_find(struct gw *g, const char *rid)
{
  for(struct gw_waiter *w = g->waiters; w; w = w->next)
    if(w->submitted && !strcmp(w->item.rid, rid))
      return w;
  return NULL;
}

/* ---- the reader of this replica's synchronous results ---------------------- */

struct sync_reply {
  struct gw *g;
  struct gw_waiter *w;
};

static void sync_rendered(void *arg, json_t *res)
{
  struct sync_reply *sr = arg;
  struct gw_waiter *w = sr->w;
  if(w->rq) {
    tenant_result(&sr->g->tenants, w->client->name, json_string_value(json_object_get(res, "outcome")));
    json_object_del(res, "delivery");
    api_req_on_abort(w->rq, NULL, NULL);
    if(w->raw) {
      gw_raw_result(w->rq, res, clock_wall_ms());
      json_decref(res);
    } else {
      api_reply_json(w->rq, 200, res);
    }
    w->rq = NULL;
  } else {
    json_decref(res);
  }
  waiter_unlink_free(sr->g, w);
  mem_free(sr);
}

static void sync_ack_done(void *arg, store_err err, long long n)
{
  (void)arg;
  (void)err;
  (void)n;
}

static void sync_deliver(struct gw *g, const struct state_result *r)
{
  const char *rid = state_result_field(r, "rid");
  const char *id = r->id;
  struct gw_waiter *w;
  state_results_ack(g->st, r->shard, g->sync_name, &id, 1, sync_ack_done, NULL);
  /* Every waiter of that request (same URL asked twice): each gets it. */
  while(rid && (w = waiter_find(g, rid)) != NULL) {
    struct sync_reply *sr = mem_alloc(sizeof *sr);
    w->submitted = false;  /* no second delivery */
    if(!sr)
      continue;  /* stays until its deadline */
    *sr = (struct sync_reply){ g, w };
    gw_result_render(g, r, w->client, false, sync_rendered, sr);
  }
}

static void sync_expire(struct gw *g)
{
  uint64_t now = clock_mono_ms();
  struct gw_waiter *w = g->waiters, *next;
  for(; w; w = next) {
    next = w->next;
    if(!w->submitted || now < w->deadline_ms)
      continue;
    g->stats.sync_timeouts++;
    if(w->rq) {
      json_t *ext = json_pack("{s:s}", "id", w->item.rid);
      api_req_on_abort(w->rq, NULL, NULL);
      api_problem(w->rq, 504, "deadline-exceeded", "Not fetched in time", ext,
                  "the page is still queued (politeness or load); its result will be "
                  "cached for the next request");
    }
    waiter_unlink_free(g, w);
  }
}

static void sync_read(struct gw *g);
static void sync_on_timer(uv_timer_t *t) { sync_read(t->data); }

/* Read again when the channel says so, at the next deadline, or after the
 * safety interval, whichever comes first; nothing while nobody waits. */
static void sync_arm(struct gw *g)
{
  if(!g->waiters || g->sync_reading || g->stopping)
    return;
  uint64_t now = clock_mono_ms(), next = now + NOTIFY_SAFETY_MS;
  for(struct gw_waiter *w = g->waiters; w; w = w->next)
    if(w->submitted && w->deadline_ms < next)
      next = w->deadline_ms;
  if(!g->sync_nw.linked)
    notify_wait(g->notify, &g->sync_nw);
  uv_timer_start(&g->sync_timer, sync_on_timer, next - now, 0);
}

static void sync_got(void *arg, store_err err, const struct state_result *r, size_t n)
{
  struct gw *g = arg;
  g->sync_reading = false;
  (void)err;
  for(size_t i = 0; i < n; i++)
    sync_deliver(g, &r[i]);
  sync_expire(g);
  if(n < GW_SYNC_READ_MAX && ++g->sync_part >= state_nstores(g->st)) {
    g->sync_part = 0;  /* every state Redis read */
    sync_arm(g);
    return;
  }
  sync_read(g);  /* more may be there, or the next state Redis */
}

static void sync_read(struct gw *g)
{
  notify_cancel(g->notify, &g->sync_nw);
  uv_timer_stop(&g->sync_timer);
  if(g->sync_reading)
    return;
  g->sync_reading = true;
  for(; g->sync_part < state_nstores(g->st); g->sync_part++)  /* one down: the others */
    if(state_results_read(g->st, g->sync_part, g->sync_name, g->cfg.replica, GW_SYNC_READ_MAX,
                          0, sync_got, g) == STORE_OK)
      return;
  g->sync_part = 0;
  g->sync_reading = false;
  sync_expire(g);
  sync_arm(g);
}

static void sync_wake(struct notify_waiter *nw)
{
  struct gw *g = (struct gw *)(void *)((char *)nw - offsetof(struct gw, sync_nw));
  assert(g->magic == GW_MAGIC);
  g->stats.results_wakes++;
  sync_read(g);
}

void gw_sync_start(struct gw *g)
{
  uv_timer_init(g->loop, &g->sync_timer);
  g->sync_timer.data = g;
  g->sync_nw = (struct notify_waiter){ .client = g->sync_name, .wake = sync_wake };
}

void gw_sync_stop(struct gw *g)
{
  notify_cancel(g->notify, &g->sync_nw);
  uv_timer_stop(&g->sync_timer);
  uv_close((uv_handle_t *)&g->sync_timer, NULL);
}

/* ---- the route ------------------------------------------------------------------ */

static void waiter_gone(void *arg)
{
  struct gw_waiter *w = arg;
  w->rq = NULL;  /* freed on delivery or expiry */
}

static void waiter_refused(struct gw_waiter *w, store_err err, const struct state_item *it)
{
  char ra[24];
  api_req_on_abort(w->rq, NULL, NULL);
  switch(it->code) {
  case STATE_SUB_UNAVAILABLE:
    gw_store_down(w->rq, err);
    return;
  case STATE_SUB_BAD_URL:
    gw_url_problem(w->rq, "url", URL_ERR_NO_HOST);
    return;
  default:  /* over a quota */
    snprintf(ra, sizeof ra, "%u", (it->retry_ms + 999) / 1000);
    api_reply_header(w->rq, "Retry-After", ra);
    api_problem(w->rq, 429, "over-quota", "Over quota", NULL, "%s", state_sub_name(it->code));
  }
}

static void waiter_submitted(void *arg, store_err err, struct state_item *items, size_t n)
{
  struct gw_waiter *w = arg;
  struct gw *g = w->g;
  (void)n;
  tenant_submitted(&g->tenants, w->client->name, items[0].code);
  if(items[0].code != STATE_SUB_ACCEPTED && items[0].code != STATE_SUB_DUP_QUEUED &&
     items[0].code != STATE_SUB_DUP_INFLIGHT) {
    if(w->rq)
      waiter_refused(w, err, &items[0]);
    waiter_unlink_free(g, w);
    return;
  }
  w->submitted = true;
  if(w->rq)  /* links the caller's request id to the fetcher's lines */
    api_req_set_work(w->rq, items[0].rid);
  sched_kick(g->sched);
  sync_arm(g);
}

static int fetch_decode(struct gw *g, json_t *body, struct gw_waiter *w, struct api_req *rq)
{
  static const char *const known[] = { "url", "priority", "max_age_s", "wait_ms",
                                       "follow_redirects", "max_attempts", "method",
                                       "headers", NULL };
  struct jin_err e;
  const char *url = NULL;
  long long prio = QENC_PRIO_MAX, age = -1, follow = 0, attempts = 0;
  long long wait = g->cfg.max_wait_ms < 30000 ? g->cfg.max_wait_ms : 30000;
  if(jin_only(body, "", known, &e) || jin_str(body, "", "url", true, 1 << 16, &url, &e) ||
     jin_int(body, "", "priority", false, 0, QENC_PRIO_MAX, &prio, &e) ||
     jin_int(body, "", "max_age_s", false, -1, 31536000000LL, &age, &e) ||
     jin_int(body, "", "wait_ms", false, 1, g->cfg.max_wait_ms, &wait, &e) ||
     jin_int(body, "", "follow_redirects", false, 0, g->cfg.max_redirects, &follow, &e) ||
     jin_int(body, "", "max_attempts", false, 1, QENC_ATTEMPTS_MAX + 1, &attempts, &e) ||
     gw_req_opts(g, w->client, body, "", &w->opts, &e)) {
    jin_reply(rq, &e);
    return -1;
  }
  if(!(w->canon = gw_canon(g, rq, "url", url)))
    return -1;
  w->max_age_s = age < 0 ? QENC_MAXAGE_ANY : (uint64_t)age;
  snprintf(w->follow, sizeof w->follow, "%lld", follow);
  /* the request's own, else its client's (0: the gateway's) */
  w->item = (struct state_item){ .url = w->canon, .prio = (unsigned)prio,
                                 .max_age_s = w->max_age_s, .follow = follow ? w->follow : NULL,
                                 .max_attempts = attempts ? (unsigned)attempts
                                                          : w->client->max_attempts,
                                 .opts = w->opts };
  w->deadline_ms = clock_mono_ms() + (uint64_t)wait;
  return 0;
}

/* Queue w's URL and wait for its result. */
static void fetch_queue(struct gw *g, struct gw_waiter *w)
{
  w->next = g->waiters;
  g->waiters = w;
  store_err e = state_submit_as(g->st, &g->sync_client, w->client, &w->item, 1,
                                waiter_submitted, w);
  if(e) {
    api_req_on_abort(w->rq, NULL, NULL);
    gw_store_down(w->rq, e);
    waiter_unlink_free(g, w);
    return;
  }
  api_req_on_abort(w->rq, waiter_gone, w);
}

/* The page cache answered the fast path: the copy, or the queue. */
static void fetch_cache_got(void *arg, store_err err, const struct page *p, const char *tail,
                            size_t tail_len)
{
  struct gw_waiter *w = arg;
  struct gw *g = w->g;
  uint64_t now = clock_wall_ms();
  if(!w->rq) {  /* the client went away */
    waiter_unlink_free(g, w);
    return;
  }
  /* a 3xx to follow goes through the queue: each hop is a request at its
   * own site (the scheduler serves stored hops from the cache too) */
  bool follow = w->item.follow && p && p->redirect && p->status >= 300 && p->status < 400;
  if(err || !p || follow || !page_is_fresh(p, w->max_age_s, now)) {
    fetch_queue(g, w);
    return;
  }
  g->fetch->stats.cache_hits++;  /* the fetch layer counts cache answers (FETCH_COUNTERS) */
  g->stats.sync_cache_hits++;
  tenant_result(&g->tenants, w->client->name, "cached");
  api_req_on_abort(w->rq, NULL, NULL);
  gw_page_reply(w->rq, p, tail, tail_len, api_req_id(w->rq), now);
  waiter_unlink_free(g, w);
}

/* The same for an answer with the page itself: the whole page is read
 * (the kept renderings are JSON). */
static void fetch_raw_got(void *arg, store_err err, const struct page *p)
{
  struct gw_waiter *w = arg;
  struct gw *g = w->g;
  uint64_t now = clock_wall_ms();
  if(!w->rq) {
    waiter_unlink_free(g, w);
    return;
  }
  bool follow = w->item.follow && p && p->redirect && p->status >= 300 && p->status < 400;
  if(err || !p || follow || !page_is_fresh(p, w->max_age_s, now)) {
    fetch_queue(g, w);
    return;
  }
  g->fetch->stats.cache_hits++;  /* the fetch layer counts cache answers (FETCH_COUNTERS) */
  g->stats.sync_cache_hits++;
  tenant_result(&g->tenants, w->client->name, "cached");
  api_req_on_abort(w->rq, NULL, NULL);
  gw_raw_page(w->rq, p, api_req_id(w->rq), "cached", now);
  waiter_unlink_free(g, w);
}

/* Try the page cache first when robots.txt is known to allow the URL. */
static void fetch_start(struct gw *g, struct gw_waiter *w)
{
  struct fetch_ident id;
  fetch_ident_of(g->fetch, w->client->name, w->opts, &id);
  struct robots_agent agent = { id.tok, id.tok_len };
  if(sched_robots_allows_now(sched_robots_of(g->sched), &agent, w->canon)) {
    page_key_variant(w->canon, reqopt_variant(w->opts), NULL, w->key, sizeof w->key);
    store_err e = w->raw ? page_get(g->pages, w->key, fetch_raw_got, w)
                         : gw_page_read(g, w->key, fetch_cache_got, w);
    if(e == STORE_OK) {
      api_req_on_abort(w->rq, waiter_gone, w);
      return;
    }
  }
  fetch_queue(g, w);
}

void gw_h_fetch(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  const struct state_client *c = gw_auth(g, rq);
  if(!c)
    return;
  /* A synchronous fetch is queued for this replica's pseudo-client: the
   * replica that claims it knows no key, and would store the page shared. */
  if(auth_private(g->auth, c)) {
    gw_forbidden(g, rq, c, "a private key fetches in batches (POST /v1/batches): a "
                           "synchronous fetch's page would be stored shared");
    return;
  }
  json_t *body = jin_body(rq);
  if(!body)
    return;
  struct gw_waiter *w = mem_calloc(1, sizeof *w);
  if(!w) {
    json_decref(body);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  *w = (struct gw_waiter){ .magic = GW_WAITER_MAGIC, .g = g, .rq = rq, .client = c };
  int rc = gw_wants_raw(rq, &w->raw) ? -1 : fetch_decode(g, body, w, rq);
  json_decref(body);
  if(rc) {
    mem_free(w->canon);
    mem_free(w->opts);
    mem_free(w);
    return;
  }
  g->stats.sync_fetches++;
  fetch_start(g, w);
}
