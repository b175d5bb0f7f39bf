/* GET /status: the fleet at a glance for an operator's browser. Plain
 * HTML, no script, refreshed by the browser every 10 s; behind the same
 * API keys as the rest (Bearer, or HTTP Basic with the key as password,
 * so a browser can ask for it). One lua_fleet run per view, its cost
 * bounded by STATUS_EXAMINE; at most STATUS_BUSY_MAX views at once.
 * The fleet (every client, the busiest sites, the replica's errors with
 * their URLs) is an operator key's; /status?client=NAME shows one client's
 * row, and is all a crawler key sees: its own. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/mem.h"
#include "hlfs/fetch/auth.h"
#include "hlfs/gw/gw.h"

#define STATUS_TOP       25
#define STATUS_EXAMINE   20000  /* site-client pairs ranked, at most */
#define STATUS_BUSY_MAX  4
#define STATUS_MAX_BYTES (1u << 20)

struct status_view {
  struct gw      *g;
  struct api_req *rq;
  bool            aborted;
  char            only[STATE_CLIENT_MAX + 1];  /* one client's view, or "" */
};

/* Bearer, or Basic with the API key as the password. */
static const struct state_client *status_auth(struct gw *g, struct api_req *rq)
{
  const char *h = api_req_header(rq, "Authorization");
  const struct state_client *c = NULL;
  if(h && !strncasecmp(h, "Basic ", 6)) {
    unsigned char dec[512];
    size_t n = strlen(h + 6);
    int len = n < 680 ? EVP_DecodeBlock(dec, (const unsigned char *)h + 6, (int)n) : -1;
    if(len > 0) {
      dec[len] = 0;
      char *pw = strchr((char *)dec, ':');
      char bearer[600];
      if(pw && snprintf(bearer, sizeof bearer, "Bearer %s", pw + 1) < (int)sizeof bearer)
        c = auth_check(g->auth, bearer);
    }
  } else {
    c = auth_check(g->auth, h);
  }
  if(c) {
    api_req_set_client(rq, c->name);
    return c;
  }
  g->stats.unauthorized++;
  /* both challenges, one header each: a browser takes the one it knows */
  api_reply_header(rq, "WWW-Authenticate", "Bearer realm=\"wpfs\"");
  api_reply_header(rq, "WWW-Authenticate", "Basic realm=\"wpfs\", charset=\"UTF-8\"");
  api_problem(rq, 401, "unauthorized", "Unauthorized", NULL,
              "send \"Authorization: Bearer <API key>\", or the key as a Basic password");
  return NULL;
}

/* Which view c may have: the fleet, or one client's (only set). 0, or -1
 * after answering 403 or 400. */
static int status_scope(struct gw *g, struct api_req *rq, const struct state_client *c,
                        char *only, size_t cap)
{
  const char *want = api_req_arg(rq, "client");
  enum auth_role r = auth_role_of(g->auth, c);
  if(want && !state_client_ok(want)) {
    json_t *ext = json_pack("{s:s, s:s}", "field", "client", "reason", "a client name");
    api_problem(rq, 400, "invalid-parameter", "Invalid parameter", ext,
                "client: 1-%d of [A-Za-z0-9._-]", STATE_CLIENT_MAX);
    return -1;
  }
  if(r == AUTH_ROLE_OPERATOR) {
    snprintf(only, cap, "%s", want ? want : "");
    return 0;
  }
  if(r == AUTH_ROLE_CRAWLER && want && !strcmp(want, c->name)) {
    snprintf(only, cap, "%s", want);
    return 0;
  }
  gw_forbidden(g, rq, c,
               r == AUTH_ROLE_CRAWLER
                   ? "the fleet and other clients' figures are for operator keys; a crawler "
                     "key sees its own at /status?client=<its name>"
                   : "the status page is for operator and crawler keys");
  return -1;
}

static void esc(struct buf *b, const char *s)
{
  for(; s && *s; s++) {
    switch(*s) {
    case '<': buf_adds(b, "&lt;"); break;
    case '>': buf_adds(b, "&gt;"); break;
    case '&': buf_adds(b, "&amp;"); break;
    case '"': buf_adds(b, "&quot;"); break;
    default: buf_addc(b, *s);
    }
  }
}

