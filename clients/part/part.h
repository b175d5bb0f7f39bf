#ifndef WPFS_CLIENTS_PART_H
#define WPFS_CLIENTS_PART_H
/* A crawl on several processes (docs/crawler.md, "A crawl on several
 * processes"): one member of crawl NAME, coordinated through Redis
 * (coord.h), no coordinator. The URLs are split into N partitions by site
 * (partmap.h); each member holds about N / members of them under leases
 * with a fencing epoch, and crawls only theirs:
 *  - a URL found for a partition held elsewhere goes to the partition's
 *    stream (XADD, batched each tick), which its owner reads through a
 *    consumer group into its engine, where the URL-seen test is its own;
 *  - every snapshot period the owner writes each changed partition's
 *    snapshot (URLs queued or outstanding, fingerprints of URLs finished),
 *    fenced by its epoch, and only then acknowledges the stream entries it
 *    had read: a member that takes a partition over loads the snapshot and
 *    reads the entries still pending, so nothing is lost, and what is
 *    fetched twice after a crash is bounded by what finished since the
 *    last snapshot;
 *  - a member above its share hands partitions over: it stops submitting
 *    their URLs, waits for their outstanding ones, snapshots and releases
 *    them; members below it take free partitions and partitions whose
 *    lease lapsed (a killed member's);
 *  - the crawl is over when every live member is idle, every partition is
 *    held, and every link sent to a stream was read.
 * The crawl loop calls part_tick from its tick and part_take for each URL
 * it takes from the frontier; the engine calls the rest (crawl_route). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/crawl/crawl.h"
#include "common/buf.h"

struct part_opts {
  const char *crawl;        /* NAME: keys wc:{NAME}:... */
  const char *redis_url;    /* redis://host:port */
  const char *member;       /* this process's id in the crawl */
  const char *run;          /* this start's run (run-0001 ...): in the summary */
  unsigned    partitions;   /* N, the same for every member */
  uint64_t    lease_ms;
  uint64_t    snap_ms;      /* changed partitions are snapshotted this often */
  size_t      stream_max;   /* entries (a sender's tick of links each) in a stream past
                             * which links for it wait at the sender */
  size_t      held_max;     /* links waiting past which no more pages are taken */
  unsigned    timeout_ms;   /* of each Redis call */
};
struct part_opts part_opts_default(void);

#define PART_COUNTERS(X)                                                       \
  X(claimed)            /* partitions taken */                                 \
  X(claimed_lapsed)     /* ...from a member whose lease had ended */           \
  X(released)           /* handed over (snapshot, then released) */            \
  X(lost)               /* found held by another (our lease had lapsed) */     \
  X(fenced)             /* snapshots refused: the partition was not ours */    \
  X(snapshots)          /* snapshots written */                                \
  X(links_sent)         /* URLs sent to their partition's stream */            \
  X(links_read)         /* URLs read from our partitions' streams */           \
  X(links_held_now)     /* waiting for room in a full stream (a gauge) */      \
  X(held_max_seen)      /* the most ever waiting */                            \
  X(inherited)          /* queued URLs loaded from snapshots */                \
  X(inherited_finished) /* finished fingerprints loaded from snapshots */      \
  X(pending_claimed)    /* stream entries another member had read, not acked */ \
  X(refetch_bound)      /* URLs taken over from lapsed members that they may   \
                         * have finished after their last snapshot */          \
  X(forgotten)          /* URLs taken from the frontier, no longer ours */     \
  X(redis_errors)

struct part_stats {
#define X(f) uint64_t f;
  PART_COUNTERS(X)
#undef X
  unsigned live, share, held;
};

struct part;

/* Connects, joins (the crawl's N is fixed by its first member: another
 * is refused, CRAWL_ERR_INVALID), and routes c's URLs. */
crawl_err part_open(const struct part_opts *o, struct crawl *c, struct part **out);
/* Leaves the crawl: with give_back, every held partition is snapshotted and
 * released first (a member stopped mid-crawl); the membership ends. */
void      part_close(struct part **pp, bool give_back);
/* Each tick of the loop; idle: the loop has nothing to do (engine
 * finished, nothing in flight). True when the whole crawl is over. */
bool      part_tick(struct part *p, bool idle);
/* A URL taken from the frontier: true to submit it, false when its
 * partition is not ours any more (the engine forgot it). */
bool      part_take(struct part *p, const struct frontier_item *it);
/* An outstanding URL back in the queue (the gateway did not take it). */
void      part_requeued(struct part *p, const char *url);
/* Links wait for room in streams, or partitions are being handed over:
 * take no more pages for now. */
bool      part_busy(const struct part *p);
/* ,"part_...":n members for the summary line. */
void      part_summary(const struct part *p, struct buf *out);

#endif
