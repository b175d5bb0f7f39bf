/* A string-keyed cache bounded by bytes: see cache.h. */
#include "common/cache.h"

#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/mem.h"

#define CACHE_OF(n) LRU_ENTRY(n, struct cache_ent, node)

void cache_init(struct cache *c, size_t max_bytes, size_t bytes_per_bucket)
{
  size_t buckets = max_bytes / (bytes_per_bucket ? bytes_per_bucket : 1);
  *c = (struct cache){ .max_bytes = max_bytes };
  CHECK(lru_init(&c->lru, buckets < 1024 ? 1024 : buckets) == 0);  /* set-up memory */
}

static void cache_remove(struct cache *c, struct cache_ent *e)
{
  lru_remove(&c->lru, &e->node);
  mem_free(e);
}

void cache_fini(struct cache *c)
{
  while(c->lru.head)
    cache_remove(c, CACHE_OF(c->lru.head));
  lru_fini(&c->lru);
}

static bool cache_eq(const struct lru_node *n, const void *key)
{
  return !strcmp(LRU_ENTRY(n, const struct cache_ent, node)->key, key);
}

struct cache_ent *cache_find(const struct cache *c, const char *key)
{
  if(!c->max_bytes)
    return NULL;
  struct lru_node *n = lru_find(&c->lru, hash_fp64(key, strlen(key)), cache_eq, key);
  return n ? CACHE_OF(n) : NULL;
}

void cache_touch(struct cache *c, struct cache_ent *e)
{
  lru_touch(&c->lru, &e->node);
}

struct cache_ent *cache_get(struct cache *c, const char *key)
{
  struct cache_ent *e = cache_find(c, key);
  if(e)
    cache_touch(c, e);
  return e;
}

void cache_drop(struct cache *c, const char *key)
{
  struct cache_ent *e = cache_find(c, key);
  if(e)
    cache_remove(c, e);
}

bool cache_put(struct cache *c, const char *key, struct cache_ent *e)
{
  cache_drop(c, key);
  if(!e || e->node.bytes > c->max_bytes) {
    mem_free(e);
    return false;
  }
  e->node.h = hash_fp64(e->key, strlen(e->key));
  while(c->lru.bytes + e->node.bytes > c->max_bytes && c->lru.tail) {
    cache_remove(c, CACHE_OF(c->lru.tail));
    c->evictions++;
  }
  lru_insert(&c->lru, &e->node);
  c->puts++;
  return true;
}
