/* A stored page as the JSON text of an answer, written straight into one
 * buffer: no JSON tree, the base64 of the body produced in place of a
 * string to escape (its alphabet needs no escaping), the stored header list
 * spliced as the JSON text it was stored as (hlfs/gw_ops.c writes it with
 * jansson). This is the hot path of cache hits (docs/benchmarks.md). */
#include <openssl/evp.h>
#include <string.h>

#include "hlfs/gw.h"

#define GW_B64_CHUNK 3072  /* input bytes per EVP_EncodeBlock call: 4 KiB out */

/* The body as a base64 JSON string, through a stack buffer. */
static cm_err text_b64(struct buf *b, const char *p, size_t n)
{
  unsigned char out[GW_B64_CHUNK / 3 * 4 + 1];
  cm_err e = buf_addc(b, '"');
  for(size_t off = 0; !e && off < n; off += GW_B64_CHUNK) {
    size_t k = n - off < GW_B64_CHUNK ? n - off : GW_B64_CHUNK;
    int w = EVP_EncodeBlock(out, (const unsigned char *)p + off, (int)k);
    e = buf_add(b, out, (size_t)w);
  }
  return e ? e : buf_addc(b, '"');
}

/* "name":"value", escaped; the comma before it is the caller's. */
static cm_err text_str(struct buf *b, const char *name, const char *v)
{
  cm_err e = buf_addf(b, "\"%s\":", name);
  return e ? e : buf_add_json_str(b, v ? v : "", v ? strlen(v) : 0);
}

/* The stored header list if it looks like the JSON array it was stored as,
 * else an empty one. */
static cm_err text_headers(struct buf *b, const char *h)
{
  size_t n = h ? strlen(h) : 0;
  if(n < 2 || h[0] != '[' || h[n - 1] != ']')
    return buf_adds(b, "\"headers\":[]");
  cm_err e = buf_adds(b, "\"headers\":");
  return e ? e : buf_add(b, h, n);
}

/* Members every form shares, after the leading ones. */
static cm_err text_tail(struct buf *b, const struct page *p, uint64_t now_ms)
{
  cm_err e = buf_addf(b, ",\"age_s\":%llu,\"fetched_at\":%llu,",
                      (unsigned long long)page_age_s(p, now_ms),
                      (unsigned long long)p->fetched_at);
  if(!e)
    e = text_headers(b, p->headers_json);
  if(!e && p->redirect) {
    e = buf_addc(b, ',');
    e = e ? e : text_str(b, "redirect", p->redirect);
  }
  if(!e)
    e = buf_addf(b, ",\"truncated\":%s,\"body_bytes\":%zu,\"body_base64\":",
                 p->truncated ? "true" : "false", p->body_len);
  if(!e)
    e = text_b64(b, p->body, p->body_len);
  return e ? e : buf_addc(b, '}');
}

cm_err gw_page_text(struct buf *b, const struct page *p, const char *rid, uint64_t now_ms)
{
  cm_err e = buf_addc(b, '{');
  if(!e && rid) {
    e = text_str(b, "id", rid);
    e = e ? e : buf_addc(b, ',');
  }
  e = e ? e : text_str(b, "url", p->url);
  if(!e && rid)
    e = buf_addf(b, ",\"outcome\":\"cached\",\"status\":%ld,\"response_ms\":0,\"attempts\":0",
                 p->status);
  if(!e && !rid) {
    e = buf_addc(b, ',');
    e = e ? e : text_str(b, "outcome", p->outcome);
    e = e ? e : buf_addf(b, ",\"status\":%ld", p->status);
  }
  return e ? e : text_tail(b, p, now_ms);
}

/* Bytes the text of p can take at most: escaping grows a string 6-fold at
 * worst (\u00XX); 1 KiB covers the names, numbers and the request id. */
static size_t text_max(const struct page *p, const char *rid)
{
  size_t n = 4 * ((p->body_len + 2) / 3) + 1024;
  n += p->headers_json ? strlen(p->headers_json) : 0;
  n += 6 * ((p->url ? strlen(p->url) : 0) + (p->redirect ? strlen(p->redirect) : 0) +
            (p->outcome ? strlen(p->outcome) : 0) + (rid ? strlen(rid) : 0));
  return n;
}

void gw_page_reply(struct api_req *rq, const struct page *p, const char *rid, uint64_t now_ms)
{
  struct buf b;
  size_t len;
  buf_init(&b, text_max(p, rid));
  if(gw_page_text(&b, p, rid, now_ms)) {
    buf_free(&b);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  char *body = buf_steal(&b, &len);
  api_reply(rq, 200, "application/json", body, body ? len : 0);
}
