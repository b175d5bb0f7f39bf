#ifndef WPFS_HLFS_ROBOTS_MEMO_H
#define WPFS_HLFS_ROBOTS_MEMO_H
/* The robots.txt records this replica's claims were last checked against,
 * by origin: status, fetch time, body length and expiry, no body (the
 * parsed rules stay in hlfs/policy/rules_cache.h, which a record's fetch time and
 * body length name). Enough to tell, without reading Redis, whether a URL
 * may be answered from the page cache. Direct-mapped: a colliding origin
 * replaces the older one (a miss only means "ask the queue"). Not shared
 * between threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct robots_memo;

struct robots_memo_rec {
  int      status;       /* the robots policy's code (hlfs/policy/robots_policy.h) */
  uint64_t fetched_at;   /* Redis clock, ms */
  uint64_t expires_at;   /* Redis clock, ms */
  size_t   body_len;
};

struct robots_memo *robots_memo_new(unsigned slots);
void robots_memo_free(struct robots_memo **mp);
/* Remember rec as origin's current record (out of memory: forgets it). */
void robots_memo_put(struct robots_memo *m, const char *origin,
                     const struct robots_memo_rec *rec);
/* origin's record if it is kept; false otherwise. */
bool robots_memo_get(const struct robots_memo *m, const char *origin,
                     struct robots_memo_rec *out);

#endif
