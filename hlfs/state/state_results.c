/* Result streams x:{N}<client>, consumer group "wpfs": read new results,
 * take over results left unacknowledged past a visibility timeout, ack.
 * Delivery is at-least-once: a result stays pending until acknowledged. */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

#define RES_MAGIC 0x4e5017a1u
#define RES_GROUP "wpfs"

struct res_ctx {
  unsigned           magic;
  struct state      *st;
  struct store      *via;
  state_results_cb  *cb;
  state_count_cb    *ccb;
  void              *arg;
  bool               redelivery;
  bool               retried;        /* groups created once already */
  char               client[STATE_CLIENT_MAX];
  char               consumer[STATE_CLIENT_MAX];
  unsigned           count;
  unsigned           shard;          /* reclaim: the reply does not name it */
  unsigned           part;           /* read: the Redis (state_store index) read */
  uint32_t           block_ms;
};

const char *state_result_field(const struct state_result *r, const char *name)
{
  for(size_t i = 0; i + 1 < store_v_len(r->fields); i += 2) {
    const char *k = store_v_str(store_v_at(r->fields, i), NULL);
    if(k && !strcmp(k, name))
      return store_v_str(store_v_at(r->fields, i + 1), NULL);
  }
  return NULL;
}

static void res_free(struct res_ctx *x)
{
  x->magic = 0;
  mem_free(x);
}

static unsigned res_shard_of(const struct store_val *key)
{
  const char *k = store_v_str(key, NULL);
  return k && !strncmp(k, "x:{", 3) ? (unsigned)strtoul(k + 3, NULL, 10) : 0;
}

/* entries = [[id, [field, value, ...]], ...]; appends to out. */
static void res_take(const struct store_val *entries, unsigned shard, bool again,
                     struct state_result *out, size_t *n, size_t cap)
{
  for(size_t i = 0; i < store_v_len(entries) && *n < cap; i++) {
    const struct store_val *e = store_v_at(entries, i);
    const char *id = store_v_str(store_v_at(e, 0), NULL);
    if(!id || store_v_type(store_v_at(e, 1)) != STORE_V_ARR)
      continue;  /* deleted meanwhile: nothing to deliver */
    out[(*n)++] = (struct state_result){ shard, id, store_v_at(e, 1), again };
  }
}

static size_t res_total(const struct store_val *v, bool redelivery)
{
  if(redelivery)
    return store_v_len(store_v_at(v, 1));
  size_t t = 0;
  for(size_t i = 0; i < store_v_len(v); i++)
    t += store_v_len(store_v_at(store_v_at(v, i), 1));
  return t;
}

static void res_deliver(struct res_ctx *x, const struct store_val *v, unsigned shard)
{
  size_t cap = res_total(v, x->redelivery), n = 0;
  struct state_result *out = cap ? mem_calloc(cap, sizeof *out) : NULL;
  if(cap && !out) {
    x->cb(x->arg, STORE_NOMEM, NULL, 0);
    return;
  }
  if(x->redelivery)
    res_take(store_v_at(v, 1), shard, true, out, &n, cap);
  for(size_t i = 0; !x->redelivery && i < store_v_len(v); i++) {
    const struct store_val *s = store_v_at(v, i);
    res_take(store_v_at(s, 1), res_shard_of(store_v_at(s, 0)), false, out, &n, cap);
  }
  if(x->redelivery)
    x->st->stats.results_redelivered += n;
  else
    x->st->stats.results_read += n;
  x->cb(x->arg, STORE_OK, out, n);
  mem_free(out);
}

static bool res_is_nogroup(store_err err, const struct store_val *v)
{
  const char *m = err == STORE_REPLY ? store_v_str(v, NULL) : NULL;
  return m && !strncmp(m, "NOGROUP", 7);
}

static store_err res_send_read(struct res_ctx *x);

static void res_ignore(void *arg, store_err err, const struct store_val *v)
{
  (void)arg;
  (void)err;
  (void)v;  /* BUSYGROUP: another reader created it first */
}

/* A client that never had a result has no stream yet: create the streams
 * and the group (MKSTREAM), then read again; commands on one connection
 * run in order, so the read sees the groups. */
static store_err res_create_groups(struct res_ctx *x)
{
  for(unsigned s = x->part; s < x->st->cfg.nshards; s += x->st->nstores) {
    struct state_args a;
    store_err e = state_args_init(&a, 6);
    if(e)
      return e;
    state_args_add(&a, "XGROUP");
    state_args_add(&a, "CREATE");
    state_args_addk(&a, "x:{%u}%s", s, x->client);
    state_args_add(&a, RES_GROUP);
    state_args_add(&a, "0");
    state_args_add(&a, "MKSTREAM");
    e = state_send(x->st, x->via, &a, 0, res_ignore, NULL);
    if(e)
      return e;
  }
  return STORE_OK;
}

