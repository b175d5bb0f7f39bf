/* state_submit: one batch of a client's URLs, split by shard, one script
 * call per shard, answers put back in the caller's order. */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

#define SUBMIT_MAGIC 0x5b3170c7u
#define SUBMIT_FIXED 9  /* KEYS[1], {N}, client, weight, rate, burst, maxq, qretry, quota client */
#define SUBMIT_JOINED 5  /* the script's code for a waiter of a fetch in flight */

struct submit_part {
  struct submit_ctx *ctx;
  unsigned           shard;
};

struct submit_ctx {
  unsigned            magic;
  struct state       *st;
  struct state_client client;
  struct state_client quota;     /* whose bucket and max_queued apply */
  struct state_item  *items;
  size_t              n;
  state_submit_cb    *cb;
  void               *arg;
  unsigned           *shard_of;  /* per item; UINT_MAX once answered locally */
  char              **site, **member;
  char               *arena;
  struct submit_part *parts;     /* one per shard */
  int                 outstanding;
  store_err           err;
};

static void submit_free(struct submit_ctx *x)
{
  x->magic = 0;
  mem_free(x->shard_of);
  mem_free(x->site);
  mem_free(x->member);
  mem_free(x->arena);
  mem_free(x->parts);
  mem_free(x);
}

static void submit_answer(struct submit_ctx *x, size_t i, enum state_sub_code code)
{
  x->items[i].code = code;
  x->shard_of[i] = UINT_MAX;
  x->st->stats.submit[code]++;
}

/* Site and queue member of item i, carved from the arena at *p. */
static void submit_encode(struct submit_ctx *x, size_t i, char **p)
{
  struct state_item *it = &x->items[i];
  size_t ol = it->opts ? strlen(it->opts) : 0;
  size_t ul = strlen(it->url), room = ul + 2;
  x->site[i] = *p;
  if(site_of_url(x->st->cfg.site_mode, it->url, it->addr, x->site[i], SITE_MAX)) {
    submit_answer(x, i, STATE_SUB_BAD_URL);
    return;
  }
  *p += strlen(x->site[i]) + 1;
  x->member[i] = *p;
  size_t ml = qenc_url_pack(x->site[i], it->url, x->member[i], room);
  if(!ml || memchr(it->url, QENC_OPT_SEP, ul)) {
    submit_answer(x, i, STATE_SUB_BAD_URL);
    return;
  }
  if(ol) {  /* a request with options of its own: they follow its URL */
    x->member[i][ml] = QENC_OPT_SEP;
    memcpy(x->member[i] + ml + 1, it->opts, ol + 1);
  }
  *p += strlen(x->member[i]) + 1;
  x->shard_of[i] = site_shard(x->site[i], x->st->cfg.nshards);
}

static store_err submit_prepare(struct submit_ctx *x)
{
  size_t bytes = 0;
  for(size_t i = 0; i < x->n; i++)
    bytes += 2 * strlen(x->items[i].url) + SITE_MAX + 4 +
             (x->items[i].opts ? strlen(x->items[i].opts) + 1 : 0);
  x->shard_of = mem_calloc(x->n, sizeof *x->shard_of);
  x->site = mem_calloc(x->n, sizeof *x->site);
  x->member = mem_calloc(x->n, sizeof *x->member);
  x->arena = mem_alloc(bytes);
  x->parts = mem_calloc(x->st->cfg.nshards, sizeof *x->parts);
  if(!x->shard_of || !x->site || !x->member || !x->arena || !x->parts)
    return STORE_NOMEM;
  char *p = x->arena;
  for(size_t i = 0; i < x->n; i++) {
    x->items[i].rid[0] = '\0';
    x->items[i].retry_ms = 0;
    submit_encode(x, i, &p);
  }
  return STORE_OK;
}

static void submit_finish(struct submit_ctx *x)
{
  x->cb(x->arg, x->err, x->items, x->n);
  submit_free(x);
}

static void submit_take(struct submit_ctx *x, size_t i, const struct store_val *code,
                        const struct store_val *val)
{
  struct state_item *it = &x->items[i];
  long long c = store_v_int(code, -1);
  if(c == SUBMIT_JOINED) {  /* waits for the same URL's fetch in flight */
    x->st->stats.coalesce_joined++;
    c = STATE_SUB_ACCEPTED;
  }
  if(c < 0 || c > STATE_SUB_OVER_QUEUE) {
    submit_answer(x, i, STATE_SUB_UNAVAILABLE);
    x->err = x->err ? x->err : STORE_PROTO;
    return;
  }
  if(c >= STATE_SUB_OVER_RATE)
    it->retry_ms = (uint32_t)state_u64(val);
  else {
    const char *s = store_v_str(val, NULL);
    snprintf(it->rid, sizeof it->rid, "%s", s ? s : "");
  }
  submit_answer(x, i, (enum state_sub_code)c);
}

static void submit_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct submit_part *pt = arg;
  struct submit_ctx *x = pt->ctx;
  assert(x && x->magic == SUBMIT_MAGIC);
  size_t k = 0;
  for(size_t i = 0; i < x->n; i++) {
    if(x->shard_of[i] != pt->shard)
      continue;
    if(err || k + 1 >= store_v_len(v)) {
      submit_answer(x, i, STATE_SUB_UNAVAILABLE);
      x->err = x->err ? x->err : err ? err : STORE_PROTO;
      continue;
    }
    submit_take(x, i, store_v_at(v, k), store_v_at(v, k + 1));
    k += 2;
  }
  if(--x->outstanding == 0)
    submit_finish(x);
}

