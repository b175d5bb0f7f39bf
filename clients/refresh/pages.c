#include "clients/refresh/pages.h"

#include <math.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"

static const char *const seen_names[] = {
  [RF_SEEN_CHANGED] = "changed", [RF_SEEN_UNCHANGED] = "unchanged", [RF_SEEN_FIRST] = "first",
  [RF_SEEN_GONE] = "gone",       [RF_SEEN_MOVED] = "moved",         [RF_SEEN_FAILED] = "failed",
};

const char *rf_seen_name(enum rf_seen s)
{
  return (unsigned)s < sizeof seen_names / sizeof seen_names[0] ? seen_names[s] : "?";
}

bool rf_seen_parse(const char *s, enum rf_seen *out)
{
  for(size_t i = 0; i < sizeof seen_names / sizeof seen_names[0]; i++)
    if(s && !strcmp(s, seen_names[i])) {
      *out = (enum rf_seen)i;
      return true;
    }
  return false;
}

/* ---- The heap of pages by due time ---------------------------------------- */

static bool heap_less(const struct rf_pages *ps, size_t a, size_t b)
{
  return ps->v[ps->heap[a]].due_ms < ps->v[ps->heap[b]].due_ms;
}

static void heap_swap(struct rf_pages *ps, size_t a, size_t b)
{
  size_t t = ps->heap[a];
  ps->heap[a] = ps->heap[b];
  ps->heap[b] = t;
  ps->v[ps->heap[a]].heap_at = a;
  ps->v[ps->heap[b]].heap_at = b;
}

