/* Hot pages, rendered, by page key, on common/cache.h. See page_memo.h. */
#include "hlfs/gw/page_memo.h"

#include <stdlib.h>
#include <string.h>

#include "common/cache.h"
#include "common/mem.h"

struct pm_ent {
  struct cache_ent ce;          /* first (cache.h); bytes: the whole allocation */
  long           status;
  uint64_t       fetched_at;
  size_t         tail_len;
  const char    *url, *outcome, *hash, *tail;  /* in the same allocation, with the key */
};

struct page_memo {
  struct cache c;
};

/* About one bucket per 4 KiB kept (pages of a few KiB), at least 1,024. */
struct page_memo *page_memo_new(size_t max_bytes)
{
  struct page_memo *m = xalloc(sizeof *m);
  cache_init(&m->c, max_bytes, 4096);
  return m;
}

void page_memo_free(struct page_memo **mp)
{
  struct page_memo *m = *mp;
  if(!m)
    return;
  *mp = NULL;
  cache_fini(&m->c);
  free(m);  /* xalloc: set-up memory */
}

bool page_memo_get(struct page_memo *m, const char *key, struct page *head, const char **tail,
                   size_t *tail_len)
{
  struct pm_ent *e = (struct pm_ent *)cache_get(&m->c, key);
  if(!e)
    return false;
  *head = (struct page){ .url = e->url, .outcome = e->outcome, .status = e->status,
                         .fetched_at = e->fetched_at, .hash = e->hash };
  *tail = e->tail;
  *tail_len = e->tail_len;
  return true;
}

void page_memo_drop(struct page_memo *m, const char *key)
{
  cache_drop(&m->c, key);
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
  *e = (struct pm_ent){ .ce = { .node = { .bytes = bytes } }, .status = p->status,
                        .fetched_at = p->fetched_at, .tail_len = tail_len };
  e->ce.key = pm_copy(&at, key, kl);
  e->url = pm_copy(&at, url, ul);
  e->outcome = pm_copy(&at, outcome, ol);
  e->hash = pm_copy(&at, p->hash, hl);
  e->tail = pm_copy(&at, tail, tail_len);
  return e;
}

bool page_memo_put(struct page_memo *m, const char *key, const struct page *p,
                   const char *tail, size_t tail_len)
{
  if(!p->hash || tail_len > m->c.max_bytes) {
    cache_drop(&m->c, key);
    return false;
  }
  return cache_put(&m->c, key, (struct cache_ent *)pm_make(key, p, tail, tail_len));
}
