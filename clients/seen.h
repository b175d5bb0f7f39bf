#ifndef WPFS_CLIENTS_SEEN_H
#define WPFS_CLIENTS_SEEN_H
/* URL-seen test: has this URL fingerprint (XXH3-64 of the canonical URL)
 * been added before? Exact (no Bloom filter: no false "seen"), and memory
 * bounded, after Mercator and IRLbot (docs/crawler.md, "URL-seen test"):
 *
 *  - fingerprints added since the last spill live in an in-memory hash set
 *    (fpset) that never outgrows three quarters of mem_budget;
 *  - when it is full it is written out, sorted, as a run file in dir and
 *    emptied; when there are more than max_runs runs they are merged into
 *    one (a sequential k-way merge);
 *  - once runs exist, a fingerprint not in memory cannot be answered at
 *    once: it joins the pending batch (with the caller's record, e.g. the
 *    URL) and is answered for the whole batch by one sequential pass over
 *    the runs, when the batch fills the rest of the budget, at a spill, or
 *    when the caller asks (seen_flush, e.g. when the frontier runs low).
 *    New ones then reach on_new, in the order they were added.
 *
 * So answers are NEW (at once), OLD (at once) or PENDING (NEW later via
 * on_new, or silently OLD). A fingerprint is NEW exactly once. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/ckfile.h"
#include "clients/crawl_err.h"

/* Called for each pending fingerprint found new, with the record given to
 * seen_add (valid during the call only). It must not call seen_add (which
 * then fails with CRAWL_ERR_INVALID): queue the URL, do not test it. */
typedef void seen_new_fn(void *arg, uint64_t fp, const void *rec, size_t len);

struct seen_opts {
  const char  *dir;         /* run files (must exist) */
  size_t       mem_budget;  /* bytes: in-memory set + pending batch */
  unsigned     max_runs;    /* merge beyond this many runs; 0 = 4 */
  seen_new_fn *on_new;
  void        *arg;
};

enum seen_answer { SEEN_NEW, SEEN_OLD, SEEN_PENDING };

struct seen_stats {
  uint64_t distinct;      /* fingerprints answered NEW so far */
  uint64_t lookups, mem_hits, pending_new, pending_old;
  uint64_t flushes, spills, merges;
  uint64_t pending;       /* waiting now */
  uint64_t in_memory;     /* fingerprints in the in-memory set */
  unsigned runs;
  size_t   mem_bytes;     /* set table + pending batch, as allocated */
  size_t   disk_bytes;    /* run files */
};

struct seen;

/* The directory and on_new are required. */
crawl_err seen_open(const struct seen_opts *o, struct seen **out);
/* Frees memory; run files stay (they belong to the last checkpoint). */
void      seen_close(struct seen **sp);
/* rec (len bytes) is kept only while the answer is PENDING. */
crawl_err seen_add(struct seen *s, uint64_t fp, const void *rec, size_t len,
                   enum seen_answer *ans);
crawl_err seen_flush(struct seen *s);
size_t    seen_pending(const struct seen *s);
void      seen_stats(const struct seen *s, struct seen_stats *st);

/* Checkpoint: flushes the pending batch first (so on_new runs), then
 * writes the run list and the in-memory set. Runs merged away stay on disk
 * until seen_commit, called once the checkpoint holding this save is
 * durable: until then the previous checkpoint still needs them. */
crawl_err seen_save(struct seen *s, struct ckfile *c);
void      seen_commit(struct seen *s);
/* Into a freshly opened d: the runs must be in dir; run files of dir that
 * the checkpoint does not list (written after it) are removed. */
crawl_err seen_load(struct seen *s, struct ckfile *c);

#endif
