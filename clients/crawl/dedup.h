#ifndef WPFS_CLIENTS_DEDUP_H
#define WPFS_CLIENTS_DEDUP_H
/* Content-seen test. A page is an exact duplicate of an earlier one when
 * its body fingerprint (XXH3-64 of the body) is the same, and a near
 * duplicate when the SimHash of its visible text is within max_distance
 * bits of an earlier page's. Only original pages are remembered, so a
 * cluster of near copies keeps pointing at its first page.
 *
 * Near-duplicate lookup is not a scan: the 64 bits are cut into 4 bands
 * of 16; two fingerprints at distance <= 3 agree on at least one band
 * (pigeonhole), so a page is compared only with the pages that share one
 * of its bands (4 tables of 65,536 chains). With max_distance above 3 the
 * bands no longer guarantee every match (counted as such in the docs).
 *
 * A near duplicate may still have links of its own: pages generated from
 * one template (the reference pages of one family of functions, the same
 * manual for two languages) share most of their words but each links to
 * pages of its own. Each original keeps a fingerprint of its set of links
 * (dedup_links_add), and a near duplicate whose set differs says so
 * (own_links): its links are followed, so the test loses no page that
 * only such a copy links to (docs/crawler.md, measured on real manuals).
 *
 * Memory is bounded by max_pages (entries and the band tables) and
 * url_bytes (the URLs of the originals); past either, pages are still
 * checked but no longer remembered (stats.untracked). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"

struct dedup_opts {
  unsigned max_distance;  /* Hamming threshold; default 3 */
  size_t   min_shingles;  /* fewer: exact test only; default 8 */
  size_t   max_pages;     /* originals remembered; default 1,000,000 */
  size_t   url_bytes;     /* their URLs; default 64 MiB */
};
struct dedup_opts dedup_opts_default(void);

enum dedup_verdict { DEDUP_NEW, DEDUP_EXACT, DEDUP_NEAR };

struct dedup_hit {
  enum dedup_verdict verdict;
  const char        *of;        /* URL of the original (valid until the next call) */
  unsigned           distance;  /* bits, for DEDUP_NEAR */
  bool               own_links; /* DEDUP_NEAR: its set of links is not the original's */
};

/* The fingerprint of a set of links (each URL once, in any order) is the
 * XOR of their 64-bit fingerprints, 0 for none: set with url added. */
uint64_t  dedup_links_add(uint64_t set, const char *url);

struct dedup_stats {
  uint64_t pages, exact, near, untracked, comparisons;
  uint64_t near_own_links;  /* near duplicates with links of their own */
  size_t   mem_bytes;
};

struct dedup;

crawl_err dedup_open(const struct dedup_opts *o, struct dedup **out);
void      dedup_close(struct dedup **dp);
/* Check a page and remember it when it is new. shingles is the number of
 * SimHash features (simhash_final); below min_shingles the near test is
 * skipped for the page, and it is not indexed for later near tests.
 * links_fp is the fingerprint of the page's links (dedup_links_add). */
crawl_err dedup_check(struct dedup *d, const char *url, uint64_t body_fp,
                      uint64_t sim, size_t shingles, uint64_t links_fp,
                      struct dedup_hit *hit);
/* The exact test alone: true (and counted, as dedup_check counts it) when
 * an earlier page had this body. A caller that has nothing to do with a
 * duplicate's content asks this first and skips reading the page. */
bool      dedup_exact(struct dedup *d, uint64_t body_fp, struct dedup_hit *hit);
void      dedup_stats(const struct dedup *d, struct dedup_stats *st);
void      dedup_save(const struct dedup *d, struct ckfile *c);
/* Into a freshly opened, empty d. */
void      dedup_load(struct dedup *d, struct ckfile *c);

#endif
