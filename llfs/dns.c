/* The resolver's policy and public API: names, the cache rules (TTL clamp,
 * negative caching), coalescing of waiters, deferred callbacks, and the
 * sharing of one cache by the resolvers of several threads (dns_int.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/list.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/mem.h"
#include "common/str.h"
#include "llfs/dns_int.h"

static void dns_wlist_push(struct dns_wlist *l, struct dns_waiter *w)
{
  DLT_PUSH_BACK(l->first, l->last, w, prev, next);
}

static void dns_wlist_remove(struct dns_wlist *l, struct dns_waiter *w)
{
  DLT_UNLINK(l->first, l->last, w, prev, next);
}

int dns_addr_parse(const char *s, size_t n, struct dns_addr *out)
{
  char tmp[64];
  if(n >= 2 && s[0] == '[' && s[n - 1] == ']') {
    s++;
    n -= 2;
  }
  if(n == 0 || n >= sizeof tmp)
    return -1;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  memset(out, 0, sizeof *out);
  if(inet_pton(AF_INET, tmp, out->b) == 1)
    out->family = AF_INET;
  else if(inet_pton(AF_INET6, tmp, out->b) == 1)
    out->family = AF_INET6;
  else
    return -1;
  return 0;
}

void dns_addr_format(const struct dns_addr *a, char *out, size_t outlen)
{
  if(a->family == AF_INET && outlen >= INET_ADDRSTRLEN)
    str_ipv4(out, a->b);   /* once or twice per fetch: no sprintf */
  else if(!inet_ntop(a->family, a->b, out, (socklen_t)outlen) && outlen)
    out[0] = '\0';
}

/* Lower-case copy without the trailing dot; -1 unless it looks like a
 * host name (letters, digits, '-', '_', '.'; 1..253 octets). */
static int dns_norm_name(const char *host, char *out, size_t outlen)
{
  size_t n = strlen(host);
  if(n && host[n - 1] == '.')
    n--;
  if(n == 0 || n > DNS_NAME_MAX || n >= outlen)
    return -1;
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)host[i];
    if(!isalnum(c) && c != '-' && c != '_' && c != '.')
      return -1;
    out[i] = (char)tolower(c);
  }
  out[n] = '\0';
  return 0;
}

/* Bookkeeping of d's live waiters, on d's thread. */
static void dns_waiter_gone(struct dns *d)
{
  if(--d->nwaiters == 0)
    uv_unref((uv_handle_t *)&d->wake);
}

/* The waiters on d->ready, called from d's loop. */
static void dns_call_ready(struct dns *d)
{
  struct dns_waiter *w;
  CHECK(d && d->magic == DNS_MAGIC);
  d->in_cb = true;
  for(;;) {
    pthread_mutex_lock(&d->ready_mu);
    if((w = d->ready.first))
      dns_wlist_remove(&d->ready, w);
    pthread_mutex_unlock(&d->ready_mu);
    if(!w)
      break;
    w->magic = 0;
    dns_waiter_gone(d);
    w->cb(&w->res, w->arg);
    mem_free(w);
  }
  d->in_cb = false;
}

static void dns_on_kick(uv_timer_t *t) { dns_call_ready(t->data); }
static void dns_on_wake(uv_async_t *a) { dns_call_ready(a->data); }

/* w is answered: onto its resolver's ready list, and that loop woken.
 * self is the resolver whose thread runs this. Under shared->mu when w
 * waited on an entry (w->e changes under it). */
static void dns_make_ready(struct dns *self, struct dns_waiter *w)
{
  struct dns *d = w->d;
  w->e = NULL;
  pthread_mutex_lock(&d->ready_mu);
  dns_wlist_push(&d->ready, w);
  pthread_mutex_unlock(&d->ready_mu);
  if(d != self)
    uv_async_send(&d->wake);
  else if(!uv_is_active((uv_handle_t *)&d->kick))
    uv_timer_start(&d->kick, dns_on_kick, 0, 0);
}

static void dns_fill(struct dns_result *r, const struct dns_entry *e, uint64_t now_ms)
{
  r->outcome = e->outcome;
  r->naddr = e->naddr;
  memcpy(r->addr, e->addr, e->naddr * sizeof e->addr[0]);
  r->ttl_ms = e->st != DNS_ENT_PENDING && e->expires_ms > now_ms ? e->expires_ms - now_ms : 0;
}

