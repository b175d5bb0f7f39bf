/* The read-only routes about the gateway itself: a site's politeness
 * state, robots.txt decisions explained, statistics, and /metrics. */
#include <stdio.h>
#include <string.h>

#include "api/metrics.h"
#include "common/clock.h"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/gw/gw.h"
#include "hlfs/fetch/llfs_client.h"
#include "hlfs/sched/sched.h"
#include "hlfs/sched/sched_robots.h"

/* ---- GET /v1/sites/{site} ------------------------------------------------------ */

struct gw_call {
  struct api_req *rq;
  bool aborted;
  char site[SITE_MAX];
  char origin[SITE_ORIGIN_MAX];
  char *target;
  struct gw *g;
  char agent[AUTH_UA_MAX + 1];  /* GET /v1/robots: whose rules, as asked */
  char tok[AUTH_UA_MAX + 1];    /* and its product token */
};

static void call_abort(void *arg) { ((struct gw_call *)arg)->aborted = true; }

static struct gw_call *call_new(struct gw *g, struct api_req *rq)
{
  struct gw_call *c = mem_calloc(1, sizeof *c);
  if(!c) {
    gw_store_down(rq, STORE_NOMEM);
    return NULL;
  }
  c->rq = rq;
  c->g = g;
  return c;
}

static void call_free(struct gw_call *c)
{
  mem_free(c->target);
  mem_free(c);
}

static json_t *ms_or_null(uint64_t v) { return v ? json_integer((json_int_t)v) : json_null(); }

static void site_got(void *arg, store_err err, const struct state_site *s)
{
  struct gw_call *c = arg;
  if(c->aborted) {
    call_free(c);
    return;
  }
  api_req_on_abort(c->rq, NULL, NULL);
  if(err) {
    gw_store_down(c->rq, err);
    call_free(c);
    return;
  }
  json_t *j = json_pack("{s:s, s:I, s:I, s:b, s:I, s:I, s:I}", "site", c->site,
                        "queued", (json_int_t)s->queued, "clients", (json_int_t)s->clients,
                        "in_flight", s->in_flight, "error_streak", (json_int_t)s->error_streak,
                        "last_response_ms", (json_int_t)s->last_response_ms,
                        "connections_opened", (json_int_t)s->connections_opened);
  json_object_set_new(j, "next_at", ms_or_null(s->next_at));
  json_object_set_new(j, "next_reason", s->next_reason ? json_string(s->next_reason) : json_null());
  json_object_set_new(j, "backoff_until", ms_or_null(s->backoff_until));
  json_object_set_new(j, "last_at", ms_or_null(s->last_at));
  json_object_set_new(j, "lease_until", ms_or_null(s->lease_until));
  api_reply_json(c->rq, 200, j);
  call_free(c);
}

void gw_h_site(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  if(!gw_auth(g, rq))
    return;
  const char *site = api_req_param(rq, 0);
  if(strlen(site) >= SITE_MAX || strspn(site, "abcdefghijklmnopqrstuvwxyz0123456789-._:[]")
                                   != strlen(site)) {
    json_t *ext = json_pack("{s:s}", "field", "site");
    api_problem(rq, 400, "invalid-parameter", "Invalid site", ext,
                "a site is a lower-case host name, IP address or registrable domain");
    return;
  }
  struct gw_call *c = call_new(g, rq);
  if(!c)
    return;
  snprintf(c->site, sizeof c->site, "%s", site);
  store_err e = state_site(g->st, c->site, site_got, c);
  if(e) {
    gw_store_down(rq, e);
    call_free(c);
    return;
  }
  api_req_on_abort(rq, call_abort, c);
}

/* ---- GET /v1/robots?url=... ----------------------------------------------------- */