/* "in 1.2 s", "3.0 s ago", or "-" for 0. */
static void rel(struct buf *b, uint64_t at, uint64_t now)
{
  if(!at)
    buf_adds(b, "-");
  else if(at >= now)
    buf_addf(b, "in %.1f s", (double)(at - now) / 1000);
  else
    buf_addf(b, "%.1f s ago", (double)(now - at) / 1000);
}

static void wall(struct buf *b, uint64_t ms)
{
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  char s[32];
  gmtime_r(&t, &tm);
  strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S", &tm);
  buf_addf(b, "%s UTC", s);
}

static void head(struct buf *b, const struct gw *g, const struct state_fleet *f)
{
  buf_adds(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<title>wpfs status</title><meta http-equiv=\"refresh\" content=\"10\">"
              "<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
              "table{border-collapse:collapse;margin-bottom:1em}"
              "th,td{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:right}"
              "th:first-child,td:first-child{text-align:left}td.l{text-align:left}"
              "h2{font-size:1.1em;margin-top:1.5em}.muted{color:#777}.error{color:#b00}"
              ".warn{color:#a60}</style></head><body>\n<h1>wpfs gateway</h1>\n<p>Answered by "
              "replica <b>");
  esc(b, g->cfg.replica);
  buf_adds(b, "</b> at ");
  wall(b, f->now_ms);
  buf_adds(b, " (the state Redis's clock); the page refreshes every 10 s.</p>\n");
}

static void replicas(struct buf *b, const struct state_fleet *f)
{
  buf_addf(b, "<h2>Replicas (%zu)</h2>\n<table id=\"replicas\"><tr><th>replica</th>"
              "<th>last heartbeat</th><th>state</th></tr>\n", f->nreplicas);
  for(size_t i = 0; i < f->nreplicas; i++) {
    buf_adds(b, "<tr><td>");
    esc(b, f->replicas[i].name);
    buf_adds(b, "</td><td>");
    rel(b, f->replicas[i].seen_ms, f->now_ms);
    buf_adds(b, "</td><td>");
    esc(b, f->replicas[i].info);
    buf_adds(b, "</td></tr>\n");
  }
  buf_adds(b, "</table>\n");
}

/* Results this replica delivered to the client, all outcomes. */
static uint64_t delivered_here(const struct gw *g, const char *client)
{
  uint64_t n = 0;
  for(unsigned i = 0; i < g->tenants.n; i++)
    if(!strcmp(g->tenants.t[i].name, client))
      for(int o = 0; o < TENANT_O__COUNT; o++)
        n += g->tenants.t[i].results[o];
  return n;
}

static void clients(struct buf *b, const struct gw *g, const struct state_fleet *f,
                    const char *only)
{
  buf_adds(b, "<h2>Clients</h2>\n<table id=\"clients\"><tr><th>client</th><th>queued</th>"
              "<th>in flight</th><th>results unread</th><th>oldest unread</th>"
              "<th>delivered by this replica</th></tr>\n");
  for(size_t i = 0; i < f->nclients; i++) {
    const struct state_fleet_client *c = &f->clients[i];
    if(*only && strcmp(c->name, only))
      continue;
    buf_adds(b, "<tr><td>");
    esc(b, c->name);
    buf_addf(b, "</td><td>%llu</td><td>%llu</td><td>%llu</td><td>",
             (unsigned long long)c->queued, (unsigned long long)c->in_flight,
             (unsigned long long)c->results);
    rel(b, c->oldest_ms, f->now_ms);
    buf_addf(b, "</td><td>%llu</td></tr>\n", (unsigned long long)delivered_here(g, c->name));
  }
  buf_adds(b, "</table>\n");
}

static void sites(struct buf *b, const struct state_fleet *f)
{
  buf_addf(b, "<h2>Busiest sites</h2>\n<p class=\"muted\">The %zu with the most queued "
              "requests among %llu site-client pairs examined (of %llu with work).</p>\n"
              "<table id=\"sites\"><tr><th>site</th><th>queued</th><th>in flight</th>"
              "<th>next allowed</th><th>why</th><th>error streak</th><th>last contact</th></tr>\n",
           f->nsites, (unsigned long long)f->examined, (unsigned long long)f->pairs);
  for(size_t i = 0; i < f->nsites; i++) {
    const struct state_fleet_site *s = &f->sites[i];
    buf_adds(b, "<tr><td>");
    esc(b, s->site);
    buf_addf(b, "</td><td>%llu</td><td>%s</td><td>", (unsigned long long)s->queued,
             s->lease_until > f->now_ms ? "yes" : "no");
    rel(b, s->next_at, f->now_ms);
    buf_adds(b, "</td><td class=\"l\">");
    esc(b, *s->next_reason ? s->next_reason : "-");
    buf_addf(b, "</td><td>%u</td><td>", s->error_streak);
    rel(b, s->last_at, f->now_ms);
    buf_adds(b, "</td></tr>\n");
  }
  buf_adds(b, "</table>\n");
}

