/* From a discovered URL to the frontier: filters, trap defences, URL-seen
 * test, admission. The one place that queues URLs: pages, feeds,
 * sitemaps, redirects, path ascents and seeds all come through here. The
 * order is cheapest first, and the stateful trap counters (site budget,
 * query variants) only see URLs that are new, so they count distinct
 * URLs. */
#include "clients/crawl/crawl_int.h"

#include <string.h>

#include "clients/base/le.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

/* A URL waiting for the seen set's answer: depth (4 bytes), level (1),
 * score (a float's 4 bytes), meta length (2), then the meta and the URL. */
#define ADMIT_REC_HEAD 11

static void admit_drop(struct crawl *c, const char *url, enum drop_reason r)
{
  c->st.drop[r]++;
  struct log_ctx ctx = { .url = url, .action = "discovering links" };
  if(drop_is_trap(r))
    LOGC(LOG_INFO, &ctx, "trap: %s (%s)", drop_name(r), drop_text(r));
  else if(r == DROP_RULE)
    LOGC(LOG_DEBUG, &ctx, "not crawled: rule (%s)", linkfilter_rule(c->lf));
  else
    LOGC(LOG_DEBUG, &ctx, "not crawled: %s", drop_name(r));
}

crawl_err crawl_admit_push(struct crawl *c, const char *url, const struct url_parts *p,
                           uint32_t depth, unsigned level, const struct frontier_score *sc)
{
  static const struct frontier_score none = { 0, NULL, 0 };
  crawl_err e = c->o.scorer ? frontier_push_scored(c->fr, url, p->host, depth, sc ? sc : &none)
                            : frontier_push(c->fr, url, p->host, depth, level);
  if(!e && c->route.queued)
    c->route.queued(c->route.arg, url, p->host, depth, level);
  return e;
}