/* Where the rules came from and the policy state behind them. */
static void robots_explain_state(json_t *j, const struct state_robots *rec)
{
  json_object_set_new(j, "fetched_at", ms_or_null(rec->fetched_at));
  json_object_set_new(j, "expires_at", ms_or_null(rec->expires_at));
  if(rec->fetched_at)
    json_object_set_new(j, "age_s", json_integer((json_int_t)((clock_wall_ms() > rec->fetched_at
                                                               ? clock_wall_ms() - rec->fetched_at : 0) / 1000)));
  if(!rec->status)
    return;
  json_object_set_new(j, "redirects", json_integer(rec->hops));
  if(rec->hops && rec->final_url)
    json_object_set_new(j, "robots_url", json_string(rec->final_url));
  json_object_set_new(j, "retry_at", ms_or_null(rec->retry_at));
  json_object_set_new(j, "last_good_at", ms_or_null(rec->good_at));
  json_object_set_new(j, "outage_since", ms_or_null(rec->outage_since));
  json_object_set_new(j, "error_streak", json_integer(rec->error_streak));
}

static void robots_explain(struct gw_call *c, const struct state_robots *rec)
{
  struct gw *g = c->g;
  const struct robots *r = NULL;
  struct robots_verdict v = { .allowed = true, .crawl_delay = -1 };
  bool rules = robots_has_rules(rec->status);
  if(rules && (r = sched_robots_rules(sched_robots_of(g->sched), c->origin, rec)))
    robots_query(r, c->tok, strlen(c->tok), c->target, strlen(c->target), &v);
  bool allowed = rec->status == ROBOTS_P_UNREACHABLE_DISALLOW ? false : v.allowed;
  json_t *j = json_pack("{s:s, s:b, s:s, s:s, s:s}", "origin", c->origin, "allowed", allowed,
                        "agent", c->agent, "product_token", c->tok, "robots_status",
                        rec->status > 0 ? robots_pstatus_name((enum robots_pstatus)rec->status)
                                        : "none");
  if(rules && v.why == ROBOTS_WHY_RULE) {
    json_object_set_new(j, "rule", json_string(v.rule ? v.rule : ""));
    json_object_set_new(j, "rule_type", json_string(v.rule_allow ? "allow" : "disallow"));
    json_object_set_new(j, "line", json_integer(v.line));
  }
  json_object_set_new(j, "crawl_delay_s", v.crawl_delay >= 0 ? json_real(v.crawl_delay) : json_null());
  robots_explain_state(j, rec);
  json_t *maps = json_array();
  for(size_t i = 0; r && i < robots_sitemap_count(r); i++)
    json_array_append_new(maps, json_string(robots_sitemap(r, i, NULL)));
  json_object_set_new(j, "sitemaps", maps);
  api_reply_json(c->rq, 200, j);
}

static void robots_got(void *arg, store_err err, const struct state_robots *rec)
{
  struct gw_call *c = arg;
  if(!c->aborted) {
    api_req_on_abort(c->rq, NULL, NULL);
    if(err)
      gw_store_down(c->rq, err);
    else
      robots_explain(c, rec);
  }
  call_free(c);
}

/* The agent of GET /v1/robots: the "agent" parameter (a product token or
 * a whole User-Agent), else the caller's own identity. */
static int robots_agent(struct gw *g, struct api_req *rq, const struct state_client *k,
                        struct gw_call *c)
{
  const char *a = api_req_arg(rq, "agent");
  if(!a) {
    struct fetch_ident id;
    fetch_ident_of(g->fetch, k->name, NULL, &id);
    snprintf(c->agent, sizeof c->agent, "%s", id.ua);
    snprintf(c->tok, sizeof c->tok, "%.*s", (int)id.tok_len, id.tok);
    return 0;
  }
  size_t n = strlen(a);
  if(n == 0 || n > AUTH_UA_MAX || robots_agent_token(a, n) == 0) {
    json_t *ext = json_pack("{s:s, s:s}", "field", "agent", "reason",
                            "a product token ([A-Za-z_-]) or a User-Agent starting with one");
    api_problem(rq, 422, "invalid-field", "Invalid field", ext,
                "agent: a product token ([A-Za-z_-]) or a User-Agent starting with one");
    return -1;
  }
  snprintf(c->agent, sizeof c->agent, "%s", a);
  snprintf(c->tok, sizeof c->tok, "%.*s", (int)robots_agent_token(a, n), a);
  return 0;
}

