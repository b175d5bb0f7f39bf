/* Robots records by origin, kept by each replica so that a claim usually
 * needs no extra Redis read. Direct-mapped (a colliding origin replaces
 * the old one: it is only a cache, Redis has the record), with a cap on the
 * bytes of bodies held. */
#include "hlfs/sched/sched_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"

struct rc_entry {
  char               *origin;  /* NULL: empty slot */
  char               *strs;    /* body, NUL, final URL, NUL */
  struct state_robots rec;     /* strings point into strs */
};

struct sched_rcache {
  struct rc_entry *slot;
  unsigned         nslots;
  unsigned         hand;       /* next slot to evict when over the cap */
  size_t           bytes, max_bytes;
};

struct sched_rcache *sched_rcache_new(unsigned slots, size_t max_bytes)
{
  struct sched_rcache *rc = xalloc(sizeof *rc);
  rc->nslots = slots ? slots : 1;
  rc->slot = xalloc(rc->nslots * sizeof *rc->slot);
  rc->max_bytes = max_bytes;
  return rc;
}

static void rc_clear(struct sched_rcache *rc, struct rc_entry *e)
{
  if(!e->origin)
    return;
  rc->bytes -= e->rec.body_len + strlen(e->origin);
  mem_free(e->origin);
  mem_free(e->strs);
  memset(e, 0, sizeof *e);
}

void sched_rcache_free(struct sched_rcache **rcp)
{
  struct sched_rcache *rc = *rcp;
  if(!rc)
    return;
  *rcp = NULL;
  for(unsigned i = 0; i < rc->nslots; i++)
    rc_clear(rc, &rc->slot[i]);
  free(rc->slot);  /* xalloc: set-up memory */
  free(rc);
}

static struct rc_entry *rc_slot(struct sched_rcache *rc, const char *origin)
{
  return &rc->slot[hash_fp64(origin, strlen(origin)) % rc->nslots];
}

bool sched_rcache_get(struct sched_rcache *rc, const char *origin, uint64_t srv_now,
                      struct state_robots *out)
{
  struct rc_entry *e = rc_slot(rc, origin);
  if(!e->origin || strcmp(e->origin, origin) || srv_now >= e->rec.expires_at)
    return false;
  *out = e->rec;
  return true;
}

static void rc_make_room(struct sched_rcache *rc, size_t need, const struct rc_entry *keep)
{
  for(unsigned n = 0; rc->bytes + need > rc->max_bytes && n < rc->nslots; n++) {
    struct rc_entry *e = &rc->slot[rc->hand];
    rc->hand = (rc->hand + 1) % rc->nslots;
    if(e != keep)
      rc_clear(rc, e);
  }
}

void sched_rcache_put(struct sched_rcache *rc, const char *origin,
                      const struct state_robots *rec)
{
  struct rc_entry *e = rc_slot(rc, origin);
  size_t need = (rec->body ? rec->body_len : 0) + strlen(origin);
  rc_clear(rc, e);
  if(need > rc->max_bytes)
    return;
  rc_make_room(rc, need, e);
  size_t blen = rec->body ? rec->body_len : 0;
  size_t ulen = rec->final_url ? strlen(rec->final_url) : 0;
  e->origin = mem_strdup(origin);
  e->strs = mem_alloc(blen + ulen + 2);
  if(!e->origin || !e->strs) {
    mem_free(e->origin);
    mem_free(e->strs);
    memset(e, 0, sizeof *e);
    return;  /* not cached: the next claim reads Redis again */
  }
  if(blen)
    memcpy(e->strs, rec->body, blen);
  e->strs[blen] = '\0';
  memcpy(e->strs + blen + 1, ulen ? rec->final_url : "", ulen + 1);
  e->rec = *rec;
  e->rec.body = rec->body ? e->strs : NULL;
  e->rec.body_len = blen;
  e->rec.final_url = rec->final_url ? e->strs + blen + 1 : NULL;
  rc->bytes += need;
}
