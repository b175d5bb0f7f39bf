/* Ending a claim: complete (publish a result), robots done (store the
 * record, requeue the request), abort (requeue untouched), renew, and the
 * release of a robots.txt hop's lease. */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"

#define DONE_MAGIC 0xd0e0d0e1u

enum done_kind { DONE_COMPLETE, DONE_ROBOTS, DONE_RENEW, DONE_ABORT, DONE_HOP };

struct done_ctx {
  unsigned       magic;
  struct state  *st;
  enum done_kind kind;
  state_done_cb *cb;
  state_flags_cb *fcb;
  void          *arg;
  uint64_t       rest_ms;  /* the site rests this long from the write (journal) */
  bool           contact;  /* ...only if it was contacted */
  char           site[];   /* "" for a renewal (noted when sent) */
};

/* The lease ends with this call, written or not (a call that failed may
 * have run): the journal keeps the next allowed time as of now, at or
 * after Redis wrote it. */
static void done_note(struct done_ctx *x)
{
  if(x->site[0])
    sj_end(&x->st->journal, x->site, x->contact ? clock_mono_ms() + x->rest_ms + 1 : 0);
}

static void done_count(struct state *st, enum done_kind kind, int held)
{
  if(held == 2)
    st->stats.retried++;  /* back to its queue: neither lost nor completed */
  else if(!held)
    st->stats.lease_lost++;
  else if(kind == DONE_COMPLETE)
    st->stats.completed++;
  else if(kind == DONE_ROBOTS)
    st->stats.robots_stored++;
  else if(kind == DONE_RENEW)
    st->stats.renewed++;
  else if(kind == DONE_ABORT)
    st->stats.aborted++;
}

static void done_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct done_ctx *x = arg;
  assert(x && x->magic == DONE_MAGIC);
  int held = 0;
  uint64_t next_at = 0;
  const char *id = NULL;
  if(!err && store_v_len(v) < 1)
    err = STORE_PROTO;
  if(!err) {
    held = (int)store_v_int(store_v_at(v, 0), 0);
    next_at = state_u64(store_v_at(v, 1));
    id = store_v_str(store_v_at(v, 3), NULL);
    done_count(x->st, x->kind, held);
    if(held && x->kind == DONE_COMPLETE) {
      x->st->stats.coalesce_served += state_u64(store_v_at(v, 4));
      x->st->stats.coalesce_requeued += state_u64(store_v_at(v, 5));
    }
  }
  done_note(x);
  x->cb(x->arg, err, held, next_at, id);
  x->magic = 0;
  mem_free(x);
}

/* Per-pair 0/1 flags (renew), or one integer (abort). */
static void done_on_flags(void *arg, store_err err, const struct store_val *v)
{
  struct done_ctx *x = arg;
  assert(x && x->magic == DONE_MAGIC);
  size_t n = store_v_type(v) == STORE_V_ARR ? store_v_len(v) : 1;
  int one, *held = n > 1 ? mem_calloc(n, sizeof *held) : &one;
  if(!held)
    err = err ? err : STORE_NOMEM;
  for(size_t i = 0; !err && i < n; i++) {
    const struct store_val *e = store_v_type(v) == STORE_V_ARR ? store_v_at(v, i) : v;
    held[i] = store_v_int(e, 0) == 1;
    done_count(x->st, x->kind, held[i]);
  }
  done_note(x);
  x->fcb(x->arg, err, err ? NULL : held, err ? 0 : n);
  if(held != &one)
    mem_free(held);
  x->magic = 0;
  mem_free(x);
}

/* What the journal learns of the call when it answers: the site whose
 * lease it ends, and how long the site then rests (contact). */
struct done_note {
  const char *site;
  uint64_t    rest_ms;
  bool        contact;
};

static struct done_note done_of(const struct state_done *d)
{
  uint64_t us = d->delay.delay_ms * 1000;
  us = us > d->credit_us ? us - d->credit_us : 0;
  return (struct done_note){ d->site, (us + 999) / 1000, d->delay.reason != DELAY_NONE };
}

