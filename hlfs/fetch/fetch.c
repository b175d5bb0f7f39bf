/* The fetch path the scheduler calls through (fetch.h): a page's stored
 * copy first, then the fetcher service, the answer into the page cache
 * (or held while it is down) and back to the scheduler. */
#include "hlfs/fetch/fetch.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/fetch/fresh_pages.h"
#include "hlfs/fetch/llfs_client.h"
#include "hlfs/fetch/reqopt.h"
#include "hlfs/state/pages.h"
#include "hlfs/state/state.h"
#include "llfs/outcome.h"

#define FETCH_JOB_MAGIC 0x6f37c4a1u

struct fetch_job {
  unsigned magic;
  struct fetch *fx;
  struct sched_job *job;
  struct llfs_client_job *lj;
  struct sched_outcome out;
  char key[PAGE_KEY_MAX];
  char *strs;  /* copies of the answer's strings, kept until done */
  const char *url;  /* in strs */
  bool storing;
  bool cancelled;
  bool revalidating;  /* conditional headers sent: a 304 refreshes the copy */
  bool touching;      /* the store call is page_touch (a 304), not page_put */
  struct fetch_hold *hold;  /* the page held while the page cache is down */
  char addr[64];      /* the address the fetch dials, when gated (--addr-max-conns) */
  char tok[80];       /* the slot's holder: the request id (the job may be gone first) */
  bool addr_held;     /* a slot of addr is ours: given back when the fetch ends */
};

/* A page the page cache could not take (it is down, or failing over):
 * fetched from the site, so fetching it again would charge the site for
 * our store's outage. It is kept, one copy in one block, and offered
 * again with backoff until the page cache takes it, the job is cancelled
 * (its lease lost, the replica stopping), or page_hold_ms passes; only
 * then does the request go back to its queue (page_store_error, retried
 * as a lost fetch: docs/retries.md). All held pages of a replica share
 * page_hold_bytes. */
struct fetch_hold {
  struct fetch_job *f;
  uv_timer_t  timer;
  struct page page;      /* its strings in block */
  char       *block;
  size_t      bytes;
  uint64_t    until_ms;  /* monotonic */
  uint32_t    wait_ms;   /* next backoff */
};

#define HOLD_FIRST_MS 100
#define HOLD_MAX_MS   2000

static void hold_closed(uv_handle_t *h)
{
  struct fetch_hold *hd = h->data;
  mem_free(hd->block);
  mem_free(hd);
}

static void hold_end(struct fetch_job *f)
{
  struct fetch_hold *hd = f->hold;
  if(!hd)
    return;
  f->hold = NULL;
  f->fx->held_bytes -= hd->bytes;
  uv_timer_stop(&hd->timer);
  uv_close((uv_handle_t *)&hd->timer, hold_closed);
}

static void job_free(struct fetch_job *f)
{
  if(f->addr_held)
    state_addr_give(f->fx->st, f->addr, f->tok);
  hold_end(f);
  mem_free(f->strs);
  f->magic = 0;
  mem_free(f);
}

/* Whether a request may have reached the site (a politeness debt), from
 * the fetcher's own table (llfs/outcome.h): one list, in one place. An
 * answer lost on the way back from the fetcher may have: it counts as
 * contact (refused fetches never get here: fetch_answer), as does an
 * outcome this gateway does not know. */
static const struct {
  const char *name;
  bool        contact;
} outcome_contact[] = {
#define X(e, name, err, contact, txt) { #name, contact },
  OUTCOMES(X)
#undef X
};

static bool fetch_contacted(const struct llfs_answer *a)
{
  if(!a->reached)
    return true;
  for(size_t i = 0; i < sizeof outcome_contact / sizeof outcome_contact[0]; i++)
    if(!strcmp(a->outcome, outcome_contact[i].name))
      return outcome_contact[i].contact;
  return true;
}

