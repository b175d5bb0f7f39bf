/* Robots records by origin, without bodies: see robots_memo.h. */
#include "hlfs/policy/robots_memo.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"

struct rm_slot {
  char                  *origin;  /* NULL: empty */
  struct robots_memo_rec rec;
};

struct robots_memo {
  struct rm_slot *slot;
  unsigned        nslots;
};

struct robots_memo *robots_memo_new(unsigned slots)
{
  struct robots_memo *m = xalloc(sizeof *m);
  m->nslots = slots ? slots : 1;
  m->slot = xalloc(m->nslots * sizeof *m->slot);
  return m;
}

void robots_memo_free(struct robots_memo **mp)
{
  struct robots_memo *m = *mp;
  if(!m)
    return;
  *mp = NULL;
  for(unsigned i = 0; i < m->nslots; i++)
    mem_free(m->slot[i].origin);
  free(m->slot);  /* xalloc: set-up memory */
  free(m);
}

static struct rm_slot *rm_slot(const struct robots_memo *m, const char *origin)
{
  return &m->slot[hash_fp64(origin, strlen(origin)) % m->nslots];
}

void robots_memo_put(struct robots_memo *m, const char *origin,
                     const struct robots_memo_rec *rec)
{
  struct rm_slot *e = rm_slot(m, origin);
  if(!e->origin || strcmp(e->origin, origin)) {
    mem_free(e->origin);
    e->origin = mem_strdup(origin);
  }
  if(e->origin)
    e->rec = *rec;
}

bool robots_memo_get(const struct robots_memo *m, const char *origin,
                     struct robots_memo_rec *out)
{
  const struct rm_slot *e = rm_slot(m, origin);
  if(!e->origin || strcmp(e->origin, origin))
    return false;
  *out = e->rec;
  return true;
}
