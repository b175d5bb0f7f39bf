/* Reading state for the API and the scheduler: robots records and a
 * site's politeness state. */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <string.h>

#include "common/mem.h"

#define READ_MAGIC 0x4eadf00du

struct read_ctx {
  unsigned         magic;
  state_robots_cb *rcb;
  state_site_cb   *scb;
  void            *arg;
};

/* Value of field name in a flat field/value array reply, or NULL. */
static const char *read_field(const struct store_val *v, const char *name, size_t *len)
{
  for(size_t i = 0; i + 1 < store_v_len(v); i += 2) {
    const char *k = store_v_str(store_v_at(v, i), NULL);
    if(k && !strcmp(k, name))
      return store_v_str(store_v_at(v, i + 1), len);
  }
  return NULL;
}

static uint64_t read_u64(const struct store_val *v, const char *name)
{
  const char *s = read_field(v, name, NULL);
  unsigned long long n = 0;
  for(; s && *s >= '0' && *s <= '9'; s++)
    n = n * 10 + (unsigned)(*s - '0');
  return n;
}

/* A time in ms that the scripts keep to the microsecond ("1234.567",
 * lib.lua's MS), given in whole ms rounded up, as the completion gives
 * it: a next allowed time is never shown earlier than it is. */
static uint64_t read_ms_up(const struct store_val *v, const char *name)
{
  const char *s = read_field(v, name, NULL);
  uint64_t n = read_u64(v, name);
  for(s = s ? strchr(s, '.') : NULL; s && *++s;)
    if(*s >= '1' && *s <= '9')
      return n + 1;
  return n;
}

/* A field into a fixed array, cut to fit; "" when absent. */
static void read_copy(const struct store_val *v, const char *name, char *out, size_t cap)
{
  size_t n = 0;
  const char *s = read_field(v, name, &n);
  if(!s)
    n = 0;
  if(n >= cap)
    n = cap - 1;
  memcpy(out, s ? s : "", n);
  out[n] = '\0';
}

static void read_on_robots(void *arg, store_err err, const struct store_val *v)
{
  struct read_ctx *x = arg;
  assert(x && x->magic == READ_MAGIC);
  struct state_robots r = { 0 };
  if(!err) {
    r.status = (int)read_u64(v, "st");
    r.body = read_field(v, "b", &r.body_len);
    r.crawl_delay_ms = (uint32_t)read_u64(v, "cd");
    r.fetched_at = read_u64(v, "fa");
    r.expires_at = read_u64(v, "ea");
    r.retry_at = read_u64(v, "ra");
    r.good_at = read_u64(v, "ga");
    r.outage_since = read_u64(v, "os");
    r.error_streak = (uint32_t)read_u64(v, "ec");
    r.hops = (uint32_t)read_u64(v, "rh");
    r.final_url = read_field(v, "ru", NULL);
    read_copy(v, "xo", r.cause, sizeof r.cause);
    r.cause_status = (int)read_u64(v, "xs");
    read_copy(v, "xd", r.cause_detail, sizeof r.cause_detail);
  }
  x->rcb(x->arg, err, err ? NULL : &r);
  x->magic = 0;
  mem_free(x);
}

static void read_on_site(void *arg, store_err err, const struct store_val *v)
{
  struct read_ctx *x = arg;
  assert(x && x->magic == READ_MAGIC);
  struct state_site s = { 0 };
  if(!err) {
    s.next_at = read_ms_up(v, "na");
    s.next_reason = read_field(v, "nr", NULL);
    s.error_streak = (uint32_t)read_u64(v, "es");
    s.backoff_until = read_ms_up(v, "bu");
    s.last_at = read_u64(v, "la");
    s.last_response_ms = (uint32_t)read_u64(v, "lr");
    s.lease_until = read_u64(v, "le");
    s.connections_opened = read_u64(v, "cn");
    s.in_flight = read_field(v, "lt", NULL) != NULL;
    s.queued = read_u64(v, "queued");
    s.clients = (unsigned)read_u64(v, "clients");
    if(!s.next_reason)
      s.next_reason = delay_reason_name(DELAY_NONE);
  }
  x->scb(x->arg, err, err ? NULL : &s);
  x->magic = 0;
  mem_free(x);
}

static store_err read_start(struct state_args *a, struct read_ctx **xp)
{
  *xp = mem_calloc(1, sizeof **xp);
  if(!*xp)
    return STORE_NOMEM;
  store_err e = state_args_init(a, 4);
  if(e) {
    mem_free(*xp);
    return e;
  }
  (*xp)->magic = READ_MAGIC;
  return STORE_OK;
}

static store_err read_finish(store_err e, struct read_ctx *x)
{
  if(e) {
    x->magic = 0;
    mem_free(x);
  }
  return e;
}

store_err state_robots_get(struct state *st, unsigned shard, const char *origin,
                           state_robots_cb *cb, void *arg)
{
  state_check(st);
  struct state_args a;
  struct read_ctx *x;
  if(shard >= st->cfg.nshards)
    return STORE_PROTO;
  store_err e = read_start(&a, &x);
  if(e)
    return e;
  x->rcb = cb;
  x->arg = arg;
  state_args_add(&a, "HGETALL");
  state_args_addk(&a, "r:{%u}%s", shard, origin);
  e = state_send(st, state_store(st, shard), &a, 0, read_on_robots, x);
  return read_finish(e, x);
}

store_err state_site(struct state *st, const char *site, state_site_cb *cb, void *arg)
{
  state_check(st);
  struct state_args a;
  struct read_ctx *x;
  store_err e = read_start(&a, &x);
  if(e)
    return e;
  x->scb = cb;
  x->arg = arg;
  unsigned shard = site_shard(site, st->cfg.nshards);
  state_args_shard(&a, shard);
  state_args_add(&a, site);
  return read_finish(state_run(st, shard, LUA_SITE, &a, read_on_site, x), x);
}