static long dns_clamp_ttl(const struct dns *d, long ttl)
{
  if(ttl < d->cfg.ttl_floor_s)
    ttl = d->cfg.ttl_floor_s;
  if(ttl > d->cfg.ttl_ceiling_s)
    ttl = d->cfg.ttl_ceiling_s;
  return ttl;
}

static void dns_drop(struct dns_wlist *l, struct dns_waiter *w)
{
  dns_wlist_remove(l, w);
  dns_waiter_gone(w->d);
  w->magic = 0;
  mem_free(w);
}

/* d is going away while its channel still asks for e: its own waiters
 * are gone already (dns_free); those of other resolvers hear that the
 * query was stopped. */
static void dns_query_dropped(struct dns *d, struct dns_entry *e)
{
  struct dns_waiter *w;
  while((w = e->waiters.first)) {
    dns_wlist_remove(&e->waiters, w);
    CHECK(w->d != d);
    w->res.outcome = OUTCOME_SHUTTING_DOWN;
    dns_make_ready(d, w);
  }
  dns_cache_remove(&d->sh->cache, e);
}

static void dns_query_answered(struct dns *d, struct dns_entry *e, enum outcome o,
                               const struct dns_addr *a, size_t n, long ttl_s)
{
  struct dns_shared *sh = d->sh;
  uint64_t now = clock_mono_ms();
  e->outcome = o;
  e->naddr = o == OUTCOME_OK ? n : 0;
  memcpy(e->addr, a, e->naddr * sizeof *a);
  if(o == OUTCOME_OK) {
    e->st = DNS_ENT_POSITIVE;
    e->expires_ms = now + (uint64_t)dns_clamp_ttl(d, ttl_s) * 1000;
  } else if(o == OUTCOME_DNS_NXDOMAIN || o == OUTCOME_DNS_SERVFAIL) {
    e->st = DNS_ENT_NEGATIVE;
    e->expires_ms = now + (uint64_t)d->cfg.negative_ttl_s * 1000;
  }
  if(o != OUTCOME_OK)
    sh->st.failures++;
  struct dns_waiter *w;
  while((w = e->waiters.first)) {
    dns_wlist_remove(&e->waiters, w);
    dns_fill(&w->res, e, now);
    dns_make_ready(d, w);
  }
  /* e is the argument of the c-ares callback running now, but it is ours:
   * c-ares never looks at it again, so it may go at once. */
  if(e->st == DNS_ENT_PENDING)
    dns_cache_remove(&sh->cache, e);   /* a failure that is not cached */
  else
    sh->st.evictions += dns_cache_answered(&sh->cache, e);
}

void dns_query_done(struct dns_entry *e, enum outcome o, const struct dns_addr *a, size_t n,
                    long ttl_s)
{
  struct dns *d = e->d;
  CHECK(d->magic == DNS_MAGIC);
  pthread_mutex_lock(&d->sh->mu);
  CHECK(e->st == DNS_ENT_PENDING && e->d == d);
  if(d->freeing)
    dns_query_dropped(d, e);
  else
    dns_query_answered(d, e, o, a, n, ttl_s);
  pthread_mutex_unlock(&d->sh->mu);
}

static struct dns_waiter *dns_waiter_new(struct dns *d, dns_cb *cb, void *arg)
{
  struct dns_waiter *w = mem_calloc(1, sizeof *w);
  if(!w)
    return NULL;
  w->magic = DNS_WAITER_MAGIC;
  w->d = d;
  w->cb = cb;
  w->arg = arg;
  if(d->nwaiters++ == 0)
    uv_ref((uv_handle_t *)&d->wake);
  return w;
}

static void dns_join(struct dns_entry *e, struct dns_waiter *w)
{
  w->e = e;
  dns_wlist_push(&e->waiters, w);
}

/* w waits for name: from the cache, by joining a query (of any resolver
 * sharing the cache), or a new query on d's channel, which is returned
 * for the caller to start once the mutex is released. */