static store_err done_run(struct state *st, unsigned shard, enum lua_script sc,
                          enum done_kind kind, struct state_args *a, state_done_cb *cb,
                          state_flags_cb *fcb, void *arg, struct done_note note)
{
  size_t len = note.site ? strlen(note.site) : 0;
  struct done_ctx *x = mem_calloc(1, sizeof *x + len + 1);
  if(!x) {
    state_args_free(a);
    return STORE_NOMEM;
  }
  *x = (struct done_ctx){ DONE_MAGIC, st, kind, cb, fcb, arg, note.rest_ms, note.contact };
  memcpy(x->site, note.site ? note.site : "", len + 1);
  store_err e = state_run(st, shard, sc, a, fcb ? done_on_flags : done_on_reply, x);
  if(e) {
    x->magic = 0;
    mem_free(x);
  }
  return e;
}

/* The ARGV prefix complete and robots-done share. */
static void done_common(struct state_args *a, unsigned shard, const struct state_done *d)
{
  state_args_shard(a, shard);
  state_args_add(a, d->site);
  state_args_add(a, d->token);
  uint64_t delay_us = d->delay.delay_ms * 1000;
  /* contacted: 0 no; else 1 + the connections it opened (lib.lua's conns) */
  if(d->delay.reason == DELAY_NONE)
    state_args_add(a, "0");
  else
    state_args_addu(a, 1 + (uint64_t)d->conns);
  state_args_addu(a, delay_us > d->credit_us ? delay_us - d->credit_us : 0);
  state_args_add(a, delay_reason_name(d->delay.reason));
  state_args_addu(a, d->delay.streak);
  state_args_add(a, d->delay.backoff ? "1" : "0");
  state_args_addu(a, d->response_ms);
  state_args_add(a, d->local_due ? d->local_due : "");
}

/* The smallest max_age code a copy age_ms old is younger than (pages.h,
 * page_is_fresh): waiters below it asked for a fresher copy than the one
 * served. A fetch (not stored) satisfies every waiter, max_age 0 too. */
static unsigned state_age_need(bool stored, uint64_t age_ms)
{
  if(!stored)
    return 0;
  uint64_t s = age_ms / 1000 + 1;  /* whole seconds: age_ms < s * 1000 */
  unsigned c = qenc_maxage_code(s);
  return qenc_maxage_secs(c) >= s ? c : c + 1;
}

store_err state_complete(struct state *st, unsigned shard, const struct state_done *d,
                         state_done_cb *cb, void *arg)
{
  state_check(st);
  if(shard >= st->cfg.nshards || d->nfields % 2 || d->nfields > 64)
    return STORE_PROTO;
  struct state_args a;
  store_err e = state_args_init(&a, 19 + (int)d->nfields);
  if(e)
    return e;
  done_common(&a, shard, d);
  state_args_addu(&a, st->cfg.results_maxlen);
  state_args_addu(&a, st->cfg.idle_keep_ms);
  state_args_addu(&a, state_age_need(d->stored, d->age_ms));
  state_args_add(&a, d->hopped ? "h" : d->followed ? "f" : "p");
  state_args_add(&a, d->retry == 'r' ? "r" : d->retry == 'l' ? "l" : "0");
  state_args_addu(&a, d->max_attempts ? d->max_attempts : 1);
  state_args_addu(&a, d->lost_max);
  state_args_add(&a, d->attempt ? d->attempt : "");
  for(size_t i = 0; i < d->nfields; i++)
    state_args_add(&a, d->fields[i] ? d->fields[i] : "");
  return done_run(st, shard, LUA_COMPLETE, DONE_COMPLETE, &a, cb, NULL, arg, done_of(d));
}

