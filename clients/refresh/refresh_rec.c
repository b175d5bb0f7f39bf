/* What a result means for its page, the WARC record and the change-log
 * line it leaves, and the log read back on --resume. */
#include <curl/curl.h>
#include <jansson.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clients/refresh/refresh_int.h"
#include "clients/web/html_robots.h"
#include "common/hash.h"
#include "common/mem.h"

#define EXTRA_MAX 512

static bool outcome_is(const struct gw_result *g, const char *o)
{
  return g->outcome && !strcmp(g->outcome, o);
}

uint64_t rf_last_modified(const struct gw_result *g)
{
  for(size_t i = 0; i < g->nheaders; i++)
    if(g->headers[i].name && g->headers[i].value &&
       !strcasecmp(g->headers[i].name, "Last-Modified")) {
      time_t t = curl_getdate(g->headers[i].value, NULL);
      return t > 0 ? (uint64_t)t * 1000 : 0;
    }
  return 0;
}

void rf_judge(const struct rf_page *p, const struct gw_result *g, uint64_t now_ms,
              struct rf_judged *j)
{
  memset(j, 0, sizeof *j);
  j->at_ms = now_ms;
  j->seen = RF_SEEN_FAILED;
  j->not_modified = outcome_is(g, "not_modified");
  bool body = outcome_is(g, "ok") || outcome_is(g, "cached") || j->not_modified;
  bool good = j->not_modified || (g->status >= 200 && g->status < 300);
  if(body && good && !g->page) {
    j->at_ms = g->fetched_at ? g->fetched_at : now_ms;
    j->news = j->at_ms > p->last_ms;
    j->digest = hash_fp64(g->body ? (const char *)g->body : "", g->body_len);
    j->digest += !j->digest;
    j->lm_ms = rf_last_modified(g);
    if(j->not_modified && p->digest)
      j->digest = p->digest;  /* the copy the site confirmed, whatever came with the answer */
    if(!p->digest)
      j->seen = RF_SEEN_FIRST;
    else
      j->seen = !j->not_modified && j->digest != p->digest ? RF_SEEN_CHANGED : RF_SEEN_UNCHANGED;
  } else if(body && (g->status == 404 || g->status == 410)) {
    j->seen = RF_SEEN_GONE;
  } else if(body && g->status >= 300 && g->status < 400 && g->redirect) {
    j->seen = RF_SEEN_MOVED;
  }
}

/* robots: the page-level directives; with any, a metadata record says
 * them (a refresh crawl has no outlinks to list). */
static crawl_err rec_warc(struct refresh_out *out, const struct rf_page *p,
                          const struct gw_result *g, const struct rf_judged *j, uint64_t prev_ms,
                          unsigned robots, struct warc_loc *loc)
{
  struct warc_meta meta = { NULL, 0, NULL, robots };
  struct warc_page wp = { p->url, j->at_ms, g->status, g->headers, g->nheaders, g->body,
                          g->body_len, g->truncated, NULL, robots ? &meta : NULL };
  if(j->seen == RF_SEEN_FIRST || j->seen == RF_SEEN_CHANGED)
    return warc_write_response(out->warc, &wp, loc, NULL);
  if(j->not_modified) {
    wp.status = 304;
    return warc_write_not_modified(out->warc, &wp, prev_ms, loc);
  }
  /* The same body as the copy seen at prev_ms (its record id is not kept
   * across visits: WARC-Refers-To is left out). */
  struct warc_refers orig = { p->url, prev_ms, NULL };
  return warc_write_revisit(out->warc, &wp, &orig, loc, NULL);
}

/* The trace of a visit: the copy's Last-Modified, how long since the copy
 * before (the achieved interval), the uncertainty of the rate, the chance
 * that the page never changes (the two-part prior) and whether
 * the page is being explored (docs/refresh.md, "Where the freshness
 * goes"). */