static enum outcome dns_lookup(struct dns *d, const char *name, struct dns_waiter *w,
                               struct dns_entry **ask)
{
  struct dns_shared *sh = d->sh;
  uint64_t h = hash_fp64(name, strlen(name));
  struct dns_entry *e = dns_cache_find(&sh->cache, name, h);
  if(e && e->st == DNS_ENT_PENDING) {
    sh->st.coalesced++;
    w->res.cached = true;
    dns_join(e, w);
    return OUTCOME_OK;
  }
  uint64_t now = clock_mono_ms();
  if(e && now < e->expires_ms) {
    if(e->st == DNS_ENT_POSITIVE)
      sh->st.hits++;
    else
      sh->st.negative_hits++;
    dns_cache_touch(&sh->cache, e);
    w->res.cached = true;
    dns_fill(&w->res, e, now);
    dns_make_ready(d, w);
    return OUTCOME_OK;
  }
  if(e)
    dns_cache_requery(&sh->cache, e, d);
  else if(!(e = dns_cache_add(d, name, h)))
    return OUTCOME_NOMEM;
  sh->st.misses++;
  sh->st.queries++;
  dns_join(e, w);
  *ask = e;
  return OUTCOME_OK;
}

static void dns_literal(struct dns *d, const struct dns_addr *lit, struct dns_waiter *w)
{
  pthread_mutex_lock(&d->sh->mu);
  d->sh->st.literals++;
  pthread_mutex_unlock(&d->sh->mu);
  w->res.literal = true;
  w->res.naddr = 1;
  w->res.addr[0] = *lit;
  dns_make_ready(d, w);
}

enum outcome dns_resolve(struct dns *d, const char *host, dns_cb *cb, void *arg,
                         struct dns_waiter **wp)
{
  char name[DNS_NAME_MAX + 1];
  struct dns_addr lit;
  struct dns_entry *ask = NULL;
  CHECK(d && d->magic == DNS_MAGIC);
  if(wp)
    *wp = NULL;
  if(d->freeing)
    return OUTCOME_SHUTTING_DOWN;
  bool is_lit = dns_addr_parse(host, strlen(host), &lit) == 0;
  if(!is_lit && dns_norm_name(host, name, sizeof name))
    return OUTCOME_BAD_URL;
  struct dns_waiter *w = dns_waiter_new(d, cb, arg);
  if(!w)
    return OUTCOME_NOMEM;
  if(is_lit) {
    dns_literal(d, &lit, w);
  } else {
    pthread_mutex_lock(&d->sh->mu);
    enum outcome o = dns_lookup(d, name, w, &ask);
    pthread_mutex_unlock(&d->sh->mu);
    if(o) {
      dns_waiter_gone(d);
      mem_free(w);
      return o;
    }
  }
  if(wp)
    *wp = w;
  if(ask)
    dns_ares_query(d, ask);   /* may answer at once: w is then on d->ready */
  return OUTCOME_OK;
}

void dns_cancel(struct dns_waiter **wp)
{
  struct dns_waiter *w = *wp;
  if(!w)
    return;
  *wp = NULL;
  CHECK(w->magic == DNS_WAITER_MAGIC);
  struct dns *d = w->d;
  pthread_mutex_lock(&d->sh->mu);
  if(w->e) {
    dns_wlist_remove(&w->e->waiters, w);
  } else {
    pthread_mutex_lock(&d->ready_mu);
    dns_wlist_remove(&d->ready, w);
    pthread_mutex_unlock(&d->ready_mu);
  }
  pthread_mutex_unlock(&d->sh->mu);
  dns_waiter_gone(d);
  w->magic = 0;
  mem_free(w);
}

void dns_stats(const struct dns *d, struct dns_stats *out)
{
  struct dns_shared *sh = d->sh;
  pthread_mutex_lock(&sh->mu);
  *out = sh->st;
  out->entries = sh->cache.lru.n;
  out->in_flight = sh->cache.pending.n;
  pthread_mutex_unlock(&sh->mu);
}

/* ---- the shared part ---- */

struct dns_shared *dns_shared_new(const struct dns_cfg *cfg, char *err, size_t errlen)
{
  struct dns_shared *sh = mem_calloc(1, sizeof *sh);
  if(!sh || dns_cache_init(&sh->cache, cfg->cache_max)) {
    snprintf(err, errlen, "out of memory");
    mem_free(sh);
    return NULL;
  }
  sh->cfg = *cfg;
  sh->servers = cfg->servers ? mem_strdup(cfg->servers) : NULL;
  sh->cfg.servers = sh->servers;
  if(cfg->servers && !sh->servers) {
    snprintf(err, errlen, "out of memory");
    dns_cache_fini(&sh->cache);
    mem_free(sh);
    return NULL;
  }
  pthread_mutex_init(&sh->mu, NULL);
  sh->magic = DNS_SHARED_MAGIC;
  sh->refs = 1;
  return sh;
}