/* A URL the seen test found new: the stateful defences, then the queue. */
static crawl_err admit_new(struct crawl *c, const char *url, const struct url_parts *p,
                             uint32_t depth, unsigned level, const struct frontier_score *sc)
{
  if(fpset_has(&c->replayed, hash_fp64(url, strlen(url)))) {
    c->st.links_known++;  /* finished before the crash, replayed */
    return CRAWL_OK;
  }
  enum drop_reason r = trap_admit(c->trap, p);
  if(r) {
    admit_drop(c, url, r);
    return CRAWL_OK;
  }
  crawl_err e = crawl_admit_push(c, url, p, depth, level, sc);
  if(e == CRAWL_ERR_FULL || e == CRAWL_ERR_TOO_LARGE) {
    admit_drop(c, url, DROP_FRONTIER_FULL);
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
static enum drop_reason admit_filter(struct crawl *c, const struct url_parts *p,
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

/* The record the seen set keeps with a pending URL (heap, mem_free). */
static unsigned char *admit_rec(const char *url, size_t n, uint32_t depth, unsigned level,
                               const struct frontier_score *sc, size_t *len)
{
  size_t mlen = sc && sc->meta_len <= FRONTIER_META_MAX ? sc->meta_len : 0;
  float score = sc ? (float)sc->score : 0;
  uint32_t bits;
  memcpy(&bits, &score, sizeof bits);
  unsigned char *rec = mem_alloc(ADMIT_REC_HEAD + mlen + n);
  if(!rec)
    return NULL;
  le_put(rec, depth, 4);
  rec[4] = (unsigned char)level;
  le_put(rec + 5, bits, 4);
  le_put(rec + 9, mlen, 2);
  if(mlen)
    memcpy(rec + ADMIT_REC_HEAD, sc->meta, mlen);
  memcpy(rec + ADMIT_REC_HEAD + mlen, url, n);
  *len = ADMIT_REC_HEAD + mlen + n;
  return rec;
}

static crawl_err admit_seen(struct crawl *c, const char *url, const struct url_parts *p,
                            uint32_t depth, unsigned level, const struct frontier_score *sc)
{
  size_t n = strlen(url), len;
  uint64_t fp = hash_fp64(url, n);
  bool queued = c->o.scorer && sc ? frontier_raise(c->fr, fp, sc) : frontier_bump(c->fr, fp);
  if(queued) {
    c->st.links_known++;  /* queued or outstanding: one more in-link */
    return CRAWL_OK;
  }
  unsigned char *rec = admit_rec(url, n, depth, level, sc, &len);
  if(!rec)
    return CRAWL_ERR_NOMEM;
  enum seen_answer ans;
  crawl_err e = seen_add(c->seen, fp, rec, len, &ans);
  mem_free(rec);
  if(e)
    return e;
  if(ans == SEEN_NEW)
    return admit_new(c, url, p, depth, level, sc);
  c->st.links_known += ans == SEEN_OLD;
  return CRAWL_OK;
}

crawl_err crawl_admit_one(struct crawl *c, const char *url, uint32_t depth, unsigned flags,
                          unsigned level, const struct frontier_score *sc)
{
  struct url_parts p;
  if(url_split(url, &p) != URL_OK) {
    c->st.links_invalid++;
    struct log_ctx ctx = { .url = url, .action = "discovering links" };
    LOGC(LOG_DEBUG, &ctx, "not crawled: malformed");
    return CRAWL_OK;
  }
  enum drop_reason r = admit_filter(c, &p, depth, flags);
  if(r) {
    admit_drop(c, url, r);
    return CRAWL_OK;
  }
  if(c->route.where) {  /* several processes: the seen test is the owner's */
    enum crawl_route_to to = c->route.where(c->route.arg, url, p.host, depth, level,
                                            flags & LINK_SITEMAP);
    c->st.links_routed += to == CRAWL_ROUTE_AWAY;
    c->st.links_known += to == CRAWL_ROUTE_KNOWN;
    if(to != CRAWL_ROUTE_HERE)
      return CRAWL_OK;
  }
  return admit_seen(c, url, &p, depth, level, sc);
}

/* seen_new_fn: a pending URL turned out new. */
void crawl_admit_on_new(void *arg, uint64_t fp, const void *rec, size_t len)
{
  struct crawl *c = arg;
  const unsigned char *r = rec;
  (void)fp;
  size_t mlen = len > ADMIT_REC_HEAD ? (size_t)le_get(r + 9, 2) : 0;
  if(len <= ADMIT_REC_HEAD + mlen || c->err)
    return;
  uint32_t depth = (uint32_t)le_get(r, 4), bits = (uint32_t)le_get(r + 5, 4);
  float score;
  memcpy(&score, &bits, sizeof score);
  struct frontier_score sc = { score, r + ADMIT_REC_HEAD, mlen };
  char *url = mem_strndup((const char *)r + ADMIT_REC_HEAD + mlen, len - ADMIT_REC_HEAD - mlen);
  struct url_parts p;
  crawl_err e = url ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e && url_split(url, &p) == URL_OK)
    e = admit_new(c, url, &p, depth, r[4], &sc);
  if(e)
    c->err = e;
  mem_free(url);
}

crawl_err crawl_admit_sitemap(struct crawl *c, const char *url)
{
  crawl_err e = fpset_add(&c->sitemaps, hash_fp64(url, strlen(url)), NULL);
  if(e == CRAWL_ERR_FULL)
    e = CRAWL_OK;  /* then read as a page: its <loc>s are not followed */
  /* A sitemap, wherever it was named, is one hop from the seeds and
   * near the front of the queue. */
  return e ? e : crawl_admit_one(c, url, 1, LINK_SITEMAP, FRONTIER_LEVELS - 2, NULL);
}

/* A URL found as written (a sitemap's <loc>, a directory above a page):
 * canonical first; one that is none is counted, not an error. */
static crawl_err admit_url(struct crawl *c, const struct found_url *u)
{
  char *canon = NULL;
  url_err ue = url_canon(u->url, strlen(u->url), &c->o.url, &canon);
  if(ue == URL_ERR_NOMEM)
    return CRAWL_ERR_NOMEM;
  if(ue) {
    c->st.links_invalid++;
    return CRAWL_OK;
  }
  crawl_err e = u->kind == FOUND_SITEMAP
                  ? crawl_admit_sitemap(c, canon)
                  : crawl_admit_one(c, canon, u->depth, u->flags, u->level, u->sc);
  mem_free(canon);
  return e;
}

crawl_err crawl_admit(struct crawl *c, const struct crawl_found *f)
{
  crawl_err e = CRAWL_OK;
  for(size_t i = 0; i < f->n && !e; i++) {
    const struct found_url *u = &f->v[i];
    if(u->kind == FOUND_DROP)
      admit_drop(c, u->url, (enum drop_reason)u->drop);
    else if(u->kind == FOUND_LINK)
      e = crawl_admit_one(c, u->url, u->depth, u->flags, u->level, u->sc);
    else
      e = admit_url(c, u);
  }
  if(e && !c->err)
    c->err = e;
  return e ? e : c->err;
}
