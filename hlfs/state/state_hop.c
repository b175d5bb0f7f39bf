/* Taking another site's lease for one robots.txt redirect hop (lua_hop_take;
 * its release is state_hop_free in state_done.c). */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"

#define HOP_MAGIC 0x40b7a4e1u

struct hop_ctx {
  unsigned      magic;
  struct state *st;
  state_hop_cb *cb;
  void         *arg;
  uint32_t      lease_ms;
  char         *token;     /* in site's allocation */
  char          site[];
};

static void hop_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct hop_ctx *x = arg;
  assert(x && x->magic == HOP_MAGIC);
  bool granted = false;
  uint64_t wait_ms = 0;
  uint32_t streak = 0;
  if(!err && store_v_len(v) < 2)
    err = STORE_PROTO;
  if(!err) {
    granted = store_v_int(store_v_at(v, 0), 0) == 1;
    uint64_t n = state_u64(store_v_at(v, 1));
    if(granted)
      streak = (uint32_t)n;
    else
      wait_ms = n;
  }
  if(granted)  /* the lease runs from the write, at or before now */
    sj_lease(&x->st->journal, x->site, x->token, clock_mono_ms() + x->lease_ms + 1);
  x->cb(x->arg, err, granted, wait_ms, streak);
  x->magic = 0;
  mem_free(x);
}

store_err state_hop_take(struct state *st, const char *site, const char *token,
                         uint32_t lease_ms, uint64_t max_wait_ms, uint32_t hold_ms,
                         state_hop_cb *cb, void *arg)
{
  state_check(st);
  struct state_args a;
  size_t sl = strlen(site), tl = strlen(token);
  struct hop_ctx *x = mem_calloc(1, sizeof *x + sl + tl + 2);
  if(!x)
    return STORE_NOMEM;
  store_err e = state_args_init(&a, 7);
  if(e) {
    mem_free(x);
    return e;
  }
  *x = (struct hop_ctx){ HOP_MAGIC, st, cb, arg, lease_ms, NULL };
  memcpy(x->site, site, sl + 1);
  x->token = x->site + sl + 1;
  memcpy(x->token, token, tl + 1);
  unsigned shard = site_shard(site, st->cfg.nshards);
  state_args_shard(&a, shard);
  state_args_add(&a, site);
  state_args_add(&a, token);
  state_args_addu(&a, lease_ms);
  state_args_addu(&a, max_wait_ms);
  state_args_addu(&a, hold_ms);
  e = state_run(st, shard, LUA_HOP_TAKE, &a, hop_on_reply, x);
  if(e) {
    x->magic = 0;
    mem_free(x);
  }
  return e;
}
