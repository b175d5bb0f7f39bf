/* The scored frontier's order (frontier.h, "Scored"): each host keeps its
 * queued URLs in a binary heap, best first (higher score, then earlier
 * arrival); the hosts are in a heap by their best URL; and every queued
 * URL is also in a heap of the worst, which a full frontier drops from.
 * A take pops the best host, skips it while it has max_per_host URLs
 * outstanding, and puts the skipped ones back afterwards: O(log n) per
 * URL, however many hosts wait. */
#include "clients/crawl/frontier_int.h"

#include <string.h>

#include "common/mem.h"

unsigned fscore_level(float score)
{
  if(!(score > 0))
    return 0;
  unsigned l = (unsigned)(score * L);
  return l < L ? l : L - 1;
}

/* a goes before b. */
static bool ent_before(const struct fentry *a, const struct fentry *b)
{
  return a->score > b->score || (a->score == b->score && a->seq < b->seq);
}

bool fscore_beats(float score, uint64_t seq, const struct fentry *e)
{
  return score > e->score || (score == e->score && seq < e->seq);
}

/* ---- A host's heap of its URLs (best first) ---------------------------- */

static void hq_set(struct fhost *h, uint32_t i, struct fentry *e)
{
  h->heap[i] = e;
  e->hpos = i;
}

