/* The fleet at a glance: one run of lua_fleet (heartbeat, replicas,
 * clients, busiest sites), its nested reply made into flat arrays. And the
 * fleet-wide fence after a failover (lua_fence). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/state/state_int.h"
#include "hlfs/state/store.h"

#define FLEET_MAGIC 0xf1ee7001u

struct fleet_ctx {
  unsigned        magic;
  state_fleet_cb *cb;
  void           *arg;
};

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

static void fleet_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct fleet_ctx *x = arg;
  assert(x && x->magic == FLEET_MAGIC);
  struct state_fleet f = { 0 };
  if(!err)
    err = fleet_parse(v, &f);
  x->cb(x->arg, err, err ? NULL : &f);
  mem_free((void *)f.replicas);
  mem_free((void *)f.clients);
  mem_free((void *)f.sites);
  x->magic = 0;
  mem_free(x);
}

store_err state_fleet(struct state *st, unsigned shard, const struct state_fleet_args *fa,
                      state_fleet_cb *cb, void *arg)
{
  state_check(st);
  if(shard >= st->cfg.nshards)
    return STORE_PROTO;
  struct fleet_ctx *x = mem_calloc(1, sizeof *x);
  struct state_args a;
  if(!x)
    return STORE_NOMEM;
  store_err e = state_args_init(&a, 8 + (int)fa->nclients);
  if(e) {
    mem_free(x);
    return e;
  }
  *x = (struct fleet_ctx){ FLEET_MAGIC, cb, arg };
  state_args_shard(&a, shard);
  state_args_add(&a, fa->replica ? fa->replica : "");
  state_args_add(&a, fa->info ? fa->info : "");
  state_args_addu(&a, fa->replica_ttl_ms);
  state_args_addu(&a, fa->top);
  state_args_addu(&a, fa->examine);
  for(size_t i = 0; i < fa->nclients; i++)
    state_args_add(&a, fa->clients[i]);
  e = state_run(st, LUA_FLEET, &a, fleet_on_reply, x);
  if(e) {
    x->magic = 0;
    mem_free(x);
  }
  return e;
}

struct fence_ctx {
  unsigned        magic;
  state_count_cb *cb;
  void           *arg;
};

static void fence_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct fence_ctx *x = arg;
  assert(x && x->magic == FLEET_MAGIC);
  if(x->cb)
    x->cb(x->arg, err, err ? 0 : store_v_int(v, 0));
  x->magic = 0;
  mem_free(x);
}

store_err state_fence(struct state *st, uint32_t hold_ms, state_count_cb *cb, void *arg)
{
  state_check(st);
  store_err e = STORE_OK;
  for(unsigned sh = 0; !e && sh < st->cfg.nshards; sh++) {
    struct fence_ctx *x = mem_calloc(1, sizeof *x);
    struct state_args a;
    if(!x)
      return STORE_NOMEM;
    *x = (struct fence_ctx){ FLEET_MAGIC, sh + 1 == st->cfg.nshards ? cb : NULL, arg };
    e = state_args_init(&a, 4);
    if(!e) {
      state_args_shard(&a, sh);
      state_args_addu(&a, hold_ms);
      e = state_run(st, LUA_FENCE, &a, fence_on_reply, x);
    }
    if(e) {
      x->magic = 0;
      mem_free(x);
    }
  }
  return e;
}