static void rec_trace(char *out, size_t len, const struct rf_page *p, uint64_t lm_ms,
                      uint64_t at_ms, uint64_t prev_ms)
{
  char iv[32] = "null";
  if(prev_ms && at_ms > prev_ms)
    snprintf(iv, sizeof iv, "%.1f", (double)(at_ms - prev_ms) / 1000);
  snprintf(out, len, ",\"lm\":%llu,\"interval_s\":%s,\"sd\":%.3g,\"static\":%.3g,"
           "\"explore\":%s", (unsigned long long)lm_ms, iv, p->sd, p->p_static,
           p->explore ? "true" : "false");
}

static crawl_err rec_line(struct refresh_out *out, const struct rf_page *p,
                          const struct crawllog_entry *base, enum rf_seen seen, uint64_t at_ms,
                          uint64_t digest, uint64_t now_ms, const char *trace)
{
  char extra[EXTRA_MAX], next[21];
  struct crawllog_entry e = *base;
  double next_s = p->retired ? -1 : ((double)p->due_ms - (double)now_ms) / 1000;
  warc_date(p->retired ? 0 : p->due_ms, next);
  snprintf(extra, sizeof extra, ",\"seen\":\"%s\",\"changed\":%s,\"time_ms\":%llu,"
           "\"fp\":\"%016llx\",\"rate\":%.6g,\"visits_per_s\":%.6g,\"next\":\"%s\","
           "\"next_s\":%.1f,\"retired\":%s%s", rf_seen_name(seen),
           seen == RF_SEEN_CHANGED ? "true" : seen == RF_SEEN_UNCHANGED ? "false" : "null",
           (unsigned long long)at_ms, (unsigned long long)digest, p->lambda, p->f,
           p->retired ? "" : next, next_s, p->retired ? "true" : "false", trace);
  e.url = p->url;
  e.time_ms = at_ms;
  e.extra = extra;
  return crawllog_write(out->log, &e);
}

static bool rec_html(const struct gw_result *g)
{
  for(size_t i = 0; i < g->nheaders; i++)
    if(!strcasecmp(g->headers[i].name, "content-type"))
      return !strncasecmp(g->headers[i].value, "text/html", 9) ||
             !strncasecmp(g->headers[i].value, "application/xhtml+xml", 21);
  return false;
}

/* The page-level directives (X-Robots-Tag, read by the gateway, and meta
 * robots): a refresh crawl follows no links, so they only mark its line. */
static unsigned rec_robots(const struct refresh_out *out, const struct gw_result *g,
                           uint64_t now_ms)
{
  unsigned bits = gwproto_robots(g, now_ms);
  if(g->body_len && g->status >= 200 && g->status < 300 && rec_html(g))
    bits |= html_robots_page((const char *)g->body, g->body_len, NULL, out->robots_agent);
  return bits;
}

crawl_err rf_record(struct refresh_out *out, const struct rf_page *p, const struct gw_result *g,
                    const struct rf_judged *j, uint64_t prev_ms, uint64_t now_ms)
{
  struct warc_loc loc;
  bool archive = j->news && (j->seen == RF_SEEN_FIRST || j->seen == RF_SEEN_CHANGED ||
                             j->seen == RF_SEEN_UNCHANGED);
  unsigned robots = rec_robots(out, g, now_ms);
  crawl_err e = archive ? rec_warc(out, p, g, j, prev_ms, robots, &loc) : CRAWL_OK;
  if(e)
    return e;
  char why[GWPROTO_CAUSE_MAX];
  const char *cause = gwproto_cause(g, why, sizeof why);
  struct crawllog_entry base = {
    .status = g->status, .outcome = g->outcome, .bytes = g->body_len, .ms = g->response_ms,
    .cause = cause, .cause_status = cause ? g->cause_status : 0,
    .warc = archive ? loc.file : NULL, .warc_offset = archive ? loc.offset : 0,
    .warc_length = archive ? loc.length : 0, .redirect = g->redirect, .reason = g->detail,
    .robots = robots,
  };
  char trace[160];
  rec_trace(trace, sizeof trace, p, j->lm_ms, j->at_ms, prev_ms);
  return rec_line(out, p, &base, j->seen, j->at_ms, j->digest, now_ms, trace);
}