static void hq_up(struct fhost *h, uint32_t i)
{
  struct fentry *e = h->heap[i];
  while(i > 0 && ent_before(e, h->heap[(i - 1) / 2])) {
    hq_set(h, i, h->heap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  hq_set(h, i, e);
}

static void hq_down(struct fhost *h, uint32_t i)
{
  struct fentry *e = h->heap[i];
  for(;;) {
    uint32_t c = 2 * i + 1;
    if(c >= h->hn)
      break;
    if(c + 1 < h->hn && ent_before(h->heap[c + 1], h->heap[c]))
      c++;
    if(!ent_before(h->heap[c], e))
      break;
    hq_set(h, i, h->heap[c]);
    i = c;
  }
  hq_set(h, i, e);
}

/* ---- The hosts' heap (by their best URL) ------------------------------- */

static bool host_before(const struct fhost *a, const struct fhost *b)
{
  return ent_before(a->heap[0], b->heap[0]);
}

static void hh_set(struct frontier *f, size_t i, struct fhost *h)
{
  f->hheap[i] = h;
  h->hpos = (uint32_t)i;
}

static void hh_up(struct frontier *f, size_t i)
{
  struct fhost *h = f->hheap[i];
  while(i > 0 && host_before(h, f->hheap[(i - 1) / 2])) {
    hh_set(f, i, f->hheap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  hh_set(f, i, h);
}

static void hh_down(struct frontier *f, size_t i)
{
  struct fhost *h = f->hheap[i];
  for(;;) {
    size_t c = 2 * i + 1;
    if(c >= f->hhn)
      break;
    if(c + 1 < f->hhn && host_before(f->hheap[c + 1], f->hheap[c]))
      c++;
    if(!host_before(f->hheap[c], h))
      break;
    hh_set(f, i, f->hheap[c]);
    i = c;
  }
  hh_set(f, i, h);
}

static void hh_remove(struct frontier *f, struct fhost *h)
{
  size_t i = h->hpos;
  h->hpos = FSCORE_NONE;
  struct fhost *last = f->hheap[--f->hhn];
  if(last == h)
    return;
  hh_set(f, i, last);
  hh_up(f, i);
  hh_down(f, last->hpos);
}

/* The host's best URL changed (or it has none now). */
static void hh_fix(struct frontier *f, struct fhost *h)
{
  if(h->hpos == FSCORE_NONE)
    return;  /* not in the heap: skipped by a take under way */
  if(h->hn == 0) {
    hh_remove(f, h);
    return;
  }
  hh_up(f, h->hpos);
  hh_down(f, h->hpos);
}

/* ---- The heap of the worst queued URLs --------------------------------- */

static void wq_set(struct frontier *f, size_t i, struct fentry *e)
{
  f->worst[i] = e;
  e->wpos = (uint32_t)i;
}

static void wq_up(struct frontier *f, size_t i)
{
  struct fentry *e = f->worst[i];
  while(i > 0 && ent_before(f->worst[(i - 1) / 2], e)) {
    wq_set(f, i, f->worst[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  wq_set(f, i, e);
}

static void wq_down(struct frontier *f, size_t i)
{
  struct fentry *e = f->worst[i];
  for(;;) {
    size_t c = 2 * i + 1;
    if(c >= f->wn)
      break;
    if(c + 1 < f->wn && ent_before(f->worst[c], f->worst[c + 1]))
      c++;
    if(!ent_before(e, f->worst[c]))
      break;
    wq_set(f, i, f->worst[c]);
    i = c;
  }
  wq_set(f, i, e);
}

/* ---- Linking ------------------------------------------------------------ */

static crawl_err grow(void **v, size_t *cap, size_t need, size_t elem)
{
  if(need <= *cap)
    return CRAWL_OK;
  size_t ncap = *cap ? *cap * 2 : 16;
  while(ncap < need)
    ncap *= 2;
  if(ncap > UINT32_MAX)
    return CRAWL_ERR_FULL;
  void *nv = mem_realloc(*v, ncap * elem);
  if(!nv)
    return CRAWL_ERR_NOMEM;
  *v = nv;
  *cap = ncap;
  return CRAWL_OK;
}

static crawl_err fscore_room(struct frontier *f, struct fhost *h)
{
  size_t hcap = h->hcap;
  crawl_err e = grow((void **)&h->heap, &hcap, (size_t)h->hn + 1, sizeof *h->heap);
  h->hcap = (uint32_t)hcap;
  if(!e)
    e = grow((void **)&f->worst, &f->wcap, f->wn + 1, sizeof *f->worst);
  if(!e && h->hpos == FSCORE_NONE)
    e = grow((void **)&f->hheap, &f->hhcap, f->hhn + 1, sizeof *f->hheap);
  return e;
}

crawl_err fscore_link(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  crawl_err r = fscore_room(f, h);
  if(r)
    return r;
  hq_set(h, h->hn++, e);
  hq_up(h, e->hpos);
  wq_set(f, f->wn++, e);
  wq_up(f, e->wpos);
  h->queued++;
  f->st.queued++;
  f->st.per_level[e->level]++;
  if(h->hpos == FSCORE_NONE) {
    hh_set(f, f->hhn++, h);
    hh_up(f, h->hpos);
  } else {
    hh_fix(f, h);
  }
  return CRAWL_OK;
}

void fscore_unlink(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  uint32_t i = e->hpos;
  struct fentry *last = h->heap[--h->hn];
  if(last != e) {
    hq_set(h, i, last);
    hq_up(h, i);
    hq_down(h, last->hpos);
  }
  size_t w = e->wpos;
  struct fentry *wl = f->worst[--f->wn];
  if(wl != e) {
    wq_set(f, w, wl);
    wq_up(f, w);
    wq_down(f, wl->wpos);
  }
  e->hpos = e->wpos = FSCORE_NONE;
  h->queued--;
  f->st.queued--;
  f->st.per_level[e->level]--;
  hh_fix(f, h);
}

void fscore_raised(struct frontier *f, struct fentry *e)
{
  if(e->hpos == FSCORE_NONE)
    return;  /* outstanding */
  hq_up(e->host, e->hpos);
  wq_down(f, e->wpos);
  hh_fix(f, e->host);
}

void fscore_moved(struct frontier *f, struct fentry *e)
{
  if(e->hpos != FSCORE_NONE)
    e->host->heap[e->hpos] = e;
  if(e->wpos != FSCORE_NONE)
    f->worst[e->wpos] = e;
}

struct fentry *fscore_worst(const struct frontier *f)
{
  return f->wn ? f->worst[0] : NULL;
}

/* ---- Taking ------------------------------------------------------------- */

size_t fscore_take(struct frontier *f, size_t max, struct frontier_item *out)
{
  size_t n = 0;
  struct fhost *skipped = NULL;
  while(n < max && f->hhn > 0) {
    struct fhost *h = f->hheap[0];
    if(f->o.max_per_host && h->outstanding >= f->o.max_per_host) {
      hh_remove(f, h);  /* back after this take */
      h->bnext = skipped;
      skipped = h;
      continue;
    }
    frontier_taken(f, h->heap[0], &out[n++]);
  }
  while(skipped) {  /* the heap had room for them: they were in it */
    struct fhost *h = skipped;
    skipped = h->bnext;
    h->bnext = NULL;
    hh_set(f, f->hhn++, h);
    hh_up(f, h->hpos);
  }
  return n;
}

void fscore_host_free(struct fhost *h)
{
  mem_free(h->heap);
  h->heap = NULL;
  h->hn = h->hcap = 0;
}

void fscore_free(struct frontier *f)
{
  mem_free(f->hheap);
  mem_free(f->worst);
  f->hheap = NULL;
  f->worst = NULL;
  f->hhn = f->hhcap = f->wn = f->wcap = 0;
}
