/* The control endpoint on 127.0.0.1 (docs/testweb.md): what each site was
 * asked, counters, resets, and site configs changed at run time.
 *   GET  /health              {"ok":true}
 *   GET  /stats               server counters and totals
 *   GET  /world               generator options, ports, site count
 *   GET  /zone                "name address" lines
 *   GET  /sites[?all=1]       one summary per site (with requests, or all)
 *   GET  /sites/KEY[?requests=N]  a site's record, the last N requests
 *   PUT  /sites/KEY           replace a site's config (JSON site object)
 *   POST /sites               add a site (JSON site object)
 *   POST /sites/KEY/reset     forget a site's record
 *   POST /reset               forget every record and counter
 *   /churn...                 the changing web (tw_churn.h) */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "tests/testweb/tw_churn.h"
#include "tests/testweb/tw_load.h"
#include "tests/testweb/tw_srv.h"
#include "tests/testweb/tw_topic_ctl.h"

struct ctl {
  struct tw_srv       *srv;
  const struct tw_req *req;
  struct tw_plan      *pl;
  struct buf          *out;
  char                 path[512];
  const char          *query;  /* after '?', or "" */
  int                  status;
  const char          *ctype;
};

static void ctl_error(struct ctl *c, int status, const char *msg)
{
  buf_reset(c->out);
  c->status = status;
  buf_adds(c->out, "{\"error\":");
  buf_add_json_str(c->out, msg, strlen(msg));
  buf_adds(c->out, "}\n");
}