static void res_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct res_ctx *x = arg;
  assert(x && x->magic == RES_MAGIC);
  if(res_is_nogroup(err, v)) {
    if(x->redelivery) {
      x->cb(x->arg, STORE_OK, NULL, 0);  /* no stream: nothing pending */
      res_free(x);
      return;
    }
    if(!x->retried) {
      x->retried = true;
      err = res_create_groups(x);
      if(!err && res_send_read(x) == STORE_OK)
        return;
      err = err ? err : STORE_DOWN;
    }
  }
  if(err)
    x->cb(x->arg, err, NULL, 0);
  else
    res_deliver(x, v, x->shard);
  res_free(x);
}

static store_err res_send_read(struct res_ctx *x)
{
  unsigned ns = x->st->cfg.nshards, step = x->st->nstores;
  struct state_args a;
  store_err e = state_args_init(&a, 10 + 2 * (int)ns);
  if(e)
    return e;
  state_args_add(&a, "XREADGROUP");
  state_args_add(&a, "GROUP");
  state_args_add(&a, RES_GROUP);
  state_args_add(&a, x->consumer);
  state_args_add(&a, "COUNT");
  state_args_addu(&a, x->count);
  if(x->block_ms) {
    state_args_add(&a, "BLOCK");
    state_args_addu(&a, x->block_ms);
  }
  state_args_add(&a, "STREAMS");
  for(unsigned s = x->part; s < ns; s += step)
    state_args_addk(&a, "x:{%u}%s", s, x->client);
  for(unsigned s = x->part; s < ns; s += step)
    state_args_add(&a, ">");
  return state_send(x->st, x->via, &a, x->block_ms, res_on_reply, x);
}

static struct res_ctx *res_new(struct state *st, unsigned part, const char *client,
                               const char *consumer, unsigned count)
{
  if(!state_client_ok(client) || !state_client_ok(consumer) || !count
     || count > STATE_RESULTS_MAX)
    return NULL;
  struct res_ctx *x = mem_calloc(1, sizeof *x);
  if(!x)
    return NULL;
  x->magic = RES_MAGIC;
  x->st = st;
  x->part = part % st->nstores;
  x->via = st->stores[x->part];
  x->count = count;
  snprintf(x->client, sizeof x->client, "%s", client);
  snprintf(x->consumer, sizeof x->consumer, "%s", consumer);
  return x;
}

store_err state_results_read(struct state *st, unsigned part, const char *client,
                             const char *consumer, unsigned count, uint32_t block_ms,
                             state_results_cb *cb, void *arg)
{
  state_check(st);
  struct res_ctx *x = part < st->nstores ? res_new(st, part, client, consumer, count) : NULL;
  if(!x)
    return STORE_PROTO;
  x->cb = cb;
  x->arg = arg;
  x->block_ms = block_ms;
  store_err e = res_send_read(x);
  if(e)
    res_free(x);
  return e;
}

store_err state_results_reclaim(struct state *st, unsigned shard, const char *client,
                                const char *consumer, uint32_t min_idle_ms, unsigned count,
                                state_results_cb *cb, void *arg)
{
  state_check(st);
  struct res_ctx *x = shard < st->cfg.nshards ? res_new(st, shard, client, consumer, count) : NULL;
  struct state_args a;
  if(!x)
    return STORE_PROTO;
  x->cb = cb;
  x->arg = arg;
  x->redelivery = true;
  store_err e = state_args_init(&a, 9);
  if(!e) {
    state_args_add(&a, "XAUTOCLAIM");
    state_args_addk(&a, "x:{%u}%s", shard, client);
    state_args_add(&a, RES_GROUP);
    state_args_add(&a, consumer);
    state_args_addu(&a, min_idle_ms);
    state_args_add(&a, "0-0");
    state_args_add(&a, "COUNT");
    state_args_addu(&a, count);
    x->shard = shard;
    e = state_send(st, x->via, &a, 0, res_on_reply, x);
  }
  if(e)
    res_free(x);
  return e;
}

static void res_on_ack(void *arg, store_err err, const struct store_val *v)
{
  struct res_ctx *x = arg;
  assert(x && x->magic == RES_MAGIC);
  long long n = err ? 0 : store_v_int(v, 0);
  x->st->stats.results_acked += (uint64_t)n;
  x->ccb(x->arg, err, n);
  res_free(x);
}

store_err state_results_ack(struct state *st, unsigned shard, const char *client,
                            const char *const *ids, size_t n, state_count_cb *cb, void *arg)
{
  state_check(st);
  if(!n || n > STATE_RESULTS_MAX || shard >= st->cfg.nshards)
    return STORE_PROTO;
  struct res_ctx *x = res_new(st, shard, client, "ack", 1);
  struct state_args a;
  if(!x)
    return STORE_PROTO;
  x->ccb = cb;
  x->arg = arg;
  store_err e = state_args_init(&a, 1 + (int)n);
  if(!e) {
    state_args_addk(&a, "x:{%u}%s", shard, client);
    for(size_t i = 0; i < n; i++)
      state_args_add(&a, ids[i]);
    e = state_run(st, shard, LUA_ACK, &a, res_on_ack, x);
  }
  if(e)
    res_free(x);
  return e;
}
