#ifndef WPFS_CLIENTS_FRONTIER_H
#define WPFS_CLIENTS_FRONTIER_H
/* The crawl frontier: URLs waiting to be submitted to the gateway, and the
 * ones submitted whose result has not come back (outstanding).
 *
 * Priority: FRONTIER_LEVELS discrete levels, the gateway's priorities 0..7,
 * higher first. A URL's level is the larger of the level it was pushed
 * with (seeds: 7) and a level from its in-link count: the link it was
 * found by is the first, every further link to a queued URL
 * (frontier_bump) raises the count, and the level is
 * 1 + floor(log2(in-links)) up to 7, so a URL linked from 64 pages goes
 * first. Within a level, hosts take turns (round robin), each host's URLs
 * in arrival order; a host with max_per_host URLs outstanding waits, so
 * one large site cannot fill the gateway's queues while others starve.
 *
 * Memory: every entry (URL text included) counts against max_bytes.
 * Beyond it, URLs go to disk (frontier_disk.h, with a directory and the
 * disk thread): per level, appended to files and read back oldest first
 * when the memory has room again; once a level has URLs on disk, new ones
 * of that level go there too, so each level stays first in, first out.
 * On disk a URL's in-links are no longer counted. Without a directory,
 * frontier_push answers CRAWL_ERR_FULL beyond the budget.
 *
 * Scored (a focused crawl): every URL has a score, and the best queued URL
 * goes first, ties in arrival order (all scores equal: breadth first),
 * skipping hosts with max_per_host URLs outstanding. A better link to a
 * queued URL raises its score (frontier_raise). The frontier stays in
 * memory and is bounded: past max_bytes a new URL takes the place of the
 * worst queued one (counted `evicted`), or is refused (CRAWL_ERR_FULL)
 * when it is no better. Each URL carries the scorer's meta bytes (at most
 * FRONTIER_META_MAX) until its result. The gateway priority of a scored
 * URL is its score in eighths (scores are in [0, 1]). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "clients/out/wq.h"

#define FRONTIER_LEVELS 8

struct frontier_opts {
  size_t      max_bytes;     /* entries, hosts, indexes and disk buffers */
  unsigned    max_per_host;  /* outstanding URLs per host; 0 = no limit */
  const char *dir;           /* where URLs past the budget go (NULL: refused) */
  struct wq  *wq;            /* the disk thread, with dir; its owner reaps it */
  uint64_t    seg_bytes;     /* segment files; 0 = 64 MiB */
  bool        scored;        /* order by score (dir and seg_bytes unused) */
};

#define FRONTIER_META_MAX 4096u

/* A scored URL's score and the scorer's bytes kept with it. */
struct frontier_score {
  double      score;
  const void *meta;
  size_t      meta_len;
};

struct frontier_item {
  const char *url;    /* valid until frontier_done/remove of this URL */
  uint64_t    fp;     /* hash_fp64 of the URL: its key */
  unsigned    level;  /* the gateway priority to ask for */
  uint32_t    depth;  /* link hops from a seed */
};

struct frontier_stats {
  size_t   queued, outstanding, hosts, bytes;  /* in memory */
  size_t   per_level[FRONTIER_LEVELS];
  uint64_t pushed, taken, done, retried, bumped, promoted;
  uint64_t on_disk, disk_bytes;       /* queued on disk, not read back yet */
  uint64_t spilled, refilled;         /* ever written to disk, read back */
  uint64_t spilled_bytes;             /* their bytes on disk */
  uint64_t evicted, raised;           /* scored: dropped for better ones, scores raised */
  size_t   peak_urls, peak_bytes;     /* the most URLs in memory, and its bytes then */
};

struct frontier;

/* A sitemap's word on one of its URLs (frontier_hint.c): priority 0..1
 * (< 0: not given), age_s how long ago it last changed (< 0: not given),
 * and what its changefreq says (FRONTIER_FREQ_*). */
enum frontier_freq { FRONTIER_FREQ_NONE, FRONTIER_FREQ_OFTEN, FRONTIER_FREQ_SOMETIMES,
                     FRONTIER_FREQ_RARELY };
