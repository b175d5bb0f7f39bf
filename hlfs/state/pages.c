#include "hlfs/state/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/hash.h"
#include "common/mem.h"
#include "common/url.h"

#define PAGE_ZSTD_LEVEL 1
#define PAGE_MAX_BODY (64u << 20)  /* decompression cap: a page never grows past this */

/* zstd contexts, kept: ZSTD_compress and ZSTD_decompress build (and zero)
 * one per call, which cost more than the work on pages of a few KiB. One
 * pair per thread (the gateway has one loop); never freed, as the thread
 * lives as long as the process. NULL when out of memory: the one-shot
 * calls then build their own. */
static _Thread_local ZSTD_CCtx *page_cctx;
static _Thread_local ZSTD_DCtx *page_dctx;

static size_t page_zcompress(void *dst, size_t cap, const void *src, size_t n)
{
  if(!page_cctx)
    page_cctx = ZSTD_createCCtx();
  return page_cctx ? ZSTD_compressCCtx(page_cctx, dst, cap, src, n, PAGE_ZSTD_LEVEL)
                   : ZSTD_compress(dst, cap, src, n, PAGE_ZSTD_LEVEL);
}

static size_t page_zdecompress(void *dst, size_t cap, const void *src, size_t n)
{
  if(!page_dctx)
    page_dctx = ZSTD_createDCtx();
  return page_dctx ? ZSTD_decompressDCtx(page_dctx, dst, cap, src, n)
                   : ZSTD_decompress(dst, cap, src, n);
}

/* Scripts run by digest (EVALSHA): their text is not sent with every page
 * (Redis's CPU per put did not change, docs/benchmarks.md: the arguments
 * handed to Lua cost it). The put writes HSET then EXPIRE in one step, so
 * a page never lives without a TTL. */
#define PAGE_SCRIPT_PUT   "page_put"
#define PAGE_SCRIPT_TOUCH "page_touch"

void pages_scripts(struct store *s)
{
  if(store_script_id(s, PAGE_SCRIPT_PUT) >= 0)
    return;
  store_script(s, PAGE_SCRIPT_PUT,
               "redis.call('DEL', KEYS[1]) redis.call('HSET', KEYS[1], unpack(ARGV, 2)) "
               "return redis.call('EXPIRE', KEYS[1], ARGV[1])");
  store_script(s, PAGE_SCRIPT_TOUCH,
               "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
               "redis.call('HSET', KEYS[1], 'at', ARGV[1]) "
               "return redis.call('EXPIRE', KEYS[1], ARGV[2])");
}

void page_key_owned(const char *url, const char *owner, char *out, size_t outlen)
{
  struct url_parts up;
  const char *host = url_split(url, &up) == URL_OK ? up.host : "-";
  snprintf(out, outlen, "page:{%.253s}:%016llx%s%.64s", host,
           (unsigned long long)hash_fp64(url, strlen(url)), owner ? ":" : "",
           owner ? owner : "");
}

void page_key_variant(const char *url, const char *variant, const char *owner, char *out,
                      size_t outlen)
{
  if(!variant || !*variant) {
    page_key_owned(url, owner, out, outlen);
    return;
  }
  struct url_parts up;
  const char *host = url_split(url, &up) == URL_OK ? up.host : "-";
  /* the URL's hash and the variant's, mixed: another key than the URL's */
  uint64_t h = hash_fp64(url, strlen(url)) ^
               (hash_fp64(variant, strlen(variant)) * 0x9e3779b97f4a7c15ULL + 1);
  snprintf(out, outlen, "page:{%.253s}:%016llx%s%.64s", host, (unsigned long long)h,
           owner ? ":" : "", owner ? owner : "");
}

/* The owner a key names, NULL for a shared copy (or a key of another form). */
static const char *page_key_owner(const char *key)
{
  /* the host ends at the last '}': neither the hash nor a client name
   * (state_client_ok) has one */
  const char *t = key ? strrchr(key, '}') : NULL;
  if(!t || strncmp(key, "page:{", 6) || t[1] != ':' || strlen(t + 2) < 17 || t[18] != ':')
    return NULL;
  return t + 19;
}

bool page_key_readable(const char *key, const char *reader, bool reader_private)
{
  const char *owner = page_key_owner(key);
  if(reader_private)
    return owner && reader && !strcmp(owner, reader);
  return !owner;
}

struct page_op {
  void *cb;
  void *arg;
  char *zbody;
};

static void page_put_done(void *arg, store_err err, const struct store_val *v)
{
  struct page_op *op = arg;
  (void)v;
  ((page_put_cb *)op->cb)(op->arg, err);
  mem_free(op->zbody);
  mem_free(op);
}

/* What the copy says, fetch time aside: the body (compressed) and every
 * member rendered from it, so that equal hashes mean equal answers. */