static void fetch_fill(struct fetch_job *f, const struct llfs_answer *a)
{
  struct sched_outcome *o = &f->out;
  bool ok = a->reached && (!strcmp(a->outcome, "ok") || !strcmp(a->outcome, "too_large"));
  o->contacted = fetch_contacted(a);
  o->fetcher_lost = !a->reached;
  o->new_connection = a->reached && o->contacted && !a->reused;
  f->fx->stats.connections_opened += o->new_connection;
  o->transport_err = !ok;
  o->http_status = ok ? (int)a->status : 0;
  o->response_ms = (uint32_t)(a->total_us / 1000);
  o->retry_after = llfs_answer_header(a, "Retry-After");
  o->date = llfs_answer_header(a, "Date");
  o->outcome = a->outcome;
  o->error = a->detail;
  o->bytes = a->downloaded;
  o->ended_us = clock_mono_us();  /* before the page is stored: see sj_credit */
}

/* sched_job_done copies strings; ours only need to live until then. */
static void fetch_finish(struct fetch_job *f)
{
  if(!f->cancelled)
    sched_job_done(f->job, &f->out);
  job_free(f);
}

static bool hold_page(struct fetch_job *f, const struct page *p);
static void fetch_refused(struct fetch_job *f);
static bool hold_again(struct fetch_job *f);

/* A put that failed after it was sent (the page cache went down with it
 * in flight): the answer's bytes are gone, but this replica kept a copy
 * for the result (fresh_pages.h), unless it had no room. */
static bool hold_fresh(struct fetch_job *f)
{
  struct page p;
  if(f->hold)
    return true;
  if(f->touching)  /* a 304's touch needs no copy */
    return hold_page(f, NULL);
  return fresh_pages_get(f->fx->fresh, f->key, sched_job_info(f->job)->rid, &p) &&
         hold_page(f, &p);
}

static void fetch_stored(void *arg, store_err err)
{
  struct fetch_job *f = arg;
  if(err && !f->cancelled && hold_fresh(f) && hold_again(f))
    return;
  if(err) {
    f->fx->stats.page_store_errors++;
    f->out.ref = NULL;
    f->out.outcome = "page_store_error";
    f->out.error = store_err_text(err);
  } else {
    f->fx->stats.pages_stored++;
    if(f->hold) {
      f->fx->stats.pages_held_stored++;
      if(!f->touching)  /* the result of this fetch takes it from here (fresh_pages.h) */
        fresh_pages_put(f->fx->fresh, f->key, sched_job_info(f->job)->rid, &f->hold->page);
    }
  }
  fetch_finish(f);
}

/* The store call of f, again (the held page, or the touch of a 304). */
static store_err fetch_store_call(struct fetch_job *f, const struct page *p)
{
  if(f->touching)
    return page_touch(f->fx->pages, f->key, clock_wall_ms(), f->fx->cfg.page_ttl_s, fetch_stored,
                      f);
  return page_put(f->fx->pages, f->key, p, f->fx->cfg.page_ttl_s, fetch_stored, f);
}

static void hold_on_timer(uv_timer_t *t)
{
  struct fetch_hold *hd = t->data;
  struct fetch_job *f = hd->f;
  if(f->cancelled) {  /* the job is gone: nothing waits for the page */
    job_free(f);
    return;
  }
  store_err e = fetch_store_call(f, &hd->page);
  if(e)
    fetch_stored(f, e);
}

/* Offer the page again later, if it may still be held. */
static bool hold_again(struct fetch_job *f)
{
  struct fetch_hold *hd = f->hold;
  if(!hd || clock_mono_ms() >= hd->until_ms)
    return false;
  uv_timer_start(&hd->timer, hold_on_timer, hd->wait_ms, 0);
  hd->wait_ms = hd->wait_ms * 2 > HOLD_MAX_MS ? HOLD_MAX_MS : hd->wait_ms * 2;
  return true;
}