struct frontier_hint {
  double             priority;
  int64_t            age_s;
  enum frontier_freq freq;
};
#define FRONTIER_HINT_LEVEL  2u  /* a sitemap URL without hints */
#define FRONTIER_HINT_MAX    4u  /* the most hints give (sitemaps 6, seeds 7) */
#define FRONTIER_FRESH_S     (7 * 86400)
#define FRONTIER_STALE_S     (365 * 86400)
/* The push level of a URL a sitemap listed (docs/crawler.md, "Sitemaps"):
 * the priority picks 1, 2 or 3 (not given: 2); a change in the last week
 * or a changefreq of always, hourly or daily adds one, else a last change
 * over a year ago or a changefreq of yearly or never takes one away. */
unsigned  frontier_hint_level(const struct frontier_hint *h);

crawl_err frontier_open(const struct frontier_opts *o, struct frontier **out);
void      frontier_close(struct frontier **fp);
/* Queue url (canonical) of host at depth. CRAWL_ERR_FULL over the budget;
 * CRAWL_ERR_INVALID when the URL is in the frontier already. */
crawl_err frontier_push(struct frontier *f, const char *url, const char *host,
                        uint32_t depth, unsigned level);
/* One more in-link to fp: true when fp is in the frontier (its level may
 * rise while it is queued). */
bool      frontier_bump(struct frontier *f, uint64_t fp);
/* Scored: queue url with its score and meta. CRAWL_ERR_FULL when the
 * frontier is full of better URLs; CRAWL_ERR_INVALID when it is queued
 * already (frontier_raise then); CRAWL_ERR_TOO_LARGE for meta past
 * FRONTIER_META_MAX. */
crawl_err frontier_push_scored(struct frontier *f, const char *url, const char *host,
                               uint32_t depth, const struct frontier_score *sc);
/* Scored: another link to fp. A queued URL takes sc (score and meta) when
 * it is better; true when fp is in the frontier (one more in-link). */
bool      frontier_raise(struct frontier *f, uint64_t fp, const struct frontier_score *sc);
/* Scored: the score and meta fp was queued with (meta valid while fp is
 * in the frontier); false when fp is not in it. */
bool      frontier_score_of(struct frontier *f, uint64_t fp, struct frontier_score *out);
/* The URL of fp (valid while it is in the frontier), or NULL. */
const char *frontier_url(struct frontier *f, uint64_t fp);
/* The depth of fp if it is in the frontier. */
bool      frontier_depth(struct frontier *f, uint64_t fp, uint32_t *depth);
/* Up to max URLs, best first and fair across hosts, now outstanding.
 * Starts reading URLs back from disk when the memory has room. */
size_t    frontier_take(struct frontier *f, size_t max, struct frontier_item *out);
/* Read URLs back from disk if the memory has room (they arrive at the
 * disk thread owner's reap). */
void      frontier_refill(struct frontier *f);
/* A URL finished that may still be on disk (resume: its line was replayed
 * but it was not in memory): it is skipped when read back. */
crawl_err frontier_forget(struct frontier *f, uint64_t fp);
/* Segment files a crash left behind (no checkpoint to list them). */
void      frontier_tidy(struct frontier *f);
/* Disk segments read to their end, for a checkpoint to remove once it is
 * in place (frontier_disk_retired). */
char    **frontier_retired(struct frontier *f);
/* A URL is finished: *depth (may be NULL) gets its depth. Usually an
 * outstanding one; a queued one too (a result for a URL submitted before a
 * restart). CRAWL_ERR_NOT_FOUND when fp is not in the frontier. */
crawl_err frontier_done(struct frontier *f, uint64_t fp, uint32_t *depth);
/* An outstanding URL goes back to the head of its queue (the gateway did
 * not take it). */
crawl_err frontier_retry(struct frontier *f, uint64_t fp);
void      frontier_stats(const struct frontier *f, struct frontier_stats *st);
/* Outstanding URLs are saved as queued, ahead of the rest: after a resume
 * they are submitted again. The part on disk is saved by reference (its
 * files, their lengths, where reading stands), after its buffers are
 * handed to the disk thread, whose writes come before the checkpoint's. */
void      frontier_save(struct frontier *f, struct ckfile *c);
void      frontier_load(struct frontier *f, struct ckfile *c);

#endif
