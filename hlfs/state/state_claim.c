/* state_claim: run the claim script on one shard and hand the claims over
 * as typed records (strings point into the reply). */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/mem.h"

#define CLAIM_MAGIC   0xc1a1e5a1u
#define CLAIM_MAX     256
#define CLAIM_FIELDS  13

struct claim_ctx {
  unsigned        magic;
  struct state   *st;
  state_claim_cb *cb;
  void           *arg;
};

static const char *claim_str(const struct store_val *c, size_t i)
{
  const char *s = store_v_str(store_v_at(c, i), NULL);
  return s ? s : "";
}

static int claim_parse_one(const struct store_val *c, struct state_claim *out)
{
  if(store_v_len(c) != CLAIM_FIELDS)
    return -1;
  out->site = claim_str(c, 0);
  out->client = claim_str(c, 1);
  out->url = claim_str(c, 2);
  out->score = state_u64(store_v_at(c, 3));
  out->token = claim_str(c, 4);
  out->rid = claim_str(c, 5);
  out->error_streak = (uint32_t)state_u64(store_v_at(c, 6));
  out->lease_until = state_u64(store_v_at(c, 7));
  out->waiters = (unsigned)state_u64(store_v_at(c, 8));
  out->follow = *claim_str(c, 10) ? claim_str(c, 10) : NULL;
  out->hold_us = state_u64(store_v_at(c, 11));
  out->local_due = *claim_str(c, 12) ? claim_str(c, 12) : NULL;
  qenc_score_unpack(out->score, &out->q);
  /* the claim serves its waiters too: the strictest max_age wins */
  uint64_t wage = qenc_maxage_secs((unsigned)state_u64(store_v_at(c, 9)) & 511);
  if(out->waiters && wage < out->q.max_age_s)
    out->q.max_age_s = wage;
  return *out->site && *out->token ? 0 : -1;
}

static store_err claim_parse(struct state *st, const struct store_val *v,
                             struct state_claim_res *r, struct state_claim **claims)
{
  size_t len = store_v_len(v);
  if(len < 5)
    return STORE_PROTO;
  r->now = state_u64(store_v_at(v, 0));
  r->wake_in_us = store_v_int(store_v_at(v, 1), -1);
  r->reaped = (unsigned)state_u64(store_v_at(v, 2));
  r->abandoned = (unsigned)state_u64(store_v_at(v, 3));
  r->skipped = (unsigned)state_u64(store_v_at(v, 4));
  r->n = len - 5;
  *claims = r->n ? mem_calloc(r->n, sizeof **claims) : NULL;
  if(r->n && !*claims)
    return STORE_NOMEM;
  for(size_t i = 0; i < r->n; i++)
    if(claim_parse_one(store_v_at(v, 5 + i), &(*claims)[i]))
      return STORE_PROTO;
  r->claims = *claims;
  uint64_t mono = clock_mono_ms();
  for(size_t i = 0; i < r->n; i++) {
    const struct state_claim *c = &(*claims)[i];
    sj_lease(&st->journal, c->site, c->token,
             mono + (c->lease_until > r->now ? c->lease_until - r->now : 0));
  }
  st->stats.claims += r->n;
  st->stats.leases_reaped += r->reaped;
  st->stats.abandoned += r->abandoned;
  st->stats.lease_skipped += r->skipped;
  return STORE_OK;
}

/* A parse failure after the script ran would strand leased claims until
 * their leases expire; that only happens on a script/reader mismatch. */
static void claim_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct claim_ctx *x = arg;
  assert(x && x->magic == CLAIM_MAGIC);
  struct state_claim_res r = { .wake_in_us = -1 };
  struct state_claim *claims = NULL;
  if(!err)
    err = claim_parse(x->st, v, &r, &claims);
  if(err)
    r = (struct state_claim_res){ .wake_in_us = -1 };
  x->cb(x->arg, err, &r);
  mem_free(claims);
  x->magic = 0;
  mem_free(x);
}

store_err state_claim(struct state *st, unsigned shard, const struct state_claim_args *a,
                      state_claim_cb *cb, void *arg)
{
  state_check(st);
  if(shard >= st->cfg.nshards || !a->max || a->max > CLAIM_MAX)
    return STORE_PROTO;
  if(!state_shard_ok(st, shard)) {
    state_group_recheck(st, shard);
    return STORE_DOWN;
  }
  struct claim_ctx *x = mem_calloc(1, sizeof *x);
  if(!x)
    return STORE_NOMEM;
  *x = (struct claim_ctx){ CLAIM_MAGIC, st, cb, arg };
  struct state_args args;
  store_err e = state_args_init(&args, 11);
  if(!e) {
    state_args_shard(&args, shard);
    state_args_addu(&args, a->max);
    state_args_addu(&args, a->lease_ms);
    state_args_add(&args, a->token_prefix);
    state_args_addu(&args, a->reap_max);
    state_args_addu(&args, a->max_attempts);
    state_args_addu(&args, st->cfg.results_maxlen);
    state_args_addu(&args, st->cfg.idle_keep_ms);
    state_args_addu(&args, a->scan_clients);
    state_args_addu(&args, a->ahead_us);
    e = state_run(st, shard, LUA_CLAIM, &args, claim_on_reply, x);
  }
  if(e) {
    mem_free(x);
    return e;
  }
  st->stats.claim_calls++;
  return STORE_OK;
}
