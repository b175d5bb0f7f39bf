#include "clients/focus/idf.h"

#include <math.h>

#include "clients/focus/tvec.h"
#include "clients/base/fpmap.h"
#include "common/mem.h"

struct idf {
  struct fpmap df;      /* term -> pages that hold it */
  uint64_t     docs;
  uint64_t     untracked;
};

crawl_err idf_open(size_t max_bytes, struct idf **out)
{
  struct idf *d = mem_calloc(1, sizeof *d);
  *out = d;
  if(!d)
    return CRAWL_ERR_NOMEM;
  fpmap_init(&d->df, max_bytes);
  return CRAWL_OK;
}

void idf_close(struct idf **dp)
{
  struct idf *d = *dp;
  if(!d)
    return;
  *dp = NULL;
  fpmap_free(&d->df);
  mem_free(d);
}

crawl_err idf_learn(struct idf *d, const struct tvec *v)
{
  d->docs++;
  for(size_t i = 0; i < v->n; i++) {
    uint64_t *c;
    crawl_err e = fpmap_put(&d->df, v->v[i].term, &c, NULL);
    if(e == CRAWL_ERR_FULL) {
      d->untracked++;
      continue;
    }
    if(e)
      return e;
    (*c)++;
  }
  return CRAWL_OK;
}

static uint64_t idf_df(const struct idf *d, uint64_t term)
{
  uint64_t *c = fpmap_get((struct fpmap *)&d->df, term);
  return c ? *c : 0;
}

double idf_of(const struct idf *d, uint64_t term)
{
  return log((1.0 + (double)d->docs) / (1.0 + (double)idf_df(d, term))) + 1.0;
}

uint64_t idf_docs(const struct idf *d)
{
  return d->docs;
}

uint64_t idf_untracked(const struct idf *d)
{
  return d->untracked;
}

size_t idf_bytes(const struct idf *d)
{
  return fpmap_bytes(&d->df);
}

void idf_save(const struct idf *d, struct ckfile *c)
{
  ckfile_put_u64(c, d->docs);
  ckfile_put_u64(c, d->untracked);
  ckfile_put_u64(c, d->df.count);
  size_t pos = 0;
  uint64_t k, v;
  while(fpmap_next(&d->df, &pos, &k, &v)) {
    ckfile_put_u64(c, k);
    ckfile_put_u64(c, v);
  }
}

void idf_load(struct idf *d, struct ckfile *c)
{
  d->docs = ckfile_get_u64(c);
  d->untracked = ckfile_get_u64(c);
  uint64_t n = ckfile_get_u64(c), *v;
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t k = ckfile_get_u64(c), count = ckfile_get_u64(c);
    crawl_err e = fpmap_put(&d->df, k, &v, NULL);
    if(e == CRAWL_ERR_FULL)
      d->untracked++;  /* a smaller budget now */
    else if(e)
      ckfile_fail(c, e);
    else
      *v = count;
  }
}
