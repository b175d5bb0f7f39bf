/* The kinds of response (TW_KINDS in tw_beh.h): each handler fills the
 * status, the body segments and the headers of one routing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tests/testweb/tw_churn.h"
#include "tests/testweb/tw_flaky.h"
#include "tests/testweb/tw_fill.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_robots.h"
#include "tests/testweb/tw_route.h"

/* Number at the start of the variant, or def. */
static long kind_num(const struct tw_route *r, long def)
{
  char *end;
  errno = 0;
  long v = strtol(r->variant, &end, 10);
  return end == r->variant || errno || v < 0 ? def : v;
}

/* The plan's body buffer, as one segment. Call once the buffer is final. */
static void kind_body_seg(struct tw_route *r)
{
  tw_plan_seg(r->pl, r->pl->body.data, r->pl->body.len, 1);
}

/* size bytes of filler text. */
static void kind_filler(struct tw_route *r, uint64_t size)
{
  tw_plan_seg(r->pl, tw_fill_text(), TW_FILL_LEN, size / TW_FILL_LEN);
  tw_plan_seg(r->pl, tw_fill_text(), (size_t)(size % TW_FILL_LEN), 1);
}

static uint64_t kind_version(struct tw_route *r, const char *key, long every)
{
  uint64_t n = tw_site_count(r->s, key, strlen(key));
  return every > 0 ? (n - 1) / (uint64_t)every : 0;
}

static void kind_page(struct tw_route *r)
{
  if(*r->variant)  /* /_b/page/<j> */
    r->page = kind_num(r, 0) < r->s->pages ? kind_num(r, 0) : 0;
  char key[32];
  snprintf(key, sizeof key, "/p/%ld", r->page);
  uint64_t v = kind_version(r, key, TW_BEH_OR(&r->beh, every, r->s->change_every));
  if(tw_page_html(r->env->w, r->s, r->page, v, &r->pl->body)) {
    tw_route_text(r, 500, "testweb: page too large\n");
    return;
  }
  kind_body_seg(r);
  tw_route_validators(r, NULL, v);
}

static void kind_body(struct tw_route *r)
{
  const struct tw_beh *b = &r->beh;
  r->ctype = "text/plain; charset=utf-8";
  if(TW_BEH_HAS(b, body)) {
    buf_adds(&r->pl->body, b->body);
    kind_body_seg(r);
  } else {
    kind_filler(r, (uint64_t)TW_BEH_OR(b, size, 1024));
  }
  if(TW_BEH_OR(b, etag, 0) || TW_BEH_OR(b, last_modified, 0)) {
    char key[64];
    snprintf(key, sizeof key, "%ld", TW_BEH_OR(b, size, -1));
    tw_route_validators(r, TW_BEH_HAS(b, body) ? NULL : key, 0);
  }
}

static void kind_status(struct tw_route *r)
{
  long code = kind_num(r, TW_BEH_OR(&r->beh, status, 200));
  if(code < 100 || code > 999) {
    tw_route_text(r, 400, "testweb: status must be 100..999\n");
    return;
  }
  tw_route_text(r, (int)code, "testweb status %ld\n", code);
}

static void kind_hang(struct tw_route *r)
{
  r->pl->hang = true;
}

static int kind_redirect_code(const struct tw_route *r, long def)
{
  long code = TW_BEH_OR(&r->beh, code, def);
  return code >= 300 && code <= 399 ? (int)code : 302;
}

static void kind_redirect(struct tw_route *r)
{
  int code = kind_redirect_code(r, kind_num(r, 302));
  tw_route_redirect(r, code, TW_BEH_OR(&r->beh, to, "/"), NULL);
}

/* /_b/chain/K: K more redirects before the end. */
static void kind_chain(struct tw_route *r)
{
  long k = kind_num(r, 0);
  char next[48];
  if(k == 0) {
    tw_route_text(r, 200, "testweb: end of the redirect chain\n");
    return;
  }
  snprintf(next, sizeof next, "/_b/chain/%ld", k - 1);
  if(k == 1 && TW_BEH_HAS(&r->beh, to))
    tw_route_redirect(r, kind_redirect_code(r, 302), r->beh.to, NULL);
  else
    tw_route_redirect(r, kind_redirect_code(r, 302), next, r->rawq);
}

static void kind_loop(struct tw_route *r)
{
  long n = TW_BEH_OR(&r->beh, n, 2);
  char next[48];
  snprintf(next, sizeof next, "/_b/loop/%ld", n > 0 ? (kind_num(r, 0) + 1) % n : 0);
  tw_route_redirect(r, kind_redirect_code(r, 302), next, r->rawq);
}

static void kind_endless(struct tw_route *r)
{
  r->ctype = "text/plain; charset=utf-8";
  long piece = TW_BEH_OR(&r->beh, size, TW_FILL_LEN);
  piece = piece > 0 && piece < TW_FILL_LEN ? piece : TW_FILL_LEN;
  tw_plan_seg(r->pl, tw_fill_text(), (size_t)piece, TW_FOREVER);
}

