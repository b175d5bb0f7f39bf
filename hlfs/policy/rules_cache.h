#ifndef WPFS_HLFS_RULES_CACHE_H
#define WPFS_HLFS_RULES_CACHE_H
/* Parsed robots.txt sets kept in memory, by origin and the record's fetch
 * time, so that a robots check costs one query instead of one parse (a
 * parse costs 0.8 us for a typical file and 4 ms at the 500 KiB limit; a
 * query 0.1-1.4 us). A record's body never changes once stored, and a new
 * fetch gives a new fetch time, so (origin, fetched_at, body length) names
 * one parse. Bounded by entries and by the parsed sets' heap bytes
 * (robots_stats.mem_bytes); the least recently used goes first. Not shared
 * between threads (one loop per process). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/policy/robots.h"

struct rules_cache;

struct rules_cache_stats {
  uint64_t hits, parses, evictions;
  size_t   entries, bytes;
};

/* max_entries 0: nothing is kept (each lookup parses; for comparisons). */
struct rules_cache *rules_cache_new(unsigned max_entries, size_t max_bytes);
void rules_cache_free(struct rules_cache **cp);

/* The parsed set of body for (origin, fetched_at); parsed on a miss with
 * lim. NULL on out of memory. The set belongs to the cache and stays valid
 * until the next rules_cache_get on the same cache. */
const struct robots *rules_cache_get(struct rules_cache *c, const char *origin,
                                     uint64_t fetched_at, const char *body, size_t len,
                                     const struct robots_limits *lim);
/* The parsed set for (origin, fetched_at, len) if it is kept, else NULL:
 * never parses (for callers that do not hold the body). */
const struct robots *rules_cache_peek(struct rules_cache *c, const char *origin,
                                      uint64_t fetched_at, size_t len);
void rules_cache_stats(const struct rules_cache *c, struct rules_cache_stats *st);

#endif