crawl_err rf_record_refused(struct refresh_out *out, const struct rf_page *p,
                            const char *reason, uint64_t now_ms)
{
  struct crawllog_entry base = { .outcome = "rejected", .reason = reason,
                                 .cause = tally_word(reason) ? reason : "rejected" };
  return rec_line(out, p, &base, RF_SEEN_FAILED, now_ms, 0, now_ms, "");
}

/* ---- Replay ------------------------------------------------------------------ */

struct replay {
  struct rf_pages *ps;
  uint64_t         lines;
};

/* A snapshot line of a compacted log: the page's whole state. */
static crawl_err replay_state(struct replay *r, const struct crawllog_rec *rec, json_t *st)
{
  bool added;
  struct rf_page *p = rf_pages_find(r->ps, rec->url);
  json_t *w = json_object_get(st, "weight");
  double weight = json_is_number(w) && json_number_value(w) > 0 &&
                  json_number_value(w) <= 1e9 ? json_number_value(w) : 1;
  crawl_err e = p ? CRAWL_OK : rf_pages_add(r->ps, rec->url, weight, 0, &added);
  if(!e && !p)
    p = rf_pages_find(r->ps, rec->url);
  e = e ? e : p ? refresh_restore(r->ps, p, st) : CRAWL_ERR_CORRUPT;
  r->lines++;
  return e;
}

static crawl_err replay_line(void *arg, const struct crawllog_rec *rec)
{
  struct replay *r = arg;
  json_t *o = json_loadb(rec->line, rec->line_len, 0, NULL);
  json_t *st = json_object_get(o, "state");
  if(st) {
    crawl_err se = replay_state(r, rec, st);
    json_decref(o);
    return se;
  }
  enum rf_seen seen;
  json_t *t = json_object_get(o, "time_ms");
  const char *fp = json_string_value(json_object_get(o, "fp"));
  crawl_err e = CRAWL_OK;
  if(!o || !rf_seen_parse(json_string_value(json_object_get(o, "seen")), &seen) ||
     !json_is_integer(t) || !fp) {
    json_decref(o);
    return CRAWL_ERR_CORRUPT;
  }
  uint64_t at = (uint64_t)json_integer_value(t), digest = strtoull(fp, NULL, 16);
  json_t *lm = json_object_get(o, "lm");
  uint64_t lm_ms = json_is_integer(lm) && json_integer_value(lm) > 0
                   ? (uint64_t)json_integer_value(lm) : 0;
  bool added;
  struct rf_page *p = rf_pages_find(r->ps, rec->url);
  if(!p && !(e = rf_pages_add(r->ps, rec->url, 1, at, &added)))
    p = rf_pages_find(r->ps, rec->url);
  if(p && rec->outcome && !strcmp(rec->outcome, "rejected")) {
    rf_page_retire(r->ps, p);
  } else if(p) {
    rf_page_observe_lm(r->ps, p, seen, at, digest, lm_ms);
    if(seen == RF_SEEN_MOVED && rec->redirect && !rf_pages_find(r->ps, rec->redirect) &&
       rf_pages_keep_target(r->ps, rec->redirect))
      e = rf_pages_add(r->ps, rec->redirect, p->weight, at, &added);
  }
  json_decref(o);
  r->lines++;
  return e;
}

crawl_err refresh_replay(struct rf_pages *ps, const char *path, uint64_t *lines)
{
  struct replay r = { ps, 0 };
  crawl_err e = crawllog_scan(path, 0, replay_line, &r);
  *lines = r.lines;
  return e;
}
