#ifndef WPFS_CLIENTS_FPTAB_H
#define WPFS_CLIENTS_FPTAB_H
/* What fpset (fingerprints) and fpmap (fingerprints to values) share: one
 * open-addressing policy. Their slots differ (8 bytes, 16 bytes), and so
 * do their operations (a set sorts itself in place for writing out; a map
 * deletes by backward shift), so each keeps its own table and loops; the
 * placement, the load limit and the growth under a byte budget are here,
 * once. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"

/* The first slot to probe for k in a table of cap slots (a power of two).
 * Fingerprints from hash functions are uniform already; the multiply
 * spreads structured ones (SimHash bands, small integers) too. */
static inline size_t fptab_pos(uint64_t k, size_t cap)
{
  return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

/* Would one more key pass the load limit of 3/4? */
static inline bool fptab_needs_room(size_t stored, size_t cap)
{
  return (stored + 1) * 4 > cap * 3;
}

/* The capacity after growing from cap (first when empty), or
 * CRAWL_ERR_FULL when it would pass max_bytes. */
static inline crawl_err fptab_next_cap(size_t cap, size_t first, size_t slot_bytes,
                                       size_t max_bytes, size_t *ncap)
{
  *ncap = cap ? cap * 2 : first;
  return *ncap * slot_bytes > max_bytes ? CRAWL_ERR_FULL : CRAWL_OK;
}

#endif
