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

/* ---- The three orders (common/heap.h) ----------------------------------- */

#define ENT_OF(x, member) HEAP_ENTRY(x, const struct fentry, member)

/* A host's heap of its URLs: best first. */
static bool url_first(const struct heap_node *a, const struct heap_node *b)
{
  return ent_before(ENT_OF(a, hnode), ENT_OF(b, hnode));
}

/* The hosts' heap: by their best URL. */
static bool host_first(const struct heap_node *a, const struct heap_node *b)
{
  const struct fhost *ha = HEAP_ENTRY(a, const struct fhost, hnode);
  const struct fhost *hb = HEAP_ENTRY(b, const struct fhost, hnode);
  return url_first(ha->urls.v[0], hb->urls.v[0]);
}

/* The heap of the worst queued URLs: worst first. */
static bool worst_first(const struct heap_node *a, const struct heap_node *b)
{
  return ent_before(ENT_OF(b, wnode), ENT_OF(a, wnode));
}

/* The host's best URL changed (or it has none now). */
static void hosts_fix(struct frontier *f, struct fhost *h)
{
  if(!heap_node_in(&h->hnode))
    return;  /* not in the heap: skipped by a take under way */
  if(h->urls.n == 0)
    heap_remove(&f->host_heap, &h->hnode, host_first);
  else
    heap_fix(&f->host_heap, &h->hnode, host_first);
}

/* ---- Linking ------------------------------------------------------------ */

static crawl_err room(struct heap *h, size_t need)
{
  cm_err e = heap_reserve(h, need);
  return e == CM_NOMEM ? CRAWL_ERR_NOMEM : e ? CRAWL_ERR_FULL : CRAWL_OK;
}

static crawl_err fscore_room(struct frontier *f, struct fhost *h)
{
  crawl_err e = room(&h->urls, (size_t)h->urls.n + 1);
  if(!e)
    e = room(&f->worst, (size_t)f->worst.n + 1);
  if(!e && !heap_node_in(&h->hnode))
    e = room(&f->host_heap, (size_t)f->host_heap.n + 1);
  return e;
}

crawl_err fscore_link(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  crawl_err r = fscore_room(f, h);
  if(r)
    return r;
  heap_insert(&h->urls, &e->hnode, url_first);
  heap_insert(&f->worst, &e->wnode, worst_first);
  h->queued++;
  f->st.queued++;
  f->st.per_level[e->level]++;
  if(!heap_node_in(&h->hnode))
    heap_insert(&f->host_heap, &h->hnode, host_first);
  else
    hosts_fix(f, h);
  return CRAWL_OK;
}

void fscore_unlink(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  heap_remove(&h->urls, &e->hnode, url_first);
  heap_remove(&f->worst, &e->wnode, worst_first);
  h->queued--;
  f->st.queued--;
  f->st.per_level[e->level]--;
  hosts_fix(f, h);
}

void fscore_raised(struct frontier *f, struct fentry *e)
{
  if(!heap_node_in(&e->hnode))
    return;  /* outstanding */
  heap_fix(&e->host->urls, &e->hnode, url_first);
  heap_fix(&f->worst, &e->wnode, worst_first);
  hosts_fix(f, e->host);
}

void fscore_moved(struct frontier *f, struct fentry *e)
{
  heap_moved(&e->host->urls, &e->hnode);
  heap_moved(&f->worst, &e->wnode);
}

struct fentry *fscore_worst(const struct frontier *f)
{
  struct heap_node *x = heap_min(&f->worst);
  return x ? HEAP_ENTRY(x, struct fentry, wnode) : NULL;
}

/* ---- Taking ------------------------------------------------------------- */

size_t fscore_take(struct frontier *f, size_t max, struct frontier_item *out)
{
  size_t n = 0;
  struct fhost *skipped = NULL;
  while(n < max && f->host_heap.n > 0) {
    struct fhost *h = HEAP_ENTRY(heap_min(&f->host_heap), struct fhost, hnode);
    if(f->o.max_per_host && h->outstanding >= f->o.max_per_host) {
      heap_remove(&f->host_heap, &h->hnode, host_first);  /* back after this take */
      h->bnext = skipped;
      skipped = h;
      continue;
    }
    frontier_taken(f, HEAP_ENTRY(heap_min(&h->urls), struct fentry, hnode), &out[n++]);
  }
  while(skipped) {  /* the heap had room for them: they were in it */
    struct fhost *h = skipped;
    skipped = h->bnext;
    h->bnext = NULL;
    heap_insert(&f->host_heap, &h->hnode, host_first);
  }
  return n;
}

void fscore_host_free(struct fhost *h)
{
  heap_free(&h->urls);
}

void fscore_free(struct frontier *f)
{
  heap_free(&f->host_heap);
  heap_free(&f->worst);
}
