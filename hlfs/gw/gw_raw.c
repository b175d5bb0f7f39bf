/* The page itself, for people and scripts (POST /v1/fetch, GET /v1/pages):
 * instead of a JSON Result with the body in base64, the page's bytes with
 * its own Content-Type, and what the JSON would say in X-Wpfs-* headers.
 * Asked for with format=raw, or by an Accept header that prefers another
 * type to application/json (a browser's, curl -H 'Accept: text/html');
 * curl's default "*" "/" "*" and the generated clients keep JSON.
 * A result without a page (a fetch error, a robots.txt refusal) is a 502
 * no-page problem carrying the result's outcome, id, detail and cause.
 * The bytes are a site's, served from the gateway's origin: a browser must
 * neither run them with the API's origin (an HTML page's scripts would
 * reach the API with the reader's Basic credentials) nor sniff another
 * type than the site said. Content-Security-Policy: sandbox makes the
 * answer a unique opaque origin with scripts, forms and plugins off;
 * nosniff keeps the page's own Content-Type the type. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"
#include "hlfs/gw/gw.h"

#define RAW_ACCEPT_MAX 2048  /* bytes of Accept looked at */

/* The q of one media range ("text/html;q=0.5"), 1 when absent. */
static double accept_q(const char *p, size_t n)
{
  for(const char *s = p; (s = memchr(s, ';', (size_t)(p + n - s))) != NULL; s++) {
    const char *v = s + 1;
    while(v < p + n && *v == ' ')
      v++;
    if(p + n - v > 2 && (v[0] == 'q' || v[0] == 'Q') && v[1] == '=')
      return strtod(v + 2, NULL);
  }
  return 1.0;
}

static bool accept_is_json(const char *t, size_t n)
{
  static const char *const json[] = { "application/json", "application/*", "*/*",
                                       "application/problem+json" };
  for(size_t i = 0; i < sizeof json / sizeof json[0]; i++)
    if(n == strlen(json[i]) && !strncasecmp(t, json[i], n))
      return true;
  return false;
}

/* The best q of JSON's ranges, of the range equal to type (when type is
 * not NULL) and of any other range. */
struct accept_qs {
  double json, type, other;
};

static struct accept_qs accept_scan(const char *h, const char *type)
{
  struct accept_qs r = { 0, 0, 0 };
  size_t len = strnlen(h, RAW_ACCEPT_MAX);
  for(const char *p = h, *end = h + len; p < end;) {
    const char *c = memchr(p, ',', (size_t)(end - p));
    size_t n = c ? (size_t)(c - p) : (size_t)(end - p);
    while(n && *p == ' ')
      p++, n--;
    size_t tl = strcspn(p, ";,");
    tl = tl > n ? n : tl;
    while(tl && p[tl - 1] == ' ')
      tl--;
    double q = accept_q(p, n), *best = &r.other;
    if(tl && accept_is_json(p, tl))
      best = &r.json;
    else if(tl && type && tl == strlen(type) && !strncasecmp(p, type, tl))
      best = &r.type;
    if(tl && q > *best)
      *best = q;
    p += n + 1;
  }
  return r;
}

/* Does some listed type other than JSON's outrank application/json? */
static bool accept_prefers_raw(const char *h)
{
  struct accept_qs q = accept_scan(h, NULL);
  return q.other > 0 && q.other > q.json;
}

bool gw_accepts(const char *accept, const char *type)
{
  if(!accept)
    return false;
  struct accept_qs q = accept_scan(accept, type);
  return q.type > 0 && q.type >= q.json;
}

int gw_wants_raw(struct api_req *rq, bool *raw)
{
  const char *f = api_req_arg(rq, "format");
  if(f && strcmp(f, "raw") && strcmp(f, "json")) {
    json_t *ext = json_pack("{s:s, s:s}", "field", "format", "reason", "raw or json");
    api_problem(rq, 400, "invalid-parameter", "Invalid parameter", ext,
                "format must be raw or json");
    return -1;
  }
  const char *acc = api_req_header(rq, "Accept");
  *raw = f ? !strcmp(f, "raw") : acc && accept_prefers_raw(acc);
  return 0;
}

/* The last Content-Type of the stored header list, into out. */
static void raw_ctype(const char *headers_json, char *out, size_t cap)
{
  json_t *h = headers_json ? json_loads(headers_json, 0, NULL) : NULL;
  size_t i;
  json_t *pair;
  snprintf(out, cap, "application/octet-stream");
  json_array_foreach(h, i, pair) {
    const char *k = json_string_value(json_array_get(pair, 0));
    const char *v = json_string_value(json_array_get(pair, 1));
    if(k && v && !strcasecmp(k, "Content-Type") && *v && !strpbrk(v, "\r\n"))
      snprintf(out, cap, "%s", v);
  }
  json_decref(h);
}

