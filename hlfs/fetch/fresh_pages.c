/* Pages just fetched by this replica, by page key, on common/lru.h. See
 * fresh_pages.h. */
#include "hlfs/fetch/fresh_pages.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/lru.h"
#include "common/mem.h"

struct pf_ent {
  struct lru_node node;  /* bytes: the whole allocation */
  struct page     p;     /* its strings and body in the same allocation */
  const char     *key, *rid;
};

struct fresh_pages {
  struct lru lru;
  size_t     max_bytes;
  struct fresh_pages_stats st;
};

struct fresh_pages *fresh_pages_new(size_t max_bytes)
{
  struct fresh_pages *f = xalloc(sizeof *f);
  size_t buckets = max_bytes / 8192;
  f->max_bytes = max_bytes;
  f->st = (struct fresh_pages_stats){ 0 };
  CHECK(lru_init(&f->lru, buckets < 1024 ? 1024 : buckets) == 0);  /* set-up memory */
  return f;
}

static void pf_remove(struct fresh_pages *f, struct pf_ent *e)
{
  lru_remove(&f->lru, &e->node);
  mem_free(e);
}

void fresh_pages_free(struct fresh_pages **fp)
{
  struct fresh_pages *f = *fp;
  if(!f)
    return;
  *fp = NULL;
  while(f->lru.head)
    pf_remove(f, LRU_ENTRY(f->lru.head, struct pf_ent, node));
  lru_fini(&f->lru);
  free(f);  /* xalloc: set-up memory */
}

static bool pf_eq(const struct lru_node *n, const void *key)
{
  return !strcmp(LRU_ENTRY(n, const struct pf_ent, node)->key, key);
}

static struct pf_ent *pf_find(const struct fresh_pages *f, const char *key)
{
  struct lru_node *n = f->max_bytes ? lru_find(&f->lru, hash_fp64(key, strlen(key)), pf_eq, key)
                                    : NULL;
  return n ? LRU_ENTRY(n, struct pf_ent, node) : NULL;
}

void fresh_pages_drop(struct fresh_pages *f, const char *key)
{
  struct pf_ent *e = pf_find(f, key);
  if(e)
    pf_remove(f, e);
}

/* Copy n bytes of s and a NUL to *at, advancing it; NULL stays NULL. */
static const char *pf_copy(char **at, const char *s, size_t n)
{
  if(!s)
    return NULL;
  char *d = *at;
  memcpy(d, s, n);
  d[n] = '\0';
  *at += n + 1;
  return d;
}

static size_t pf_len(const char *s) { return s ? strlen(s) : 0; }

static struct pf_ent *pf_make(const char *key, const char *rid, const struct page *p)
{
  const char *src[] = { key, rid, p->url, p->outcome, p->headers_json, p->redirect, p->hash };
  size_t len[7], bytes = sizeof(struct pf_ent) + p->body_len + 1;
  for(int i = 0; i < 7; i++)
    bytes += (len[i] = pf_len(src[i])) + 1;
  struct pf_ent *e = mem_alloc(bytes);
  if(!e)
    return NULL;
  char *at = (char *)(e + 1);
  *e = (struct pf_ent){ .node = { .h = hash_fp64(key, len[0]), .bytes = bytes }, .p = *p };
  e->key = pf_copy(&at, key, len[0]);
  e->rid = pf_copy(&at, rid, len[1]);
  e->p.url = pf_copy(&at, p->url, len[2]);
  e->p.outcome = pf_copy(&at, p->outcome, len[3]);
  e->p.headers_json = pf_copy(&at, p->headers_json, len[4]);
  e->p.redirect = pf_copy(&at, p->redirect, len[5]);
  e->p.hash = pf_copy(&at, p->hash, len[6]);
  e->p.body = pf_copy(&at, p->body ? p->body : "", p->body_len);
  e->p.verified = p->headers_json != NULL;  /* the text this gateway wrote, not read back */
  return e;
}

void fresh_pages_put(struct fresh_pages *f, const char *key, const char *rid, const struct page *p)
{
  fresh_pages_drop(f, key);
  if(p->body_len >= f->max_bytes)
    return;
  struct pf_ent *e = pf_make(key, rid, p);
  if(!e || e->node.bytes > f->max_bytes) {
    mem_free(e);
    return;
  }
  while(f->lru.bytes + e->node.bytes > f->max_bytes && f->lru.tail) {
    pf_remove(f, LRU_ENTRY(f->lru.tail, struct pf_ent, node));
    f->st.evictions++;
  }
  lru_insert(&f->lru, &e->node);
  f->st.puts++;
}

bool fresh_pages_get(struct fresh_pages *f, const char *key, const char *rid, struct page *out)
{
  struct pf_ent *e = pf_find(f, key);
  if(!e || !rid || strcmp(e->rid, rid))
    return false;
  lru_touch(&f->lru, &e->node);
  *out = e->p;
  f->st.hits++;
  return true;
}

void fresh_pages_stats(const struct fresh_pages *f, struct fresh_pages_stats *st)
{
  *st = f->st;
  st->entries = f->lru.n;
  st->bytes = f->lru.bytes;
}
