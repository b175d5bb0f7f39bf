/* The fleet at a glance: a run of lua_fleet on every shard (heartbeat,
 * replicas, clients, busiest sites), the nested replies made into flat
 * arrays and merged. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/state/state_int.h"
#include "hlfs/state/store.h"

#define FLEET_MAGIC 0xf1ee7001u

static uint64_t v_u64(const struct store_val *v)
{
  if(store_v_type(v) == STORE_V_INT) {
    long long n = store_v_int(v, 0);
    return n > 0 ? (uint64_t)n : 0;
  }
  const char *s = store_v_str(v, NULL);
  return s ? strtoull(s, NULL, 10) : 0;
}

static const char *v_str(const struct store_val *v)
{
  const char *s = store_v_str(v, NULL);
  return s ? s : "";
}

/* Each row of list as a fixed number of cells: rows of other shapes are a
 * protocol error. */
static bool rows_ok(const struct store_val *list, size_t cells)
{
  for(size_t i = 0; i < store_v_len(list); i++)
    if(store_v_len(store_v_at(list, i)) != cells)
      return false;
  return true;
}

static store_err fleet_parse(const struct store_val *v, struct state_fleet *f)
{
  const struct store_val *rp = store_v_at(v, 1), *cl = store_v_at(v, 2), *st = store_v_at(v, 3);
  if(store_v_len(v) != 6 || !rows_ok(rp, 3) || !rows_ok(cl, 5) || !rows_ok(st, 7))
    return STORE_PROTO;
  f->now_ms = v_u64(store_v_at(v, 0));
  f->pairs = v_u64(store_v_at(v, 4));
  f->examined = v_u64(store_v_at(v, 5));
  struct state_fleet_replica *r = mem_calloc(store_v_len(rp) + 1, sizeof *r);
  struct state_fleet_client *c = mem_calloc(store_v_len(cl) + 1, sizeof *c);
  struct state_fleet_site *s = mem_calloc(store_v_len(st) + 1, sizeof *s);
  f->replicas = r, f->clients = c, f->sites = s;
  if(!r || !c || !s)
    return STORE_NOMEM;
  for(size_t i = 0; i < store_v_len(rp); i++, f->nreplicas++) {
    const struct store_val *x = store_v_at(rp, i);
    r[i] = (struct state_fleet_replica){ v_str(store_v_at(x, 0)), v_str(store_v_at(x, 2)),
                                         v_u64(store_v_at(x, 1)) };
  }
  for(size_t i = 0; i < store_v_len(cl); i++, f->nclients++) {
    const struct store_val *x = store_v_at(cl, i);
    uint64_t q = v_u64(store_v_at(x, 1)), n = v_u64(store_v_at(x, 2));
    c[i] = (struct state_fleet_client){ v_str(store_v_at(x, 0)), q, n > q ? n - q : 0,
                                        v_u64(store_v_at(x, 3)), v_u64(store_v_at(x, 4)) };
  }
  for(size_t i = 0; i < store_v_len(st); i++, f->nsites++) {
    const struct store_val *x = store_v_at(st, i);
    s[i] = (struct state_fleet_site){ .site = v_str(store_v_at(x, 0)),
                                      .queued = v_u64(store_v_at(x, 1)),
                                      .next_at = v_u64(store_v_at(x, 2)),
                                      .next_reason = v_str(store_v_at(x, 3)),
                                      .lease_until = v_u64(store_v_at(x, 4)),
                                      .error_streak = (uint32_t)v_u64(store_v_at(x, 5)),
                                      .last_at = v_u64(store_v_at(x, 6)) };
  }
  return STORE_OK;
}

/* The shards answer one by one; their answers are merged here, strings
 * copied (a reply lives only during its callback): clients summed by name,
 * sites ranked again over all shards, the replicas from shard 0 (the one
 * that holds the heartbeats). */
struct fleet_gather {
  unsigned        magic;
  state_fleet_cb *cb;
  void           *arg;
  unsigned        pending, top;
  store_err       err;
  struct state_fleet f;
  struct state_fleet_replica *r;
  struct state_fleet_client  *c;
  struct state_fleet_site    *s;
  size_t          capr, capc, caps;
};

struct fleet_ctx {
  unsigned             magic;
  struct fleet_gather *g;
  unsigned             shard;
};

static char *dup_or(struct fleet_gather *g, const char *s)
{
  char *d = mem_strdup(s);
  if(!d)
    g->err = STORE_NOMEM;
  return d;
}

static bool grow(void **a, size_t *cap, size_t need, size_t size)
{
  if(need <= *cap)
    return true;
  size_t n = *cap ? 2 * *cap : 16;
  while(n < need)
    n *= 2;
  void *p = mem_realloc(*a, n * size);
  if(!p)
    return false;
  *a = p;
  *cap = n;
  return true;
}

static void merge_client(struct fleet_gather *g, const struct state_fleet_client *c)
{
  for(size_t i = 0; i < g->f.nclients; i++) {
    struct state_fleet_client *m = &g->c[i];
    if(strcmp(m->name, c->name))
      continue;
    m->queued += c->queued;
    m->in_flight += c->in_flight;
    m->results += c->results;
    if(c->oldest_ms && (!m->oldest_ms || c->oldest_ms < m->oldest_ms))
      m->oldest_ms = c->oldest_ms;
    return;
  }
  if(!grow((void **)&g->c, &g->capc, g->f.nclients + 1, sizeof *g->c)) {
    g->err = STORE_NOMEM;
    return;
  }
  g->c[g->f.nclients] = *c;
  g->c[g->f.nclients++].name = dup_or(g, c->name);
}

