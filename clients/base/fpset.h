#ifndef WPFS_CLIENTS_FPSET_H
#define WPFS_CLIENTS_FPSET_H
/* A set of 64-bit fingerprints in one open-addressing table (linear
 * probing, load at most 3/4), whose size never goes over a byte budget
 * fixed at init. Every value is storable, 0 included. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"

struct fpset {
  uint64_t *slot;      /* 0 = free; the value 0 is kept in has_zero */
  size_t    cap;       /* slots, a power of two (0 before the first add) */
  size_t    count;     /* values stored, has_zero included */
  size_t    max_bytes; /* the table never grows beyond this */
  bool      has_zero;
};

#define FPSET_MIN_BYTES (64u * sizeof(uint64_t))

/* max_bytes below FPSET_MIN_BYTES is raised to it. */
void      fpset_init(struct fpset *s, size_t max_bytes);
void      fpset_free(struct fpset *s);
void      fpset_clear(struct fpset *s);  /* keeps the table */
bool      fpset_has(const struct fpset *s, uint64_t v);
/* *added (may be NULL) tells whether v was new. CRAWL_ERR_FULL when v is
 * new and the table is at its budget and load; CRAWL_ERR_NOMEM when
 * growing failed. On error the set is unchanged. */
crawl_err fpset_add(struct fpset *s, uint64_t v, bool *added);
/* Would one more new value fit without an error? */
bool      fpset_full(const struct fpset *s);
size_t    fpset_bytes(const struct fpset *s);
/* Sort the non-zero values in place at the front of the table, without
 * extra memory, for writing them out: *n gets their number (the value 0,
 * if stored, is s->has_zero). The set is unusable until fpset_clear. */
const uint64_t *fpset_take_sorted(struct fpset *s, size_t *n);
/* Checkpoints: the values, in table order. Loading into a set with a
 * smaller budget fails with CRAWL_ERR_TOO_LARGE. */
void      fpset_save(const struct fpset *s, struct ckfile *c);
void      fpset_load(struct fpset *s, struct ckfile *c);

#endif
