#include "clients/base/fpmap.h"

#include "clients/base/fptab.h"

#include <stdint.h>
#include <string.h>

#include "common/mem.h"

#define FPMAP_MIN_BYTES (16u * sizeof(struct fpmap_slot))

void fpmap_init(struct fpmap *m, size_t max_bytes)
{
  memset(m, 0, sizeof *m);
  m->max_bytes = max_bytes < FPMAP_MIN_BYTES ? FPMAP_MIN_BYTES : max_bytes;
}

void fpmap_free(struct fpmap *m)
{
  size_t max = m->max_bytes;
  mem_free(m->slot);
  memset(m, 0, sizeof *m);
  m->max_bytes = max;
}

#define NO_SLOT SIZE_MAX

static size_t fpmap_index(const struct fpmap *m, uint64_t key)
{
  if(!m->cap)
    return NO_SLOT;
  for(size_t i = fptab_pos(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if(m->slot[i].key == key)
      return i;
    if(m->slot[i].key == 0)
      return NO_SLOT;
  }
}

uint64_t *fpmap_get(struct fpmap *m, uint64_t key)
{
  if(key == 0)
    return m->has_zero ? &m->zero : NULL;
  size_t i = fpmap_index(m, key);
  return i == NO_SLOT ? NULL : &m->slot[i].val;
}

static struct fpmap_slot *fpmap_place(struct fpmap *m, uint64_t key)
{
  size_t i = fptab_pos(key, m->cap);
  while(m->slot[i].key != 0)
    i = (i + 1) & (m->cap - 1);
  m->slot[i].key = key;
  return &m->slot[i];
}

static crawl_err fpmap_grow(struct fpmap *m)
{
  size_t ncap;
  if(fptab_next_cap(m->cap, 16, sizeof(struct fpmap_slot), m->max_bytes, &ncap))
    return CRAWL_ERR_FULL;
  struct fpmap_slot *nv = mem_calloc(ncap, sizeof *nv);
  if(!nv)
    return CRAWL_ERR_NOMEM;
  struct fpmap_slot *old = m->slot;
  size_t ocap = m->cap;
  m->slot = nv;
  m->cap = ncap;
  for(size_t i = 0; i < ocap; i++)
    if(old[i].key)
      fpmap_place(m, old[i].key)->val = old[i].val;
  mem_free(old);
  return CRAWL_OK;
}

crawl_err fpmap_put(struct fpmap *m, uint64_t key, uint64_t **val, bool *added)
{
  uint64_t *v = fpmap_get(m, key);
  if(added)
    *added = !v;
  if(v) {
    *val = v;
    return CRAWL_OK;
  }
  if(key == 0) {
    m->has_zero = true;
    m->zero = 0;
    m->count++;
    *val = &m->zero;
    return CRAWL_OK;
  }
  size_t stored = m->count - (m->has_zero ? 1 : 0);
  if(fptab_needs_room(stored, m->cap)) {
    crawl_err e = fpmap_grow(m);
    if(e) {
      if(added)
        *added = false;
      return e;
    }
  }
  struct fpmap_slot *s = fpmap_place(m, key);
  s->val = 0;
  m->count++;
  *val = &s->val;
  return CRAWL_OK;
}

/* Backward-shift deletion: no tombstones, so lookups stay short. */
bool fpmap_del(struct fpmap *m, uint64_t key)
{
  if(key == 0) {
    bool had = m->has_zero;
    m->count -= had;
    m->has_zero = false;
    return had;
  }
  size_t i = fpmap_index(m, key);
  if(i == NO_SLOT)
    return false;
  size_t mask = m->cap - 1;
  for(size_t j = (i + 1) & mask; m->slot[j].key; j = (j + 1) & mask) {
    size_t home = fptab_pos(m->slot[j].key, m->cap);
    /* Move j back to i unless its home lies cyclically in (i, j]. */
    if(((j - home) & mask) >= ((j - i) & mask)) {
      m->slot[i] = m->slot[j];
      i = j;
    }
  }
  m->slot[i].key = 0;
  m->count--;
  return true;
}

size_t fpmap_bytes(const struct fpmap *m)
{
  return m->cap * sizeof(struct fpmap_slot);
}

bool fpmap_next(const struct fpmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
  if(*pos == 0 && m->has_zero) {
    *pos = 1;
    *key = 0;
    *val = m->zero;
    return true;
  }
  for(size_t i = *pos ? *pos - 1 : 0; i < m->cap; i++) {
    if(m->slot[i].key) {
      *pos = i + 2;
      *key = m->slot[i].key;
      *val = m->slot[i].val;
      return true;
    }
  }
  *pos = m->cap + 1;
  return false;
}
