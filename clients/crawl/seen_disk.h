#ifndef WPFS_CLIENTS_SEEN_DISK_H
#define WPFS_CLIENTS_SEEN_DISK_H
/* The URL-seen set's part on disk: its sorted runs (seen_run.h) in a
 * directory, written, merged and scanned by the disk thread only (wq.h);
 * the event loop touches it only before the first job and after the last
 * (loading, closing). seen.c holds the part in memory.
 *
 * Runs merged away are retired, not removed: the last checkpoint may list
 * them. seen_disk_commit removes them once a checkpoint that no longer
 * does is in place. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"

/* A pending fingerprint to look up, and its place in its batch. */
struct seen_key {
  uint64_t fp;
  size_t   idx;
};

struct seen_disk_stats {
  unsigned runs;
  uint64_t merges;
  size_t   disk_bytes;  /* run files */
};

struct seen_disk;

crawl_err seen_disk_open(const char *dir, unsigned max_runs, struct seen_disk **out);
void      seen_disk_close(struct seen_disk **dp);
/* v[0..n) ascending and unique, as a new run; past max_runs every run is
 * merged into one. */
crawl_err seen_disk_spill(struct seen_disk *d, const uint64_t *v, size_t n);
/* One sequential pass over each run: found[k[i].idx] = 1 for each key the
 * runs hold. k is sorted by fp. */
crawl_err seen_disk_scan(struct seen_disk *d, const struct seen_key *k, size_t n,
                         uint8_t *found);
void      seen_disk_stats(const struct seen_disk *d, struct seen_disk_stats *st);
/* Checkpoints: the run list. load checks each run against its count and
 * removes run files the list does not hold (written after it). */
void      seen_disk_save(const struct seen_disk *d, struct ckfile *c);
crawl_err seen_disk_load(struct seen_disk *d, struct ckfile *c);
void      seen_disk_commit(struct seen_disk *d);

#endif
