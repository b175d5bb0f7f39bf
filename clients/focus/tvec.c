#include "clients/focus/tvec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

void tvec_init(struct tvec *v, size_t max)
{
  memset(v, 0, sizeof *v);
  v->max = max;
}

void tvec_free(struct tvec *v)
{
  mem_free(v->v);
  tvec_init(v, v->max);
}

void tvec_reset(struct tvec *v)
{
  v->n = 0;
}

static crawl_err tvec_add_term(struct tvec *v, uint64_t term, uint32_t tf)
{
  if(v->n == v->cap) {
    if(v->cap >= v->max)
      return CRAWL_OK;  /* a vector holds max terms: the rest of a huge text is dropped */
    size_t ncap = v->cap ? v->cap * 2 : 64;
    if(ncap > v->max)
      ncap = v->max;
    struct tvec_term *nv = mem_realloc(v->v, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    v->v = nv;
    v->cap = ncap;
  }
  v->v[v->n++] = (struct tvec_term){ term, tf };
  return CRAWL_OK;
}

static crawl_err on_term(void *arg, uint64_t term, const char *stem, size_t len)
{
  (void)stem;
  (void)len;
  return tvec_add_term(arg, term, 1);
}

crawl_err tvec_add_text(struct tvec *v, struct text *t, const char *s, size_t n)
{
  return text_terms(t, s, n, on_term, v);
}

static int term_cmp(const void *a, const void *b)
{
  uint64_t x = ((const struct tvec_term *)a)->term, y = ((const struct tvec_term *)b)->term;
  return x < y ? -1 : x > y;
}

void tvec_end(struct tvec *v)
{
  if(v->n < 2)
    return;
  qsort(v->v, v->n, sizeof *v->v, term_cmp);
  size_t w = 0;
  for(size_t i = 1; i < v->n; i++) {
    if(v->v[i].term == v->v[w].term) {
      uint64_t s = (uint64_t)v->v[w].tf + v->v[i].tf;
      v->v[w].tf = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
    } else {
      v->v[++w] = v->v[i];
    }
  }
  v->n = w + 1;
}

static double tvec_weight(const struct idf *d, const struct tvec_term *t)
{
  return (1.0 + log((double)t->tf)) * idf_of(d, t->term);
}

static double tvec_norm(const struct idf *d, const struct tvec *v)
{
  double s = 0;
  for(size_t i = 0; i < v->n; i++) {
    double w = tvec_weight(d, &v->v[i]);
    s += w * w;
  }
  return sqrt(s);
}

double tvec_cosine(const struct idf *d, const struct tvec *a, const struct tvec *b)
{
  double dot = 0;
  size_t i = 0, j = 0;
  while(i < a->n && j < b->n) {  /* both sorted by term: a merge */
    if(a->v[i].term < b->v[j].term) {
      i++;
    } else if(a->v[i].term > b->v[j].term) {
      j++;
    } else {
      dot += tvec_weight(d, &a->v[i]) * tvec_weight(d, &b->v[j]);
      i++;
      j++;
    }
  }
  if(dot == 0)
    return 0;
  double c = dot / (tvec_norm(d, a) * tvec_norm(d, b));
  return c > 1 ? 1 : c;  /* rounding */
}

void tvec_save(const struct tvec *v, struct ckfile *c)
{
  ckfile_put_u64(c, v->n);
  for(size_t i = 0; i < v->n; i++) {
    ckfile_put_u64(c, v->v[i].term);
    ckfile_put_u64(c, v->v[i].tf);
  }
}

void tvec_load(struct tvec *v, struct ckfile *c)
{
  tvec_reset(v);
  uint64_t n = ckfile_get_u64(c);
  if(n > v->max)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t term = ckfile_get_u64(c), tf = ckfile_get_u64(c);
    if(tf == 0 || tf > UINT32_MAX || tvec_add_term(v, term, (uint32_t)tf))
      ckfile_fail(c, CRAWL_ERR_CORRUPT);
  }
  tvec_end(v);
}
