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
 * So save and load functions read straight through without checks. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clients/crawl_err.h"

struct ckfile {
  FILE     *f;
  char     *path, *tmp;  /* tmp only when writing */
  void     *hash;        /* XXH3 state while writing */
  crawl_err err;
  uint64_t  left;        /* payload bytes not yet read */
};

crawl_err ckfile_create(struct ckfile *c, const char *path, const char magic[8]);
void      ckfile_put_u64(struct ckfile *c, uint64_t v);
void      ckfile_put_bytes(struct ckfile *c, const void *p, size_t n);
void      ckfile_put_str(struct ckfile *c, const char *s);  /* NULL allowed */
/* Finish: checksum, flush, rename over PATH. Always releases c. */
crawl_err ckfile_commit(struct ckfile *c);
/* Give up writing: the temporary file is removed, PATH untouched. */
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