static void errors(struct buf *b, uint64_t now)
{
  struct log_recent r[LOG_RECENT];
  size_t n = log_recent(r, LOG_RECENT);
  buf_addf(b, "<h2>Recent errors (this replica)</h2>\n<table id=\"errors\"><tr><th>when</th>"
              "<th>level</th><th>message</th><th>URL</th></tr>\n");
  for(size_t i = n; i-- > 0;) {
    buf_adds(b, "<tr><td>");
    rel(b, r[i].at_ms, now > r[i].at_ms ? now : r[i].at_ms);
    const char *lvl = r[i].lvl >= LOG_ERROR ? "error" : "warn";
    buf_addf(b, "</td><td class=\"%s\">%s</td><td class=\"l\">", lvl, lvl);
    esc(b, r[i].msg);
    buf_adds(b, "</td><td class=\"l\">");
    esc(b, r[i].url);
    buf_adds(b, "</td></tr>\n");
  }
  if(!n)
    buf_adds(b, "<tr><td class=\"muted\" colspan=\"4\">none</td></tr>\n");
  buf_adds(b, "</table>\n</body></html>\n");
}

static void status_got(void *arg, store_err err, const struct state_fleet *f)
{
  struct status_view *v = arg;
  struct gw *g = v->g;
  g->fleet.status_busy--;
  if(v->aborted) {
    mem_free(v);
    return;
  }
  api_req_on_abort(v->rq, NULL, NULL);
  struct buf b;
  buf_init(&b, STATUS_MAX_BYTES);
  if(!err) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    head(&b, g, f);
    if(*v->only) {  /* the sites and errors are everyone's */
      clients(&b, g, f, v->only);
      buf_adds(&b, "</body></html>\n");
    } else {
      replicas(&b, f);
      clients(&b, g, f, "");
      sites(&b, f);
      errors(&b, (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
    }
  }
  if(err || !b.data) {
    buf_free(&b);
    gw_store_down(v->rq, err ? err : STORE_NOMEM);
  } else {
    size_t len;
    char *body = buf_steal(&b, &len);
    api_reply_header(v->rq, "Cache-Control", "no-store");
    api_reply(v->rq, 200, "text/html; charset=utf-8", body, len);
  }
  mem_free(v);
}

static void status_abort(void *arg) { ((struct status_view *)arg)->aborted = true; }

void gw_h_status(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  const struct state_client *c = status_auth(g, rq);
  char only[STATE_CLIENT_MAX + 1];
  if(!c || status_scope(g, rq, c, only, sizeof only))
    return;
  if(g->fleet.status_busy >= STATUS_BUSY_MAX) {
    api_reply_header(rq, "Retry-After", "1");
    api_problem(rq, 503, "busy", "Status busy", NULL, "%u status views are being made",
                g->fleet.status_busy);
    return;
  }
  struct status_view *v = mem_calloc(1, sizeof *v);
  const char *names[GW_FLEET_CLIENTS];
  /* one client's view asks about that client only, and ranks no sites */
  const char *one[1] = { only };
  struct state_fleet_args a = { .top = *only ? 0 : STATUS_TOP,
                                .examine = *only ? 0 : STATUS_EXAMINE,
                                .replica_ttl_ms = 15000, .clients = *only ? one : names,
                                .nclients = *only ? 1 : gw_fleet_clients(g, names,
                                                                         GW_FLEET_CLIENTS) };
  store_err e = v ? state_fleet(g->st, &a, status_got, v) : STORE_NOMEM;
  if(e) {
    mem_free(v);
    gw_store_down(rq, e);
    return;
  }
  *v = (struct status_view){ .g = g, .rq = rq };
  snprintf(v->only, sizeof v->only, "%s", only);
  g->fleet.status_busy++;
  api_req_on_abort(rq, status_abort, v);
}