/* An accepted request is durable once a replica has it: replication is
 * asynchronous, and a failover to a replica that had not got the
 * submission would lose it, its id issued again to another request
 * (seen in the torture run with Sentinel). WAIT, on the connection that
 * wrote it, answers how many replicas have every write so far; too few in
 * submit_wait_ms, and the shard's accepted items are answered
 * store_unavailable: still queued if this master lives on, and a client
 * that submits them again gets "duplicate" with their id. */
static void submit_on_wait(void *arg, store_err err, const struct store_val *v)
{
  struct submit_part *pt = arg;
  struct submit_ctx *x = pt->ctx;
  assert(x && x->magic == SUBMIT_MAGIC);
  if(err || store_v_int(v, 0) < (long long)x->st->cfg.submit_replicas) {
    for(size_t i = 0; i < x->n; i++) {
      if(x->site[i] && x->items[i].code == STATE_SUB_ACCEPTED &&
         site_shard(x->site[i], x->st->cfg.nshards) == pt->shard) {
        x->st->stats.submit[STATE_SUB_ACCEPTED]--;
        x->st->stats.submit_unreplicated++;
        x->items[i].rid[0] = '\0';
        submit_answer(x, i, STATE_SUB_UNAVAILABLE);
      }
    }
    x->err = x->err ? x->err : err ? err : STORE_DOWN;
  }
  if(--x->outstanding == 0)
    submit_finish(x);
}

static void submit_wait(struct submit_ctx *x, unsigned shard)
{
  struct state_args a;
  if(state_args_init(&a, 3))
    return;  /* no memory: counted as a reply that said too few */
  state_args_add(&a, "WAIT");
  state_args_addu(&a, x->st->cfg.submit_replicas);
  state_args_addu(&a, x->st->cfg.submit_wait_ms);
  if(!state_send(x->st, state_store(x->st, shard), &a, x->st->cfg.submit_wait_ms,
                 submit_on_wait, &x->parts[shard]))
    x->outstanding++;
}

static store_err submit_shard(struct submit_ctx *x, unsigned shard, size_t count)
{
  struct state_args a;
  if(!state_shard_ok(x->st, shard)) {
    state_group_recheck(x->st, shard);
    return STORE_DOWN;
  }
  store_err e = state_args_init(&a, SUBMIT_FIXED + 5 * (int)count);
  if(e)
    return e;
  const struct state_client *c = &x->client, *q = &x->quota;
  state_args_shard(&a, shard);
  state_args_add(&a, c->name);
  state_args_addu(&a, c->hops ? 0 : c->weight ? c->weight : 1);  /* 0: hops, lua_submit */
  state_args_addf(&a, "%.6g", q->rate > 0 ? q->rate : 0.0);
  state_args_addu(&a, q->burst ? q->burst : 1);
  state_args_addu(&a, q->max_queued);
  state_args_addu(&a, x->st->cfg.queue_retry_ms);
  state_args_add(&a, strcmp(q->name, c->name) ? q->name : "");
  for(size_t i = 0; i < x->n; i++) {
    if(x->shard_of[i] != shard)
      continue;
    state_args_add(&a, x->site[i]);
    state_args_add(&a, x->member[i]);
    state_args_addu(&a, qenc_score_base(x->items[i].prio, x->items[i].max_age_s));
    state_args_add(&a, x->items[i].follow ? x->items[i].follow : "");
    if(x->items[i].max_attempts)
      state_args_addu(&a, x->items[i].max_attempts);
    else
      state_args_add(&a, "");
  }
  x->parts[shard] = (struct submit_part){ x, shard };
  e = state_run(x->st, shard, LUA_SUBMIT, &a, submit_on_reply, &x->parts[shard]);
  if(!e && x->st->cfg.submit_replicas)
    submit_wait(x, shard);
  return e;
}

/* Send one call per shard that has items; items of a shard whose call
 * could not be sent are answered "unavailable" at once. */
static void submit_send(struct submit_ctx *x)
{
  for(unsigned s = 0; s < x->st->cfg.nshards; s++) {
    size_t count = 0;
    for(size_t i = 0; i < x->n; i++)
      count += x->shard_of[i] == s;
    if(!count)
      continue;
    store_err e = submit_shard(x, s, count);
    if(!e) {
      x->outstanding++;
      continue;
    }
    x->err = x->err ? x->err : e;
    for(size_t i = 0; i < x->n; i++)
      if(x->shard_of[i] == s)
        submit_answer(x, i, STATE_SUB_UNAVAILABLE);
  }
}

store_err state_submit(struct state *st, const struct state_client *c,
                       struct state_item *items, size_t n, state_submit_cb *cb, void *arg)
{
  return state_submit_as(st, c, c, items, n, cb, arg);
}

store_err state_submit_as(struct state *st, const struct state_client *c,
                          const struct state_client *quota, struct state_item *items,
                          size_t n, state_submit_cb *cb, void *arg)
{
  state_check(st);
  if(!n || n > STATE_SUBMIT_MAX || !state_client_ok(c->name) || !state_client_ok(quota->name))
    return STORE_PROTO;
  struct submit_ctx *x = mem_calloc(1, sizeof *x);
  if(!x)
    return STORE_NOMEM;
  *x = (struct submit_ctx){ .magic = SUBMIT_MAGIC, .st = st, .client = *c, .quota = *quota,
                            .items = items, .n = n, .cb = cb, .arg = arg };
  store_err e = submit_prepare(x);
  if(!e) {
    submit_send(x);
    if(x->outstanding)
      return STORE_OK;
    e = x->err;
  }
  if(!e) {
    /* every URL was answered locally (bad URLs): nothing to wait for */
    submit_finish(x);
    return STORE_OK;
  }
  submit_free(x);
  return e;
}
