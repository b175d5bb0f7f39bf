#ifndef WPFS_CLIENTS_CKFILE_H
#define WPFS_CLIENTS_CKFILE_H
/* Checkpoint files: a stream of little-endian integers and byte strings
 * behind a magic, ended by an XXH3-64 checksum of everything before it.
 * Writing goes to PATH.tmp and becomes PATH by rename(2) only when every
 * byte is out, so a crash leaves either the old file or the new one, never
 * half of one. Reading checks the checksum over the whole file before the
 * first value is handed out.
 *
 * Errors are sticky, as with stdio: after the first failure, puts do
 * nothing and gets return zeros, and commit/close report the first error.
 * So save and load functions read straight through without checks.
 *
 * An image is a checkpoint's bytes kept in memory (chunks of 1 MiB): the
 * event loop takes its snapshot into one at once, and the disk thread puts
 * it into the file later (ckfile_put_image), so the loop never waits on
 * the disk for a checkpoint. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clients/base/crawl_err.h"

struct ck_chunk;

struct ckfile {
  FILE     *f;            /* NULL for an image */
  struct ck_chunk *head, *tail;  /* an image's bytes */
  uint64_t  image_bytes;
  char     *path, *tmp;  /* tmp only when writing */
  void     *hash;        /* XXH3 state while writing */
  crawl_err err;
  uint64_t  left;        /* payload bytes not yet read */
};

crawl_err ckfile_create(struct ckfile *c, const char *path, const char magic[8]);
/* An image in memory: the same puts; then ckfile_put_image, or discard. */
void      ckfile_create_image(struct ckfile *c);
/* Append every byte of img (an image) to c; img is left as it was. */
void      ckfile_put_image(struct ckfile *c, const struct ckfile *img);
void      ckfile_put_u64(struct ckfile *c, uint64_t v);
void      ckfile_put_bytes(struct ckfile *c, const void *p, size_t n);
void      ckfile_put_str(struct ckfile *c, const char *s);  /* NULL allowed */
/* Finish: checksum, flush, rename over PATH. Always releases c. */
crawl_err ckfile_commit(struct ckfile *c);
/* Give up writing: the temporary file is removed, PATH untouched (an
 * image is freed). */
void      ckfile_discard(struct ckfile *c);

/* CRAWL_ERR_NOT_FOUND when PATH does not exist; CRAWL_ERR_CORRUPT for a
 * wrong magic or checksum. */
crawl_err ckfile_open(struct ckfile *c, const char *path, const char magic[8]);
uint64_t  ckfile_get_u64(struct ckfile *c);
void      ckfile_get_bytes(struct ckfile *c, void *p, size_t n);
/* A string of at most max bytes (longer is CRAWL_ERR_CORRUPT), heap
 * (mem_free), or NULL for a NULL put (or after an error). */
char     *ckfile_get_str(struct ckfile *c, size_t max);
/* Values count read so far must have used the whole payload. */
crawl_err ckfile_close(struct ckfile *c);
/* Record an error found by the caller (a value out of range). */
void      ckfile_fail(struct ckfile *c, crawl_err e);

#endif
