/* Reading one result: counters, content-seen test, the WARC record it
 * gets, and the URLs it gives (an original HTML page's links, a
 * sitemap's <loc>s, a feed's items, a redirect's target, the directories
 * above it), returned in pg->found for crawl_admit; then its records and
 * crawl log line (crawl_page_write). The same code reads a recorded page
 * again at resume (c->replaying), without the writes. */
#include "clients/crawl/crawl_int.h"

#include <string.h>
#include <strings.h>

#include "clients/web/feed.h"
#include "clients/web/html_text.h"
#include "clients/web/simhash.h"
#include "clients/web/sitemap.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/robots_tag.h"

void crawl_page_count(struct crawl *c, const char *outcome, int status, const char *cause)
{
  c->st.pages++;
  if(cause)
    tally_add(&c->st.causes, cause, 1);
  if(!crawl_outcome_http(outcome)) {
    if(outcome && !strcmp(outcome, "robots_disallowed"))
      c->st.robots++;
    else
      c->st.fetch_errors++;
    return;
  }
  if(status >= 200 && status < 300)
    c->st.ok++;
  else if(status >= 300 && status < 400)
    c->st.redirects++;
  else
    c->st.http_errors++;
}

/* Why a result has no page: the caller's word (the gateway's cause,
 * decoded), else the outcome itself. */
static const char *page_cause(const struct crawl_result *r)
{
  if(r->cause)
    return r->cause;
  return crawl_outcome_http(r->outcome) ? NULL : r->outcome ? r->outcome : "error";
}

static const char *page_header(const struct crawl_result *r, const char *name)
{
  for(size_t i = 0; i < r->nheaders; i++)
    if(r->headers[i].name && !strcasecmp(r->headers[i].name, name))
      return r->headers[i].value;
  return NULL;
}

/* HTML by its Content-Type; without one, by a first '<' (as browsers
 * sniff). */