void gw_h_robots(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  char *canon = NULL;
  size_t tlen;
  const struct state_client *k = gw_auth(g, rq);
  if(!k)
    return;
  canon = gw_canon(g, rq, "url", api_req_arg(rq, "url"));
  if(!canon)
    return;
  struct gw_call *c = call_new(g, rq);
  if(c && robots_agent(g, rq, k, c)) {
    call_free(c);
    mem_free(canon);
    return;
  }
  if(!c || site_of_url(g->cfg.site_mode, canon, NULL, c->site, sizeof c->site) ||
     site_origin(canon, c->origin, sizeof c->origin) ||
     robots_url_target(canon, strlen(canon), &c->target, &tlen) ||
     state_robots_get(g->st, site_shard(c->site, state_cfg(g->st)->nshards), c->origin,
                      robots_got, c)) {
    if(c) {
      gw_store_down(rq, STORE_DOWN);
      call_free(c);
    }
    mem_free(canon);
    return;
  }
  mem_free(canon);
  api_req_on_abort(rq, call_abort, c);
}

/* ---- GET /v1/stats and /metrics ---------------------------------------------------- */

/* The counters the fetch layer and the robots book keep, into the
 * gateway's list (GW_COUNTERS), where they have always been shown. */
static void gw_stats_gather(struct gw *g)
{
  struct sched_robots_stats rs;
  sched_robots_stats(sched_robots_of(g->sched), &rs);
  g->stats.robots_parses = rs.parses;
  g->stats.robots_rule_hits = rs.hits;
#define X(n) g->stats.n = g->fetch->stats.n;
  FETCH_COUNTERS(X)
#undef X
}

void gw_h_stats(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  /* this replica's counters: no client's name or figures */
  if(!gw_auth_as(g, rq, GW_ROLES_CRAWL | GW_ROLE(AUTH_ROLE_METRICS),
                 "every key may read this replica's counters"))
    return;
  json_t *j = json_object(), *o;
  gw_stats_gather(g);
  const struct state_stats *ss = state_stats(g->st);
  const struct sched_stats *sc = sched_stats(g->sched);
  json_object_set_new(j, "replica", json_string(g->cfg.replica));
  json_object_set_new(j, "fetches_in_flight", json_integer(sched_in_flight(g->sched)));
  json_object_set_new(j, "gateway", o = json_object());
#define X(n, h) json_object_set_new(o, #n, json_integer((json_int_t)g->stats.n));
  GW_COUNTERS(X)
#undef X
  json_object_set_new(j, "state", o = json_object());
#define X(n, h) json_object_set_new(o, #n, json_integer((json_int_t)ss->n));
  STATE_COUNTERS(X)
#undef X
  json_object_set_new(j, "scheduler", o = json_object());
#define X(n, h) json_object_set_new(o, #n, json_integer((json_int_t)sc->n));
  SCHED_COUNTERS(X)
#undef X
  json_object_set_new(j, "submissions", o = json_object());
  for(int i = 0; i < STATE_SUB__LAST; i++)
    json_object_set_new(o, state_sub_name((enum state_sub_code)i),
                        json_integer((json_int_t)ss->submit[i]));
  api_reply_json(rq, 200, j);
}

static void m_counter(struct buf *b, const char *prefix, const char *name, const char *help,
                      uint64_t v)
{
  char full[128];
  snprintf(full, sizeof full, "%s_%s_total", prefix, name);
  metrics_family(b, full, "counter", help);
  metrics_sample_u(b, full, "", v);
}