static char *hold_str(char **at, const char *s)
{
  if(!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *d = memcpy(*at, s, n);
  *at += n;
  return d;
}

/* Copy p (or nothing, for a touch) to be offered again: false when it
 * cannot be held (no room within page_hold_bytes, no memory, holding off). */
static bool hold_page(struct fetch_job *f, const struct page *p)
{
  struct fetch *fx = f->fx;
  const char *strs[] = { p ? p->url : NULL, p ? p->outcome : NULL,
                         p ? p->headers_json : NULL, p ? p->redirect : NULL };
  size_t bytes = sizeof(struct fetch_hold) + (p ? p->body_len : 0);
  for(size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
    bytes += strs[i] ? strlen(strs[i]) + 1 : 0;
  if(!fx->cfg.page_hold_bytes || !fx->cfg.page_hold_ms || f->hold ||
     fx->held_bytes + bytes > fx->cfg.page_hold_bytes)
    return false;
  struct fetch_hold *hd = mem_calloc(1, sizeof *hd);
  char *at = hd ? hd->block = mem_alloc(bytes - sizeof *hd + 1) : NULL;
  if(!at) {
    mem_free(hd);
    return false;
  }
  if(p) {
    hd->page = *p;
    hd->page.url = hold_str(&at, p->url);
    hd->page.outcome = hold_str(&at, p->outcome);
    hd->page.headers_json = hold_str(&at, p->headers_json);
    hd->page.redirect = hold_str(&at, p->redirect);
    hd->page.body = p->body_len ? memcpy(at, p->body, p->body_len) : at;
  }
  hd->f = f;
  hd->bytes = bytes;
  hd->until_ms = clock_mono_ms() + fx->cfg.page_hold_ms;
  hd->wait_ms = HOLD_FIRST_MS;
  uv_timer_init(fx->loop, &hd->timer);
  hd->timer.data = hd;
  fx->held_bytes += bytes;
  fx->stats.pages_held++;
  f->hold = hd;
  return true;
}

/* Whose copy a fetch for client reads and writes: the client's own when its
 * key is private (hlfs/state/pages.h), else the shared one (NULL). The
 * synchronous pseudo-clients are no key: theirs is shared (a private key
 * fetches in batches: hlfs/gw/gw_fetch.c). */
static const char *fetch_owner(const struct fetch *fx, const char *client)
{
  if(!auth_any_private(fx->auth))
    return NULL;
  const struct state_client *c = auth_find(fx->auth, client);
  return c && auth_private(fx->auth, c) ? c->name : NULL;
}

static void fetch_page(struct fetch_job *f, const struct llfs_answer *a, const char *url)
{
  char *hdrs = json_dumps(json_object_get(a->meta, "headers"), JSON_COMPACT);
  struct page p = {
    .url = url, .outcome = a->outcome, .status = a->status, .fetched_at = clock_wall_ms(),
    .headers_json = hdrs, .redirect = a->redirect, .truncated = a->truncated,
    .body = a->body, .body_len = a->body_len,
  };
  f->out.ref = f->key;  /* ops_start named it */
  f->storing = true;
  store_err e = page_put(f->fx->pages, f->key, &p, f->fx->cfg.page_ttl_s, fetch_stored, f);
  if(!e)  /* the result of this fetch takes it from here (fresh_pages.h) */
    fresh_pages_put(f->fx->fresh, f->key, sched_job_info(f->job)->rid, &p);
  if(e && !f->cancelled && hold_page(f, &p))  /* while the answer's bytes are still here */
    hold_again(f);
  else if(e)
    fetch_stored(f, e);
  free(hdrs);
}

/* A page's redirect target as a canonical URL, the form a followed hop is
 * queued in; NULL when there is none or it cannot be one (another scheme,
 * too long). mem_alloc'd. */
static char *fetch_target(const struct fetch *fx, const char *redirect)
{
  struct url_opts o = url_opts_default();
  char *canon = NULL;
  o.max_len = fx->cfg.max_url_len;
  if(!redirect || url_canon(redirect, strlen(redirect), &o, &canon) != URL_OK)
    return NULL;
  return canon;
}

/* Copy the strings the outcome points to: the answer dies with its callback
 * and the page store answers later. */
static int fetch_keep(struct fetch_job *f, const char *url)
{
  const char **slot[] = { &f->out.outcome, &f->out.error, &f->out.retry_after, &f->out.date,
                          &f->out.location };
  enum { NSLOT = sizeof slot / sizeof slot[0] };
  size_t total = strlen(url) + 1;
  for(size_t i = 0; i < NSLOT; i++)
    total += *slot[i] ? strlen(*slot[i]) + 1 : 0;
  char *p = f->strs = mem_alloc(total);
  if(!p)
    return -1;
  for(size_t i = 0; i < NSLOT; i++) {
    if(!*slot[i])
      continue;
    size_t n = strlen(*slot[i]) + 1;
    *slot[i] = memcpy(p, *slot[i], n);
    p += n;
  }
  f->url = memcpy(p, url, strlen(url) + 1);
  return 0;
}

/* No fetcher would take it: the claim goes back, nothing is said of the
 * site (no result, no robots record, no politeness debt). */
static void fetch_refused(struct fetch_job *f)
{
  if(!f->cancelled)
    sched_job_refused(f->job);
  job_free(f);
}

static void fetch_answer(void *arg, const struct llfs_answer *a)
{
  struct fetch_job *f = arg;
  struct sched_job_info *in = sched_job_info(f->job);
  f->lj = NULL;
  if(a->refused) {
    fetch_refused(f);
    return;
  }
  fetch_fill(f, a);
  if(!a->reached)
    f->fx->stats.fetcher_errors++;
  if(in->kind == SCHED_ROBOTS || !a->reached) {
    f->out.body = a->body;
    f->out.body_len = a->body_len;
    if(in->kind == SCHED_ROBOTS) {  /* what the robots policy reads */
      f->out.location = a->redirect;
      f->out.cache_control = llfs_answer_header(a, "Cache-Control");
      f->out.expires = llfs_answer_header(a, "Expires");
    }
    fetch_finish(f);
    return;
  }
  char *target = fetch_target(f->fx, a->redirect);
  f->out.location = target;
  int kept = fetch_keep(f, in->url);
  mem_free(target);
  if(kept) {
    f->out.outcome = outcome_contact[OUTCOME_NOMEM].name;  /* no_memory, from its row */
    f->out.error = f->out.retry_after = f->out.date = f->out.location = NULL;
    fetch_finish(f);
    return;
  }
  if(f->revalidating && a->status == 304 && !strcmp(a->outcome, "ok")) {
    f->out.outcome = "not_modified";
    f->out.ref = f->key;
    f->fx->stats.revalidated++;
    f->touching = true;
    store_err e = fetch_store_call(f, NULL);
    if(e)
      fetch_stored(f, e);
    return;
  }
  fetch_page(f, a, f->url);
}

/* Send the fetch to the fetcher; extra: conditional headers, or none. A
 * page goes as its request asked (method, headers) under its client's
 * identity; robots.txt under the gateway's, plain GET. */
static int fetch_go(struct fetch_job *f, const char *const *extra, size_t nextra)
{
  struct sched_job_info *in = sched_job_info(f->job);
  struct fetch_ident id;
  char ua[AUTH_UA_MAX + 16], hbuf[REQOPT_MAX + REQOPT_HEADERS_MAX * 2];
  const char *hdrs[3 + REQOPT_HEADERS_MAX];
  size_t n = 0;
  bool page = in->kind == SCHED_PAGE;
  fetch_ident_of(f->fx, page ? in->client : NULL, page ? in->opts : NULL, &id);
  snprintf(ua, sizeof ua, "User-Agent: %s", id.ua);
  hdrs[n++] = ua;
  for(size_t i = 0; i < nextra && i < 2; i++)
    hdrs[n++] = extra[i];
  if(page)
    n += reqopt_headers(in->opts, hbuf, sizeof hbuf, hdrs + n, REQOPT_HEADERS_MAX);
  struct llfs_client_req r = { .url = in->url, .headers = hdrs, .nheaders = n,
                               .head = page && reqopt_head(in->opts),
                               .req_id = in->rid, .not_before_us = in->not_before_us,
                               .pin = f->addr[0] ? f->addr : NULL };
  return llfs_client_fetch(f->fx->llfs, &r, fetch_answer, f, &f->lj);
}

/* Validators of a stored page, as conditional request headers. */
static size_t cached_validators(const struct page *p, char *inm, char *ims, size_t len,
                                const char **out)
{
  json_t *h = p->headers_json ? json_loads(p->headers_json, 0, NULL) : NULL;
  size_t i, n = 0;
  json_t *pair;
  json_array_foreach(h, i, pair) {
    const char *k = json_string_value(json_array_get(pair, 0));
    const char *v = json_string_value(json_array_get(pair, 1));
    if(!k || !v || strlen(v) > len - 32)
      continue;
    if(!strcasecmp(k, "ETag") && !inm[0]) {
      snprintf(inm, len, "If-None-Match: %s", v);
      out[n++] = inm;
    } else if(!strcasecmp(k, "Last-Modified") && !ims[0]) {
      snprintf(ims, len, "If-Modified-Since: %s", v);
      out[n++] = ims;
    }
  }
  json_decref(h);
  return n;
}

/* The page store answered: serve the copy, revalidate it, or fetch. */
static void fetch_cached(void *arg, store_err err, const struct page *p)
{
  struct fetch_job *f = arg;
  char inm[1024] = "", ims[1024] = "";
  const char *cond[2];
  size_t ncond = 0;
  if(f->cancelled) {
    job_free(f);
    return;
  }
  if(!err && p && page_is_fresh(p, sched_job_info(f->job)->max_age_s, clock_wall_ms())) {
    f->fx->stats.cache_hits++;
    char *target = fetch_target(f->fx, p->redirect);
    f->out = (struct sched_outcome){ .outcome = "cached", .http_status = (int)p->status,
                                     .ref = f->key, .stored = true, .age_ms = page_age_ms(p, clock_wall_ms()),
                                     .location = target };
    fetch_finish(f);  /* the scheduler copies the strings */
    mem_free(target);
    return;
  }
  if(!err && p && p->outcome && !strcmp(p->outcome, "ok"))
    ncond = cached_validators(p, inm, ims, sizeof inm, cond);
  f->revalidating = ncond > 0;
  if(fetch_go(f, cond, ncond))
    fetch_refused(f);
}

/* The fetch proper, once its address (if gated) has a slot: the page
 * cache first for a page, else the fetcher. */
static int fetch_begin(struct fetch_job *f)
{
  struct sched_job_info *in = sched_job_info(f->job);
  if(in->kind == SCHED_PAGE && page_get(f->fx->pages, f->key, fetch_cached, f) == STORE_OK)
    return 0;
  return fetch_go(f, NULL, 0);
}

/* ---- politeness per address (--addr-max-conns, --addr-min-gap-ms) ---- */

/* The least wait when every slot of an address is held (lua_addr waits
 * the share of the requests before, measured); each try is a claim and a
 * give-back. */
#define FETCH_ADDR_BUSY_MS 20

/* The hosts of one address share its slots (hlfs/state/lua/addr.lua): the
 * fetcher resolves the host (its DNS cache), the address gets a slot in
 * Redis, and the fetch is pinned to that address so it dials no other.
 * A host the fetcher cannot resolve goes ungated: the fetch then ends with
 * the fetcher's own outcome (dns_nxdomain, blocked_address...). All slots
 * held: the claim goes back and the site rests until the address may have
 * one (sched_job_deferred), its attempts untouched. */
static void gate_go(struct fetch_job *f)
{
  if(fetch_begin(f))
    fetch_refused(f);
}

static void gate_taken(void *arg, store_err err, uint32_t wait_ms)
{
  struct fetch_job *f = arg;
  f->addr_held = !err && !wait_ms;
  if(f->cancelled) {
    job_free(f);
  } else if(!err && wait_ms) {
    struct sched_job *job = f->job;
    sched_job_info(job)->user = NULL;
    job_free(f);
    sched_job_deferred(job, wait_ms);
  } else {
    gate_go(f);  /* a slot, or Redis failing: the claim's own writes will tell */
  }
}

static void gate_resolved(void *arg, const char *addr)
{
  struct fetch_job *f = arg;
  const struct fetch_cfg *c = &f->fx->cfg;
  const struct state_addr_limit lim = { c->addr_max_conns ? c->addr_max_conns : 1000000,
                                        c->addr_min_gap_ms, c->addr_lease_ms,
                                        FETCH_ADDR_BUSY_MS };
  if(f->cancelled) {
    job_free(f);
    return;
  }
  if(!addr || strlen(addr) >= sizeof f->addr) {
    gate_go(f);
    return;
  }
  snprintf(f->addr, sizeof f->addr, "%s", addr);
  snprintf(f->tok, sizeof f->tok, "%s", sched_job_info(f->job)->rid);
  if(state_addr_take(f->fx->st, f->addr, f->tok, &lim, gate_taken, f))
    gate_go(f);
}

static int gate_begin(struct fetch_job *f)
{
  struct url_parts p;
  if(url_split(sched_job_info(f->job)->url, &p) != URL_OK)
    return fetch_begin(f);
  return llfs_client_resolve(f->fx->llfs, p.host, gate_resolved, f);
}

static int ops_start(void *arg, struct sched_job *job)
{
  struct fetch *fx = arg;
  struct sched_job_info *in = sched_job_info(job);
  struct fetch_job *f = mem_calloc(1, sizeof *f);
  if(!f)
    return -1;
  f->magic = FETCH_JOB_MAGIC;
  f->fx = fx;
  f->job = job;
  in->user = f;
  page_key_variant(in->url, reqopt_variant(in->opts), fetch_owner(fx, in->client), f->key,
                   sizeof f->key);
  if(fx->cfg.addr_max_conns || fx->cfg.addr_min_gap_ms ? gate_begin(f) : fetch_begin(f)) {
    in->user = NULL;
    job_free(f);
    return -1;
  }
  return 0;
}

static void ops_cancel(void *arg, struct sched_job *job)
{
  (void)arg;
  struct fetch_job *f = sched_job_info(job)->user;
  if(!f || f->magic != FETCH_JOB_MAGIC)
    abort();
  if(f->lj) {
    llfs_client_cancel(&f->lj);
    job_free(f);
    return;
  }
  f->cancelled = true;  /* the page store answers later and frees it */
}


/* ---- identities ------------------------------------------------------------ */

void fetch_ident_of(const struct fetch *fx, const char *client, const char *opts,
                    struct fetch_ident *id)
{
  char name[STATE_CLIENT_MAX + 1];
  id->ua = fx->cfg.agent;
  id->tok = fx->cfg.agent;
  id->tok_len = robots_agent_token(fx->cfg.agent, strlen(fx->cfg.agent));
  if(!fx->auth)
    return;
  const struct state_client *c =
    auth_find(fx->auth, reqopt_ident(opts, name, sizeof name) ? name : client);
  auth_identity(fx->auth, c, &id->ua, &id->tok, &id->tok_len);
}


/* ---- the scheduler's table --------------------------------------------------- */

static void ops_agent(void *arg, const struct sched_job_info *in, struct robots_agent *out)
{
  struct fetch_ident id;
  fetch_ident_of(arg, in ? in->client : NULL, in ? in->opts : NULL, &id);
  *out = (struct robots_agent){ id.tok, id.tok_len };
}

/* The gateway's own identity first, then each key's that has one; made
 * once (the keys are loaded once, at start). */
static const struct robots_agent *ops_agents(void *arg, size_t *n)
{
  struct fetch *fx = arg;
  if(!fx->agents) {
    size_t cap = 1 + (fx->auth ? auth_count(fx->auth) : 0);
    struct fetch_ident id;
    fx->agents = xalloc(cap * sizeof *fx->agents);  /* set-up memory, once */
    fetch_ident_of(fx, NULL, NULL, &id);
    fx->agents[fx->nagents++] = (struct robots_agent){ id.tok, id.tok_len };
    for(size_t i = 0; fx->auth && i < auth_count(fx->auth); i++)
      if(auth_identity(fx->auth, auth_nth(fx->auth, i), &id.ua, &id.tok, &id.tok_len))
        fx->agents[fx->nagents++] = (struct robots_agent){ id.tok, id.tok_len };
  }
  *n = fx->nagents;
  return fx->agents;
}

struct sched_fetch_ops fetch_ops(struct fetch *fx)
{
  return (struct sched_fetch_ops){ .start = ops_start, .cancel = ops_cancel,
                                   .agent = ops_agent, .agents = ops_agents, .arg = fx };
}

void fetch_init(struct fetch *fx, uv_loop_t *loop, const struct fetch_cfg *cfg,
                struct store *pages, struct llfs_client *llfs, const struct auth *auth,
                struct fresh_pages *fresh)
{
  *fx = (struct fetch){ .magic = FETCH_MAGIC, .loop = loop, .cfg = *cfg, .pages = pages,
                        .llfs = llfs, .auth = auth, .fresh = fresh };
}

void fetch_fini(struct fetch *fx)
{
  free(fx->agents);  /* xalloc: set-up memory */
  fx->agents = NULL;
  fx->nagents = 0;
}
