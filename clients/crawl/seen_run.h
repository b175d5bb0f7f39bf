#ifndef WPFS_CLIENTS_SEEN_RUN_H
#define WPFS_CLIENTS_SEEN_RUN_H
/* Sorted runs of the URL-seen set on disk: "WPFSRUN1", a little-endian
 * u64 count, then count fingerprints, ascending and unique, 8 bytes each.
 * Written to PATH.tmp and renamed, so a run file is whole or absent.
 * Read front to back only (runs are merged and searched by scanning, never
 * by seeking): reading is sequential I/O whatever the run's size. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clients/base/crawl_err.h"

#define SEEN_RUN_IOBUF 4096  /* values per read or write */

struct seen_run_w {
  FILE     *f;
  char     *path, *tmp;
  uint64_t  count, last;
  size_t    len;
  crawl_err err;
  uint64_t  buf[SEEN_RUN_IOBUF];  /* last: not cleared at create */
};

struct seen_run_r {
  FILE     *f;
  uint64_t  left;  /* values not yet buffered */
  size_t    pos, len;
  crawl_err err;
  uint64_t  buf[SEEN_RUN_IOBUF];  /* last: not cleared at open */
};

/* Writing: values must come ascending; a repeat of the last one is
 * dropped (merges rely on this). commit renames; abort removes. */
crawl_err seen_run_create(struct seen_run_w *w, const char *path);
void      seen_run_put(struct seen_run_w *w, uint64_t v);
crawl_err seen_run_commit(struct seen_run_w *w);
void      seen_run_abort(struct seen_run_w *w);
/* A whole sorted array as one run. */
crawl_err seen_run_write(const char *path, const uint64_t *v, size_t n);

/* Reading. open checks the magic and that the size matches the count;
 * *count (may be NULL) gets it. next returns false at the end or on an
 * error (then r->err is set). */
crawl_err seen_run_open(struct seen_run_r *r, const char *path, uint64_t *count);
bool      seen_run_next(struct seen_run_r *r, uint64_t *v);
void      seen_run_close(struct seen_run_r *r);

#endif
