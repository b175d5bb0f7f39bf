/* Pages just fetched by this replica, by page key, on common/cache.h. See
 * fresh_pages.h. */
#include "hlfs/fetch/fresh_pages.h"

#include <stdlib.h>
#include <string.h>

#include "common/cache.h"
#include "common/mem.h"

struct pf_ent {
  struct cache_ent ce;   /* first (cache.h); bytes: the whole allocation */
  struct page      p;    /* its strings and body in the same allocation */
  const char      *rid;
};

struct fresh_pages {
  struct cache c;
};

struct fresh_pages *fresh_pages_new(size_t max_bytes)
{
  struct fresh_pages *f = xalloc(sizeof *f);
  cache_init(&f->c, max_bytes, 8192);
  return f;
}

void fresh_pages_free(struct fresh_pages **fp)
{
  struct fresh_pages *f = *fp;
  if(!f)
    return;
  *fp = NULL;
  cache_fini(&f->c);
  free(f);  /* xalloc: set-up memory */
}

void fresh_pages_drop(struct fresh_pages *f, const char *key)
{
  cache_drop(&f->c, key);
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
  *e = (struct pf_ent){ .ce = { .node = { .bytes = bytes } }, .p = *p };
  e->ce.key = pf_copy(&at, key, len[0]);
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
  if(p->body_len >= f->c.max_bytes) {
    cache_drop(&f->c, key);
    return;
  }
  cache_put(&f->c, key, (struct cache_ent *)pf_make(key, rid, p));
}

bool fresh_pages_get(struct fresh_pages *f, const char *key, const char *rid, struct page *out)
{
  struct pf_ent *e = (struct pf_ent *)cache_find(&f->c, key);
  if(!e || !rid || strcmp(e->rid, rid))
    return false;
  cache_touch(&f->c, &e->ce);
  *out = e->p;
  return true;
}
