/* Synchronous wrappers over hlfs/state/state.h for integration tests. */
#ifndef WPFS_ITEST_STATE_UTIL_H
#define WPFS_ITEST_STATE_UTIL_H
#include "hlfs/state/state.h"
#include "tests/integ/itest_redis.h"

static struct store *ts_store;
static struct state *ts_st;

static inline struct state_cfg ts_cfg(unsigned nshards)
{
  return (struct state_cfg){ .nshards = nshards, .site_mode = SITE_BY_HOST,
                             .results_maxlen = 1000000, .idle_keep_ms = 3600000,
                             .robots_keep_ms = 86400000, .queue_retry_ms = 5000 };
}

/* Until every Redis of st was checked to be its shard group. */
static inline void ts_wait_ready(struct state *st)
{
  uint64_t end = clock_mono_ms() + 5000;
  while(!state_ready(st) && clock_mono_ms() < end)
    uv_run(it_loop, UV_RUN_ONCE);
  assert_true(state_ready(st));
}

/* Options of the calls below; ts_open resets them, so that a test that
 * failed halfway leaves none to the next. */
static uint32_t ts_ahead_us;      /* the claims' ahead_us */
static unsigned ts_scan_clients;  /* the claims' scan_clients (ts_open: 1000) */
static const char *ts_local_due;  /* the completions' local_due */

static inline void ts_open(unsigned nshards)
{
  ts_ahead_us = 0;
  ts_scan_clients = 1000;
  ts_local_due = NULL;
  ts_store = it_store_new(5000, 10000);
  struct state_cfg c = ts_cfg(nshards);
  ts_st = state_new(&ts_store, 1, &c);
  store_start(ts_store);
  it_wait_up(ts_store);
  ts_wait_ready(ts_st);
  assert_string_equal(it_cmd(ts_store, "FLUSHALL"), "OK");
}

static inline void ts_close(void)
{
  state_free(&ts_st);
  it_store_close(&ts_store);
}

/* ---- submit ---- */
struct ts_sub { int done; store_err err; };
static inline void ts_on_submit(void *arg, store_err err, struct state_item *items, size_t n)
{
  (void)items;
  (void)n;
  struct ts_sub *r = arg;
  r->err = err;
  r->done = 1;
}

static inline store_err ts_submit_c(const struct state_client *c, struct state_item *items, size_t n)
{
  struct ts_sub r = { 0 };
  store_err e = state_submit(ts_st, c, items, n, ts_on_submit, &r);
  if(e)
    return e;
  assert_true(it_run_until(&r.done, 30000));
  return r.err;
}

static inline store_err ts_submit(const char *client, struct state_item *items, size_t n)
{
  struct state_client c = { .name = client, .weight = 1 };
  return ts_submit_c(&c, items, n);
}

/* ---- claim ---- */
struct ts_claim {
  char site[SITE_MAX], client[STATE_CLIENT_MAX], url[1024], token[80], rid[STATE_RID_MAX];
  uint64_t score, lease_until;
  struct qenc_score q;
  uint32_t streak;
  unsigned waiters;
  bool followed;  /* the claim handed a follow record (the scheduler passes it on) */
  uint64_t hold_us;
  char local_due[64];
};
struct ts_claims {
  int done;
  store_err err;
  uint64_t now;
  int64_t wake, wake_us;  /* ms (rounded up) and us; -1: none */
  unsigned reaped, abandoned, skipped;
  size_t n;
  struct ts_claim c[256];
};