static void dns_shared_unref(struct dns_shared *sh)
{
  pthread_mutex_lock(&sh->mu);
  CHECK(sh->magic == DNS_SHARED_MAGIC && sh->refs > 0);
  bool last = --sh->refs == 0;
  pthread_mutex_unlock(&sh->mu);
  if(!last)
    return;
  dns_cache_fini(&sh->cache);
  pthread_mutex_destroy(&sh->mu);
  mem_free(sh->servers);
  sh->magic = 0;
  mem_free(sh);
}

void dns_shared_free(struct dns_shared **shp)
{
  struct dns_shared *sh = *shp;
  if(!sh)
    return;
  *shp = NULL;
  dns_shared_unref(sh);
}

/* ---- one loop's resolver ---- */

static void dns_release(struct dns *d)
{
  pthread_mutex_destroy(&d->ready_mu);
  dns_shared_unref(d->sh);
  d->magic = 0;
  mem_free(d);
}

void dns_handle_closed(uv_handle_t *h)
{
  struct dns *d;
  if(h->type == UV_POLL) {
    struct dns_sock *s = h->data;
    CHECK(s->magic == DNS_SOCK_MAGIC);
    d = s->d;
    s->magic = 0;
    mem_free(s);
  } else {
    d = h->data;
  }
  CHECK(d->magic == DNS_MAGIC && d->open_handles > 0);
  if(--d->open_handles == 0 && d->freeing)
    dns_release(d);
}

struct dns *dns_new_shared(uv_loop_t *loop, struct dns_shared *sh, char *err, size_t errlen)
{
  CHECK(sh && sh->magic == DNS_SHARED_MAGIC);
  struct dns *d = mem_calloc(1, sizeof *d);
  if(!d) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  d->magic = DNS_MAGIC;
  d->loop = loop;
  d->sh = sh;
  d->cfg = sh->cfg;
  pthread_mutex_init(&d->ready_mu, NULL);
  pthread_mutex_lock(&sh->mu);
  sh->refs++;
  pthread_mutex_unlock(&sh->mu);
  if(dns_ares_init(d, err, errlen)) {
    dns_ares_fini(d);
    dns_release(d);
    return NULL;
  }
  uv_timer_init(loop, &d->ares_timer);
  uv_timer_init(loop, &d->kick);
  uv_async_init(loop, &d->wake, dns_on_wake);
  uv_unref((uv_handle_t *)&d->wake);   /* until a waiter needs it */
  d->ares_timer.data = d->kick.data = d->wake.data = d;
  d->open_handles = 3;
  return d;
}

struct dns *dns_new(uv_loop_t *loop, const struct dns_cfg *cfg, char *err, size_t errlen)
{
  struct dns_shared *sh = dns_shared_new(cfg, err, errlen);
  if(!sh)
    return NULL;
  struct dns *d = dns_new_shared(loop, sh, err, errlen);
  dns_shared_free(&sh);   /* d holds its own reference */
  return d;
}

/* d's waiters, wherever they wait, go without their callbacks. */
static void dns_drop_own(struct dns *d)
{
  struct dns_shared *sh = d->sh;
  pthread_mutex_lock(&sh->mu);
  for(struct dns_entry *e = sh->cache.pending.first; e; e = e->pnext)
    for(struct dns_waiter *w = e->waiters.first, *next; w; w = next) {
      next = w->next;
      if(w->d == d)
        dns_drop(&e->waiters, w);
    }
  pthread_mutex_lock(&d->ready_mu);
  while(d->ready.first)
    dns_drop(&d->ready, d->ready.first);
  pthread_mutex_unlock(&d->ready_mu);
  pthread_mutex_unlock(&sh->mu);
}

void dns_free(struct dns **dp)
{
  struct dns *d = *dp;
  if(!d)
    return;
  *dp = NULL;
  CHECK(d->magic == DNS_MAGIC && !d->in_cb && !d->freeing);
  d->freeing = true;
  dns_drop_own(d);
  dns_ares_fini(d);   /* queries of d's channel end: dns_query_dropped */
  uv_close((uv_handle_t *)&d->ares_timer, dns_handle_closed);
  uv_close((uv_handle_t *)&d->kick, dns_handle_closed);
  uv_close((uv_handle_t *)&d->wake, dns_handle_closed);
}
