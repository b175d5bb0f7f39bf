/* Parsed robots.txt sets by (origin, fetched_at, body length): a chained
 * hash table for lookups and a doubly linked list in use order for
 * eviction. See rules_cache.h. */
#include "hlfs/policy/rules_cache.h"

#include <stdlib.h>
#include <string.h>

#include "common/list.h"
#include "common/hash.h"
#include "common/mem.h"

struct rc_ent {
  char          *origin;
  uint64_t       fetched_at;
  size_t         body_len;
  uint64_t       h;
  struct robots *r;
  size_t         bytes;         /* heap held by r, plus the origin */
  struct rc_ent *prev, *next;   /* use order: head is the most recent */
  struct rc_ent *chain;         /* same bucket */
};

struct rules_cache {
  struct rc_ent **tab;
  size_t          nbuckets;     /* a power of two */
  struct rc_ent  *head, *tail;
  unsigned        n, max;
  size_t          bytes, max_bytes;
  struct robots  *scratch;      /* max == 0: the last parse, freed by the next */
  struct rules_cache_stats st;
};

struct rules_cache *rules_cache_new(unsigned max_entries, size_t max_bytes)
{
  struct rules_cache *c = xalloc(sizeof *c);
  c->max = max_entries;
  c->max_bytes = max_bytes;
  c->nbuckets = 16;
  while(c->nbuckets < (size_t)max_entries * 2)
    c->nbuckets *= 2;
  c->tab = xalloc(c->nbuckets * sizeof *c->tab);
  return c;
}

static uint64_t rc_hash(const char *origin, uint64_t fetched_at, size_t len)
{
  return hash_fp64(origin, strlen(origin)) ^ (fetched_at * 0x9e3779b97f4a7c15ULL)
         ^ ((uint64_t)len << 17);
}

static void rc_unlink(struct rules_cache *c, struct rc_ent *e)
{
  DLT_UNLINK(c->head, c->tail, e, prev, next);
}

static void rc_push_front(struct rules_cache *c, struct rc_ent *e)
{
  DLT_PUSH_FRONT(c->head, c->tail, e, prev, next);
}

static void rc_drop(struct rules_cache *c, struct rc_ent *e)
{
  struct rc_ent **pp = &c->tab[e->h & (c->nbuckets - 1)];
  while(*pp != e)
    pp = &(*pp)->chain;
  *pp = e->chain;
  rc_unlink(c, e);
  c->n--;
  c->bytes -= e->bytes;
  robots_free(&e->r);
  mem_free(e->origin);
  mem_free(e);
}

void rules_cache_free(struct rules_cache **cp)
{
  struct rules_cache *c = *cp;
  if(!c)
    return;
  *cp = NULL;
  while(c->head)
    rc_drop(c, c->head);
  robots_free(&c->scratch);
  free(c->tab);  /* xalloc: set-up memory */
  free(c);
}

static struct rc_ent *rc_find(struct rules_cache *c, const char *origin, uint64_t fa,
                              size_t len, uint64_t h)
{
  for(struct rc_ent *e = c->tab[h & (c->nbuckets - 1)]; e; e = e->chain)
    if(e->h == h && e->fetched_at == fa && e->body_len == len && !strcmp(e->origin, origin))
      return e;
  return NULL;
}

/* Over a bound: the least recently used go, but never keep (in use). */
static void rc_trim(struct rules_cache *c, const struct rc_ent *keep)
{
  while((c->n > c->max || c->bytes > c->max_bytes) && c->tail && c->tail != keep) {
    rc_drop(c, c->tail);
    c->st.evictions++;
  }
}

static const struct robots *rc_scratch(struct rules_cache *c, const char *body, size_t len,
                                       const struct robots_limits *lim)
{
  robots_free(&c->scratch);
  c->st.parses++;
  return robots_parse(body, len, lim, &c->scratch) == ROBOTS_OK ? c->scratch : NULL;
}

static const struct robots *rc_add(struct rules_cache *c, const char *origin, uint64_t fa,
                                   const char *body, size_t len, uint64_t h,
                                   const struct robots_limits *lim)
{
  struct rc_ent *e = mem_calloc(1, sizeof *e);
  struct robots_stats rs;
  if(!e || !(e->origin = mem_strdup(origin)) ||
     robots_parse(body, len, lim, &e->r) != ROBOTS_OK) {
    if(e)
      mem_free(e->origin);
    mem_free(e);
    return NULL;
  }
  c->st.parses++;
  robots_stats(e->r, &rs);
  e->fetched_at = fa;
  e->body_len = len;
  e->h = h;
  e->bytes = rs.mem_bytes + strlen(origin) + sizeof *e;
  struct rc_ent **b = &c->tab[h & (c->nbuckets - 1)];
  e->chain = *b;
  *b = e;
  rc_push_front(c, e);
  c->n++;
  c->bytes += e->bytes;
  rc_trim(c, e);
  return e->r;
}

const struct robots *rules_cache_get(struct rules_cache *c, const char *origin,
                                     uint64_t fetched_at, const char *body, size_t len,
                                     const struct robots_limits *lim)
{
  if(!body)
    len = 0;
  if(!c->max)
    return rc_scratch(c, body ? body : "", len, lim);
  uint64_t h = rc_hash(origin, fetched_at, len);
  struct rc_ent *e = rc_find(c, origin, fetched_at, len, h);
  if(!e)
    return rc_add(c, origin, fetched_at, body ? body : "", len, h, lim);
  c->st.hits++;
  rc_unlink(c, e);
  rc_push_front(c, e);
  return e->r;
}

const struct robots *rules_cache_peek(struct rules_cache *c, const char *origin,
                                      uint64_t fetched_at, size_t len)
{
  struct rc_ent *e = c->max ? rc_find(c, origin, fetched_at, len,
                                      rc_hash(origin, fetched_at, len)) : NULL;
  if(!e)
    return NULL;
  c->st.hits++;
  rc_unlink(c, e);
  rc_push_front(c, e);
  return e->r;
}

void rules_cache_stats(const struct rules_cache *c, struct rules_cache_stats *st)
{
  *st = c->st;
  st->entries = c->n;
  st->bytes = c->bytes;
}