static void heap_fix(struct rf_pages *ps, size_t i)
{
  while(i > 0 && heap_less(ps, i, (i - 1) / 2)) {
    heap_swap(ps, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
  for(;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if(l < ps->nheap && heap_less(ps, l, m))
      m = l;
    if(r < ps->nheap && heap_less(ps, r, m))
      m = r;
    if(m == i)
      return;
    heap_swap(ps, i, m);
    i = m;
  }
}

static void heap_remove(struct rf_pages *ps, struct rf_page *p)
{
  size_t i = p->heap_at;
  if(i >= ps->nheap || &ps->v[ps->heap[i]] != p)
    return;
  heap_swap(ps, i, --ps->nheap);
  p->heap_at = SIZE_MAX;
  if(i < ps->nheap)
    heap_fix(ps, i);
}

void rf_pages_set_due(struct rf_pages *ps, struct rf_page *p, uint64_t due_ms)
{
  p->due_ms = due_ms;
  if(p->heap_at < ps->nheap)
    heap_fix(ps, p->heap_at);
}

struct rf_page *rf_pages_top(struct rf_pages *ps)
{
  return ps->nheap ? &ps->v[ps->heap[0]] : NULL;
}

/* ---- The table ------------------------------------------------------------ */

void rf_pages_init(struct rf_pages *ps, size_t max, unsigned gone_after, double max_interval_s)
{
  memset(ps, 0, sizeof *ps);
  ps->max = max;
  ps->gone_after = gone_after;
  ps->max_interval_s = max_interval_s;
  fpmap_init(&ps->by_url, max * 32 + 4096);
}

void rf_pages_free(struct rf_pages *ps)
{
  for(size_t i = 0; i < ps->n; i++)
    mem_free(ps->v[i].url);
  mem_free(ps->v);
  mem_free(ps->heap);
  fpmap_free(&ps->by_url);
  memset(ps, 0, sizeof *ps);
}

static crawl_err pages_grow(struct rf_pages *ps)
{
  if(ps->n < ps->cap)
    return CRAWL_OK;
  if(ps->n >= ps->max)
    return CRAWL_ERR_FULL;
  size_t cap = ps->cap ? ps->cap * 2 : 1024;
  cap = cap > ps->max ? ps->max : cap;
  struct rf_page *v = mem_realloc(ps->v, cap * sizeof *v);
  if(!v)
    return CRAWL_ERR_NOMEM;
  ps->v = v;
  size_t *h = mem_realloc(ps->heap, cap * sizeof *h);
  if(!h)
    return CRAWL_ERR_NOMEM;
  ps->heap = h;
  ps->cap = cap;
  return CRAWL_OK;
}

struct rf_page *rf_pages_find(struct rf_pages *ps, const char *url)
{
  uint64_t *i = fpmap_get(&ps->by_url, hash_fp64(url, strlen(url)));
  return i ? &ps->v[*i] : NULL;
}

crawl_err rf_pages_add(struct rf_pages *ps, const char *url, double weight, uint64_t due_ms,
                       bool *added)
{
  *added = false;
  if(rf_pages_find(ps, url))
    return CRAWL_OK;
  crawl_err e = pages_grow(ps);
  char *copy = e ? NULL : mem_strdup(url);
  if(!e && !copy)
    e = CRAWL_ERR_NOMEM;
  uint64_t *slot;
  if(!e && (e = fpmap_put(&ps->by_url, hash_fp64(url, strlen(url)), &slot, NULL)))
    mem_free(copy);
  if(e)
    return e;
  *slot = ps->n;
  struct rf_page *p = &ps->v[ps->n++];
  memset(p, 0, sizeof *p);
  p->url = copy;
  p->weight = weight;
  p->due_ms = due_ms;
  p->heap_at = ps->nheap;
  ps->heap[ps->nheap++] = (size_t)(p - ps->v);
  heap_fix(ps, p->heap_at);
  *added = true;
  return CRAWL_OK;
}

void rf_page_retire(struct rf_pages *ps, struct rf_page *p)
{
  if(p->retired)
    return;
  p->retired = true;
  heap_remove(ps, p);
}

/* ---- What visits saw -------------------------------------------------------- */

static void page_push_obs(struct rf_page *p, uint64_t interval_ms, bool changed)
{
  uint64_t tenths = interval_ms / 100;
  tenths = tenths > 0x7fffffffu ? 0x7fffffffu : tenths;
  p->obs[p->obs_next] = (uint32_t)tenths << 1 | changed;
  p->obs_next = (uint8_t)((p->obs_next + 1) % RF_OBS_MAX);
  if(p->nobs < RF_OBS_MAX)
    p->nobs++;
}

static double page_estimate(const struct rf_page *p, double prior)
{
  struct rf_obs o[RF_OBS_MAX];
  for(unsigned i = 0; i < p->nobs; i++)
    o[i] = (struct rf_obs){ (double)(p->obs[i] >> 1) / 10, p->obs[i] & 1 };
  return rf_estimate(o, p->nobs, prior);
}

void rf_page_observe(struct rf_pages *ps, struct rf_page *p, enum rf_seen s, uint64_t at_ms,
                     uint64_t digest)
{
  p->visits++;
  switch(s) {
  case RF_SEEN_CHANGED:
  case RF_SEEN_UNCHANGED:
    if(p->last_ms && at_ms > p->last_ms)
      page_push_obs(p, at_ms - p->last_ms, s == RF_SEEN_CHANGED);
    p->changes += s == RF_SEEN_CHANGED;
    /* fall through */
  case RF_SEEN_FIRST:
    p->last_ms = at_ms > p->last_ms ? at_ms : p->last_ms;
    p->digest = digest ? digest : p->digest;
    p->gone = 0;
    break;
  case RF_SEEN_GONE:
  case RF_SEEN_MOVED:
    if(++p->gone >= ps->gone_after)
      rf_page_retire(ps, p);
    break;
  case RF_SEEN_FAILED:
    break;
  }
  p->base_ms = at_ms > p->base_ms ? at_ms : p->base_ms;
  if(p->nobs)
    p->lambda = page_estimate(p, 0);
}

/* Seconds between visits of p: 1/f, doubled for each 404 or redirect in a
 * row, at most max_interval_s. */
static double page_interval(const struct rf_pages *ps, const struct rf_page *p)
{
  double iv = p->f > 0 ? 1 / p->f : ps->max_interval_s;
  iv *= (double)(1u << (p->gone < 16 ? p->gone : 16));
  return iv < ps->max_interval_s ? iv : ps->max_interval_s;
}

/* From the base; a copy older than its interval (the gateway's cache
 * served it) is looked at again after a quarter of one, not at once. */
static uint64_t page_due(const struct rf_pages *ps, const struct rf_page *p, uint64_t now_ms)
{
  double iv = page_interval(ps, p) * 1000;
  uint64_t due = p->base_ms + (uint64_t)iv;
  return due > now_ms ? due : now_ms + (uint64_t)(iv / 4);
}

void rf_page_replan(struct rf_pages *ps, struct rf_page *p, uint64_t now_ms)
{
  if(!p->retired)
    rf_pages_set_due(ps, p, page_due(ps, p, now_ms));
}

double rf_pages_plan(struct rf_pages *ps, enum rf_policy policy, double budget, double prior,
                     uint64_t now_ms)
{
  size_t n = 0;
  double *lambda = mem_alloc(ps->n * sizeof *lambda + 1), *w = mem_alloc(ps->n * sizeof *w + 1),
         *f = mem_alloc(ps->n * sizeof *f + 1), fresh = 0;
  if(lambda && w && f) {
    for(size_t i = 0; i < ps->n; i++) {
      const struct rf_page *p = &ps->v[i];
      if(p->retired)
        continue;
      lambda[n] = p->nobs ? p->lambda : prior;
      w[n++] = p->weight;
    }
    fresh = rf_allocate(policy, n, lambda, w, budget, 1 / ps->max_interval_s, f);
    n = 0;
    for(size_t i = 0; i < ps->n; i++) {
      struct rf_page *p = &ps->v[i];
      if(p->retired)
        continue;
      p->f = f[n++];
      if(p->base_ms && !p->outstanding)  /* unvisited: its place in the first round */
        rf_pages_set_due(ps, p, page_due(ps, p, now_ms));
    }
  }
  mem_free(lambda);
  mem_free(w);
  mem_free(f);
  return fresh;
}
