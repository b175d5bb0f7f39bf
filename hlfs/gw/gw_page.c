/* Answers made of a stored page, the hot path of cache hits
 * (docs/benchmarks.md, "Page cache").
 *
 * The JSON text is written straight into one buffer, no JSON tree: the
 * base64 of the body goes where a string to escape would (its alphabet
 * needs no escaping), and the stored header list is spliced as the JSON
 * text it was stored as (hlfs/fetch/fetch.c writes it with jansson). It comes
 * in two parts: the head (id, url, outcome, status, age), made for each
 * answer, and the tail (fetch time, headers, body), the same for every
 * answer of one stored copy, which hlfs/gw/page_memo.h keeps for hot pages.
 *
 * gw_page_read gives the head and tail of a key's copy: from the memo
 * when the page cache confirms the kept copy is still the stored one (its
 * hash and fetch time: one small command), else from the page itself (one
 * command, or a second after a failed confirmation). */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/gw/gw.h"
#include "hlfs/gw/page_memo.h"

#define GW_B64_CHUNK 3072  /* input bytes per EVP_EncodeBlock call: 4 KiB out */

/* ---- the text ------------------------------------------------------------ */

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

/* A string literal, its length known at compile time. */
#define text_lit(b, lit) buf_add((b), (lit), sizeof(lit) - 1)

/* A decimal number, without printf (the head is made for every answer). */
static cm_err text_u64(struct buf *b, uint64_t v)
{
  char d[24];
  size_t i = sizeof d;
  do
    d[--i] = (char)('0' + v % 10);
  while((v /= 10) != 0);
  return buf_add(b, d + i, sizeof d - i);
}

static cm_err text_long(struct buf *b, long v)
{
  cm_err e = v < 0 ? buf_addc(b, '-') : CM_OK;
  return e ? e : text_u64(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* "name":"value", escaped; the comma before it is the caller's. */
static cm_err text_str(struct buf *b, const char *name, const char *v)
{
  cm_err e = buf_addc(b, '"');
  e = e ? e : buf_adds(b, name);
  e = e ? e : text_lit(b, "\":");
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

/* From "{" to "age_s":N, (comma included): a Result of outcome "cached"
 * with id rid, or a Page when rid is NULL. */
static cm_err text_head(struct buf *b, const struct page *head, const char *rid,
                        uint64_t now_ms)
{
  cm_err e = buf_addc(b, '{');
  if(!e && rid) {
    e = text_str(b, "id", rid);
    e = e ? e : buf_addc(b, ',');
  }
  e = e ? e : text_str(b, "url", head->url);
  if(!e && rid) {
    e = text_lit(b, ",\"outcome\":\"cached\",\"status\":");
    e = e ? e : text_long(b, head->status);
    e = e ? e : text_lit(b, ",\"response_ms\":0,\"attempts\":0,\"tries\":[]");
  }
  if(!e && !rid) {
    e = buf_addc(b, ',');
    e = e ? e : text_str(b, "outcome", head->outcome);
    e = e ? e : text_lit(b, ",\"status\":");
    e = e ? e : text_long(b, head->status);
  }
  e = e ? e : text_lit(b, ",\"age_s\":");
  e = e ? e : text_u64(b, page_age_s(head, now_ms));
  return e ? e : buf_addc(b, ',');
}

/* From "fetched_at" to the closing brace. */
static cm_err text_tail(struct buf *b, const struct page *p, const char *agent)
{
  cm_err e = buf_addf(b, "\"fetched_at\":%llu,", (unsigned long long)p->fetched_at);
  if(!e)
    e = text_headers(b, p->headers_json);
  if(!e)
    e = gw_xrobots_text(b, p->headers_json, agent);
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

/* Bytes a string member can take: escaping grows a string 6-fold at worst
 * (\u00XX). */
static size_t text_str_max(const char *s) { return s ? 6 * strlen(s) + 16 : 16; }

void gw_page_reply(struct api_req *rq, const struct page *head, const char *tail,
                   size_t tail_len, const char *rid, uint64_t now_ms)
{
  struct buf b;
  size_t len;
  buf_init(&b, 256 + text_str_max(head->url) + text_str_max(head->outcome) +
                 text_str_max(rid) + tail_len);
  if(text_head(&b, head, rid, now_ms) || buf_add(&b, tail, tail_len)) {
    buf_free(&b);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  char *body = buf_steal(&b, &len);
  api_reply(rq, 200, "application/json", body, body ? len : 0);
}

/* ---- reading a key's copy, through the memo ------------------------------- */

struct gw_page_op {
  struct gw *g;
  gw_page_cb *cb;
  void *arg;
  char key[PAGE_KEY_MAX];
};

static void op_end(struct gw_page_op *op, store_err err, const struct page *head,
                   const char *tail, size_t tail_len)
{
  op->cb(op->arg, err, head, tail, tail_len);
  mem_free(op);
}

/* The whole page arrived: render its tail, keep it, answer. */
static void op_got(void *arg, store_err err, const struct page *p)
{
  struct gw_page_op *op = arg;
  struct buf b;
  size_t tail_len;
  if(err || !p) {
    if(!err)
      page_memo_drop(op->g->memo, op->key);
    op_end(op, err, NULL, NULL, 0);
    return;
  }
  buf_init(&b, 4 * ((p->body_len + 2) / 3) + text_str_max(p->headers_json) +
                 text_str_max(p->redirect) + 256);
  if(text_tail(&b, p, op->g->cfg.agent)) {
    buf_free(&b);
    op_end(op, STORE_NOMEM, NULL, NULL, 0);
    return;
  }
  char *tail = buf_steal(&b, &tail_len);
  page_memo_put(op->g->memo, op->key, p, tail, tail_len);
  op_end(op, STORE_OK, p, tail, tail_len);
  mem_free(tail);
}

static void op_fetch(struct gw_page_op *op)
{
  store_err e = page_get(op->g->pages, op->key, op_got, op);
  if(e)
    op_end(op, e, NULL, NULL, 0);
}

/* The page cache's word on the kept copy: serve it, or read the page. */
static void op_checked(void *arg, store_err err, bool found, const char *hash, uint64_t at)
{
  struct gw_page_op *op = arg;
  struct gw *g = op->g;
  struct page head;
  const char *tail;
  size_t tail_len;
  if(err || !found) {
    if(!err)
      page_memo_drop(g->memo, op->key);
    op_end(op, err, NULL, NULL, 0);
    return;
  }
  if(page_memo_get(g->memo, op->key, &head, &tail, &tail_len) && hash &&
     !strcmp(hash, head.hash) && at == head.fetched_at) {
    g->stats.page_memo_hits++;
    op_end(op, STORE_OK, &head, tail, tail_len);
    return;
  }
  g->stats.page_memo_stale++;
  op_fetch(op);
}

store_err gw_page_read(struct gw *g, const char *key, gw_page_cb *cb, void *arg)
{
  struct gw_page_op *op = mem_alloc(sizeof *op);
  struct page head;
  const char *tail;
  size_t tail_len;
  if(!op)
    return STORE_NOMEM;
  *op = (struct gw_page_op){ .g = g, .cb = cb, .arg = arg };
  snprintf(op->key, sizeof op->key, "%s", key);
  store_err e = page_memo_get(g->memo, key, &head, &tail, &tail_len)
                  ? page_check(g->pages, key, op_checked, op)
                  : page_get(g->pages, key, op_got, op);
  if(e)
    mem_free(op);
  return e;
}
