#ifndef WPFS_HLFS_FRESH_PAGES_H
#define WPFS_HLFS_FRESH_PAGES_H
/* Pages this replica has just fetched and stored, kept so that the results
 * it delivers carry their page without reading it back from the page cache
 * (one command, the compressed page over the wire and a decompression per
 * result: docs/benchmarks.md, "Whole crawl against wget2").
 *
 * Each copy is tagged with the request whose fetch made it, and only a
 * result of that fetch (its own request's, or a coalesced waiter's through
 * coalesced_with) is given it: such a result is the answer of that fetch,
 * whatever happened to the page cache since (a newer fetch of the URL, an
 * eviction). Any other result (a cached answer, a redelivery after a newer
 * fetch, a result read through another replica) reads the page cache as
 * before. A purge through this replica drops its copy. Bounded by bytes,
 * least recently stored or used first; not shared between threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/state/pages.h"

struct fresh_pages;

/* max_bytes 0: nothing is kept. */
struct fresh_pages *fresh_pages_new(size_t max_bytes);
void fresh_pages_free(struct fresh_pages **fp);
/* Keep a copy of p under key, made by the fetch of request rid, replacing
 * what was there; not kept when larger than the bound or out of memory. */
void fresh_pages_put(struct fresh_pages *f, const char *key, const char *rid, const struct page *p);
/* key's copy if the fetch of rid made it: *out points into it until the
 * next put or drop. */
bool fresh_pages_get(struct fresh_pages *f, const char *key, const char *rid, struct page *out);
void fresh_pages_drop(struct fresh_pages *f, const char *key);

#endif