static void raw_header_u64(struct api_req *rq, const char *name, uint64_t v)
{
  char s[24];
  snprintf(s, sizeof s, "%llu", (unsigned long long)v);
  api_reply_header(rq, name, s);
}

void gw_raw_page(struct api_req *rq, const struct page *p, const char *id, const char *outcome,
                 uint64_t now_ms)
{
  char ctype[256];
  raw_ctype(p->headers_json, ctype, sizeof ctype);
  if(id)
    api_reply_header(rq, "X-Wpfs-Id", id);
  api_reply_header(rq, "X-Wpfs-Url", p->url ? p->url : "");
  api_reply_header(rq, "X-Wpfs-Outcome", outcome ? outcome : p->outcome ? p->outcome : "ok");
  raw_header_u64(rq, "X-Wpfs-Status", (uint64_t)(p->status > 0 ? p->status : 0));
  raw_header_u64(rq, "X-Wpfs-Age", page_age_s(p, now_ms));
  raw_header_u64(rq, "X-Wpfs-Fetched-At", p->fetched_at);
  if(p->truncated)
    api_reply_header(rq, "X-Wpfs-Truncated", "true");
  if(p->redirect && !strpbrk(p->redirect, "\r\n"))
    api_reply_header(rq, "X-Wpfs-Redirect", p->redirect);
  api_reply_header(rq, "Content-Security-Policy", "sandbox");
  api_reply_header(rq, "X-Content-Type-Options", "nosniff");
  char *body = mem_alloc(p->body_len ? p->body_len : 1);
  if(!body) {
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  memcpy(body, p->body ? p->body : "", p->body_len);
  api_reply(rq, 200, ctype, body, p->body_len);
}

static void gw_raw_none(struct api_req *rq, json_t *res)
{
  /* The site's status as site_status: "status" is the problem's own. */
  static const char *const keep[] = { "id", "url", "outcome", "detail", "cause",
                                      "cause_status", "robots_retry_at", "page", NULL };
  const char *o = json_string_value(json_object_get(res, "outcome"));
  const char *id = json_string_value(json_object_get(res, "id"));
  json_t *ext = json_object();
  for(size_t i = 0; ext && keep[i]; i++) {
    json_t *v = json_object_get(res, keep[i]);
    if(v)
      json_object_set(ext, keep[i], v);
  }
  json_t *st = json_object_get(res, "status");
  if(ext && st)
    json_object_set(ext, "site_status", st);
  if(id)
    api_reply_header(rq, "X-Wpfs-Id", id);
  api_reply_header(rq, "X-Wpfs-Outcome", o ? o : "");
  api_problem(rq, 502, "no-page", "No page", ext, "the result has no page: %s", o ? o : "?");
}

/* A rendered Result (gw_result_render) answered raw: its page decoded
 * back from base64 (a person's request: the cost does not matter), or the
 * no-page problem. */
void gw_raw_result(struct api_req *rq, json_t *res, uint64_t now_ms)
{
  json_t *b64 = json_object_get(res, "body_base64");
  if(!b64) {
    gw_raw_none(rq, res);
    return;
  }
  size_t n = json_string_length(b64);
  unsigned char *body = mem_alloc(n / 4 * 3 + 3);
  char *hdrs = json_dumps(json_object_get(res, "headers"), JSON_COMPACT);
  int len = body ? EVP_DecodeBlock(body, (const unsigned char *)json_string_value(b64), (int)n) : -1;
  if(len < 0) {
    mem_free(body);
    free(hdrs);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  len -= n >= 1 && json_string_value(b64)[n - 1] == '=';  /* EVP counts padding as bytes */
  len -= n >= 2 && json_string_value(b64)[n - 2] == '=';
  struct page p = {
    .url = json_string_value(json_object_get(res, "url")),
    .status = (long)json_integer_value(json_object_get(res, "status")),
    .fetched_at = (uint64_t)json_integer_value(json_object_get(res, "fetched_at")),
    .headers_json = hdrs, .redirect = json_string_value(json_object_get(res, "redirect")),
    .truncated = json_is_true(json_object_get(res, "truncated")),
    .body = (const char *)body, .body_len = (size_t)len,
  };
  gw_raw_page(rq, &p, json_string_value(json_object_get(res, "id")),
              json_string_value(json_object_get(res, "outcome")), now_ms);
  mem_free(body);
  free(hdrs);
}
