/* The resolver's name table (common/lru.h): every name in the table, the
 * answered ones in use order, capped at cache_max, and a list of those
 * still being asked. Callers hold the shared mutex. */
#include <string.h>

#include "common/list.h"
#include "common/mem.h"
#include "llfs/dns_int.h"

int dns_cache_init(struct dns_cache *c, size_t max)
{
  memset(c, 0, sizeof *c);
  /* One bucket per cached name is enough; pending names are few. */
  if(lru_init(&c->lru, max < ((size_t)1 << 22) ? max : (size_t)1 << 22))
    return -1;
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
  for(size_t i = 0; c->lru.tab && i < c->lru.nbuckets; i++) {
    struct lru_node *n = c->lru.tab[i];
    while(n) {
      struct lru_node *next = n->chain;
      struct dns_entry *e = LRU_ENTRY(n, struct dns_entry, node);
      CHECK(!e->waiters.first);
      dns_entry_free(e);
      n = next;
    }
  }
  lru_fini(&c->lru);
  memset(c, 0, sizeof *c);
}

static bool dns_name_eq(const struct lru_node *n, const void *name)
{
  return !strcmp(LRU_ENTRY(n, const struct dns_entry, node)->name, name);
}

struct dns_entry *dns_cache_find(const struct dns_cache *c, const char *name, uint64_t h)
{
  struct lru_node *n = lru_find(&c->lru, h, dns_name_eq, name);
  return n ? LRU_ENTRY(n, struct dns_entry, node) : NULL;
}

CLIST_FUNCS(dp, dns_pending, struct dns_entry, pprev, pnext)

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
  e->node.h = h;
  memcpy(e->name, name, n + 1);
  lru_hash_add(&c->lru, &e->node);
  dp_push_front(&c->pending, e);
  return e;
}

void dns_cache_remove(struct dns_cache *c, struct dns_entry *e)
{
  CHECK(!e->waiters.first);
  lru_hash_del(&c->lru, &e->node);
  if(e->st == DNS_ENT_PENDING)
    dp_remove(&c->pending, e);
  else
    lru_order_del(&c->lru, &e->node);
  dns_entry_free(e);
}

size_t dns_cache_answered(struct dns_cache *c, struct dns_entry *e)
{
  size_t evicted = 0;
  CHECK(e->st != DNS_ENT_PENDING);
  dp_remove(&c->pending, e);
  lru_order_push(&c->lru, &e->node);
  while(c->lru.n > c->max && c->lru.tail != &e->node) {
    dns_cache_remove(c, LRU_ENTRY(c->lru.tail, struct dns_entry, node));
    evicted++;
  }
  return evicted;
}

void dns_cache_touch(struct dns_cache *c, struct dns_entry *e)
{
  lru_touch(&c->lru, &e->node);
}

void dns_cache_requery(struct dns_cache *c, struct dns_entry *e, struct dns *d)
{
  CHECK(e->st != DNS_ENT_PENDING);
  lru_order_del(&c->lru, &e->node);
  dp_push_front(&c->pending, e);
  e->st = DNS_ENT_PENDING;
  e->naddr = 0;
  e->d = d;
}
