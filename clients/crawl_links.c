/* From a discovered URL to the frontier: filters, trap defences, URL-seen
 * test, admission. The order is cheapest first, and the stateful trap
 * counters (site budget, query variants) only see URLs that are new, so
 * they count distinct URLs. */
#include "clients/crawl_int.h"

#include <string.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define LINK_REC_HEAD 5  /* depth (4 bytes), level (1), then the URL */

void crawl_links_drop(struct crawl *c, const char *url, enum drop_reason r)
{
  c->st.drop[r]++;
  struct log_ctx ctx = { .url = url, .action = "discovering links" };
  if(drop_is_trap(r))
    LOGC(LOG_INFO, &ctx, "trap: %s (%s)", drop_name(r), drop_text(r));
  else
    LOGC(LOG_DEBUG, &ctx, "not crawled: %s", drop_name(r));
}

/* A URL the seen test found new: the stateful defences, then the queue. */
static crawl_err links_admit(struct crawl *c, const char *url, const struct url_parts *p,
                             uint32_t depth, unsigned level)
{
  if(fpset_has(&c->replayed, hash_fp64(url, strlen(url)))) {
    c->st.links_known++;  /* finished before the crash, replayed */
    return CRAWL_OK;
  }
  enum drop_reason r = trap_admit(c->trap, p);
  if(r) {
    crawl_links_drop(c, url, r);
    return CRAWL_OK;
  }
  crawl_err e = frontier_push(c->fr, url, p->host, depth, level);
  if(e == CRAWL_ERR_FULL) {
    crawl_links_drop(c, url, DROP_FRONTIER_FULL);
    return CRAWL_OK;
  }
  if(e == CRAWL_ERR_INVALID) {
    c->st.links_known++;
    return CRAWL_OK;
  }
  c->st.links_new += e == CRAWL_OK;
  return e;
}

/* Checks that need no state beyond the options. */
static enum drop_reason links_filter(struct crawl *c, const struct url_parts *p,
                                     uint32_t depth, unsigned flags)
{
  if((flags & LINK_NOFOLLOW) && c->o.obey_nofollow)
    return DROP_NOFOLLOW;
  if(depth > c->o.max_depth)
    return DROP_DEPTH;
  enum drop_reason r = flags & LINK_SITEMAP ? linkfilter_check_scope(c->lf, p)
                                            : linkfilter_check(c->lf, p);
  return r ? r : trap_check_path(c->trap, p);
}

static crawl_err links_seen(struct crawl *c, const char *url, const struct url_parts *p,
                            uint32_t depth, unsigned level)
{
  size_t n = strlen(url);
  uint64_t fp = hash_fp64(url, n);
  if(frontier_bump(c->fr, fp)) {
    c->st.links_known++;  /* queued or outstanding: one more in-link */
    return CRAWL_OK;
  }
  unsigned char head[LINK_REC_HEAD] = { (unsigned char)depth, (unsigned char)(depth >> 8),
                                        (unsigned char)(depth >> 16),
                                        (unsigned char)(depth >> 24), (unsigned char)level };
  unsigned char *rec = mem_alloc(LINK_REC_HEAD + n);
  if(!rec)
    return CRAWL_ERR_NOMEM;
  memcpy(rec, head, LINK_REC_HEAD);
  memcpy(rec + LINK_REC_HEAD, url, n);
  enum seen_answer ans;
  crawl_err e = seen_add(c->seen, fp, rec, LINK_REC_HEAD + n, &ans);
  mem_free(rec);
  if(e)
    return e;
  if(ans == SEEN_NEW)
    return links_admit(c, url, p, depth, level);
  c->st.links_known += ans == SEEN_OLD;
  return CRAWL_OK;
}

crawl_err crawl_links_one(struct crawl *c, const char *url, uint32_t depth,
                          unsigned flags, unsigned level)
{
  struct url_parts p;
  if(url_split(url, &p) != URL_OK) {
    c->st.links_invalid++;
    return CRAWL_OK;
  }
  enum drop_reason r = links_filter(c, &p, depth, flags);
  if(r) {
    crawl_links_drop(c, url, r);
    return CRAWL_OK;
  }
  return links_seen(c, url, &p, depth, level);
}

/* seen_new_fn: a pending URL turned out new. */
void crawl_links_on_new(void *arg, uint64_t fp, const void *rec, size_t len)
{
  struct crawl *c = arg;
  const unsigned char *r = rec;
  (void)fp;
  if(len <= LINK_REC_HEAD || c->err)
    return;
  uint32_t depth = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 |
                   (uint32_t)r[3] << 24;
  char *url = mem_strndup((const char *)r + LINK_REC_HEAD, len - LINK_REC_HEAD);
  struct url_parts p;
  crawl_err e = url ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e && url_split(url, &p) == URL_OK)
    e = links_admit(c, url, &p, depth, r[4]);
  if(e)
    c->err = e;
  mem_free(url);
}

void crawl_links_page(struct crawl *c, const struct html_links *l, const char *page_url,
                      uint32_t depth)
{
  c->st.links += l->n + (l->canonical != NULL);
  c->st.links_invalid += l->invalid;
  c->st.links_not_http += l->not_http;
  if(l->meta_nofollow && c->o.obey_nofollow) {
    c->st.noindex++;
    for(size_t i = 0; i < l->n; i++)
      crawl_links_drop(c, l->v[i].url, DROP_NOFOLLOW);
    return;
  }
  crawl_err e = CRAWL_OK;
  for(size_t i = 0; i < l->n && !e; i++)
    e = crawl_links_one(c, l->v[i].url, depth + 1, l->v[i].nofollow ? LINK_NOFOLLOW : 0, 1);
  /* The page's preferred URL, if another: it may be the one worth keeping. */
  if(!e && l->canonical && strcmp(l->canonical, page_url))
    e = crawl_links_one(c, l->canonical, depth + 1, 0, 1);
  if(e && !c->err)
    c->err = e;
}

/* Path ascent (--path-ascend): the directories above a fetched URL, as if
 * the page linked them. From /a/b/c (or /a/b/c?q): /a/b/, /a/ and /; from
 * /a/b/?q also /a/b/. They take the filters, the seen test and the trap
 * defences of any link. */
crawl_err crawl_links_ascend(struct crawl *c, const char *url, uint32_t depth)
{
  struct url_parts p;
  if(!c->o.path_ascend || url_split(url, &p) != URL_OK)
    return CRAWL_OK;
  size_t base = (size_t)(p.target - url), plen = strcspn(p.target, "?");
  char *up = mem_alloc(base + plen + 1);
  if(!up)
    return CRAWL_ERR_NOMEM;
  memcpy(up, url, base + plen);
  crawl_err e = CRAWL_OK;
  for(size_t i = plen; !e && i-- > 0;) {
    if(p.target[i] != '/' || i + 1 == p.target_len)
      continue;  /* not a directory, or the URL itself */
    up[base + i + 1] = '\0';
    c->st.ascents++;
    e = crawl_add_url(c, up, depth + 1, 1);
    if(e == CRAWL_ERR_INVALID) {
      c->st.links_invalid++;
      e = CRAWL_OK;
    }
  }
  mem_free(up);
  return e;
}
