#include "clients/base/fpset.h"

#include "clients/base/fptab.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

void fpset_init(struct fpset *s, size_t max_bytes)
{
  memset(s, 0, sizeof *s);
  s->max_bytes = max_bytes < FPSET_MIN_BYTES ? FPSET_MIN_BYTES : max_bytes;
}

void fpset_free(struct fpset *s)
{
  mem_free(s->slot);
  size_t max = s->max_bytes;
  memset(s, 0, sizeof *s);
  s->max_bytes = max;
}

void fpset_clear(struct fpset *s)
{
  if(s->slot)
    memset(s->slot, 0, s->cap * sizeof *s->slot);
  s->count = 0;
  s->has_zero = false;
}

bool fpset_has(const struct fpset *s, uint64_t v)
{
  if(v == 0)
    return s->has_zero;
  if(!s->cap)
    return false;
  for(size_t i = fptab_pos(v, s->cap);; i = (i + 1) & (s->cap - 1)) {
    if(s->slot[i] == v)
      return true;
    if(s->slot[i] == 0)
      return false;
  }
}

static void fpset_put(struct fpset *s, uint64_t v)
{
  size_t i = fptab_pos(v, s->cap);
  while(s->slot[i] != 0)
    i = (i + 1) & (s->cap - 1);
  s->slot[i] = v;
}

static size_t fpset_stored(const struct fpset *s)
{
  return s->count - (s->has_zero ? 1 : 0);
}

static crawl_err fpset_grow(struct fpset *s)
{
  size_t ncap;
  if(fptab_next_cap(s->cap, 64, sizeof(uint64_t), s->max_bytes, &ncap))
    return CRAWL_ERR_FULL;
  uint64_t *nv = mem_calloc(ncap, sizeof *nv);
  if(!nv)
    return CRAWL_ERR_NOMEM;
  uint64_t *old = s->slot;
  size_t ocap = s->cap;
  s->slot = nv;
  s->cap = ncap;
  for(size_t i = 0; i < ocap; i++)
    if(old[i])
      fpset_put(s, old[i]);
  mem_free(old);
  return CRAWL_OK;
}

static bool fpset_needs_room(const struct fpset *s)
{
  return fptab_needs_room(fpset_stored(s), s->cap);
}

bool fpset_full(const struct fpset *s)
{
  return fpset_needs_room(s) && s->cap * 2 * sizeof(uint64_t) > s->max_bytes;
}

crawl_err fpset_add(struct fpset *s, uint64_t v, bool *added)
{
  if(added)
    *added = false;
  if(fpset_has(s, v))
    return CRAWL_OK;
  if(v == 0) {
    s->has_zero = true;
  } else {
    if(fpset_needs_room(s)) {
      crawl_err e = fpset_grow(s);
      if(e)
        return e;
    }
    fpset_put(s, v);
  }
  s->count++;
  if(added)
    *added = true;
  return CRAWL_OK;
}

size_t fpset_bytes(const struct fpset *s)
{
  return s->cap * sizeof(uint64_t);
}

static int fp_cmp(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

const uint64_t *fpset_take_sorted(struct fpset *s, size_t *n)
{
  size_t k = 0;
  for(size_t i = 0; i < s->cap; i++)
    if(s->slot[i])
      s->slot[k++] = s->slot[i];
  if(k)
    qsort(s->slot, k, sizeof *s->slot, fp_cmp);
  *n = k;
  return s->slot;
}

void fpset_save(const struct fpset *s, struct ckfile *c)
{
  ckfile_put_u64(c, s->count);
  if(s->has_zero)
    ckfile_put_u64(c, 0);
  for(size_t i = 0; i < s->cap; i++)
    if(s->slot[i])
      ckfile_put_u64(c, s->slot[i]);
}

void fpset_load(struct fpset *s, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    crawl_err e = fpset_add(s, ckfile_get_u64(c), NULL);
    if(e)
      ckfile_fail(c, e == CRAWL_ERR_FULL ? CRAWL_ERR_TOO_LARGE : e);
  }
}
