/* What a page's links give, as URLs found (crawl_int.h): each link, its
 * rel=canonical, and with path_ascend the directories above the page. No
 * queue is touched here: crawl_admit takes what is found. */
#include "clients/crawl/crawl_int.h"

#include <string.h>

#include "common/mem.h"
#include "common/robots_tag.h"

/* A full list with a flush: its URLs handed over, the list emptied. */
static crawl_err found_flush(struct crawl_found *f)
{
  crawl_err e = f->flush(f->c, f);
  for(size_t i = 0; i < f->n; i++)
    mem_free(f->v[i].own);
  f->n = 0;
  return e;
}

crawl_err crawl_found_add(struct crawl_found *f, const struct found_url *u)
{
  crawl_err e = f->flush && f->n >= FOUND_CHUNK ? found_flush(f) : CRAWL_OK;
  if(e) {
    mem_free(u->own);
    return e;
  }
  if(f->n == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 64;
    struct found_url *v = mem_realloc(f->v, cap * sizeof *v);
    if(!v) {
      mem_free(u->own);
      return CRAWL_ERR_NOMEM;
    }
    f->v = v;
    f->cap = cap;
  }
  f->v[f->n++] = *u;
  return CRAWL_OK;
}

void crawl_found_free(struct crawl_found *f)
{
  for(size_t i = 0; i < f->n; i++)
    mem_free(f->v[i].own);
  mem_free(f->v);
  f->v = NULL;
  f->n = f->cap = 0;
}

static crawl_err links_drop_all(struct crawl *c, const struct html_links *l,
                                struct crawl_found *f)
{
  crawl_err e = CRAWL_OK;
  c->st.nofollow++;
  for(size_t i = 0; i < l->n && !e; i++)
    e = crawl_found_add(f, &(struct found_url){ .url = l->v[i].url, .kind = FOUND_DROP,
                                                .drop = DROP_NOFOLLOW });
  return e;
}

crawl_err crawl_links_page(struct crawl *c, const struct html_links *l, const char *page_url,
                           uint32_t depth, const struct frontier_score *scores,
                           const bool *follow, const struct frontier_score *own,
                           struct crawl_found *f)
{
  c->st.links += l->n + (l->canonical != NULL);
  c->st.links_invalid += l->invalid;
  c->st.links_not_http += l->not_http;
  if((l->robots & ROBOTS_TAG_NOFOLLOW) && c->o.obey_nofollow)
    return links_drop_all(c, l, f);
  crawl_err e = CRAWL_OK;
  for(size_t i = 0; i < l->n && !e; i++) {
    struct found_url u = { .url = l->v[i].url, .depth = depth + 1, .level = 1,
                           .flags = l->v[i].nofollow ? LINK_NOFOLLOW : 0,
                           .sc = scores ? &scores[i] : NULL };
    if(follow && !follow[i])
      u = (struct found_url){ .url = l->v[i].url, .kind = FOUND_DROP, .drop = DROP_OFF_TOPIC };
    e = crawl_found_add(f, &u);
  }
  /* The page's preferred URL, if another: it may be the one worth keeping
   * (a focused crawl gives it the page's own score). */
  if(!e && l->canonical && strcmp(l->canonical, page_url))
    e = crawl_found_add(f, &(struct found_url){ .url = l->canonical, .depth = depth + 1,
                                                .level = 1, .sc = own });
  return e;
}

/* Path ascent (--path-ascend): the directories above a fetched URL, as if
 * the page linked them. From /a/b/c (or /a/b/c?q): /a/b/, /a/ and /; from
 * /a/b/?q also /a/b/. They take the filters, the seen test and the trap
 * defences of any link (a focused crawl: score 0). */
crawl_err crawl_links_ascend(struct crawl *c, const char *url, uint32_t depth,
                             struct crawl_found *f)
{
  struct url_parts p;
  if(!c->o.path_ascend || url_split(url, &p) != URL_OK)
    return CRAWL_OK;
  size_t base = (size_t)(p.target - url), plen = strcspn(p.target, "?");
  crawl_err e = CRAWL_OK;
  for(size_t i = plen; !e && i-- > 0;) {
    if(p.target[i] != '/' || i + 1 == p.target_len)
      continue;  /* not a directory, or the URL itself */
    char *up = mem_strndup(url, base + i + 1);
    if(!up)
      return CRAWL_ERR_NOMEM;
    c->st.ascents++;
    e = crawl_found_add(f, &(struct found_url){ .url = up, .own = up, .depth = depth + 1,
                                                .kind = FOUND_URL, .level = 1 });
  }
  return e;
}
