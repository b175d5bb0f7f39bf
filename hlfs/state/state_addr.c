/* Slots per address (lua_addr): the shard of an address is the one its
 * text hashes to, as a site's is, so every replica asks the same Redis. */
#include "common/mem.h"
#include "hlfs/policy/site.h"
#include "hlfs/state/state_int.h"
#include "hlfs/state/store.h"

#define ADDR_MAGIC 0xadd75107u

struct addr_call {
  unsigned       magic;
  state_addr_cb *cb;
  void          *arg;
};

static void addr_taken(void *arg, store_err err, const struct store_val *v)
{
  struct addr_call *c = arg;
  CHECK(c->magic == ADDR_MAGIC);
  uint64_t wait = 0;
  if(!err && store_v_type(v) != STORE_V_INT)
    err = STORE_PROTO;
  if(!err)
    wait = state_u64(v);
  c->magic = 0;
  c->cb(c->arg, err, wait > UINT32_MAX ? UINT32_MAX : (uint32_t)wait);
  mem_free(c);
}

static store_err addr_args(struct state *st, struct state_args *a, const char *op,
                           const char *addr, const char *token, unsigned *shard)
{
  store_err e = state_args_init(a, 10);
  if(e)
    return e;
  *shard = site_shard(addr, st->cfg.nshards);
  state_args_shard(a, *shard);
  state_args_add(a, op);
  state_args_add(a, addr);
  state_args_add(a, token);
  return STORE_OK;
}

store_err state_addr_take(struct state *st, const char *addr, const char *token,
                          const struct state_addr_limit *lim, state_addr_cb *cb, void *arg)
{
  state_check(st);
  struct state_args a;
  unsigned shard;
  struct addr_call *c = mem_calloc(1, sizeof *c);
  if(!c)
    return STORE_NOMEM;
  store_err e = addr_args(st, &a, "take", addr, token, &shard);
  if(e) {
    mem_free(c);
    return e;
  }
  state_args_addu(&a, lim->max_conns);
  state_args_addu(&a, lim->min_gap_ms);
  state_args_addu(&a, lim->lease_ms);
  state_args_addu(&a, lim->busy_ms);
  *c = (struct addr_call){ ADDR_MAGIC, cb, arg };
  e = state_run(st, shard, LUA_ADDR, &a, addr_taken, c);
  if(e)
    mem_free(c);
  return e;
}

static void addr_given(void *arg, store_err err, const struct store_val *v)
{
  (void)arg;
  (void)err;
  (void)v;
}

/* Fire and forget: a slot that is not given back lapses with its lease. */
store_err state_addr_give(struct state *st, const char *addr, const char *token)
{
  state_check(st);
  struct state_args a;
  unsigned shard;
  store_err e = addr_args(st, &a, "give", addr, token, &shard);
  return e ? e : state_run(st, shard, LUA_ADDR, &a, addr_given, NULL);
}
