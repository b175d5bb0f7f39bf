/* The fleet as gauges: with each ping of the fetcher, this replica writes
 * its heartbeat and reads every client's queued, in-flight and unread
 * work (lua_fleet, over every shard), and the memory of each Redis (INFO
 * memory). /metrics shows the last answers, so an alert needs no other
 * exporter. Every
 * replica exports the same fleet-wide numbers: aggregate them with max. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/metrics.h"
#include "common/clock.h"
#include "common/log.h"
#include "hlfs/fetch/auth.h"
#include "hlfs/gw/gw.h"
#include "hlfs/sched/sched.h"
#include "hlfs/state/store.h"

#define FLEET_REPLICA_TTL_MS 15000  /* a replica not heard from for this long is gone */

size_t gw_fleet_clients(struct gw *g, const char **out, size_t cap)
{
  size_t n = 0;
  for(size_t i = 0; i < auth_count(g->auth) && n + 1 < cap; i++)
    out[n++] = auth_nth(g->auth, i)->name;
  if(n < cap)
    out[n++] = g->sync_name;
  return n;
}

/* One fleet-wide budget, shared equally by the replicas with a heartbeat
 * (rounded down: the sum never exceeds it; a replica that died counts
 * until its heartbeat is 15 s old, so the share errs low). Capped by this
 * replica's own --budget. */
static void fleet_share(struct gw *g, size_t replicas)
{
  if(!g->cfg.fleet_budget || !replicas)
    return;
  unsigned share = g->cfg.fleet_budget / (unsigned)replicas;
  if(share > g->cfg.budget)
    share = g->cfg.budget;
  if(share != sched_budget(g->sched))
    LOG(LOG_INFO, "fleet budget %u over %zu replicas: %u fetches here", g->cfg.fleet_budget,
        replicas, share ? share : 1);
  sched_set_budget(g->sched, share);
}

/* A roll call must name every replica alive, or one that was not called
 * could have its last writes lost when the fence lifts: more replicas
 * than the roll holds, or a name too long, and there is no roll. */
static void fleet_keep_roll(struct gw *g, const struct state_fleet *f)
{
  struct gw_fleet *fl = &g->fleet;
  fl->nroll = 0;
  fl->roll_at = 0;
  if(f->nreplicas > GW_FLEET_ROLL)
    return;
  for(size_t i = 0; i < f->nreplicas; i++)
    if(snprintf(fl->roll[i], sizeof fl->roll[i], "%s", f->replicas[i].name) >=
       (int)sizeof fl->roll[i])
      return;
  fl->nroll = f->nreplicas;
  fl->roll_at = clock_mono_ms();
}

/* The roll as of the last poll answered (every 2 s while the state Redis
 * is up). During the outage itself polls fail, and a replica starting
 * then writes nothing to the server that was lost; a replica started in
 * the 2 s before the last poll answered is not in it (docs/hlfs-state.md,
 * "Failover", names that limit). Older than this, the fleet may have
 * changed too much: no roll. */
#define FLEET_ROLL_FRESH_MS 30000

size_t gw_fleet_roll(const struct gw *g, const char **names, size_t cap)
{
  const struct gw_fleet *fl = &g->fleet;
  size_t n = 0;
  bool self = false;
  if(!fl->roll_at || clock_mono_ms() - fl->roll_at > FLEET_ROLL_FRESH_MS || fl->nroll + 1 > cap)
    return 0;
  for(size_t i = 0; i < fl->nroll; i++) {
    names[n++] = fl->roll[i];
    self = self || !strcmp(fl->roll[i], g->cfg.replica);
  }
  if(!self)
    names[n++] = g->cfg.replica;
  return n;
}

static void fleet_got(void *arg, store_err err, const struct state_fleet *f)
{
  struct gw *g = arg;
  struct gw_fleet *fl = &g->fleet;
  fl->polling = false;
  fl->ok = !err;
  if(err)
    return;
  fleet_share(g, f->nreplicas);
  fl->now_ms = f->now_ms;
  fl->nreplicas = f->nreplicas;
  fleet_keep_roll(g, f);
  fl->nclients = 0;
  for(size_t i = 0; i < f->nclients && fl->nclients < GW_FLEET_CLIENTS; i++) {
    struct gw_fleet_client *c = &fl->c[fl->nclients++];
    snprintf(c->name, sizeof c->name, "%s", f->clients[i].name);
    c->queued = f->clients[i].queued;
    c->in_flight = f->clients[i].in_flight;
    c->results = f->clients[i].results;
    c->oldest_ms = f->clients[i].oldest_ms;
  }
}