static void merge(struct fleet_gather *g, unsigned shard, const struct state_fleet *f)
{
  if(shard == 0) {
    g->f.now_ms = f->now_ms;
    if(!grow((void **)&g->r, &g->capr, f->nreplicas, sizeof *g->r))
      g->err = STORE_NOMEM;
    for(size_t i = 0; !g->err && i < f->nreplicas; i++) {
      g->r[g->f.nreplicas] = f->replicas[i];
      g->r[g->f.nreplicas].name = dup_or(g, f->replicas[i].name);
      g->r[g->f.nreplicas++].info = dup_or(g, f->replicas[i].info);
    }
  }
  g->f.pairs += f->pairs;
  g->f.examined += f->examined;
  for(size_t i = 0; !g->err && i < f->nclients; i++)
    merge_client(g, &f->clients[i]);
  if(!grow((void **)&g->s, &g->caps, g->f.nsites + f->nsites, sizeof *g->s))
    g->err = STORE_NOMEM;
  for(size_t i = 0; !g->err && i < f->nsites; i++) {
    g->s[g->f.nsites] = f->sites[i];
    g->s[g->f.nsites].site = dup_or(g, f->sites[i].site);
    g->s[g->f.nsites++].next_reason = dup_or(g, f->sites[i].next_reason);
  }
}

static int site_busier(const void *a, const void *b)
{
  const struct state_fleet_site *x = a, *y = b;
  return x->queued != y->queued ? (x->queued < y->queued ? 1 : -1) : strcmp(x->site, y->site);
}

static void gather_end(struct fleet_gather *g)
{
  size_t nsites = g->f.nsites;
  if(!g->err) {
    if(g->f.nsites > 1)  /* g->s is NULL while no shard named a site */
      qsort(g->s, g->f.nsites, sizeof *g->s, site_busier);
    if(g->f.nsites > g->top)
      g->f.nsites = g->top;
    g->f.replicas = g->r, g->f.clients = g->c, g->f.sites = g->s;
  }
  g->cb(g->arg, g->err, g->err ? NULL : &g->f);
  for(size_t i = 0; i < g->f.nreplicas; i++) {
    mem_free((void *)g->r[i].name);
    mem_free((void *)g->r[i].info);
  }
  for(size_t i = 0; i < g->f.nclients; i++)
    mem_free((void *)g->c[i].name);
  for(size_t i = 0; i < nsites; i++) {
    mem_free((void *)g->s[i].site);
    mem_free((void *)g->s[i].next_reason);
  }
  mem_free(g->r);
  mem_free(g->c);
  mem_free(g->s);
  g->magic = 0;
  mem_free(g);
}

static void fleet_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct fleet_ctx *x = arg;
  assert(x && x->magic == FLEET_MAGIC);
  struct fleet_gather *g = x->g;
  struct state_fleet f = { 0 };
  if(!err)
    err = fleet_parse(v, &f);
  if(err && !g->err)
    g->err = err;
  if(!g->err)
    merge(g, x->shard, &f);
  mem_free((void *)f.replicas);
  mem_free((void *)f.clients);
  mem_free((void *)f.sites);
  x->magic = 0;
  mem_free(x);
  if(--g->pending == 0)
    gather_end(g);
}

static store_err fleet_send(struct state *st, unsigned shard, const struct state_fleet_args *fa,
                            struct fleet_gather *g)
{
  struct fleet_ctx *x = mem_calloc(1, sizeof *x);
  struct state_args a;
  if(!x)
    return STORE_NOMEM;
  store_err e = state_args_init(&a, 8 + (int)fa->nclients);
  if(e) {
    mem_free(x);
    return e;
  }
  *x = (struct fleet_ctx){ FLEET_MAGIC, g, shard };
  state_args_shard(&a, shard);
  state_args_add(&a, fa->replica && shard == 0 ? fa->replica : "");
  state_args_add(&a, fa->info ? fa->info : "");
  state_args_addu(&a, fa->replica_ttl_ms);
  state_args_addu(&a, fa->top);
  state_args_addu(&a, fa->examine);
  for(size_t i = 0; i < fa->nclients; i++)
    state_args_add(&a, fa->clients[i]);
  e = state_run(st, shard, LUA_FLEET, &a, fleet_on_reply, x);
  if(e) {
    x->magic = 0;
    mem_free(x);
  }
  return e;
}

store_err state_fleet(struct state *st, const struct state_fleet_args *fa,
                      state_fleet_cb *cb, void *arg)
{
  state_check(st);
  struct fleet_gather *g = mem_calloc(1, sizeof *g);
  if(!g)
    return STORE_NOMEM;
  *g = (struct fleet_gather){ .magic = FLEET_MAGIC, .cb = cb, .arg = arg, .pending = 1,
                              .top = fa->top };
  store_err e = STORE_OK;
  for(unsigned sh = 0; !e && sh < st->cfg.nshards; sh++) {
    e = fleet_send(st, sh, fa, g);
    if(!e)
      g->pending++;
  }
  if(e && g->pending == 1) {  /* nothing sent: no callback */
    g->magic = 0;
    mem_free(g);
    return e;
  }
  if(e)
    g->err = e;  /* the shards asked answer first, then the error */
  if(--g->pending == 0)
    gather_end(g);
  return STORE_OK;
}
