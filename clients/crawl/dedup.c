#include "clients/crawl/dedup.h"

#include <string.h>

#include "clients/web/simhash.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/mem.h"

#define BANDS      4
#define BAND_BITS  16
#define BAND_SLOTS (1u << BAND_BITS)
#define NO_ENTRY   UINT32_MAX
/* A band chain is walked this far at most: the work per page is bounded
 * even when many originals share a band value. */
#define CHAIN_MAX  4096

struct dd_entry {
  uint64_t body, sim, links;
  size_t   url_off;
  uint32_t next[BANDS];
  bool     indexed;  /* in the band chains */
};

struct dedup {
  struct dedup_opts  o;
  struct dd_entry   *e;
  size_t             n, cap;
  uint32_t          *band;    /* BANDS x BAND_SLOTS chain heads */
  uint32_t          *exact;   /* entry index + 1 by body fingerprint; 0 free */
  size_t             exact_cap;
  struct buf         urls;    /* NUL-separated */
  struct dedup_stats st;
};

struct dedup_opts dedup_opts_default(void)
{
  return (struct dedup_opts){ 3, 8, 1000000, 64u << 20 };
}

crawl_err dedup_open(const struct dedup_opts *o, struct dedup **out)
{
  struct dedup *d = mem_calloc(1, sizeof *d);
  if(!d)
    return CRAWL_ERR_NOMEM;
  d->o = o ? *o : dedup_opts_default();
  buf_init(&d->urls, d->o.url_bytes);
  *out = d;
  return CRAWL_OK;
}

void dedup_close(struct dedup **dp)
{
  struct dedup *d = *dp;
  if(!d)
    return;
  *dp = NULL;
  mem_free(d->e);
  mem_free(d->band);
  mem_free(d->exact);
  buf_free(&d->urls);
  mem_free(d);
}

static unsigned band_of(uint64_t sim, unsigned b)
{
  return (unsigned)(sim >> (b * BAND_BITS)) & (BAND_SLOTS - 1);
}

static size_t exact_pos(const struct dedup *d, uint64_t fp)
{
  return (size_t)((fp * 0x9E3779B97F4A7C15ull) >> 20) & (d->exact_cap - 1);
}

static const struct dd_entry *exact_find(const struct dedup *d, uint64_t fp)
{
  if(!d->exact_cap)
    return NULL;
  for(size_t i = exact_pos(d, fp);; i = (i + 1) & (d->exact_cap - 1)) {
    if(!d->exact[i])
      return NULL;
    if(d->e[d->exact[i] - 1].body == fp)
      return &d->e[d->exact[i] - 1];
  }
}

static void exact_put(struct dedup *d, uint32_t idx)
{
  size_t i = exact_pos(d, d->e[idx].body);
  while(d->exact[i])
    i = (i + 1) & (d->exact_cap - 1);
  d->exact[i] = idx + 1;
}

static crawl_err exact_grow(struct dedup *d)
{
  size_t ncap = d->exact_cap ? d->exact_cap * 2 : 1024;
  uint32_t *nv = mem_calloc(ncap, sizeof *nv);
  if(!nv)
    return CRAWL_ERR_NOMEM;
  mem_free(d->exact);
  d->exact = nv;
  d->exact_cap = ncap;
  for(size_t i = 0; i < d->n; i++)
    exact_put(d, (uint32_t)i);
  return CRAWL_OK;
}

/* The closest indexed original within max_distance, or NULL. */
static const struct dd_entry *near_find(struct dedup *d, uint64_t sim, unsigned *dist)
{
  const struct dd_entry *best = NULL;
  unsigned bd = d->o.max_distance + 1;
  for(unsigned b = 0; d->band && b < BANDS && bd > 0; b++) {
    uint32_t i = d->band[b * BAND_SLOTS + band_of(sim, b)];
    for(unsigned k = 0; i != NO_ENTRY && k < CHAIN_MAX; k++, i = d->e[i].next[b]) {
      unsigned dd = simhash_distance(sim, d->e[i].sim);
      d->st.comparisons++;
      if(dd < bd) {
        bd = dd;
        best = &d->e[i];
      }
    }
  }
  *dist = bd;
  return best;
}

