#ifndef WPFS_COMMON_CACHE_H
#define WPFS_COMMON_CACHE_H
/* A string-keyed cache bounded by bytes, least recently used out first:
 * h2o's h2o_cache_t idea (key hash, LRU, a capacity in bytes, lookups by
 * string) on common/lru.h. An entry is one mem_alloc block that begins
 * with struct cache_ent (the caller's members after it); its key and
 * bytes (the whole block, what the bound counts) are set before
 * cache_put, and the cache frees it (mem_free) when it leaves. Pointers
 * into an entry are valid until the next put or drop. Not shared between
 * threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/lru.h"

struct cache_ent {
  struct lru_node node;  /* bytes: the whole block */
  const char     *key;   /* usually inside the block */
};

struct cache {
  struct lru lru;        /* n and bytes: what is kept */
  size_t     max_bytes;  /* 0: nothing is kept */
  uint64_t   puts, evictions;
};

/* A table of about one bucket per bytes_per_bucket of max_bytes, at
 * least 1,024 buckets; set-up memory (aborts when there is none). */
void cache_init(struct cache *c, size_t max_bytes, size_t bytes_per_bucket);
/* Frees every entry and the table. */
void cache_fini(struct cache *c);
/* key's entry, not moved; NULL when there is none. */
struct cache_ent *cache_find(const struct cache *c, const char *key);
/* key's entry, made the most recent; NULL when there is none. */
struct cache_ent *cache_get(struct cache *c, const char *key);
/* e (found) becomes the most recent. */
void cache_touch(struct cache *c, struct cache_ent *e);
void cache_drop(struct cache *c, const char *key);
/* e (NULL: out of memory) replaces what key had; the least recent
 * entries go (counted in evictions) until it fits. Not kept (false, e
 * freed) when NULL or larger than the bound. */
bool cache_put(struct cache *c, const char *key, struct cache_ent *e);

#endif
