#include "hlfs/state/state_int.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

static const char *const state_sub_names[] = {
#define X(e, s) s,
  STATE_SUB_CODES(X)
#undef X
};

const char *state_sub_name(enum state_sub_code c)
{
  return (unsigned)c < STATE_SUB__LAST ? state_sub_names[c] : "unknown";
}

struct state *state_new(struct store *const *stores, unsigned nstores,
                        const struct state_cfg *cfg)
{
  assert(nstores >= 1 && nstores <= STATE_STORES_MAX);
  static const char *const fns[] = {
#define X(e, var) var,
    LUA_SCRIPTS(X)
#undef X
  };
  struct state *st = xalloc(sizeof *st);
  st->magic = STATE_MAGIC;
  st->nstores = nstores;
  st->cfg = *cfg;
  if(st->cfg.nshards < nstores)
    st->cfg.nshards = nstores;
  if(sj_init(&st->journal, cfg->journal_max))
    st->journal = (struct sj){ 0 };  /* out of memory: no journal, the fence holds whole */
  for(unsigned k = 0; k < nstores; k++) {
    st->stores[k] = stores[k];
    for(int i = 0; i < LUA__LAST; i++)
      st->script[k][i] = store_function(stores[k], lua_library_name, lua_library, fns[i]);
  }
  state_groups_watch(st);
  return st;
}

void state_free(struct state **stp)
{
  struct state *st = *stp;
  if(!st)
    return;
  *stp = NULL;
  for(unsigned k = 0; k < st->nstores; k++)
    store_on_state(st->stores[k], NULL, NULL);
  sj_fini(&st->journal);
  st->magic = 0;
  free(st);
}

void state_check(const struct state *st)
{
  assert(st && st->magic == STATE_MAGIC);
}

const struct state_cfg *state_cfg(const struct state *st) { return &st->cfg; }
unsigned state_nstores(const struct state *st) { return st->nstores; }
struct store *state_store(const struct state *st, unsigned shard)
{
  return st->stores[shard % st->nstores];
}
struct state_stats *state_stats(struct state *st) { return &st->stats; }

int state_client_ok(const char *name)
{
  size_t n = strlen(name);
  return n > 0 && n < STATE_CLIENT_MAX
         && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789._-") == n;
}

store_err state_args_init(struct state_args *a, int cap)
{
  memset(a, 0, sizeof *a);
  a->v = mem_alloc((size_t)cap * sizeof *a->v);
  a->l = mem_alloc((size_t)cap * sizeof *a->l);
  a->num = mem_alloc((size_t)cap * sizeof *a->num);
  a->own = mem_calloc((size_t)cap, sizeof *a->own);
  if(!a->v || !a->l || !a->num || !a->own) {
    state_args_free(a);
    return STORE_NOMEM;
  }
  a->cap = cap;
  return STORE_OK;
}

void state_args_free(struct state_args *a)
{
  for(int i = 0; a->own && i < a->n; i++)
    mem_free(a->own[i]);
  mem_free(a->own);
  mem_free(a->v);
  mem_free(a->l);
  mem_free(a->num);
  memset(a, 0, sizeof *a);
}

void state_args_addn(struct state_args *a, const char *s, size_t len)
{
  assert(a->n < a->cap);
  a->v[a->n] = s;
  a->l[a->n] = len;
  a->n++;
}

void state_args_add(struct state_args *a, const char *s)
{
  state_args_addn(a, s, strlen(s));
}

void state_args_addf(struct state_args *a, const char *fmt, ...)
{
  assert(a->n < a->cap);
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(a->num[a->n], sizeof a->num[0], fmt, ap);
  va_end(ap);
  assert(k > 0 && (size_t)k < sizeof a->num[0]);
  state_args_addn(a, a->num[a->n], (size_t)k);
}

void state_args_addu(struct state_args *a, unsigned long long v)
{
  state_args_addf(a, "%llu", v);
}

void state_args_addk(struct state_args *a, const char *fmt, ...)
{
  assert(a->n < a->cap);
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int k = vsnprintf(NULL, 0, fmt, ap);
  char *s = k >= 0 ? mem_alloc((size_t)k + 1) : NULL;
  if(s)
    vsnprintf(s, (size_t)k + 1, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  if(!s) {
    a->err = STORE_NOMEM;
    state_args_addn(a, "", 0);
    return;
  }
  a->own[a->n] = s;
  state_args_addn(a, s, (size_t)k);
}

void state_args_shard(struct state_args *a, unsigned shard)
{
  state_args_addf(a, "h:{%u}", shard);
  state_args_addf(a, "{%u}", shard);
}

store_err state_run(struct state *st, unsigned shard, enum lua_script sc, struct state_args *a,
                    store_cb *cb, void *arg)
{
  unsigned k = shard % st->nstores;
  store_err e = a->err ? a->err
                       : store_eval(st->stores[k], st->script[k][sc], 1, a->n, a->v, a->l, cb, arg);
  state_args_free(a);
  return e;
}

store_err state_send(struct state *st, struct store *via, struct state_args *a,
                     uint32_t extra_ms, store_cb *cb, void *arg)
{
  state_check(st);
  store_err e = a->err ? a->err : store_cmd(via, a->n, a->v, a->l, extra_ms, cb, arg);
  state_args_free(a);
  return e;
}

uint64_t state_u64(const struct store_val *v)
{
  long long n = store_v_int(v, 0);
  return n > 0 ? (uint64_t)n : 0;
}
