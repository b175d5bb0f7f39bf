/* Hot pages, rendered, by page key, on common/lru.h. See page_memo.h. */
#include "hlfs/gw/page_memo.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/lru.h"
#include "common/mem.h"

struct pm_ent {
  struct lru_node node;         /* bytes: the whole allocation */
  long           status;
  uint64_t       fetched_at;
  size_t         tail_len;
  const char    *key, *url, *outcome, *hash, *tail;  /* in the same allocation */
};

struct page_memo {
  struct lru     lru;
  size_t         max_bytes;
  struct page_memo_stats st;
};

/* About one bucket per 4 KiB kept (pages of a few KiB), at least 1,024. */
struct page_memo *page_memo_new(size_t max_bytes)
{
  struct page_memo *m = xalloc(sizeof *m);
  size_t buckets = max_bytes / 4096;
  m->max_bytes = max_bytes;
  CHECK(lru_init(&m->lru, buckets < 1024 ? 1024 : buckets) == 0);  /* set-up memory */
  return m;
}

static void pm_remove(struct page_memo *m, struct pm_ent *e)
{
  lru_remove(&m->lru, &e->node);
  mem_free(e);
}

void page_memo_free(struct page_memo **mp)
{
  struct page_memo *m = *mp;
  if(!m)
    return;
  *mp = NULL;
  while(m->lru.head)
    pm_remove(m, LRU_ENTRY(m->lru.head, struct pm_ent, node));
  lru_fini(&m->lru);
  free(m);  /* xalloc: set-up memory */
}

static bool pm_eq(const struct lru_node *n, const void *key)
{
  return !strcmp(LRU_ENTRY(n, const struct pm_ent, node)->key, key);
}

static struct pm_ent *pm_find(const struct page_memo *m, const char *key)
{
  struct lru_node *n = m->max_bytes ? lru_find(&m->lru, hash_fp64(key, strlen(key)), pm_eq, key)
                                    : NULL;
  return n ? LRU_ENTRY(n, struct pm_ent, node) : NULL;
}

bool page_memo_get(struct page_memo *m, const char *key, struct page *head, const char **tail,
                   size_t *tail_len)
{
  struct pm_ent *e = pm_find(m, key);
  if(!e)
    return false;
  lru_touch(&m->lru, &e->node);
  *head = (struct page){ .url = e->url, .outcome = e->outcome, .status = e->status,
                         .fetched_at = e->fetched_at, .hash = e->hash };
  *tail = e->tail;
  *tail_len = e->tail_len;
  return true;
}

void page_memo_drop(struct page_memo *m, const char *key)
{
  struct pm_ent *e = pm_find(m, key);
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
  *e = (struct pm_ent){ .node = { .h = hash_fp64(key, kl), .bytes = bytes },
                        .status = p->status, .fetched_at = p->fetched_at, .tail_len = tail_len };
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
  if(!e || e->node.bytes > m->max_bytes) {
    mem_free(e);
    return false;
  }
  while(m->lru.bytes + e->node.bytes > m->max_bytes && m->lru.tail) {
    pm_remove(m, LRU_ENTRY(m->lru.tail, struct pm_ent, node));
    m->st.evictions++;
  }
  lru_insert(&m->lru, &e->node);
  m->st.puts++;
  return true;
}

void page_memo_stats(const struct page_memo *m, struct page_memo_stats *st)
{
  *st = m->st;
  st->entries = m->lru.n;
  st->bytes = m->lru.bytes;
}