store_err state_robots_done(struct state *st, unsigned shard, const struct state_done *d,
                            const char *origin, const struct state_robots *rec,
                            state_done_cb *cb, void *arg)
{
  state_check(st);
  if(shard >= st->cfg.nshards)
    return STORE_PROTO;
  struct state_args a;
  store_err e = state_args_init(&a, 27);
  if(e)
    return e;
  done_common(&a, shard, d);
  state_args_addu(&a, st->cfg.idle_keep_ms);
  state_args_add(&a, origin);
  state_args_addf(&a, "%d", rec->status);
  state_args_addn(&a, rec->body ? rec->body : "", rec->body ? rec->body_len : 0);
  state_args_addu(&a, rec->crawl_delay_ms);
  state_args_addu(&a, rec->ttl_ms);
  state_args_addu(&a, rec->retry_ms);
  state_args_addu(&a, st->cfg.robots_keep_ms);
  state_args_addu(&a, rec->good_at);
  state_args_addu(&a, rec->outage_since);
  state_args_addu(&a, rec->error_streak);
  state_args_addu(&a, rec->hops);
  state_args_add(&a, rec->hops && rec->final_url ? rec->final_url : "");
  state_args_add(&a, rec->cause);
  state_args_addf(&a, "%d", rec->cause_status);
  state_args_add(&a, rec->cause_detail);
  return done_run(st, shard, LUA_ROBOTS_DONE, DONE_ROBOTS, &a, cb, NULL, arg, done_of(d));
}

store_err state_abort(struct state *st, unsigned shard, const char *site,
                      const char *token, uint64_t charge_ms, state_flags_cb *cb, void *arg)
{
  return state_abort_why(st, shard, site, token, charge_ms, NULL, cb, arg);
}

store_err state_abort_why(struct state *st, unsigned shard, const char *site,
                          const char *token, uint64_t charge_ms, const char *reason,
                          state_flags_cb *cb, void *arg)
{
  state_check(st);
  if(shard >= st->cfg.nshards)
    return STORE_PROTO;
  struct state_args a;
  store_err e = state_args_init(&a, 7);
  if(e)
    return e;
  state_args_shard(&a, shard);
  state_args_add(&a, site);
  state_args_add(&a, token);
  state_args_addu(&a, st->cfg.idle_keep_ms);
  state_args_addu(&a, charge_ms);
  if(reason)
    state_args_add(&a, reason);
  return done_run(st, shard, LUA_ABORT, DONE_ABORT, &a, NULL, cb, arg,
                  (struct done_note){ site, charge_ms, charge_ms > 0 });
}

static void done_ignore(void *arg, store_err err, const int *held, size_t n)
{
  (void)arg;
  (void)err;
  (void)held;
  (void)n;
}

store_err state_hop_free(struct state *st, const struct state_done *d,
                         state_flags_cb *cb, void *arg)
{
  state_check(st);
  struct state_args a;
  store_err e = state_args_init(&a, 12);
  if(e)
    return e;
  unsigned shard = site_shard(d->site, st->cfg.nshards);
  done_common(&a, shard, d);
  state_args_addu(&a, st->cfg.idle_keep_ms);
  return done_run(st, shard, LUA_HOP_FREE, DONE_HOP, &a, NULL, cb ? cb : done_ignore, arg,
                  done_of(d));
}

store_err state_renew(struct state *st, unsigned shard, uint32_t lease_ms,
                      const char *const *sites, const char *const *tokens, size_t n,
                      state_flags_cb *cb, void *arg)
{
  state_check(st);
  if(shard >= st->cfg.nshards || !n || n > INT_MAX / 4)
    return STORE_PROTO;
  struct state_args a;
  store_err e = state_args_init(&a, 3 + 2 * (int)n);
  if(e)
    return e;
  state_args_shard(&a, shard);
  state_args_addu(&a, lease_ms);
  uint64_t end = clock_mono_ms() + lease_ms;  /* Redis writes now + lease_ms a moment later */
  for(size_t i = 0; i < n; i++) {
    state_args_add(&a, sites[i]);
    state_args_add(&a, tokens[i]);
    sj_lease(&st->journal, sites[i], tokens[i], end + 1);
  }
  return done_run(st, shard, LUA_RENEW, DONE_RENEW, &a, NULL, cb, arg,
                  (struct done_note){ NULL, 0, false });
}