static uint64_t page_hash(const struct page *p, const char *z, size_t zn)
{
  char meta[96];
  int n = snprintf(meta, sizeof meta, "%ld|%d|%zu|", p->status, p->truncated, p->body_len);
  const char *parts[] = { meta, p->url, p->outcome, p->headers_json, p->redirect };
  uint64_t h = hash_fp64(z, zn);
  for(size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    const char *v = parts[i] ? parts[i] : "";
    size_t len = i == 0 ? (size_t)n : strlen(v) + 1;  /* the NUL separates */
    h = h * 0x9e3779b97f4a7c15ULL ^ hash_fp64(v, len);
  }
  return h;
}

store_err page_put(struct store *s, const char *key, const struct page *p, uint32_t ttl_s,
                   page_put_cb *cb, void *arg)
{
  struct page_op *op = mem_calloc(1, sizeof *op);
  size_t zcap = ZSTD_compressBound(p->body_len);
  if(!op || !(op->zbody = mem_alloc(zcap))) {
    mem_free(op);
    return STORE_NOMEM;
  }
  size_t zn = page_zcompress(op->zbody, zcap, p->body, p->body_len);
  if(ZSTD_isError(zn)) {
    mem_free(op->zbody);
    mem_free(op);
    return STORE_NOMEM;
  }
  char status[24], at[24], blen[24], ttl[24], hash[24];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)page_hash(p, op->zbody, zn));
  snprintf(status, sizeof status, "%ld", p->status);
  snprintf(at, sizeof at, "%llu", (unsigned long long)p->fetched_at);
  snprintf(blen, sizeof blen, "%zu", p->body_len);
  snprintf(ttl, sizeof ttl, "%u", ttl_s);
  const char *argv[] = {
    key, ttl,
    "url", p->url, "outcome", p->outcome, "status", status, "at", at,
    "headers", p->headers_json ? p->headers_json : "[]", "redirect", p->redirect ? p->redirect : "",
    "trunc", p->truncated ? "1" : "0", "blen", blen, "h", hash, "body", op->zbody,
  };
  size_t lens[sizeof argv / sizeof argv[0]];
  size_t n = sizeof argv / sizeof argv[0];
  for(size_t i = 0; i < n; i++)
    lens[i] = strlen(argv[i]);
  lens[n - 1] = zn;
  op->cb = (void *)cb;
  op->arg = arg;
  int sc = store_script_id(s, PAGE_SCRIPT_PUT);
  store_err e = sc < 0 ? STORE_PROTO
                       : store_eval(s, sc, 1, (int)n, argv, lens, page_put_done, op);
  if(e) {
    mem_free(op->zbody);
    mem_free(op);
  }
  return e;
}

static const struct store_val *page_field(const struct store_val *v, const char *name,
                                          size_t *len)
{
  for(size_t i = 0; i + 1 < store_v_len(v); i += 2) {
    size_t n;
    const char *k = store_v_str(store_v_at(v, i), &n);
    if(k && n == strlen(name) && !memcmp(k, name, n)) {
      store_v_str(store_v_at(v, i + 1), len);
      return store_v_at(v, i + 1);
    }
  }
  return NULL;
}

static const char *page_str(const struct store_val *v, const char *name)
{
  size_t n;
  const struct store_val *f = page_field(v, name, &n);
  return f ? store_v_str(f, &n) : NULL;
}

/* Whether the stored hash is the hash of what was read: a copy whose
 * fields were altered or damaged in Redis is not (page_hash covers every
 * member but the fetch time). */
static bool page_verify(const struct page *p, size_t blen, const char *z, size_t zn)
{
  char hex[24];
  struct page q = *p;
  q.body_len = blen;
  if(!p->hash || !p->headers_json)
    return false;
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)page_hash(&q, z, zn));
  return !strcmp(hex, p->hash);
}

static void page_get_done(void *arg, store_err err, const struct store_val *v)
{
  struct page_op *op = arg;
  page_get_cb *cb = (page_get_cb *)op->cb;
  size_t zn = 0;
  const struct store_val *zb = err ? NULL : page_field(v, "body", &zn);
  if(err || !zb) {
    cb(op->arg, err, NULL);
    mem_free(op);
    return;
  }
  struct page p = {
    .url = page_str(v, "url"), .outcome = page_str(v, "outcome"),
    .status = store_v_int(page_field(v, "status", &zn), 0),
    .fetched_at = (uint64_t)store_v_int(page_field(v, "at", &zn), 0),
    .headers_json = page_str(v, "headers"), .redirect = page_str(v, "redirect"),
    .truncated = store_v_int(page_field(v, "trunc", &zn), 0) == 1,
    .hash = page_str(v, "h"),
  };
  size_t blen = (size_t)store_v_int(page_field(v, "blen", &zn), 0);
  const char *z = store_v_str(zb, &zn);
  p.verified = page_verify(&p, blen, z, zn);
  char *body = blen <= PAGE_MAX_BODY ? mem_alloc(blen + 1) : NULL;
  if(!body || page_zdecompress(body, blen, z, zn) != blen) {
    cb(op->arg, STORE_PROTO, NULL);
  } else {
    p.body = body;
    p.body_len = blen;
    if(p.redirect && !*p.redirect)
      p.redirect = NULL;
    cb(op->arg, STORE_OK, &p);
  }
  mem_free(body);
  mem_free(op);
}