/* Value of an integer query parameter, or def. */
static long ctl_qnum(const struct ctl *c, const char *name, long def)
{
  size_t n = strlen(name);
  for(const char *p = c->query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
    if(!strncmp(p, name, n) && p[n] == '=')
      return strtol(p + n + 1, NULL, 10);
  return def;
}

static void ctl_stats(struct ctl *c)
{
  const struct tw_stats *st = &c->srv->stats;
  uint64_t kept = 0, active = 0;
  for(size_t i = 0; i < c->srv->world.n; i++) {
    kept += c->srv->world.sites[i]->rec.n;
    active += c->srv->world.sites[i]->rec.requests > 0;
  }
  buf_addc(c->out, '{');
#define X(name, help) buf_addf(c->out, "\"%s\":%llu,", #name, (unsigned long long)st->name);
  TW_STATS(X)
#undef X
  buf_addf(c->out, "\"open_connections\":%llu,\"in_flight\":%llu,\"max_in_flight\":%llu,"
           "\"sites\":%zu,\"active_sites\":%llu,\"requests_kept\":%llu}\n",
           (unsigned long long)st->open_conns, (unsigned long long)st->in_flight,
           (unsigned long long)st->max_in_flight, c->srv->world.n,
           (unsigned long long)active, (unsigned long long)kept);
}

static void ctl_world(struct ctl *c)
{
  const struct tw_world *w = &c->srv->world;
  const struct tw_gen *g = &w->gen;
  buf_addf(c->out, "{\"port\":%d,\"control_port\":%d,\"link_port\":%ld,\"sites\":%zu,"
           "\"bomb_size\":%zu,\"record_max\":%zu,\"generate\":{\"sites\":%ld,\"pages\":%ld,"
           "\"links\":%ld,\"cross\":%g,\"seed\":%ld,\"page_bytes\":%ld,\"dups\":%g,"
           "\"traps\":%g,\"robots_missing\":%g,\"robots_error\":%g,\"crawl_delay\":%g,"
           "\"hold_ms\":%ld,\"change_every\":%ld,\"slow\":%g,\"slow_ms\":%ld}}\n",
           c->srv->port, c->srv->ctl_port, w->link_port, w->n, w->bomb_size, w->record_max,
           g->sites, g->pages, g->links, g->cross, g->seed, g->page_bytes, g->dups, g->traps,
           g->robots_missing, g->robots_error, g->crawl_delay, g->hold_ms, g->change_every,
           g->slow, g->slow_ms);
}

static void ctl_site_head(struct buf *out, const struct tw_site *s)
{
  buf_adds(out, "{\"name\":");
  if(s->name)
    buf_add_json_str(out, s->name, strlen(s->name));
  else
    buf_adds(out, "null");
  buf_addf(out, s->addr ? ",\"address\":\"%s\"," : ",\"address\":null,", s->addr_s);
}

static void ctl_site(struct ctl *c, struct tw_site *s)
{
  long last = ctl_qnum(c, "requests", (long)s->rec.max);
  ctl_site_head(c->out, s);
  if(tw_rec_json(&s->rec, c->out, last > 0 ? (size_t)last : 0)) {
    ctl_error(c, 500, "record too large for one answer: ask for fewer ?requests=N");
    return;
  }
  buf_adds(c->out, "}\n");
}

static void ctl_sites(struct ctl *c)
{
  bool all = ctl_qnum(c, "all", 0) != 0, first = true;
  buf_addc(c->out, '[');
  for(size_t i = 0; i < c->srv->world.n; i++) {
    const struct tw_site *s = c->srv->world.sites[i];
    if(!all && !s->rec.requests && !s->rec.in_flight)
      continue;
    buf_adds(c->out, first ? "\n" : ",\n");
    first = false;
    ctl_site_head(c->out, s);
    tw_rec_json(&s->rec, c->out, 0);
    buf_addc(c->out, '}');
  }
  buf_adds(c->out, "\n]\n");
  if(c->out->len + TW_REC_JSON_SLACK >= c->out->max)
    ctl_error(c, 500, "too many sites for one answer");
}

static void ctl_load(struct ctl *c, struct tw_site *into, const char *body, size_t blen)
{
  char err[300];
  json_error_t je;
  json_t *obj = json_loadb(body, blen, JSON_REJECT_DUPLICATES, &je);
  if(!obj) {
    ctl_error(c, 400, je.text);
    return;
  }
  tw_err e = tw_load_site(&c->srv->world, obj, into, err, sizeof err);
  json_decref(obj);
  if(e) {
    ctl_error(c, e == TW_EXISTS ? 409 : e == TW_NOMEM ? 500 : 400, err);
    return;
  }
  c->status = into ? 200 : 201;
  struct tw_site *s = into ? into : c->srv->world.sites[c->srv->world.n - 1];
  LOG(LOG_INFO, "site %s: config %s", tw_site_host(s), into ? "replaced" : "added");
  ctl_site_head(c->out, s);
  buf_addf(c->out, "\"idx\":%u}\n", s->idx);
}

/* /sites/KEY[/reset] */
static void ctl_site_route(struct ctl *c, const char *rest, const char *body, size_t blen)
{
  const char *slash = strchr(rest, '/');
  size_t kn = slash ? (size_t)(slash - rest) : strlen(rest);
  struct tw_site *s = tw_world_find(&c->srv->world, rest, kn);
  enum tw_method m = c->req->method;
  if(!s) {
    ctl_error(c, 404, "no such site");
  } else if(slash && !strcmp(slash, "/reset") && m == TW_M_POST) {
    tw_site_reset(s);
    buf_adds(c->out, "{\"ok\":true}\n");
  } else if(slash) {
    ctl_error(c, 404, "no such resource");
  } else if(m == TW_M_GET || m == TW_M_HEAD) {
    ctl_site(c, s);
  } else if(m == TW_M_PUT) {
    ctl_load(c, s, body, blen);
  } else {
    ctl_error(c, 405, "use GET or PUT");
  }
}

static void ctl_route(struct ctl *c, const char *body, size_t blen)
{
  enum tw_method m = c->req->method;
  bool get = m == TW_M_GET || m == TW_M_HEAD;
  if(get && !strcmp(c->path, "/health")) {
    buf_adds(c->out, "{\"ok\":true}\n");
  } else if(get && !strcmp(c->path, "/stats")) {
    ctl_stats(c);
  } else if(get && !strcmp(c->path, "/world")) {
    ctl_world(c);
  } else if(get && !strcmp(c->path, "/zone")) {
    c->ctype = "text/plain";
    tw_world_zone(&c->srv->world, c->out);
  } else if(get && !strcmp(c->path, "/sites")) {
    ctl_sites(c);
  } else if(tw_churn_ctl(&c->srv->world, m == TW_M_POST, c->path, c->query, c->out,
                          &c->status, &c->ctype)) {
    /* the changing web (tw_churn.c) */
  } else if(get && tw_topic_ctl(&c->srv->world, c->path, c->query, c->out, &c->status,
                                &c->ctype)) {
    /* the topical web (tw_topic_ctl.c) */
  } else if(m == TW_M_POST && !strcmp(c->path, "/sites")) {
    ctl_load(c, NULL, body, blen);
  } else if(!strncmp(c->path, "/sites/", 7)) {
    ctl_site_route(c, c->path + 7, body, blen);
  } else if(m == TW_M_POST && !strcmp(c->path, "/reset")) {
    tw_srv_reset(c->srv);
    buf_adds(c->out, "{\"ok\":true}\n");
  } else {
    ctl_error(c, 404, "no such control resource (see docs/testweb.md)");
  }
}

static void ctl_head(struct ctl *c)
{
  struct tw_plan *pl = c->pl;
  pl->status = c->status;
  buf_addf(&pl->head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
           "Cache-Control: no-store\r\n%s\r\n", c->status, tw_route_reason(c->status), c->ctype,
           pl->body.len, c->req->keep_alive ? "" : "Connection: close\r\n");
  if(c->req->method != TW_M_HEAD)
    tw_plan_seg(pl, pl->body.data, pl->body.len, 1);
  pl->close = !c->req->keep_alive;
}

void tw_ctl_handle(struct tw_srv *srv, const struct tw_req *req, const char *body,
                   size_t blen, struct tw_plan *pl)
{
  struct ctl c = { .srv = srv, .req = req, .pl = pl, .out = &pl->body, .status = 200,
                   .ctype = "application/json", .query = "" };
  size_t n = req->target.n < sizeof c.path - 1 ? req->target.n : sizeof c.path - 1;
  memcpy(c.path, req->target.p, n);
  c.path[n] = '\0';
  char *q = strchr(c.path, '?');
  if(q) {
    *q = '\0';
    c.query = q + 1;
  }
  ctl_route(&c, body, blen);
  ctl_head(&c);
}
