/* Connections opened per host (hostconns.h). */
#include "clients/crawl/hostconns.h"

#include <string.h>

#include "common/hash.h"
#include "common/url.h"

void hostconns_init(struct hostconns *h, size_t max_bytes)
{
  memset(h, 0, sizeof *h);
  fpmap_init(&h->map, max_bytes);
}

void hostconns_free(struct hostconns *h)
{
  fpmap_free(&h->map);
}

/* The host's figure moves from old to n (n > old): the totals with it. */
static void hc_raise(struct hostconns *h, uint64_t *v, uint64_t n)
{
  h->opened += n - *v;
  h->over_one += *v <= 1 && n > 1;
  if(n > h->max)
    h->max = n;
  *v = n;
}

void hostconns_note(struct hostconns *h, const char *url, uint64_t n)
{
  struct url_parts p;
  uint64_t *v;
  if(!n || url_split(url, &p) != URL_OK)
    return;
  if(fpmap_put(&h->map, hash_fp64(p.host, strlen(p.host)), &v, NULL) != CRAWL_OK) {
    h->untracked++;
    return;
  }
  if(n > *v)
    hc_raise(h, v, n);
}

cm_err hostconns_json(const struct hostconns *h, struct buf *b)
{
  return buf_addf(b, ",\"connections\":{\"hosts\":%zu,\"opened\":%llu,\"max_per_host\":%llu,"
                  "\"hosts_over_one\":%llu,\"untracked\":%llu}",
                  h->map.count, (unsigned long long)h->opened,
                  (unsigned long long)h->max, (unsigned long long)h->over_one,
                  (unsigned long long)h->untracked);
}

void hostconns_save(const struct hostconns *h, struct ckfile *c)
{
  size_t pos = 0;
  uint64_t k, v;
  ckfile_put_u64(c, h->map.count);
  while(fpmap_next(&h->map, &pos, &k, &v)) {
    ckfile_put_u64(c, k);
    ckfile_put_u64(c, v);
  }
  ckfile_put_u64(c, h->untracked);
}

/* The totals are made again from the values: the file holds the map only. */
void hostconns_load(struct hostconns *h, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t k = ckfile_get_u64(c), val = ckfile_get_u64(c), *v;
    if(val && fpmap_put(&h->map, k, &v, NULL) == CRAWL_OK && val > *v)
      hc_raise(h, v, val);
  }
  h->untracked = ckfile_get_u64(c);
}