void gw_metrics(struct buf *b, void *arg)
{
  struct gw *g = arg;
  const struct state_stats *ss = state_stats(g->st);
  const struct sched_stats *sc = sched_stats(g->sched);
  char lb[64];
  gw_stats_gather(g);
#define X(n, h) m_counter(b, "hlfs", #n, h, g->stats.n);
  GW_COUNTERS(X)
#undef X
#define X(n, h) m_counter(b, "hlfs_state", #n, h, ss->n);
  STATE_COUNTERS(X)
#undef X
#define X(n, h) m_counter(b, "hlfs_sched", #n, h, sc->n);
  SCHED_COUNTERS(X)
#undef X
  metrics_family(b, "hlfs_submissions_total", "counter", "URLs submitted, by answer.");
  for(int i = 0; i < STATE_SUB__LAST; i++) {
    snprintf(lb, sizeof lb, "answer=\"%s\"", state_sub_name((enum state_sub_code)i));
    metrics_sample_u(b, "hlfs_submissions_total", lb, ss->submit[i]);
  }
  metrics_family(b, "hlfs_fetches_in_flight", "gauge", "Fetches this replica has started.");
  metrics_sample_u(b, "hlfs_fetches_in_flight", "", sched_in_flight(g->sched));
  bool all_up = true;
  metrics_family(b, "hlfs_redis_shard_up", "gauge",
                 "1 when the state Redis of a shard group is reachable.");
  for(unsigned k = 0; k < g->nstores; k++) {
    snprintf(lb, sizeof lb, "shard=\"%u\"", k);
    metrics_sample_u(b, "hlfs_redis_shard_up", lb, store_is_up(g->store[k]));
    all_up = all_up && store_is_up(g->store[k]);
  }
  metrics_family(b, "hlfs_redis_up", "gauge", "1 when every state Redis is reachable.");
  metrics_sample_u(b, "hlfs_redis_up", "", all_up);
  metrics_family(b, "hlfs_page_cache_up", "gauge",
                 "1 when the page cache's Redis is reachable (the state Redis without cache_redis).");
  metrics_sample_u(b, "hlfs_page_cache_up", "", store_is_up(g->pages));
  metrics_family(b, "hlfs_fetcher_up", "gauge", "1 when the fetcher service answers.");
  metrics_sample_u(b, "hlfs_fetcher_up", "", g->llfs_ok);
  const struct llfs_client_stats *ls = llfs_client_stats(g->fetch->llfs);
  metrics_family(b, "hlfs_fetcher_endpoints", "gauge",
                 "Fetcher addresses known (every address of each --llfs host name).");
  metrics_sample_u(b, "hlfs_fetcher_endpoints", "", ls->endpoints);
  m_counter(b, "hlfs_fetcher", "retries", "fetches a fetcher refused, offered to another",
            ls->retries);
  m_counter(b, "hlfs_fetcher", "refused", "fetches every fetcher tried refused (not made)",
            ls->refused);
  m_counter(b, "hlfs_fetcher", "lost", "fetches whose answer was lost after they were sent",
            ls->lost);
  m_counter(b, "hlfs_fetcher", "resolve_errors", "failed resolutions of --llfs host names",
            ls->resolve_errors);
  metrics_family(b, "hlfs_politeness_delays_total", "counter",
                 "Completions whose next allowed time was set by each politeness term.");
  for(int r = 1; r < DELAY__LAST; r++) {
    snprintf(lb, sizeof lb, "reason=\"%s\"", delay_reason_name((enum delay_reason)r));
    metrics_sample_u(b, "hlfs_politeness_delays_total", lb, sc->delays[r]);
  }
  metrics_family(b, "hlfs_politeness_delay_seconds_total", "counter",
                 "Waits imposed on sites by each politeness term.");
  for(int r = 1; r < DELAY__LAST; r++) {
    snprintf(lb, sizeof lb, "reason=\"%s\"", delay_reason_name((enum delay_reason)r));
    metrics_sample(b, "hlfs_politeness_delay_seconds_total", lb, (double)sc->delay_ms[r] / 1000.0);
  }
  if(g->cfg.metrics_client_names)
    gw_client_metrics(g, b);
  gw_fleet_metrics(g, b);
}

/* GET /v1/metrics/clients: the families labelled by client, for a scrape
 * with an operator or metrics key (the same text /metrics carries with
 * metrics_client_names). */
void gw_h_client_metrics(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  struct buf b;
  size_t len;
  if(!gw_auth_as(g, rq, GW_ROLE(AUTH_ROLE_OPERATOR) | GW_ROLE(AUTH_ROLE_METRICS),
                 "client names and figures are for operator and metrics keys"))
    return;
  buf_init(&b, 8 << 20);
  gw_client_metrics(g, &b);
  char *body = buf_steal(&b, &len);
  if(!body) {
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  api_reply_header(rq, "Cache-Control", "no-store");
  api_reply(rq, 200, "text/plain; version=0.0.4", body, len);
}