static inline void ts_on_claim(void *arg, store_err err, const struct state_claim_res *r)
{
  struct ts_claims *o = arg;
  o->err = err;
  o->now = r->now;
  o->wake_us = r->wake_in_us;
  o->wake = r->wake_in_us < 0 ? -1 : (r->wake_in_us + 999) / 1000;
  o->reaped = r->reaped;
  o->abandoned = r->abandoned;
  o->skipped = r->skipped;
  o->n = r->n;
  for(size_t i = 0; i < r->n && i < 256; i++) {
    const struct state_claim *c = &r->claims[i];
    struct ts_claim *d = &o->c[i];
    snprintf(d->site, sizeof d->site, "%s", c->site);
    snprintf(d->client, sizeof d->client, "%s", c->client);
    snprintf(d->url, sizeof d->url, "%s", c->url);
    snprintf(d->token, sizeof d->token, "%s", c->token);
    snprintf(d->rid, sizeof d->rid, "%s", c->rid);
    d->score = c->score;
    d->lease_until = c->lease_until;
    d->q = c->q;
    d->streak = c->error_streak;
    d->waiters = c->waiters;
    d->followed = c->follow != NULL;
    d->hold_us = c->hold_us;
    snprintf(d->local_due, sizeof d->local_due, "%s", c->local_due ? c->local_due : "");
  }
  o->done = 1;
}

static unsigned ts_claim_seq;
static inline void ts_claim_opt(struct ts_claims *o, unsigned shard, unsigned max, uint32_t lease_ms,
                         unsigned max_attempts)
{
  char prefix[32];
  snprintf(prefix, sizeof prefix, "t%u", ++ts_claim_seq);
  struct state_claim_args a = { .max = max, .lease_ms = lease_ms, .token_prefix = prefix,
                                .reap_max = 64, .max_attempts = max_attempts,
                                .scan_clients = ts_scan_clients, .ahead_us = ts_ahead_us };
  o->done = 0;
  assert_int_equal(state_claim(ts_st, shard, &a, ts_on_claim, o), STORE_OK);
  assert_true(it_run_until(&o->done, 10000));
  assert_int_equal(o->err, STORE_OK);
}

static inline void ts_claim(struct ts_claims *o, unsigned max)
{
  ts_claim_opt(o, 0, max, 30000, 3);
}

/* ---- complete ---- */
struct ts_done { int done; store_err err; int held; uint64_t next_at; char id[64]; };
static inline void ts_on_done(void *arg, store_err err, int held, uint64_t next_at, const char *id)
{
  struct ts_done *d = arg;
  d->err = err;
  d->held = held;
  d->next_at = next_at;
  snprintf(d->id, sizeof d->id, "%s", id ? id : "");
  d->done = 1;
}

static inline int ts_complete_age(unsigned shard, const struct ts_claim *c, uint64_t delay_ms,
                                  enum delay_reason why, uint64_t *next_at, bool stored,
                                  uint64_t age_ms)
{
  static const char *fields[] = { "o", "ok", "hs", "200" };
  struct state_done d = { .site = c->site, .token = c->token, .response_ms = 12,
                          .fields = fields, .nfields = 4, .stored = stored,
                          .age_ms = age_ms,
                          .followed = c->followed, .local_due = ts_local_due };
  d.delay.delay_ms = delay_ms;
  d.delay.reason = why;
  struct ts_done r = { 0 };
  assert_int_equal(state_complete(ts_st, shard, &d, ts_on_done, &r), STORE_OK);
  assert_true(it_run_until(&r.done, 10000));
  assert_int_equal(r.err, STORE_OK);
  if(next_at)
    *next_at = r.next_at;
  return r.held;
}

static inline int ts_complete_d(unsigned shard, const struct ts_claim *c, uint64_t delay_ms,
                                enum delay_reason why, uint64_t *next_at)
{
  return ts_complete_age(shard, c, delay_ms, why, next_at, false, 0);
}

static inline int ts_complete(const struct ts_claim *c, uint64_t delay_ms)
{
  return ts_complete_d(0, c, delay_ms, delay_ms ? DELAY_MIN_DELAY : DELAY_NONE, NULL);
}

/* ---- flags (renew, abort) ---- */
struct ts_flags { int done; store_err err; size_t n; int held[64]; };
static inline void ts_on_flags(void *arg, store_err err, const int *held, size_t n)
{
  struct ts_flags *f = arg;
  f->err = err;
  f->n = n;
  for(size_t i = 0; i < n && i < 64; i++)
    f->held[i] = held[i];
  f->done = 1;
}

static inline void ts_sleep(uint32_t ms)
{
  volatile int never = 0;
  it_run_until(&never, ms);
}

#endif
