/* The resolver's policy and public API: names, the cache rules (TTL clamp,
 * negative caching), coalescing of waiters, and deferred callbacks. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/mem.h"
#include "common/str.h"
#include "llfs/dns_int.h"

_Noreturn void dns_panic(const char *file, int line, const char *what)
{
  fprintf(stderr, "%s:%d: dns invariant broken: %s\n", file, line, what);
  abort();
}

void dns_wlist_push(struct dns_wlist *l, struct dns_waiter *w)
{
  w->next = NULL;
  w->prev = l->last;
  if(l->last)
    l->last->next = w;
  else
    l->first = w;
  l->last = w;
}

void dns_wlist_remove(struct dns_wlist *l, struct dns_waiter *w)
{
  if(w->prev)
    w->prev->next = w->next;
  else
    l->first = w->next;
  if(w->next)
    w->next->prev = w->prev;
  else
    l->last = w->prev;
  w->prev = w->next = NULL;
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

static void dns_on_kick(uv_timer_t *t)
{
  struct dns *d = t->data;
  struct dns_waiter *w;
  DNS_CHECK(d && d->magic == DNS_MAGIC);
  d->in_cb = true;
  while((w = d->ready.first)) {
    dns_wlist_remove(&d->ready, w);
    w->magic = 0;
    w->cb(&w->res, w->arg);
    mem_free(w);
  }
  d->in_cb = false;
}

static void dns_make_ready(struct dns *d, struct dns_waiter *w)
{
  w->e = NULL;
  dns_wlist_push(&d->ready, w);
  if(!uv_is_active((uv_handle_t *)&d->kick))
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

static void dns_drop_waiters(struct dns_wlist *l)
{
  struct dns_waiter *w;
  while((w = l->first)) {
    dns_wlist_remove(l, w);
    w->magic = 0;
    mem_free(w);
  }
}

void dns_query_done(struct dns_entry *e, enum outcome o, const struct dns_addr *a, size_t n,
                    long ttl_s)
{
  struct dns *d = e->d;
  DNS_CHECK(d->magic == DNS_MAGIC && e->st == DNS_ENT_PENDING);
  if(d->freeing) {
    dns_drop_waiters(&e->waiters);
    dns_cache_remove(&d->cache, e);
    return;
  }
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
    d->st.failures++;
  struct dns_waiter *w;
  while((w = e->waiters.first)) {
    dns_wlist_remove(&e->waiters, w);
    dns_fill(&w->res, e, now);
    dns_make_ready(d, w);
  }
  /* e is the argument of the c-ares callback running now, but it is ours:
   * c-ares never looks at it again, so it may go at once. */
  if(e->st == DNS_ENT_PENDING)
    dns_cache_remove(&d->cache, e);   /* a failure that is not cached */
  else
    d->st.evictions += dns_cache_answered(&d->cache, e);
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
  return w;
}

static void dns_join(struct dns_entry *e, struct dns_waiter *w)
{
  w->e = e;
  dns_wlist_push(&e->waiters, w);
}

/* w waits for name: from the cache, by joining a query, or a new query. */
static enum outcome dns_lookup(struct dns *d, const char *name, struct dns_waiter *w)
{
  uint64_t h = hash_fp64(name, strlen(name));
  struct dns_entry *e = dns_cache_find(&d->cache, name, h);
  if(e && e->st == DNS_ENT_PENDING) {
    d->st.coalesced++;
    w->res.cached = true;
    dns_join(e, w);
    return OUTCOME_OK;
  }
  uint64_t now = clock_mono_ms();
  if(e && now < e->expires_ms) {
    if(e->st == DNS_ENT_POSITIVE)
      d->st.hits++;
    else
      d->st.negative_hits++;
    dns_cache_touch(&d->cache, e);
    w->res.cached = true;
    dns_fill(&w->res, e, now);
    dns_make_ready(d, w);
    return OUTCOME_OK;
  }
  if(e)
    dns_cache_requery(&d->cache, e);
  else if(!(e = dns_cache_add(d, name, h)))
    return OUTCOME_NO_MEMORY;
  d->st.misses++;
  dns_join(e, w);
  dns_ares_query(d, e);   /* may answer at once: w is then on d->ready */
  return OUTCOME_OK;
}

