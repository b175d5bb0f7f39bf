#include "tests/testweb/tw_site.h"

#include <assert.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"

/* Distinct paths counted per site before they share one counter. */
#define COUNT_MAX 4096

struct tw_site *tw_site_new(void)
{
  struct tw_site *s = mem_calloc(1, sizeof *s);
  if(!s)
    return NULL;
  s->magic = TW_SITE_MAGIC;
  return s;
}

void tw_site_free(struct tw_site **sp)
{
  struct tw_site *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  assert(s->magic == TW_SITE_MAGIC);
  tw_rec_free(&s->rec);
  mem_free(s->counts.t);
  mem_free(s->paths);
  json_decref(s->cfg);
  mem_free(s->name);
  s->magic = 0;
  mem_free(s);
}

const struct tw_path *tw_site_path(const struct tw_site *s, const char *path, size_t n)
{
  const struct tw_path *best = NULL;
  for(size_t i = 0; i < s->npaths; i++) {
    const struct tw_path *p = &s->paths[i];
    if(!p->prefix && p->len == n && !memcmp(p->path, path, n))
      return p;
    if(p->prefix && p->len <= n && !memcmp(p->path, path, p->len) &&
       (!best || p->len > best->len))
      best = p;  /* the longest prefix wins */
  }
  return best;
}

static int count_grow(struct tw_count *c)
{
  size_t cap = c->cap ? c->cap * 2 : 16;
  struct tw_count_ent *t = mem_calloc(cap, sizeof *t);
  if(!t)
    return -1;
  for(size_t i = 0; i < c->cap; i++) {
    if(!c->t[i].key)
      continue;
    size_t j = c->t[i].key & (cap - 1);
    while(t[j].key)
      j = (j + 1) & (cap - 1);
    t[j] = c->t[i];
  }
  mem_free(c->t);
  c->t = t;
  c->cap = cap;
  return 0;
}

/* The slot holding key, or the empty slot where it would go. The table is
 * kept at most half full, so an empty slot always exists. */
static struct tw_count_ent *count_slot(struct tw_count *c, uint64_t key)
{
  size_t j = key & (c->cap - 1);
  while(c->t[j].key && c->t[j].key != key)
    j = (j + 1) & (c->cap - 1);
  return &c->t[j];
}

uint64_t tw_site_count(struct tw_site *s, const char *path, size_t n)
{
  struct tw_count *c = &s->counts;
  uint64_t key = hash_fp64(path, n) | 1;  /* never 0, the empty mark */
  struct tw_count_ent *e = c->cap ? count_slot(c, key) : NULL;
  if(e && e->key)
    return ++e->n;
  if(c->used >= COUNT_MAX)
    return ++c->overflow;
  if((c->used + 1) * 2 > c->cap && count_grow(c))
    return ++c->overflow;
  e = count_slot(c, key);
  e->key = key;
  c->used++;
  return ++e->n;
}

void tw_site_reset(struct tw_site *s)
{
  tw_rec_reset(&s->rec);
  mem_free(s->counts.t);
  memset(&s->counts, 0, sizeof s->counts);
}

const char *tw_site_host(const struct tw_site *s)
{
  return s->name ? s->name : s->addr_s;
}
