/* A partition's snapshot: "WCS1", the number of URLs queued or outstanding
 * and of finished fingerprints (4 bytes each, little-endian), then each
 * URL (depth 4 bytes, level 1, length 2, the URL), then the fingerprints
 * (8 bytes each). */
#include "clients/part/part_int.h"

#include <string.h>

#include "clients/part/partmap.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define SNAP_MAGIC "WCS1"
#define SNAP_URL_MAX 65535u

static void put_le(unsigned char *b, uint64_t v, unsigned n)
{
  for(unsigned i = 0; i < n; i++)
    b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *b, unsigned n)
{
  uint64_t v = 0;
  for(unsigned i = 0; i < n; i++)
    v |= (uint64_t)b[i] << (8 * i);
  return v;
}

crawl_err part_snap_make(const struct part *p, unsigned pi, struct buf *out)
{
  const struct pslot *s = &p->s[pi];
  unsigned char h[8];
  buf_reset(out);
  put_le(h, s->npending, 4);
  put_le(h + 4, s->nfin, 4);
  if(buf_add(out, SNAP_MAGIC, 4) || buf_add(out, h, 8))
    return CRAWL_ERR_NOMEM;
  for(const struct prec *r = s->head; r; r = r->next) {
    size_t n = strlen(r->url);
    put_le(h, r->depth, 4);
    h[4] = r->level;
    put_le(h + 5, n, 2);
    if(n > SNAP_URL_MAX || buf_add(out, h, 7) || buf_add(out, r->url, n))
      return CRAWL_ERR_TOO_LARGE;
  }
  for(size_t i = 0; i < s->nfin; i++) {
    put_le(h, s->fin[i], 8);
    if(buf_add(out, h, 8))
      return CRAWL_ERR_TOO_LARGE;
  }
  return CRAWL_OK;
}

crawl_err part_snap_load(struct part *p, unsigned pi, const char *data, size_t len,
                         uint64_t *queued)
{
  const unsigned char *b = (const unsigned char *)data, *end = b + len;
  *queued = 0;
  if(len < 12 || memcmp(b, SNAP_MAGIC, 4))
    return CRAWL_ERR_CORRUPT;
  uint64_t npend = get_le(b + 4, 4), nfin = get_le(b + 8, 4);
  const unsigned char *u = b + 12;
  /* The URLs' end, where the fingerprints start: found first, so that
   * the finished ones are known before any URL is queued. */
  for(uint64_t i = 0; i < npend; i++) {
    if(end - u < 7 || (size_t)(end - u - 7) < get_le(u + 5, 2))
      return CRAWL_ERR_CORRUPT;
    u += 7 + get_le(u + 5, 2);
  }
  if((uint64_t)(end - u) != nfin * 8)
    return CRAWL_ERR_CORRUPT;
  for(uint64_t i = 0; i < nfin; i++)
    part_fin_add(p, pi, get_le(u + 8 * i, 8));
  p->st.inherited_finished += nfin;
  u = b + 12;
  crawl_err e = CRAWL_OK;
  for(uint64_t i = 0; i < npend && !e; i++) {
    size_t n = get_le(u + 5, 2);
    char *url = mem_strndup((const char *)u + 7, n);
    uint32_t depth = (uint32_t)get_le(u, 4);
    unsigned level = u[4];
    u += 7 + n;
    if(!url)
      return CRAWL_ERR_NOMEM;
    if(partmap_of_url(url, p->n) == pi &&
       !fpmap_get(&p->finished, hash_fp64(url, n))) {
      e = crawl_inherit(p->c, url, depth, level);
      if(!e) {
        part_prec_add(p, pi, url, depth, level);  /* if the frontier had it already */
        (*queued)++;
      }
    }
    mem_free(url);
  }
  p->st.inherited += *queued;
  return e;
}