enum outcome dns_resolve(struct dns *d, const char *host, dns_cb *cb, void *arg,
                         struct dns_waiter **wp)
{
  char name[DNS_NAME_MAX + 1];
  struct dns_addr lit;
  DNS_CHECK(d && d->magic == DNS_MAGIC);
  if(wp)
    *wp = NULL;
  if(d->freeing)
    return OUTCOME_SHUTTING_DOWN;
  bool is_lit = dns_addr_parse(host, strlen(host), &lit) == 0;
  if(!is_lit && dns_norm_name(host, name, sizeof name))
    return OUTCOME_BAD_URL;
  struct dns_waiter *w = dns_waiter_new(d, cb, arg);
  if(!w)
    return OUTCOME_NO_MEMORY;
  if(is_lit) {
    d->st.literals++;
    w->res.literal = true;
    w->res.naddr = 1;
    w->res.addr[0] = lit;
    dns_make_ready(d, w);
  } else {
    enum outcome o = dns_lookup(d, name, w);
    if(o) {
      mem_free(w);
      return o;
    }
  }
  if(wp)
    *wp = w;
  return OUTCOME_OK;
}

void dns_cancel(struct dns_waiter **wp)
{
  struct dns_waiter *w = *wp;
  if(!w)
    return;
  *wp = NULL;
  DNS_CHECK(w->magic == DNS_WAITER_MAGIC);
  dns_wlist_remove(w->e ? &w->e->waiters : &w->d->ready, w);
  w->magic = 0;
  mem_free(w);
}

void dns_stats(const struct dns *d, struct dns_stats *out)
{
  *out = d->st;
  out->entries = d->cache.nanswered;
  out->in_flight = d->cache.npending;
}

void dns_handle_closed(uv_handle_t *h)
{
  struct dns *d;
  if(h->type == UV_POLL) {
    struct dns_sock *s = h->data;
    DNS_CHECK(s->magic == DNS_SOCK_MAGIC);
    d = s->d;
    s->magic = 0;
    mem_free(s);
  } else {
    d = h->data;
  }
  DNS_CHECK(d->magic == DNS_MAGIC && d->open_handles > 0);
  if(--d->open_handles == 0 && d->freeing) {
    mem_free(d->servers);
    d->magic = 0;
    mem_free(d);
  }
}

static void dns_release(struct dns *d)
{
  dns_cache_fini(&d->cache);
  mem_free(d->servers);
  d->magic = 0;
  mem_free(d);
}

struct dns *dns_new(uv_loop_t *loop, const struct dns_cfg *cfg, char *err, size_t errlen)
{
  struct dns *d = mem_calloc(1, sizeof *d);
  if(!d || dns_cache_init(&d->cache, cfg->cache_max)) {
    snprintf(err, errlen, "out of memory");
    mem_free(d);
    return NULL;
  }
  d->magic = DNS_MAGIC;
  d->loop = loop;
  d->cfg = *cfg;
  d->servers = cfg->servers ? mem_strdup(cfg->servers) : NULL;
  d->cfg.servers = d->servers;
  if((cfg->servers && !d->servers) || dns_ares_init(d, err, errlen)) {
    if(!err[0])
      snprintf(err, errlen, "out of memory");
    dns_ares_fini(d);
    dns_release(d);
    return NULL;
  }
  uv_timer_init(loop, &d->ares_timer);
  uv_timer_init(loop, &d->kick);
  d->ares_timer.data = d->kick.data = d;
  d->open_handles = 2;
  return d;
}

void dns_free(struct dns **dp)
{
  struct dns *d = *dp;
  if(!d)
    return;
  *dp = NULL;
  DNS_CHECK(d->magic == DNS_MAGIC && !d->in_cb && !d->freeing);
  d->freeing = true;
  dns_ares_fini(d);
  dns_drop_waiters(&d->ready);
  dns_cache_fini(&d->cache);
  uv_close((uv_handle_t *)&d->ares_timer, dns_handle_closed);
  uv_close((uv_handle_t *)&d->kick, dns_handle_closed);
}
