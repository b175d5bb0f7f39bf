/* The resolver's name table: a chained hash of entries, an LRU list of
 * the answered ones, capped at cache_max, and a list of those still being
 * asked. Callers hold the shared mutex. */
#include <string.h>

#include "common/list.h"
#include "common/mem.h"
#include "llfs/dns_int.h"

int dns_cache_init(struct dns_cache *c, size_t max)
{
  size_t n = 64;
  /* One bucket per cached name is enough; pending names are few. */
  while(n < max && n < ((size_t)1 << 22))
    n <<= 1;
  memset(c, 0, sizeof *c);
  c->buckets = mem_calloc(n, sizeof *c->buckets);
  if(!c->buckets)
    return -1;
  c->mask = n - 1;
  c->max = max ? max : 1;
  return 0;
}

static void dns_entry_free(struct dns_entry *e)
{
  e->magic = 0;
  mem_free(e);
}

void dns_cache_fini(struct dns_cache *c)
{
  for(size_t i = 0; c->buckets && i <= c->mask; i++) {
    struct dns_entry *e = c->buckets[i];
    while(e) {
      struct dns_entry *next = e->hnext;
      CHECK(!e->waiters.first);
      dns_entry_free(e);
      e = next;
    }
  }
  mem_free(c->buckets);
  memset(c, 0, sizeof *c);
}

struct dns_entry *dns_cache_find(const struct dns_cache *c, const char *name, uint64_t h)
{
  for(struct dns_entry *e = c->buckets[h & c->mask]; e; e = e->hnext)
    if(e->hash == h && !strcmp(e->name, name))
      return e;
  return NULL;
}

static void dns_pending_push(struct dns_cache *c, struct dns_entry *e)
{
  DL_PUSH_FRONT(c->pending, e, pprev, pnext);
  c->npending++;
}

static void dns_pending_unlink(struct dns_cache *c, struct dns_entry *e)
{
  DL_UNLINK(c->pending, e, pprev, pnext);
  c->npending--;
}

struct dns_entry *dns_cache_add(struct dns *d, const char *name, uint64_t h)
{
  struct dns_cache *c = &d->sh->cache;
  size_t n = strlen(name);
  struct dns_entry *e = mem_calloc(1, sizeof *e + n + 1);
  if(!e)
    return NULL;
  e->magic = DNS_ENTRY_MAGIC;
  e->d = d;
  e->st = DNS_ENT_PENDING;
  e->hash = h;
  memcpy(e->name, name, n + 1);
  e->hnext = c->buckets[h & c->mask];
  c->buckets[h & c->mask] = e;
  dns_pending_push(c, e);
  return e;
}

static void dns_lru_unlink(struct dns_cache *c, struct dns_entry *e)
{
  if(e->lprev)
    e->lprev->lnext = e->lnext;
  else
    c->lru_first = e->lnext;
  if(e->lnext)
    e->lnext->lprev = e->lprev;
  else
    c->lru_last = e->lprev;
  e->lprev = e->lnext = NULL;
}

static void dns_lru_push_front(struct dns_cache *c, struct dns_entry *e)
{
  e->lprev = NULL;
  e->lnext = c->lru_first;
  if(c->lru_first)
    c->lru_first->lprev = e;
  else
    c->lru_last = e;
  c->lru_first = e;
}

static void dns_unhash(struct dns_cache *c, struct dns_entry *e)
{
  struct dns_entry **pp = &c->buckets[e->hash & c->mask];
  while(*pp != e) {
    CHECK(*pp);
    pp = &(*pp)->hnext;
  }
  *pp = e->hnext;
}

void dns_cache_remove(struct dns_cache *c, struct dns_entry *e)
{
  CHECK(!e->waiters.first);
  dns_unhash(c, e);
  if(e->st == DNS_ENT_PENDING)
    dns_pending_unlink(c, e);
  else {
    dns_lru_unlink(c, e);
    c->nanswered--;
  }
  dns_entry_free(e);
}

size_t dns_cache_answered(struct dns_cache *c, struct dns_entry *e)
{
  size_t evicted = 0;
  CHECK(e->st != DNS_ENT_PENDING);
  dns_pending_unlink(c, e);
  c->nanswered++;
  dns_lru_push_front(c, e);
  while(c->nanswered > c->max && c->lru_last != e) {
    dns_cache_remove(c, c->lru_last);
    evicted++;
  }
  return evicted;
}

void dns_cache_touch(struct dns_cache *c, struct dns_entry *e)
{
  if(c->lru_first == e)
    return;
  dns_lru_unlink(c, e);
  dns_lru_push_front(c, e);
}

void dns_cache_requery(struct dns_cache *c, struct dns_entry *e, struct dns *d)
{
  CHECK(e->st != DNS_ENT_PENDING);
  dns_lru_unlink(c, e);
  c->nanswered--;
  dns_pending_push(c, e);
  e->st = DNS_ENT_PENDING;
  e->naddr = 0;
  e->d = d;
}