store_err page_get(struct store *s, const char *key, page_get_cb *cb, void *arg)
{
  struct page_op *op = mem_calloc(1, sizeof *op);
  if(!op)
    return STORE_NOMEM;
  op->cb = (void *)cb;
  op->arg = arg;
  const char *argv[] = { "HGETALL", key };
  size_t lens[] = { 7, strlen(key) };
  store_err e = store_cmd(s, 2, argv, lens, 0, page_get_done, op);
  if(e)
    mem_free(op);
  return e;
}

static void page_check_done(void *arg, store_err err, const struct store_val *v)
{
  struct page_op *op = arg;
  const char *hash = err ? NULL : store_v_str(store_v_at(v, 0), NULL);
  uint64_t at = err ? 0 : (uint64_t)store_v_int(store_v_at(v, 1), 0);
  ((page_check_cb *)op->cb)(op->arg, err, !err && (hash || at), hash, at);
  mem_free(op);
}

store_err page_check(struct store *s, const char *key, page_check_cb *cb, void *arg)
{
  struct page_op *op = mem_calloc(1, sizeof *op);
  if(!op)
    return STORE_NOMEM;
  op->cb = (void *)cb;
  op->arg = arg;
  const char *argv[] = { "HMGET", key, "h", "at" };
  size_t lens[] = { 5, strlen(key), 1, 2 };
  store_err e = store_cmd(s, 4, argv, lens, 0, page_check_done, op);
  if(e)
    mem_free(op);
  return e;
}

static void page_del_done(void *arg, store_err err, const struct store_val *v)
{
  struct page_op *op = arg;
  ((page_del_cb *)op->cb)(op->arg, err, !err && store_v_int(v, 0) > 0);
  mem_free(op);
}

store_err page_del(struct store *s, const char *key, page_del_cb *cb, void *arg)
{
  struct page_op *op = mem_calloc(1, sizeof *op);
  if(!op)
    return STORE_NOMEM;
  op->cb = (void *)cb;
  op->arg = arg;
  const char *argv[] = { "DEL", key };
  size_t lens[] = { 3, strlen(key) };
  store_err e = store_cmd(s, 2, argv, lens, 0, page_del_done, op);
  if(e)
    mem_free(op);
  return e;
}

store_err page_touch(struct store *s, const char *key, uint64_t at_ms, uint32_t ttl_s,
                     page_put_cb *cb, void *arg)
{
  struct page_op *op = mem_calloc(1, sizeof *op);
  char at[24], ttl[24];
  if(!op)
    return STORE_NOMEM;
  op->cb = (void *)cb;
  op->arg = arg;
  snprintf(at, sizeof at, "%llu", (unsigned long long)at_ms);
  snprintf(ttl, sizeof ttl, "%u", ttl_s);
  const char *argv[] = { key, at, ttl };
  size_t lens[3];
  for(size_t i = 0; i < 3; i++)
    lens[i] = strlen(argv[i]);
  int sc = store_script_id(s, PAGE_SCRIPT_TOUCH);
  store_err e = sc < 0 ? STORE_PROTO : store_eval(s, sc, 1, 3, argv, lens, page_put_done, op);
  if(e)
    mem_free(op);
  return e;
}

uint64_t page_age_s(const struct page *p, uint64_t now_ms)
{
  return now_ms > p->fetched_at ? (now_ms - p->fetched_at) / 1000 : 0;
}

/* A server's "not now" (429, 500, 502, 503, 504) is no copy of a page: the
 * retry policy asks again (docs/retries.md), and a stored one served as
 * fresh would end the request with the very failure it retries. */
static bool page_transient(long status)
{
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

uint64_t page_age_ms(const struct page *p, uint64_t now_ms)
{
  return now_ms > p->fetched_at ? now_ms - p->fetched_at : 0;
}

/* In milliseconds: whole seconds would take a copy up to N + 0.999 s old
 * for max_age_s N, and any copy of the last second for 0 ("always fetch"). */
bool page_is_fresh(const struct page *p, uint64_t max_age_s, uint64_t now_ms)
{
  if(!p->outcome || strcmp(p->outcome, "ok") || page_transient(p->status))
    return false;
  return max_age_s > UINT64_MAX / 1000  /* UINT64_MAX: any age */
         || page_age_ms(p, now_ms) < max_age_s * 1000;
}
