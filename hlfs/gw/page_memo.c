/* Hot pages, rendered, by page key: a chained hash table for lookups and a
 * doubly linked list in use order for eviction. See page_memo.h. */
#include "hlfs/gw/page_memo.h"

#include <stdlib.h>
#include <string.h>

#include "common/list.h"
#include "common/hash.h"
#include "common/mem.h"

struct pm_ent {
  struct pm_ent *prev, *next;   /* use order: head is the most recent */
  struct pm_ent *chain;         /* same bucket */
  uint64_t       h;             /* of the key */
  size_t         bytes;         /* the whole allocation */
  long           status;
  uint64_t       fetched_at;
  size_t         tail_len;
  const char    *key, *url, *outcome, *hash, *tail;  /* in the same allocation */
};

struct page_memo {
  struct pm_ent **tab;
  size_t          nbuckets;     /* a power of two */
  struct pm_ent  *head, *tail;
  size_t          bytes, max_bytes;
  struct page_memo_stats st;
};

/* About one bucket per 4 KiB kept (pages of a few KiB), at least 1,024. */
struct page_memo *page_memo_new(size_t max_bytes)
{
  struct page_memo *m = xalloc(sizeof *m);
  m->max_bytes = max_bytes;
  m->nbuckets = 1024;
  while(m->nbuckets < max_bytes / 4096 && m->nbuckets < ((size_t)1 << 24))
    m->nbuckets *= 2;
  m->tab = xalloc(m->nbuckets * sizeof *m->tab);
  return m;
}

static void pm_unlink(struct page_memo *m, struct pm_ent *e)
{
  DLT_UNLINK(m->head, m->tail, e, prev, next);
}

static void pm_push_front(struct page_memo *m, struct pm_ent *e)
{
  DLT_PUSH_FRONT(m->head, m->tail, e, prev, next);
}

static void pm_remove(struct page_memo *m, struct pm_ent *e)
{
  struct pm_ent **pp = &m->tab[e->h & (m->nbuckets - 1)];
  while(*pp != e)
    pp = &(*pp)->chain;
  *pp = e->chain;
  pm_unlink(m, e);
  m->st.entries--;
  m->bytes -= e->bytes;
  mem_free(e);
}

void page_memo_free(struct page_memo **mp)
{
  struct page_memo *m = *mp;
  if(!m)
    return;
  *mp = NULL;
  while(m->head)
    pm_remove(m, m->head);
  free(m->tab);  /* xalloc: set-up memory */
  free(m);
}

static struct pm_ent *pm_find(const struct page_memo *m, const char *key, uint64_t h)
{
  for(struct pm_ent *e = m->tab[h & (m->nbuckets - 1)]; e; e = e->chain)
    if(e->h == h && !strcmp(e->key, key))
      return e;
  return NULL;
}

bool page_memo_get(struct page_memo *m, const char *key, struct page *head, const char **tail,
                   size_t *tail_len)
{
  struct pm_ent *e = m->max_bytes ? pm_find(m, key, hash_fp64(key, strlen(key))) : NULL;
  if(!e)
    return false;
  pm_unlink(m, e);
  pm_push_front(m, e);
  *head = (struct page){ .url = e->url, .outcome = e->outcome, .status = e->status,
                         .fetched_at = e->fetched_at, .hash = e->hash };
  *tail = e->tail;
  *tail_len = e->tail_len;
  return true;
}

void page_memo_drop(struct page_memo *m, const char *key)
{
  struct pm_ent *e = m->max_bytes ? pm_find(m, key, hash_fp64(key, strlen(key))) : NULL;
  if(e)
    pm_remove(m, e);
}

/* Copy s (and its NUL) to *at, advancing it. */
static const char *pm_copy(char **at, const char *s, size_t n)
{
  char *d = *at;
  memcpy(d, s, n);
  d[n] = '\0';
  *at += n + 1;
  return d;
}

static struct pm_ent *pm_make(const char *key, const struct page *p, const char *tail,
                              size_t tail_len)
{
  const char *url = p->url ? p->url : "", *outcome = p->outcome ? p->outcome : "";
  size_t kl = strlen(key), ul = strlen(url), ol = strlen(outcome), hl = strlen(p->hash);
  size_t bytes = sizeof(struct pm_ent) + kl + ul + ol + hl + tail_len + 5;
  struct pm_ent *e = mem_alloc(bytes);
  if(!e)
    return NULL;
  char *at = (char *)(e + 1);
  *e = (struct pm_ent){ .h = hash_fp64(key, kl), .bytes = bytes, .status = p->status,
                        .fetched_at = p->fetched_at, .tail_len = tail_len };
  e->key = pm_copy(&at, key, kl);
  e->url = pm_copy(&at, url, ul);
  e->outcome = pm_copy(&at, outcome, ol);
  e->hash = pm_copy(&at, p->hash, hl);
  e->tail = pm_copy(&at, tail, tail_len);
  return e;
}

bool page_memo_put(struct page_memo *m, const char *key, const struct page *p,
                   const char *tail, size_t tail_len)
{
  page_memo_drop(m, key);
  if(!p->hash || tail_len > m->max_bytes)
    return false;
  struct pm_ent *e = pm_make(key, p, tail, tail_len);
  if(!e || e->bytes > m->max_bytes) {
    mem_free(e);
    return false;
  }
  while(m->bytes + e->bytes > m->max_bytes && m->tail) {
    pm_remove(m, m->tail);
    m->st.evictions++;
  }
  struct pm_ent **b = &m->tab[e->h & (m->nbuckets - 1)];
  e->chain = *b;
  *b = e;
  pm_push_front(m, e);
  m->bytes += e->bytes;
  m->st.entries++;
  m->st.puts++;
  return true;
}

void page_memo_stats(const struct page_memo *m, struct page_memo_stats *st)
{
  *st = m->st;
  st->bytes = m->bytes;
}
