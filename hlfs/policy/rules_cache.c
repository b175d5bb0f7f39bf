/* Parsed robots.txt sets by (origin, fetched_at, body length), on
 * common/lru.h. See rules_cache.h. */
#include "hlfs/policy/rules_cache.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/lru.h"
#include "common/mem.h"

struct rc_ent {
  struct lru_node node;         /* bytes: heap held by r, plus the origin */
  char          *origin;
  uint64_t       fetched_at;
  size_t         body_len;
  struct robots *r;
};

struct rules_cache {
  struct lru      lru;
  unsigned        max;
  size_t          max_bytes;
  struct robots  *scratch;      /* max == 0: the last parse, freed by the next */
  struct rules_cache_stats st;
};

struct rules_cache *rules_cache_new(unsigned max_entries, size_t max_bytes)
{
  struct rules_cache *c = xalloc(sizeof *c);
  c->max = max_entries;
  c->max_bytes = max_bytes;
  CHECK(lru_init(&c->lru, (size_t)max_entries * 2) == 0);  /* set-up memory */
  return c;
}

static uint64_t rc_hash(const char *origin, uint64_t fetched_at, size_t len)
{
  return hash_fp64(origin, strlen(origin)) ^ (fetched_at * 0x9e3779b97f4a7c15ULL)
         ^ ((uint64_t)len << 17);
}

static void rc_drop(struct rules_cache *c, struct rc_ent *e)
{
  lru_remove(&c->lru, &e->node);
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
  while(c->lru.head)
    rc_drop(c, LRU_ENTRY(c->lru.head, struct rc_ent, node));
  robots_free(&c->scratch);
  lru_fini(&c->lru);
  free(c);  /* xalloc: set-up memory */
}

struct rc_key {
  const char *origin;
  uint64_t    fetched_at;
  size_t      body_len;
};

static bool rc_eq(const struct lru_node *n, const void *key)
{
  const struct rc_ent *e = LRU_ENTRY(n, const struct rc_ent, node);
  const struct rc_key *k = key;
  return e->fetched_at == k->fetched_at && e->body_len == k->body_len &&
         !strcmp(e->origin, k->origin);
}

static struct rc_ent *rc_find(struct rules_cache *c, const char *origin, uint64_t fa,
                              size_t len, uint64_t h)
{
  struct rc_key k = { origin, fa, len };
  struct lru_node *n = lru_find(&c->lru, h, rc_eq, &k);
  return n ? LRU_ENTRY(n, struct rc_ent, node) : NULL;
}

/* Over a bound: the least recently used go, but never keep (in use). */
static void rc_trim(struct rules_cache *c, const struct rc_ent *keep)
{
  while((c->lru.n > c->max || c->lru.bytes > c->max_bytes) && c->lru.tail &&
        c->lru.tail != &keep->node) {
    rc_drop(c, LRU_ENTRY(c->lru.tail, struct rc_ent, node));
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
  e->node.h = h;
  e->node.bytes = rs.mem_bytes + strlen(origin) + sizeof *e;
  lru_insert(&c->lru, &e->node);
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
  lru_touch(&c->lru, &e->node);
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
  lru_touch(&c->lru, &e->node);
  return e->r;
}

void rules_cache_stats(const struct rules_cache *c, struct rules_cache_stats *st)
{
  *st = c->st;
  st->entries = c->lru.n;
  st->bytes = c->lru.bytes;
}
