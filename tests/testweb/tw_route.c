#include "tests/testweb/tw_route.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"
#include "tests/testweb/tw_page.h"

/* Last-Modified of version 0 of every page: 2024-01-01T00:00:00Z; each new
 * version is one day later. */
#define ROUTE_LM_BASE 1704067200
#define ROUTE_LOC_MAX 8192

const char *tw_route_reason(int status)
{
  static const struct { int code; const char *txt; } tab[] = {
    { 100, "Continue" }, { 200, "OK" }, { 201, "Created" }, { 204, "No Content" },
    { 206, "Partial Content" }, { 301, "Moved Permanently" }, { 302, "Found" },
    { 303, "See Other" }, { 304, "Not Modified" }, { 307, "Temporary Redirect" },
    { 308, "Permanent Redirect" }, { 400, "Bad Request" }, { 401, "Unauthorized" },
    { 403, "Forbidden" }, { 404, "Not Found" }, { 405, "Method Not Allowed" },
    { 410, "Gone" }, { 413, "Content Too Large" }, { 421, "Misdirected Request" },
    { 429, "Too Many Requests" }, { 431, "Request Header Fields Too Large" },
    { 500, "Internal Server Error" }, { 501, "Not Implemented" }, { 502, "Bad Gateway" },
    { 503, "Service Unavailable" }, { 504, "Gateway Timeout" },
  };
  for(size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if(tab[i].code == status)
      return tab[i].txt;
  return "Status";
}

void tw_route_text(struct tw_route *r, int status, const char *fmt, ...)
{
  va_list ap;
  r->status = status;
  r->ctype = "text/plain; charset=utf-8";
  r->pl->nseg = 0;
  buf_reset(&r->pl->body);
  va_start(ap, fmt);
  buf_vaddf(&r->pl->body, fmt, ap);
  va_end(ap);
  tw_plan_seg(r->pl, r->pl->body.data, r->pl->body.len, 1);
}

void tw_route_validators(struct tw_route *r, const char *key, uint64_t version)
{
  uint64_t h = key ? hash_fp64(key, strlen(key)) : hash_fp64(r->pl->body.data, r->pl->body.len);
  h ^= version * 0x9e3779b97f4a7c15ull;
  snprintf(r->etag, sizeof r->etag, "\"%016llx\"", (unsigned long long)h);
  r->last_modified = ROUTE_LM_BASE + (int64_t)version * 86400;
  r->validators = true;
}

void tw_route_redirect(struct tw_route *r, int code, const char *target, const char *q)
{
  buf_reset(&r->location);
  buf_adds(&r->location, target);
  if(q && *q)
    buf_addf(&r->location, "?%s", q);
  tw_route_text(r, code, "redirect to %s\n", r->location.data ? r->location.data : "");
}

static void route_http_date(int64_t t, char *out, size_t len)
{
  struct tm tm;
  time_t tt = (time_t)t;
  gmtime_r(&tt, &tm);
  strftime(out, len, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static int64_t route_parse_date(struct tw_str s)
{
  char tmp[64];
  struct tm tm;
  if(!s.p || s.n >= sizeof tmp)
    return -1;
  memcpy(tmp, s.p, s.n);
  tmp[s.n] = '\0';
  memset(&tm, 0, sizeof tm);
  const char *end = strptime(tmp, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return end && !*end ? (int64_t)timegm(&tm) : -1;
}

/* If-None-Match: a list of entity tags, weak ones compared weakly. */
static bool route_inm_match(struct tw_str inm, const char *etag)
{
  size_t el = strlen(etag);
  const char *p = inm.p, *end = inm.p + inm.n;
  while(p < end) {
    while(p < end && (*p == ' ' || *p == ','))
      p++;
    if(p < end && *p == '*')
      return true;
    if(end - p > 2 && p[0] == 'W' && p[1] == '/')
      p += 2;
    if((size_t)(end - p) >= el && !memcmp(p, etag, el))
      return true;
    while(p < end && *p != ',')
      p++;
  }
  return false;
}

static bool route_not_modified(const struct tw_route *r)
{
  if(!r->validators)
    return false;
  if(r->req->inm.p)
    return r->etag[0] && route_inm_match(r->req->inm, r->etag);
  int64_t ims = route_parse_date(r->req->ims);
  return r->last_modified && ims >= 0 && r->last_modified <= ims;
}

/* Split the target into path and query inside the plan's own copy; the
 * raw query is kept for redirects that carry it along. */
static void route_target(struct tw_route *r)
{
  struct tw_str t = r->req->target;
  char *copy = mem_alloc(2 * t.n + 2);
  if(!copy)
    return;
  r->pl->target = copy;
  memcpy(copy, t.p, t.n);
  copy[t.n] = '\0';
  if(!strncmp(copy, "http://", 7) || !strncmp(copy, "https://", 8)) {
    char *slash = strchr(strstr(copy, "://") + 3, '/');
    if(slash) {
      copy = slash;  /* absolute-form: keep the path */
    } else {
      copy[0] = '/';
      copy[1] = '\0';
    }
  }
  char *hash = strchr(copy, '#');
  if(hash)
    *hash = '\0';
  char *q = strchr(copy, '?');
  if(q) {
    *q++ = '\0';
    char *raw = r->pl->target + t.n + 1;
    memcpy(raw, q, strlen(q) + 1);
    r->rawq = raw;
    r->query = q;
  }
  r->path = copy;
  r->plen = tw_pct_decode(copy, strlen(copy));
}

/* /_b/<kind>/<variant>?<params> */
static void route_b(struct tw_route *r)
{
  const char *k = r->path + 4, *slash = strchr(k, '/');
  size_t kn = slash ? (size_t)(slash - k) : strlen(k);
  r->kind = tw_kind_parse(k, kn);
  r->variant = slash ? slash + 1 : "";
  char err[200];
  if(r->kind == TW_K__COUNT) {
    tw_route_text(r, 404, "testweb: no behaviour \"%.*s\" (see docs/testweb.md)\n",
                  (int)(kn > 64 ? 64 : kn), k);
    return;
  }
  if(r->kind != TW_K_DUP && r->query && tw_beh_query(&r->qbeh, r->query, err, sizeof err)) {
    r->kind = TW_K__COUNT;
    tw_route_text(r, 400, "testweb: %s\n", err);
  }
}

static void route_pick(struct tw_route *r)
{
  const struct tw_path *cp;
  r->variant = "";
  if(!strcmp(r->path, "/robots.txt")) {
    r->kind = TW_K_ROBOTS;
    r->variant = "0";
  } else if(!strncmp(r->path, "/_b/", 4)) {
    route_b(r);
  } else if((cp = tw_site_path(r->s, r->path, r->plen))) {
    r->kind = cp->kind;
    tw_beh_merge(&r->beh, &cp->beh);
    r->variant = TW_BEH_OR(&r->beh, variant, "");
  } else if(!strcmp(r->path, "/sitemap.xml") && r->s->pages > 0) {
    r->kind = TW_K_SITEMAP;
  } else if((r->page = tw_page_number(r->s, r->path, r->plen)) >= 0) {
    r->kind = TW_K_PAGE;
  } else {
    tw_route_text(r, 404, "testweb: %s has no page %s\n", tw_site_host(r->s), r->path);
  }
  if(r->kind == TW_K_ROBOTS)
    tw_beh_merge(&r->beh, &r->s->robots.beh);
  tw_beh_merge(&r->beh, &r->qbeh);
}

static void route_date(struct tw_route_env *env)
{
  int64_t now = (int64_t)time(NULL);
  if(now != env->date_s) {
    env->date_s = now;
    route_http_date(now, env->date, sizeof env->date);
  }
}

static void route_framing(struct tw_route *r, bool no_body)
{
  const struct tw_beh *b = &r->beh;
  uint64_t len = tw_plan_body_len(r->pl);
  r->framing = TW_FR_LENGTH;
  if(TW_BEH_OR(b, chunked, r->kind == TW_K_ENDLESS))
    r->framing = TW_FR_CHUNKED;
  if(TW_BEH_OR(b, no_length, 0) || (len == TW_FOREVER && r->framing != TW_FR_CHUNKED))
    r->framing = TW_FR_CLOSE;
  if(r->framing == TW_FR_CHUNKED && r->req->minor == 0)
    r->framing = TW_FR_CLOSE;  /* HTTP/1.0 has no chunked coding */
  if(no_body && r->framing == TW_FR_CHUNKED)
    r->framing = TW_FR_LENGTH;
}

/* The header parameter's lines, each ended by CRLF: a newline in the
 * value starts another (a header sent twice, as X-Robots-Tag may be). */
static void route_extra_headers(struct buf *h, const char *v)
{
  while(*v) {
    size_t n = strcspn(v, "\n");
    if(n)
      buf_addf(h, "%.*s\r\n", (int)n, v);
    v += n + (v[n] == '\n');
  }
}

static void route_head_fields(struct tw_route *r, struct buf *h, bool no_body)
{
  char date[40];
  if(r->framing == TW_FR_LENGTH && r->status != 304 && r->status != 204 && r->status >= 200)
    buf_addf(h, "Content-Length: %llu\r\n", (unsigned long long)tw_plan_body_len(r->pl));
  if(r->framing == TW_FR_CHUNKED && !no_body)
    buf_adds(h, "Transfer-Encoding: chunked\r\n");
  if(r->encoding)
    buf_addf(h, "Content-Encoding: %s\r\n", r->encoding);
  if(r->location.len)
    buf_addf(h, "Location: %s\r\n", r->location.data);
  if(r->validators) {
    route_http_date(r->last_modified, date, sizeof date);
    if(TW_BEH_OR(&r->beh, etag, 1))
      buf_addf(h, "ETag: %s\r\n", r->etag);
    if(TW_BEH_OR(&r->beh, last_modified, 1))
      buf_addf(h, "Last-Modified: %s\r\n", date);
  }
  if(TW_BEH_HAS(&r->beh, retry_after))
    buf_addf(h, "Retry-After: %ld\r\n", r->beh.retry_after);
  if(TW_BEH_HAS(&r->beh, header))
    route_extra_headers(h, r->beh.header);
}

static void route_head(struct tw_route *r, bool no_body)
{
  struct buf *h = &r->pl->head;
  route_date(r->env);
  buf_addf(h, "HTTP/1.1 %d %s\r\nDate: %s\r\nServer: testweb\r\n", r->status,
           tw_route_reason(r->status), r->env->date);
  if(r->status != 304 && r->status != 204)
    buf_addf(h, "Content-Type: %s\r\n", TW_BEH_OR(&r->beh, ctype, r->ctype));
  route_head_fields(r, h, no_body);
  if(r->pl->close)
    buf_adds(h, "Connection: close\r\n");
  buf_adds(h, "\r\n");
}

/* Timing and ending, for every kind (malformed ones included). */
static void route_timing(struct tw_route *r)
{
  const struct tw_beh *b = &r->beh;
  struct tw_plan *pl = r->pl;
  pl->hold_ms = (uint64_t)TW_BEH_OR(b, hold_ms, 0);
  pl->drip_bytes = (uint64_t)TW_BEH_OR(b, drip_bytes, 0);
  pl->drip_ms = (uint64_t)TW_BEH_OR(b, drip_ms, pl->drip_bytes ? 100 : 0);
  if(TW_BEH_HAS(b, reset_after)) {
    pl->cut = TW_CUT_RESET;
    pl->cut_after = (uint64_t)b->reset_after;
  } else if(TW_BEH_HAS(b, close_after)) {
    pl->cut = TW_CUT_CLOSE;
    pl->cut_after = (uint64_t)b->close_after;
  }
  if(!r->req->keep_alive || pl->cut != TW_CUT_NONE || r->raw)
    pl->close = true;
}

static void route_finish(struct tw_route *r)
{
  struct tw_plan *pl = r->pl;
  bool head_only = r->req->method == TW_M_HEAD;
  if(TW_BEH_HAS(&r->beh, status) && r->kind != TW_K__COUNT && !r->raw)
    r->status = (int)r->beh.status;
  if(route_not_modified(r) && r->status == 200) {
    r->status = 304;
    pl->nseg = 0;
  }
  bool no_body = head_only || r->status == 304 || r->status == 204 || r->status < 200;
  route_timing(r);
  pl->status = r->status;
  if(r->raw || pl->hang)
    return;
  route_framing(r, no_body);
  pl->chunked = r->framing == TW_FR_CHUNKED && !no_body;
  if(r->framing == TW_FR_CLOSE && !no_body)
    pl->close = true;
  route_head(r, no_body);
  if(no_body)
    pl->nseg = 0;
}

void tw_route(struct tw_route_env *env, struct tw_site *s, const struct tw_req *req,
              struct tw_plan *pl)
{
  struct tw_route r;
  memset(&r, 0, sizeof r);
  r.env = env;
  r.s = s;
  r.req = req;
  r.pl = pl;
  r.status = 200;
  r.ctype = "text/html; charset=utf-8";
  r.kind = TW_K__COUNT;
  buf_init(&r.location, ROUTE_LOC_MAX);
  route_target(&r);
  if(!r.path)
    tw_route_text(&r, 500, "testweb: out of memory\n");
  else if(!s)
    tw_route_text(&r, 404, "testweb: no site answers for this host\n");
  else {
    r.beh = s->beh;
    route_pick(&r);
  }
  if(r.kind != TW_K__COUNT)
    tw_kind_run(&r);
  route_finish(&r);
  if(log_level <= LOG_DEBUG)
    LOG(LOG_DEBUG, "%s %.200s: %s, status %d", s ? tw_site_host(s) : "(no site)",
        r.path ? r.path : "", r.kind < TW_K__COUNT ? tw_kind_name(r.kind) : "error", pl->status);
  buf_free(&r.location);
}