static crawl_err dedup_room(struct dedup *d, bool index)
{
  if(d->n == d->cap) {
    size_t ncap = d->cap ? d->cap * 2 : 256;
    struct dd_entry *nv = mem_realloc(d->e, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    d->e = nv;
    d->cap = ncap;
  }
  if((d->n + 1) * 4 > d->exact_cap * 3 && exact_grow(d))
    return CRAWL_ERR_NOMEM;
  if(index && !d->band) {
    d->band = mem_alloc(BANDS * BAND_SLOTS * sizeof *d->band);
    if(!d->band)
      return CRAWL_ERR_NOMEM;
    memset(d->band, 0xff, BANDS * BAND_SLOTS * sizeof *d->band);
  }
  return CRAWL_OK;
}

/* Remember an original; CRAWL_ERR_FULL past the budgets. */
static crawl_err dedup_insert(struct dedup *d, const char *url, uint64_t body,
                              uint64_t sim, uint64_t links, bool index)
{
  if(d->n >= d->o.max_pages)
    return CRAWL_ERR_FULL;
  crawl_err e = dedup_room(d, index);
  if(e)
    return e;
  size_t off = d->urls.len;
  cm_err ce = buf_add(&d->urls, url, strlen(url) + 1);
  if(ce)
    return ce == CM_TOO_LARGE ? CRAWL_ERR_FULL : CRAWL_ERR_NOMEM;
  uint32_t idx = (uint32_t)d->n++;
  struct dd_entry *en = &d->e[idx];
  *en = (struct dd_entry){ body, sim, links, off, { NO_ENTRY, NO_ENTRY, NO_ENTRY, NO_ENTRY },
                           index };
  exact_put(d, idx);
  for(unsigned b = 0; index && b < BANDS; b++) {
    uint32_t *head = &d->band[b * BAND_SLOTS + band_of(sim, b)];
    en->next[b] = *head;
    *head = idx;
  }
  return CRAWL_OK;
}

bool dedup_exact(struct dedup *d, uint64_t body_fp, struct dedup_hit *hit)
{
  const struct dd_entry *orig = exact_find(d, body_fp);
  if(!orig)
    return false;
  *hit = (struct dedup_hit){ DEDUP_EXACT, d->urls.data + orig->url_off, 0, false };
  d->st.pages++;
  d->st.exact++;
  return true;
}

uint64_t dedup_links_add(uint64_t set, const char *url)
{
  return set ^ hash_fp64(url, strlen(url));
}

crawl_err dedup_check(struct dedup *d, const char *url, uint64_t body_fp,
                      uint64_t sim, size_t shingles, uint64_t links_fp,
                      struct dedup_hit *hit)
{
  bool index = shingles >= d->o.min_shingles;
  if(dedup_exact(d, body_fp, hit))
    return CRAWL_OK;
  *hit = (struct dedup_hit){ DEDUP_NEW, NULL, 0, false };
  d->st.pages++;
  const struct dd_entry *orig;
  unsigned dist = 0;
  if(index && (orig = near_find(d, sim, &dist)) != NULL) {
    bool own = orig->links != links_fp;
    *hit = (struct dedup_hit){ DEDUP_NEAR, d->urls.data + orig->url_off, dist, own };
    d->st.near++;
    d->st.near_own_links += own;
    return CRAWL_OK;
  }
  crawl_err e = dedup_insert(d, url, body_fp, sim, links_fp, index);
  if(e == CRAWL_ERR_FULL) {
    d->st.untracked++;
    e = CRAWL_OK;
  }
  return e;
}

void dedup_stats(const struct dedup *d, struct dedup_stats *st)
{
  *st = d->st;
  st->mem_bytes = d->cap * sizeof *d->e + d->exact_cap * sizeof *d->exact +
                  (d->band ? BANDS * BAND_SLOTS * sizeof *d->band : 0) + d->urls.cap;
}

void dedup_save(const struct dedup *d, struct ckfile *c)
{
  ckfile_put_u64(c, d->n);
  for(size_t i = 0; i < d->n; i++) {
    ckfile_put_u64(c, d->e[i].body);
    ckfile_put_u64(c, d->e[i].sim);
    ckfile_put_u64(c, d->e[i].links);
    ckfile_put_u64(c, d->e[i].indexed);
    ckfile_put_str(c, d->urls.data + d->e[i].url_off);
  }
  ckfile_put_u64(c, d->st.pages);
  ckfile_put_u64(c, d->st.exact);
  ckfile_put_u64(c, d->st.near);
  ckfile_put_u64(c, d->st.untracked);
  ckfile_put_u64(c, d->st.comparisons);
  ckfile_put_u64(c, d->st.near_own_links);
}

void dedup_load(struct dedup *d, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t body = ckfile_get_u64(c), sim = ckfile_get_u64(c), links = ckfile_get_u64(c);
    bool index = ckfile_get_u64(c) != 0;
    char *url = ckfile_get_str(c, 1u << 20);
    crawl_err e = url ? dedup_insert(d, url, body, sim, links, index) : CRAWL_OK;
    if(e && e != CRAWL_ERR_FULL)
      ckfile_fail(c, e);
    mem_free(url);
  }
  d->st.pages = ckfile_get_u64(c);
  d->st.exact = ckfile_get_u64(c);
  d->st.near = ckfile_get_u64(c);
  d->st.untracked = ckfile_get_u64(c);
  d->st.comparisons = ckfile_get_u64(c);
  d->st.near_own_links = ckfile_get_u64(c);
}