static bool page_is_html(const struct crawl_result *r)
{
  const char *ct = page_header(r, "content-type");
  if(ct) {
    while(*ct == ' ' || *ct == '\t')
      ct++;
    return !strncasecmp(ct, "text/html", 9) || !strncasecmp(ct, "application/xhtml+xml", 21);
  }
  const unsigned char *b = r->body;
  size_t i = 0;
  if(r->body_len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF)
    i = 3;  /* UTF-8 byte order mark */
  while(i < r->body_len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
    i++;
  return i < r->body_len && b[i] == '<';
}

/* The WARC record the page gets (written with its log line). */
static void page_record(struct crawl_page *po)
{
  po->record = po->hit.verdict == DEDUP_EXACT ? CRAWL_OUT_REVISIT : CRAWL_OUT_RESPONSE;
}

crawl_err crawl_page_scored(struct crawl *c, const char *url, const char *outcome, int status,
                            const struct frontier_score *own, struct buf *log)
{
  struct crawl_scored sp = { url, outcome, status, own, NULL, 0, NULL, c->replaying,
                             NULL, NULL, log, false };
  return c->o.scorer->page(c->o.scorer->arg, &sp);
}

/* The scorer reads the page (its text) and judges each link (l: none for a
 * duplicate, whose links are not taken). */
static crawl_err page_score(struct crawl *c, const struct crawl_result *r, const struct buf *text,
                            const struct html_links *l, struct crawl_page *po)
{
  size_t n = l ? l->n : 0;
  po->scores = n ? mem_calloc(n, sizeof *po->scores) : NULL;
  po->follow = n ? mem_calloc(n, sizeof *po->follow) : NULL;
  if(n && (!po->scores || !po->follow))
    return CRAWL_ERR_NOMEM;
  for(size_t i = 0; i < n; i++)
    po->follow[i] = true;
  struct crawl_scored sp = { r->url, r->outcome, r->status, po->own, text->data, text->len,
                             l, c->replaying, po->scores, po->follow, &po->extra,
                             po->hit.verdict != DEDUP_NEW };
  po->scored = true;
  return c->o.scorer->page(c->o.scorer->arg, &sp);
}

/* An original page's links, or a near duplicate's that has links of its
 * own: scored (a focused crawl), then found. */
static crawl_err page_links(struct crawl *c, const struct crawl_result *r,
                            const struct html_links *l, uint32_t depth, struct crawl_page *po)
{
  crawl_err e = c->o.scorer ? page_score(c, r, &l->text, l, po) : CRAWL_OK;
  if(!e)
    e = crawl_links_page(c, l, r->url, depth, po->scores, po->follow, po->own, &po->found);
  return e;
}

/* A page the parser's bounds touched is never passed over in silence:
 * past the size bound, or past the links a page may give, its links are
 * not all read (counted html_cut, and a warning names the page); past the
 * nesting bound nothing is lost, the parser starts anew, and a note says
 * where. Not again at resume. */
static void page_parse_report(struct crawl *c, const struct crawl_result *r,
                              const struct html_scan *sc, const struct html_links *l)
{
  c->st.html_cut += sc->cut != HTML_CUT_NONE || l->over_cap > 0;
  if(c->replaying)
    return;
  struct log_ctx ctx = { .url = r->url, .action = "parsing a page" };
  if(sc->cut == HTML_CUT_SIZE)
    LOGC(LOG_WARN, &ctx, "page parsed in its first %zu of %zu bytes (the parser's size "
         "bound): links past them are not read", sc->parsed, r->body_len);
  if(l->over_cap)
    LOGC(LOG_WARN, &ctx, "page past the links a page may give (%zu distinct, %zu "
         "references): %zu not read", (size_t)c->o.max_links, (size_t)c->o.max_links * HTML_LINKS_REFS_PER_LINK,
         l->over_cap);
  if(sc->restarts)
    LOGC(LOG_INFO, &ctx, "page nested past the parser's bound: parsed in %u segments, "
         "every link read", sc->restarts + 1);
}

/* Parse an HTML body once: its links and its visible text (for SimHash
 * and the scorer). *parsed tells whether l holds them. */
static crawl_err page_parse(struct crawl *c, const struct crawl_result *r,
                            struct html_links *l, bool *parsed)
{
  *parsed = false;
  struct html_links_opts lo = { c->o.max_links, c->o.url, c->o.max_text, c->o.robots_agent };
  struct html_scan sc;
  struct html_opts ho = c->o.html;
  char cs[64];
  ho.charset = html_ct_charset(page_header(r, "content-type"), cs, sizeof cs);
  crawl_err e = html_links_extract(r->body, r->body_len, &ho, r->url, &lo, l, &sc);
  if(e)
    return e == CRAWL_ERR_INVALID ? CRAWL_OK : e;  /* not an http(s) page URL: no links */
  *parsed = true;
  c->st.parsed++;
  page_parse_report(c, r, &sc, l);
  return CRAWL_OK;
}

/* The sitemap's hints as the frontier reads them (frontier_hint_level). */
static unsigned sitemap_level(struct crawl *c, const struct sitemap_entry *se)
{
  static const enum frontier_freq freq[] = {
    [SITEMAP_FREQ_NONE] = FRONTIER_FREQ_NONE,       [SITEMAP_FREQ_always] = FRONTIER_FREQ_OFTEN,
    [SITEMAP_FREQ_hourly] = FRONTIER_FREQ_OFTEN,    [SITEMAP_FREQ_daily] = FRONTIER_FREQ_OFTEN,
    [SITEMAP_FREQ_weekly] = FRONTIER_FREQ_SOMETIMES, [SITEMAP_FREQ_monthly] = FRONTIER_FREQ_SOMETIMES,
    [SITEMAP_FREQ_yearly] = FRONTIER_FREQ_RARELY,   [SITEMAP_FREQ_never] = FRONTIER_FREQ_RARELY,
  };
  int64_t now = (int64_t)(clock_wall_ms() / 1000);
  struct frontier_hint h = { se->priority, se->lastmod < 0 ? -1 : now - se->lastmod,
                             freq[se->changefreq] };
  if(h.age_s < -1)
    h.age_s = 0;  /* a date in the future: changed as good as now */
  c->st.sitemap_hinted += se->priority >= 0 || se->lastmod >= 0 || se->changefreq;
  return frontier_hint_level(&h);
}

struct sitemap_ctx {
  struct crawl       *c;
  struct crawl_found *found;
  crawl_err           err;
};

/* A <loc>: a URL at depth 1 with the sitemap's hints, or (an index's) a
 * sitemap. */
static int sitemap_loc(void *arg, const struct sitemap_entry *se)
{
  struct sitemap_ctx *sx = arg;
  char *u = mem_strndup(se->loc, se->len);
  sx->c->st.sitemap_urls++;
  if(!u)
    sx->err = CRAWL_ERR_NOMEM;
  else if(se->index)
    sx->err = crawl_found_add(sx->found, &(struct found_url){ .url = u, .own = u,
                                                              .kind = FOUND_SITEMAP });
  else
    sx->err = crawl_found_add(sx->found, &(struct found_url){
      .url = u, .own = u, .kind = FOUND_URL, .depth = 1,
      .level = (unsigned char)sitemap_level(sx->c, se) });
  return sx->err != CRAWL_OK;
}

static void sitemap_report(struct crawl *c, const char *url, const struct sitemap_info *si)
{
  c->st.sitemaps_gzip += si->gzip;
  if(si->end == GUNZIP_WHOLE)
    return;
  c->st.sitemaps_cut++;
  struct log_ctx ctx = { .url = url, .action = "reading a sitemap" };
  if(si->end == GUNZIP_CAP)
    LOGC(LOG_WARN, &ctx, "sitemap cut after %zu bytes of XML (%s): the rest is not read",
         si->text, "--sitemap-max-bytes");
  else if(si->end != GUNZIP_WHOLE)
    LOGC(LOG_WARN, &ctx, "sitemap cut after %zu bytes of XML: %s", si->text,
         gunzip_end_text(si->end));
}

/* A sitemap: recorded, its URLs found; not a page (no content test). */
static crawl_err page_sitemap(struct crawl *c, const struct crawl_result *r, struct crawl_page *po)
{
  struct sitemap_opts so = { c->o.html, c->o.sitemap_max_text };
  struct sitemap_info si;
  struct sitemap_ctx sx = { c, &po->found, CRAWL_OK };
  page_record(po);
  c->st.sitemaps++;
  po->sitemap = true;
  crawl_err e = sitemap_read(r->body, r->body_len, &so, sitemap_loc, &sx, &si);
  if(!e)
    sitemap_report(c, r->url, &si);
  return e ? e : sx.err;
}

struct feed_ctx {
  struct crawl       *c;
  const char         *url;
  uint32_t            depth;
  struct crawl_found *found;
  crawl_err           err;
};

/* A feed's link, resolved against the feed's URL, is a link of the feed. */
static int feed_link(void *arg, const char *ref, size_t len)
{
  struct feed_ctx *f = arg;
  struct crawl *c = f->c;
  char *u = NULL;
  url_err ue = url_canon_ref(f->url, strlen(f->url), ref, len, &c->o.url, &u);
  c->st.feed_links++;
  c->st.links++;
  if(ue == URL_ERR_NOMEM)
    f->err = CRAWL_ERR_NOMEM;
  else if(ue)
    c->st.links_invalid++;
  else
    f->err = crawl_found_add(f->found, &(struct found_url){ .url = u, .own = u,
                                                            .depth = f->depth + 1, .level = 1 });
  if(ue)
    mem_free(u);
  return f->err != CRAWL_OK;
}

/* A feed (RSS, Atom): recorded, its items' links followed (unless the
 * header said nofollow); not a page (no content test). */
static crawl_err page_feed(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                           struct crawl_page *po)
{
  struct feed_ctx f = { c, r->url, depth, &po->found, CRAWL_OK };
  struct feed_info fi;
  page_record(po);
  c->st.feeds++;
  po->feed = true;
  if((po->robots & ROBOTS_TAG_NOFOLLOW) && c->o.obey_nofollow) {
    c->st.nofollow++;
    return CRAWL_OK;
  }
  crawl_err e = feed_read(r->body, r->body_len, 0, feed_link, &f, &fi);
  c->st.feeds_broken += !e && fi.broken;
  return e ? e : f.err;
}

/* A 2xx body: duplicate or original; links of an original HTML page. */
static crawl_err page_content(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                              struct crawl_page *po)
{
  struct html_links l = { 0 };
  bool parsed = false;
  size_t shingles = 0;
  uint64_t sim = 0, body_fp = hash_fp64(r->body, r->body_len);
  /* An exact duplicate's links are not taken: unless a scorer reads its
   * text, it is not parsed (the same bytes were, at the original's URL). */
  if(!c->o.scorer && dedup_exact(c->dd, body_fp, &po->hit)) {
    page_record(po);
    c->st.dup_exact++;
    return CRAWL_OK;
  }
  crawl_err e = page_is_html(r) ? page_parse(c, r, &l, &parsed) : CRAWL_OK;
  uint64_t links_fp = 0;
  if(parsed) {  /* the header's directives and the page's own, obeyed alike */
    l.robots |= r->robots_tags;
    po->robots |= l.robots;
  }
  if(!e && parsed) {
    sim = simhash_text(l.text.data, l.text.len, &shingles);
    for(size_t i = 0; i < l.n; i++)
      links_fp = dedup_links_add(links_fp, l.v[i].url);
  }
  if(!e)
    e = dedup_check(c->dd, r->url, body_fp, sim, shingles, links_fp, &po->rec, &po->hit);
  if(!e)
    page_record(po);
  c->st.dup_exact += !e && po->hit.verdict == DEDUP_EXACT;
  c->st.dup_near += !e && po->hit.verdict == DEDUP_NEAR;
  /* A near duplicate with links of its own (dedup.h) is recorded as one,
   * and its links are followed: the test must lose no page. */
  bool own = po->hit.verdict == DEDUP_NEAR && po->hit.own_links;
  c->st.dup_near_followed += !e && parsed && own;
  c->st.html += !e && parsed && po->hit.verdict == DEDUP_NEW;
  if(parsed)
    po->links = l;  /* the metadata record's outlinks, and what was found borrows them */
  if(!e && parsed && (po->hit.verdict == DEDUP_NEW || own))
    e = page_links(c, r, &po->links, depth, po);
  else if(!e && parsed && c->o.scorer)  /* a duplicate: read, its links not taken */
    e = page_score(c, r, &po->links.text, NULL, po);
  return e;
}

/* A sitemap that moved is a sitemap where it went. */
static crawl_err page_redirect(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                               bool sitemap, struct crawl_page *po)
{
  if(!r->redirect || !*r->redirect)
    return CRAWL_OK;
  url_err ue = url_canon_ref(r->url, strlen(r->url), r->redirect, strlen(r->redirect),
                             &c->o.url, &po->redirect);
  if(ue == URL_ERR_NOMEM)
    return CRAWL_ERR_NOMEM;
  if(ue) {
    c->st.links_invalid++;
    return CRAWL_OK;
  }
  c->st.links++;
  if(sitemap)
    return crawl_found_add(&po->found, &(struct found_url){ .url = po->redirect,
                                                           .kind = FOUND_SITEMAP });
  /* The same link, where it led: a focused crawl keeps its score. */
  return crawl_found_add(&po->found, &(struct found_url){ .url = po->redirect,
                                                         .depth = depth + 1, .level = 1,
                                                         .sc = po->own });
}

/* Heritrix's outlink context of a link: hop type (L link, E embed, R
 * redirect) and where it was. */
static const char *outlink_context(enum html_link_kind k)
{
  switch(k) {
  case HTML_LINK_AREA:    return "L area/@href";
  case HTML_LINK_FRAME:   return "E frame/@src";
  case HTML_LINK_IFRAME:  return "E iframe/@src";
  case HTML_LINK_ALTERNATE:
  case HTML_LINK_CANONICAL: return "L link/@href";
  case HTML_LINK_REFRESH: return "R meta/@content";
  default:                return "L a/@href";
  }
}

/* The page's outlinks as its metadata record lists them: every link of
 * the page, its rel=canonical, the target of a 3xx. */
static struct warc_outlink *page_outlinks(const struct crawl_page *po, size_t *n)
{
  const struct html_links *l = &po->links;
  *n = 0;
  struct warc_outlink *v = mem_alloc((l->n + 2) * sizeof *v);
  if(!v)
    return NULL;
  for(size_t i = 0; i < l->n; i++)
    v[(*n)++] = (struct warc_outlink){ l->v[i].url, outlink_context(l->v[i].kind) };
  if(l->canonical)
    v[(*n)++] = (struct warc_outlink){ l->canonical, "L link/@href" };
  if(po->redirect)
    v[(*n)++] = (struct warc_outlink){ po->redirect, "R Location" };
  return v;
}

/* The page's records: its response or revisit, with the metadata record
 * of its outlinks and fields. */
static crawl_err page_warc(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                           const struct crawl_page *po, const struct crawllog_entry *le)
{
  char fields[160], of_id[WARC_ID_LEN] = "";
  snprintf(fields, sizeof fields, "fetchTimeMs: %llu\r\noutcome: %s\r\ndepth: %u\r\n",
           (unsigned long long)r->elapsed_ms, le->outcome, depth);
  struct warc_meta meta = { NULL, 0, fields, po->robots };
  struct warc_outlink *outlinks = po->record ? page_outlinks(po, &meta.noutlinks) : NULL;
  if(po->record && !outlinks)
    return CRAWL_ERR_NOMEM;
  meta.outlinks = outlinks;
  struct warc_page wp = { r->url, r->fetched_at_ms, r->status, r->headers, r->nheaders,
                          r->body, r->body_len, r->truncated, po->id, &meta };
  const struct dedup_rec *of = po->hit.of_rec;
  static const unsigned char no_id[sizeof of->id];
  if(of && memcmp(of->id, no_id, sizeof no_id))
    warc_id_text(of->id, of_id);
  struct warc_refers refers = { po->hit.of, of ? of->date_ms : 0, of_id };
  crawl_err e = crawl_out_page(c, le, po->record, &wp,
                               po->record == CRAWL_OUT_REVISIT ? &refers : NULL);
  mem_free(outlinks);
  return e;
}

crawl_err crawl_page_write(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                           const struct crawl_page *po, uint64_t links)
{
  struct crawllog_entry le = { 0 };
  le.url = r->url;
  le.status = r->status;
  le.outcome = r->outcome ? r->outcome : "error";
  le.cause = page_cause(r);
  le.cause_status = r->cause_status;
  le.bytes = r->body_len;
  le.ms = r->elapsed_ms;
  le.time_ms = r->fetched_at_ms;
  le.depth = depth;
  le.links = links;
  if(po->hit.verdict != DEDUP_NEW) {
    le.duplicate_of = po->hit.of;
    le.dup = po->hit.verdict == DEDUP_EXACT ? "exact" : "near";
    le.distance = po->hit.distance;
  }
  le.redirect = po->redirect;
  le.sitemap = po->sitemap;
  le.feed = po->feed;
  le.robots = po->robots;
  le.extra = po->extra.data;
  return page_warc(c, r, depth, po, &le);
}

/* The id and date of the page's WARC record, chosen here so that the
 * content-seen index can keep them; a replayed page's are its record's. */
static void page_rec(struct crawl *c, const struct crawl_result *r, struct crawl_page *po)
{
  po->rec.date_ms = r->fetched_at_ms;
  if(c->replaying && c->replay_id)
    memcpy(po->rec.id, c->replay_id, sizeof po->rec.id);
  else if(!c->replaying)
    warc_id_new(&c->ids, po->rec.id);
  warc_id_text(po->rec.id, po->id);
}

crawl_err crawl_page_read(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                          const struct frontier_score *own, crawl_found_fn *flush,
                          struct crawl_page *po)
{
  memset(po, 0, sizeof *po);
  po->found.flush = flush;
  po->found.c = c;
  po->own = own;
  po->robots = r->robots_tags;
  buf_init(&po->extra, CRAWLLOG_EXTRA_MAX);
  page_rec(c, r, po);
  crawl_page_count(c, r->outcome, r->status, page_cause(r));
  c->st.body_bytes += r->body_len;
  c->st.seeds_fetched += depth == 0 && crawl_outcome_http(r->outcome) && r->status >= 200 &&
                         r->status < 400;
  bool http = crawl_outcome_http(r->outcome) && r->status > 0;
  bool ok = http && r->status >= 200 && r->status < 300;
  crawl_err e = CRAWL_OK;
  bool sitemap = fpset_has(&c->sitemaps, hash_fp64(r->url, strlen(r->url)));
  if(ok && sitemap)
    e = page_sitemap(c, r, po);
  else if(ok && feed_detect(page_header(r, "content-type"), r->body, r->body_len))
    e = page_feed(c, r, depth, po);
  else if(ok)
    e = page_content(c, r, depth, po);
  else if(http)
    page_record(po);
  if(!e && http && r->status >= 300 && r->status < 400)
    e = page_redirect(c, r, depth, sitemap, po);
  if(!e && http)
    e = crawl_links_ascend(c, r->url, depth, &po->found);
  if(!e && c->o.scorer && !po->scored)  /* no page to read: the scorer counts it */
    e = crawl_page_scored(c, r->url, r->outcome ? r->outcome : "error", r->status, own,
                          &po->extra);
  c->st.noindex += (po->robots & ROBOTS_TAG_NOINDEX) != 0;
  return e;
}

void crawl_page_free(struct crawl_page *po)
{
  crawl_found_free(&po->found);
  mem_free(po->redirect);
  mem_free(po->scores);
  mem_free(po->follow);
  buf_free(&po->extra);
  html_links_free(&po->links);
}
