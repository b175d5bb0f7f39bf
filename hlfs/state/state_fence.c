/* After a state Redis changed under the gateways: the fence that holds
 * claims on its shards (lua_fence), with the roll call of the replicas
 * alive before, and this replica's answer to it: its recent politeness
 * writes written again (lua_reapply, from state_journal.c). */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <limits.h>

#include "common/mem.h"
#include "hlfs/policy/site.h"

#define FENCE_MAGIC   0xfe4ceu
#define REAPPLY_BATCH 128  /* sites a call */

struct fence_ctx {
  unsigned        magic;
  struct state   *st;
  state_count_cb *cb;
  void           *arg;
  bool            reapply;  /* the reply is { written, left } */
};

static void fence_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct fence_ctx *x = arg;
  assert(x && x->magic == FENCE_MAGIC);
  long long n = 0;
  if(!err && x->reapply) {
    x->st->stats.reapplied += state_u64(store_v_at(v, 0));
    n = store_v_int(store_v_at(v, 1), -1);
  } else if(!err) {
    n = store_v_int(v, 0);
  }
  if(x->cb)
    x->cb(x->arg, err, n);
  x->magic = 0;
  mem_free(x);
}

static store_err fence_send(struct state *st, unsigned shard, enum lua_script sc,
                            struct state_args *a, state_count_cb *cb, void *arg)
{
  struct fence_ctx *x = mem_calloc(1, sizeof *x);
  if(!x) {
    state_args_free(a);
    return STORE_NOMEM;
  }
  *x = (struct fence_ctx){ FENCE_MAGIC, st, cb, arg, sc == LUA_REAPPLY };
  store_err e = state_run(st, shard, sc, a, fence_on_reply, x);
  if(e) {
    x->magic = 0;
    mem_free(x);
  }
  return e;
}

/* The last shard of part: the one whose answer goes to cb. */
static unsigned part_last(const struct state *st, unsigned part)
{
  unsigned last = part;
  for(unsigned sh = part; sh < st->cfg.nshards; sh += st->nstores)
    last = sh;
  return last;
}

store_err state_fence(struct state *st, unsigned part, uint32_t hold_ms,
                      const struct state_roll *roll, state_count_cb *cb, void *arg)
{
  state_check(st);
  if(part >= st->nstores || (roll && roll->n > 256))
    return STORE_PROTO;
  bool call = roll && roll->run_id && *roll->run_id;
  unsigned last = part_last(st, part);
  store_err e = STORE_OK;
  for(unsigned sh = part; !e && sh < st->cfg.nshards; sh += st->nstores) {
    struct state_args a;
    e = state_args_init(&a, 4 + (call ? (int)roll->n : 0));
    if(e)
      break;
    state_args_shard(&a, sh);
    state_args_addu(&a, hold_ms);
    state_args_add(&a, call ? roll->run_id : "");
    for(size_t i = 0; call && i < roll->n; i++)
      state_args_add(&a, roll->names[i]);
    e = fence_send(st, sh, LUA_FENCE, &a, sh == last ? cb : NULL, arg);
  }
  return e;
}

/* One shard's share of the journal, batched into calls of lua_reapply. */
struct reapply {
  struct state     *st;
  unsigned          shard;
  const char       *replica, *run_id;
  uint32_t          lost_ms;
  struct state_args a;
  int               nsites;  /* in a */
  int               final;   /* a's slot of the final flag */
  store_err         err;
};

static void reapply_begin(struct reapply *r)
{
  if(r->err)
    return;
  r->err = state_args_init(&r->a, 7 + 4 * REAPPLY_BATCH);
  if(r->err)
    return;
  state_args_shard(&r->a, r->shard);
  state_args_add(&r->a, r->replica);
  state_args_add(&r->a, r->run_id);
  r->final = r->a.n;
  state_args_add(&r->a, "0");
  state_args_addu(&r->a, r->lost_ms);
  state_args_addu(&r->a, r->st->cfg.idle_keep_ms);
  r->nsites = 0;
}

static int reapply_site(void *arg, const char *site, const char *token, uint64_t lease_left_ms,
                        uint64_t na_left_ms)
{
  struct reapply *r = arg;
  if(r->err || site_shard(site, r->st->cfg.nshards) != r->shard)
    return 1;
  if(r->nsites == REAPPLY_BATCH) {
    r->err = fence_send(r->st, r->shard, LUA_REAPPLY, &r->a, NULL, NULL);
    reapply_begin(r);
    if(r->err)
      return 1;
  }
  state_args_add(&r->a, site);
  state_args_add(&r->a, token);
  state_args_addu(&r->a, lease_left_ms);
  state_args_addu(&r->a, na_left_ms);
  r->nsites++;
  return 0;
}

store_err state_reapply(struct state *st, unsigned part, const char *replica, const char *run_id,
                        uint32_t lost_ms, state_count_cb *cb, void *arg)
{
  state_check(st);
  if(part >= st->nstores)
    return STORE_PROTO;
  /* a journal with a gap must not answer the roll: what it lost would be
   * asked early once the fence lifts */
  const char *call = run_id && sj_whole(&st->journal) ? run_id : "";
  unsigned last = part_last(st, part);
  store_err e = STORE_OK;
  for(unsigned sh = part; !e && sh < st->cfg.nshards; sh += st->nstores) {
    struct reapply r = { st, sh, replica, call, lost_ms, { 0 }, 0, 0, STORE_OK };
    reapply_begin(&r);
    sj_each(&st->journal, reapply_site, &r);
    if(!r.err) {  /* the last batch, after the others on the same connection, answers the roll */
      r.a.v[r.final] = "1";
      r.err = fence_send(st, sh, LUA_REAPPLY, &r.a, sh == last ? cb : NULL, arg);
    }
    e = r.err;
  }
  return e;
}
