#ifndef WPFS_CLIENTS_SEEN_H
#define WPFS_CLIENTS_SEEN_H
/* URL-seen test: has this URL fingerprint (XXH3-64 of the canonical URL)
 * been added before? Exact (no Bloom filter: no false "seen"), and memory
 * bounded, after Mercator and IRLbot (docs/crawler.md, "URL-seen test"):
 *
 *  - fingerprints added since the last spill live in an in-memory hash set
 *    (fpset) that never outgrows three quarters of mem_budget;
 *  - when it is full it is handed, sorted, to the disk thread (wq.h), which
 *    writes it as a run file in dir; past max_runs runs it merges them
 *    into one (seen_disk.h). The set starts again empty;
 *  - once runs exist, a fingerprint not in memory cannot be answered at
 *    once: it joins the pending batch (with the caller's record, e.g. the
 *    URL), and the whole batch is looked up by the disk thread in one
 *    sequential pass over the runs, when the batch is full or when the
 *    caller asks (seen_flush, e.g. when the frontier runs low). New ones
 *    then reach on_new, in the order they were added, when the owner of
 *    the disk thread reaps its jobs (wq_reap).
 *
 * So answers are NEW (at once), OLD (at once) or PENDING (NEW later via
 * on_new, or silently OLD). A fingerprint is NEW exactly once: a pending
 * fingerprint stays in memory (a repeat is OLD at once) and is never
 * written to a run until its batch is answered, so a spill cannot answer
 * it OLD to itself.
 *
 * Memory: the set, the batch being filled, one batch being looked up and
 * the runs being written all count against mem_budget; when the disk is
 * behind, seen_add waits for it rather than go over. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "clients/crawl/seen_disk.h"
#include "clients/out/wq.h"

/* Called for each pending fingerprint found new, with the record given to
 * seen_add (valid during the call only). It must not call seen_add (which
 * then fails with CRAWL_ERR_INVALID): queue the URL, do not test it. */
typedef void seen_new_fn(void *arg, uint64_t fp, const void *rec, size_t len);

struct seen_opts {
  const char  *dir;         /* run files (must exist) */
  size_t       mem_budget;  /* bytes: in-memory set, batches, runs being written */
  unsigned     max_runs;    /* merge beyond this many runs; 0 = 4 */
  seen_new_fn *on_new;
  void        *arg;
  struct wq   *wq;          /* the disk thread; its owner reaps it */
};

enum seen_answer { SEEN_NEW, SEEN_OLD, SEEN_PENDING };

struct seen_stats {
  uint64_t distinct;      /* fingerprints answered NEW so far */
  uint64_t lookups, mem_hits, pending_new, pending_old;
  uint64_t flushes, spills, merges;
  uint64_t pending;       /* waiting now, or being looked up */
  uint64_t in_memory;     /* fingerprints in the in-memory set */
  unsigned runs;
  size_t   mem_bytes;     /* set table, batches, runs being written */
  size_t   disk_bytes;    /* run files */
};

struct seen;

/* The directory, on_new and wq are required. */
crawl_err seen_open(const struct seen_opts *o, struct seen **out);
/* Waits for its jobs, frees memory; run files stay (they belong to the
 * last checkpoint). */
void      seen_close(struct seen **sp);
/* rec (len bytes) is kept only while the answer is PENDING. */
crawl_err seen_add(struct seen *s, uint64_t fp, const void *rec, size_t len,
                   enum seen_answer *ans);
/* Send the pending batch to be looked up, unless one is being looked up
 * already (then it goes at a later call). Never waits. */
crawl_err seen_flush(struct seen *s);
/* Flush and wait until every pending fingerprint is answered. */
crawl_err seen_settle(struct seen *s);
/* Waiting or being looked up. */
size_t    seen_pending(const struct seen *s);
void      seen_stats(const struct seen *s, struct seen_stats *st);
/* The part on disk, for the disk thread's jobs (checkpoints). */
struct seen_disk *seen_disk_of(struct seen *s);

/* Checkpoint: the in-memory set and every pending fingerprint with its
 * record, into an image (the run list is the disk thread's part:
 * seen_disk_save, in the same checkpoint, written after every run this
 * set handed over). */
void      seen_save(const struct seen *s, struct ckfile *c);
/* Into a freshly opened set whose disk part was loaded: pending records
 * become the pending batch again. */
crawl_err seen_load(struct seen *s, struct ckfile *c);

#endif
