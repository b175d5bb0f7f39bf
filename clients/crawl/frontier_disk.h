#ifndef WPFS_CLIENTS_FRONTIER_DISK_H
#define WPFS_CLIENTS_FRONTIER_DISK_H
/* The frontier's URLs beyond its memory budget, per level, on disk (as
 * IRLbot's and Heritrix's frontiers keep theirs): records appended to
 * segment files in a directory and read back oldest first, in chunks,
 * when the memory has room again. The event loop keeps the bookkeeping
 * (sizes, read positions); the disk thread (wq.h) does every write and
 * read, in order with the crawler's other files, so a read always finds
 * what was appended before it and a checkpoint every record it counts.
 *
 * A level's records go to one segment until it is seg_bytes long, then a
 * new one begins; a segment read to its end is retired (removed by the
 * next checkpoint, which no longer lists it). A record: url length (2),
 * host length (1), base level (1), depth (4), in-links (4), all little
 * endian, then the URL and the host. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "clients/out/wq.h"

#define FRONTIER_DISK_LEVELS 8
#define FRONTIER_REC_HEAD    12

struct frontier_rec {
  const char *url, *host;   /* not NUL-terminated when read back */
  size_t      url_len, host_len;
  uint32_t    depth, inlinks;
  unsigned    base;
};

/* Called for each record read back, oldest first; false: no room for it
 * (it and the rest stay on disk for a later read). */
typedef bool frontier_disk_fn(void *arg, const struct frontier_rec *r);

struct frontier_disk_stats {
  uint64_t queued;       /* records on disk (or in buffers), not read back */
  uint64_t bytes;        /* their bytes */
  uint64_t spilled;      /* records ever written */
  uint64_t spilled_bytes;
  uint64_t refilled;     /* records ever read back */
  uint64_t segments;     /* segment files now */
  size_t   mem;          /* buffers */
};

struct frontier_disk;

/* buf_bytes: each level's buffer of records not yet handed to the disk
 * thread. */
crawl_err frontier_disk_open(const char *dir, struct wq *wq, size_t buf_bytes,
                             uint64_t seg_bytes, struct frontier_disk **out);
/* The owner waits for the disk thread first (jobs point at d). */
void      frontier_disk_close(struct frontier_disk **dp);
uint64_t  frontier_disk_queued(const struct frontier_disk *d, unsigned level);
crawl_err frontier_disk_put(struct frontier_disk *d, unsigned level,
                            const struct frontier_rec *r);
/* Hand every buffered record to the disk thread. */
void      frontier_disk_flush(struct frontier_disk *d);
/* A read is under way (one at a time). */
bool      frontier_disk_reading(const struct frontier_disk *d);
/* Read up to max bytes of level's oldest records; fn gets them at the
 * owner's reap. */
crawl_err frontier_disk_refill(struct frontier_disk *d, unsigned level, size_t max,
                               frontier_disk_fn *fn, void *arg);
void      frontier_disk_stats(const struct frontier_disk *d, struct frontier_disk_stats *st);
/* Checkpoints: flush first. load truncates each segment to the length the
 * checkpoint knew and removes the segment files it does not list. */
void      frontier_disk_save(const struct frontier_disk *d, struct ckfile *c);
crawl_err frontier_disk_load(struct frontier_disk *d, struct ckfile *c);
/* Remove the segment files not listed (all of them before a load, or
 * without a checkpoint: what a crash left). */
void      frontier_disk_tidy(const struct frontier_disk *d);
/* The segments retired so far, for the checkpoint being taken to remove
 * once it is in place: a NULL-ended array (mem_free each and it), or NULL. */
char    **frontier_disk_retired(struct frontier_disk *d);
/* On the disk thread, after that checkpoint is in place. */
void      frontier_disk_remove(const char *const *paths);

#endif