static void kind_endless_headers(struct tw_route *r)
{
  size_t len;
  const char *h = tw_fill_headers(&len);
  r->raw = true;
  buf_adds(&r->pl->head, "HTTP/1.1 200 OK\r\nServer: testweb\r\n");
  tw_plan_seg(r->pl, h, len, TW_FOREVER);
}

/* Broken heads; each variant's bytes are in the table, the huge one adds
 * a header value of `size` letters. The connection closes afterwards. */
static void kind_malformed(struct tw_route *r)
{
  static const struct { const char *name, *head, *body; } tab[] = {
    { "status-line", "HTTP/1.1 2OO OK\r\nContent-Length: 6\r\n\r\n", "hello\n" },
    { "no-status", "", "hello, no status line and no headers\n" },
    { "bad-version", "HTTP/9.7 200 OK\r\nContent-Length: 6\r\n\r\n", "hello\n" },
    { "no-colon", "HTTP/1.1 200 OK\r\nX-Broken header without a colon\r\nContent-Length: 6\r\n\r\n",
      "hello\n" },
    { "space-before-colon", "HTTP/1.1 200 OK\r\nContent-Length : 6\r\n\r\n", "hello\n" },
    { "bad-length", "HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", "hello\n" },
    { "negative-length", "HTTP/1.1 200 OK\r\nContent-Length: -6\r\n\r\n", "hello\n" },
    { "two-lengths", "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nContent-Length: 9\r\n\r\n",
      "hello\n" },
    { "short-body", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", "only 23 bytes, then EOF" },
    { "long-body", "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n",
      "hello\nand 29 bytes nobody asked" },
    { "bad-chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "zz\r\nhello\r\n0\r\n\r\n" },
    { "lf-only", "HTTP/1.1 200 OK\nContent-Length: 6\nContent-Type: text/plain\n\n", "hello\n" },
    { "huge-header", "HTTP/1.1 200 OK\r\nX-Huge: ", "\r\nContent-Length: 6\r\n\r\nhello\n" },
  };
  size_t i = 0, n = sizeof tab / sizeof tab[0];
  while(i < n && strcmp(tab[i].name, r->variant))
    i++;
  if(i == n) {
    tw_route_text(r, 404, "testweb: no malformed variant \"%.64s\"\n", r->variant);
    return;
  }
  r->raw = true;
  buf_adds(&r->pl->head, tab[i].head);
  if(!strcmp(tab[i].name, "huge-header")) {
    uint64_t size = (uint64_t)TW_BEH_OR(&r->beh, size, 1L << 20);
    tw_plan_seg(r->pl, tw_fill_letters(), TW_FILL_LEN, size / TW_FILL_LEN);
    tw_plan_seg(r->pl, tw_fill_letters(), (size_t)(size % TW_FILL_LEN), 1);
  }
  tw_plan_seg(r->pl, tab[i].body, strlen(tab[i].body), 1);
}

static void kind_bomb(struct tw_route *r)
{
  uint64_t size = (uint64_t)TW_BEH_OR(&r->beh, size, (long)r->env->w->bomb_size);
  bool br = !strcmp(r->variant, "br") || !strcmp(r->variant, "brotli");
  if(!br && *r->variant && strcmp(r->variant, "gzip")) {
    tw_route_text(r, 404, "testweb: bombs are gzip or br\n");
    return;
  }
  tw_err e = br ? tw_bomb_brotli(r->env->bombs, size, r->pl)
                : tw_bomb_gzip(r->env->bombs, size, r->pl);
  if(e) {
    tw_route_text(r, 500, "testweb: bomb: %s\n", tw_strerror(e));
    return;
  }
  r->encoding = br ? "br" : "gzip";
}

static void kind_trap(struct tw_route *r)
{
  tw_page_trap(r->path, r->plen, &r->pl->body);
  kind_body_seg(r);
}

static void kind_calendar(struct tw_route *r)
{
  if(tw_page_calendar(r->variant, &r->pl->body)) {
    tw_route_text(r, 404, "testweb: not a calendar date\n");
    return;
  }
  kind_body_seg(r);
}

static void kind_change(struct tw_route *r)
{
  uint64_t v = kind_version(r, r->path, TW_BEH_OR(&r->beh, every, 1));
  r->ctype = "text/plain; charset=utf-8";
  buf_addf(&r->pl->body, "testweb: %s version %llu\n", r->path, (unsigned long long)v);
  kind_body_seg(r);
  kind_filler(r, (uint64_t)TW_BEH_OR(&r->beh, size, 0));
  tw_route_validators(r, r->path, v);
}

static void kind_churn(struct tw_route *r)
{
  tw_churn_serve(r, kind_num(r, -1));
}

static void kind_dup(struct tw_route *r)
{
  buf_addf(&r->pl->body, "<!DOCTYPE html>\n<html><head><title>%s duplicate</title></head>\n"
           "<body><p>The same content under every path below /_b/dup/.</p></body></html>\n",
           tw_site_host(r->s));
  kind_body_seg(r);
  tw_route_validators(r, NULL, 0);
}

/* /robots.txt is hop 0; hops (n) redirects lead to the body. */
static void kind_robots(struct tw_route *r)
{
  const struct tw_beh *b = &r->beh;
  long hop = kind_num(r, 0), hops = TW_BEH_OR(b, n, 0);
  char next[48];
  if(hop < hops) {
    snprintf(next, sizeof next, "/_b/robots/%ld", hop + 1);
    bool last = hop + 1 == hops && TW_BEH_HAS(b, to);
    tw_route_redirect(r, kind_redirect_code(r, 301), last ? b->to : next, NULL);
    return;
  }
  long status = TW_BEH_OR(b, status, 200);
  if(status < 200 || status > 299) {
    tw_route_text(r, (int)status, "testweb: robots.txt answers %ld\n", status);
    return;
  }
  r->ctype = "text/plain; charset=utf-8";
  if(tw_robots_text(r->env->w, r->s, &r->pl->body)) {
    tw_route_text(r, 500, "testweb: robots.txt too large\n");
    return;
  }
  kind_body_seg(r);
}

static void kind_sitemap(struct tw_route *r)
{
  r->ctype = "application/xml";
  if(tw_page_sitemap(r->env->w, r->s, &r->pl->body)) {
    tw_route_text(r, 500, "testweb: sitemap too large\n");
    return;
  }
  kind_body_seg(r);
}

/* The plan's body, segments and repeats, into one buffer. */
static bool gzip_gather(const struct tw_plan *pl, struct buf *out)
{
  for(unsigned i = 0; i < pl->nseg; i++)
    for(uint64_t k = 0; k < pl->seg[i].reps; k++)
      if(buf_add(out, pl->seg[i].p, pl->seg[i].len))
        return false;
  return true;
}

static bool gzip_deflate(const struct buf *in, struct buf *out)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return false;
  uLong bound = deflateBound(&z, (uLong)in->len);
  char *p = bound <= out->max ? malloc(bound) : NULL;
  z.next_in = (Bytef *)in->data;
  z.avail_in = (uInt)in->len;
  z.next_out = (Bytef *)p;
  z.avail_out = (uInt)bound;
  bool ok = p && deflate(&z, Z_FINISH) == Z_STREAM_END && !buf_add(out, p, bound - z.avail_out);
  deflateEnd(&z);
  free(p);
  return ok;
}

/* gzip=1: the body is served as a gzip file, the way a sitemap.xml.gz is:
 * compressed here, with no Content-Encoding (a client must not decode it).
 * A gzip bomb is already gzip data: it only loses its Content-Encoding. */
static void kind_gzip_file(struct tw_route *r)
{
  r->ctype = "application/gzip";
  if(r->kind == TW_K_BOMB) {
    r->encoding = NULL;
    return;
  }
  uint64_t n = tw_plan_body_len(r->pl);
  struct buf in;
  buf_init(&in, r->pl->body.max);
  bool ok = n != TW_FOREVER && n <= in.max && gzip_gather(r->pl, &in);
  buf_reset(&r->pl->body);
  r->pl->nseg = 0;
  if(ok)
    ok = gzip_deflate(&in, &r->pl->body);
  buf_free(&in);
  if(!ok) {
    tw_route_text(r, 500, "testweb: the body cannot be gzipped (too large)\n");
    return;
  }
  kind_body_seg(r);
}

void tw_kind_run(struct tw_route *r)
{
  static void (*const run[TW_K__COUNT])(struct tw_route *) = {
    [TW_K_PAGE] = kind_page,           [TW_K_BODY] = kind_body,
    [TW_K_STATUS] = kind_status,       [TW_K_HANG] = kind_hang,
    [TW_K_REDIRECT] = kind_redirect,   [TW_K_CHAIN] = kind_chain,
    [TW_K_LOOP] = kind_loop,           [TW_K_ENDLESS] = kind_endless,
    [TW_K_ENDLESS_HEADERS] = kind_endless_headers,
    [TW_K_MALFORMED] = kind_malformed, [TW_K_BOMB] = kind_bomb,
    [TW_K_TRAP] = kind_trap,           [TW_K_CALENDAR] = kind_calendar,
    [TW_K_CHANGE] = kind_change,       [TW_K_DUP] = kind_dup, [TW_K_CHURN] = kind_churn,
    [TW_K_ROBOTS] = kind_robots,       [TW_K_SITEMAP] = kind_sitemap,
    [TW_K_FLAKY] = tw_kind_flaky,
  };
  run[r->kind](r);
  if(TW_BEH_OR(&r->beh, gzip, 0) && r->status >= 200 && r->status != 204 && r->status != 304)
    kind_gzip_file(r);
}