/* "used_memory:123\r\n" in INFO's text; -1 when absent. */
static long long info_field(const char *text, const char *name)
{
  size_t n = strlen(name);
  for(const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if(!strncmp(p, name, n) && p[n] == ':')
      return strtoll(p + n + 1, NULL, 10);
  return -1;
}

static void mem_got(void *arg, store_err err, const struct store_val *v)
{
  struct gw_fleet_mem *m = arg;
  const char *text = err ? NULL : store_v_str(v, NULL);
  m->polling = false;
  m->used = text ? info_field(text, "used_memory") : -1;
  m->max = text ? info_field(text, "maxmemory") : -1;
  m->known = m->used >= 0 && m->max >= 0;
}

static struct store *mem_store(const struct gw *g, unsigned which)
{
  if(which == GW_MEM_CACHE)
    return g->pages == g->store[0] ? NULL : g->pages;
  return which < g->nstores ? g->store[which] : NULL;
}

static void mem_poll(struct gw *g, unsigned which)
{
  static const char *argv[] = { "INFO", "memory" };
  static const size_t lens[] = { 4, 6 };
  struct gw_fleet_mem *m = &g->fleet.mem[which];
  struct store *s = mem_store(g, which);
  if(m->polling || !s)
    return;
  *m = (struct gw_fleet_mem){ .g = g, .which = which, .known = m->known, .used = m->used,
                              .max = m->max };
  if(!store_cmd(s, 2, argv, lens, 0, mem_got, m))
    m->polling = true;
}

void gw_fleet_tick(struct gw *g)
{
  struct gw_fleet *fl = &g->fleet;
  for(unsigned k = 0; k < g->nstores; k++)
    mem_poll(g, k);
  mem_poll(g, GW_MEM_CACHE);
  if(fl->polling || g->stopping)
    return;
  const char *names[GW_FLEET_CLIENTS];
  char info[96];
  snprintf(info, sizeof info, "%u fetches in flight", sched_in_flight(g->sched));
  struct state_fleet_args a = { .replica = g->cfg.replica, .info = info,
                                .replica_ttl_ms = FLEET_REPLICA_TTL_MS, .clients = names,
                                .nclients = gw_fleet_clients(g, names, GW_FLEET_CLIENTS) };
  if(!state_fleet(g->st, &a, fleet_got, g))
    fl->polling = true;
}

static void gauge(struct buf *b, const char *name, const char *help)
{
  metrics_family(b, name, "gauge", help);
}

static void fleet_client_gauges(const struct gw_fleet *fl, struct buf *b)
{
  char lb[96];
  static const char *const names[] = { "hlfs_client_queued", "hlfs_client_in_flight",
                                       "hlfs_client_results_unacked",
                                       "hlfs_client_oldest_result_age_seconds" };
  static const char *const helps[] = {
    "Requests queued for the client, all replicas (the last fleet poll).",
    "Requests of the client being fetched, all replicas.",
    "Results published for the client and not yet acknowledged.",
    "Age of the client's oldest result not yet acknowledged (0: none).",
  };
  for(int m = 0; m < 4; m++) {
    gauge(b, names[m], helps[m]);
    for(size_t i = 0; i < fl->nclients; i++) {
      const struct gw_fleet_client *c = &fl->c[i];
      snprintf(lb, sizeof lb, "client=\"%s\"", c->name);
      uint64_t age_ms = c->oldest_ms && fl->now_ms > c->oldest_ms ? fl->now_ms - c->oldest_ms : 0;
      double v = m == 0 ? (double)c->queued : m == 1 ? (double)c->in_flight
               : m == 2 ? (double)c->results : (double)age_ms / 1000;
      metrics_sample(b, names[m], lb, v);
    }
  }
}

/* redis="state",shard="k" for each state Redis, redis="cache" for the page
 * cache's own. */
static void mem_samples(const struct gw *g, struct buf *b, const char *name, bool max)
{
  char lb[48];
  for(unsigned k = 0; k <= GW_MEM_CACHE; k++) {
    const struct gw_fleet_mem *m = &g->fleet.mem[k];
    if(!m->known || (k >= g->nstores && k != GW_MEM_CACHE))
      continue;
    if(k == GW_MEM_CACHE)
      snprintf(lb, sizeof lb, "redis=\"cache\"");
    else
      snprintf(lb, sizeof lb, "redis=\"state\",shard=\"%u\"", k);
    metrics_sample(b, name, lb, (double)(max ? m->max : m->used));
  }
}

void gw_client_metrics(struct gw *g, struct buf *b)
{
  tenant_metrics(&g->tenants, b);
  fleet_client_gauges(&g->fleet, b);
}

void gw_fleet_metrics(struct gw *g, struct buf *b)
{
  const struct gw_fleet *fl = &g->fleet;
  gauge(b, "hlfs_sched_budget", "Fetches this replica may have in flight (its share of "
        "fleet_budget, or budget).");
  metrics_sample_u(b, "hlfs_sched_budget", "", sched_budget(g->sched));
  gauge(b, "hlfs_replicas", "Gateway replicas that wrote a heartbeat in the last 15 s.");
  metrics_sample_u(b, "hlfs_replicas", "", fl->nreplicas);
  gauge(b, "hlfs_fleet_poll_ok", "1 when the last fleet poll was answered.");
  metrics_sample_u(b, "hlfs_fleet_poll_ok", "", fl->ok);
  gauge(b, "hlfs_redis_used_memory_bytes", "used_memory of each Redis (INFO memory).");
  mem_samples(g, b, "hlfs_redis_used_memory_bytes", false);
  gauge(b, "hlfs_redis_maxmemory_bytes", "maxmemory of each Redis (0: no limit).");
  mem_samples(g, b, "hlfs_redis_maxmemory_bytes", true);
  metrics_family(b, "hlfs_sched_claim_duration_seconds", "histogram",
                 "Round trip of each claim call to the state Redis.");
  metrics_lat_write(b, "hlfs_sched_claim_duration_seconds", "", &sched_stats(g->sched)->claim_lat);
  metrics_family(b, "hlfs_results_delivery_lag_seconds", "histogram",
                 "Time from a result's publication to its first delivery to its client.");
  metrics_lat_write(b, "hlfs_results_delivery_lag_seconds", "", &g->delivery_lag);
}
