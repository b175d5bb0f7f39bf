#ifndef WPFS_CLIENTS_FPMAP_H
#define WPFS_CLIENTS_FPMAP_H
/* A map from 64-bit fingerprints to 64-bit values (counters, pointers),
 * open addressing with linear probing and backward-shift deletion, load at
 * most 3/4, never larger than the byte budget fixed at init. Every key is
 * storable, 0 included. Pointers into the map are valid until the next
 * put or del. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"

struct fpmap_slot {
  uint64_t key, val;
};

struct fpmap {
  struct fpmap_slot *slot;   /* key 0 = free; key 0 itself lives in zero */
  size_t             cap, count, max_bytes;
  bool               has_zero;
  uint64_t           zero;
};

void      fpmap_init(struct fpmap *m, size_t max_bytes);
void      fpmap_free(struct fpmap *m);
uint64_t *fpmap_get(struct fpmap *m, uint64_t key);  /* NULL if absent */
/* The value of key, inserted as 0 if absent (*added tells, may be NULL).
 * CRAWL_ERR_FULL at the budget, CRAWL_ERR_NOMEM; then nothing changed. */
crawl_err fpmap_put(struct fpmap *m, uint64_t key, uint64_t **val, bool *added);
bool      fpmap_del(struct fpmap *m, uint64_t key);
size_t    fpmap_bytes(const struct fpmap *m);
/* Iterate: *pos starts at 0; false at the end. */
bool      fpmap_next(const struct fpmap *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
