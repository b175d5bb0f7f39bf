/* POST /internal/v1/fetch (GET /internal/v1/resolve is svc_resolve.c). An
 * answer is built once, when the engine calls back, as either the framed
 * representation (one JSON line then the raw body: what the gateway asks
 * for, no base64 on this hop) or JSON with the body in base64 (for people
 * with curl). */
#include "llfs/svc.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"
#include "common/str.h"

#define LLFS_CALL_MAGIC 0x2ca11f00u
#define FRAMED_TYPE "application/x-wpfs-fetch"
#define LLFS_META_KEEP (256u << 10)  /* scratch kept between answers */

struct llfs_call {
  unsigned magic;
  struct llfs_svc  *svc;
  struct api_req   *rq;
  struct fetch_job *job;
  struct llfs_req   in;
  bool              framed;
};

static void call_free(struct llfs_call *c)
{
  atomic_fetch_sub_explicit(&c->svc->calls_live, 1, memory_order_relaxed);
  llfs_req_clear(&c->in);
  c->magic = 0;
  mem_free(c);
}

/* ---- the answer --------------------------------------------------------- */

/* The meta line is written with a sticky error: a failed append leaves the
 * buffer as it was, so going on after one would serve broken JSON. */
struct meta_w {
  struct buf *b;
  cm_err      e;
};

static void mw_add(struct meta_w *w, const char *p, size_t n)
{
  if(!w->e)
    w->e = buf_add(w->b, p, n);
}

static void mw_str(struct meta_w *w, const char *s, size_t n)
{
  if(!w->e)
    w->e = buf_add_json_str(w->b, s, n);
}

/* A member name as the two arguments (text, length) of the mw_ functions:
 * MW_KEY("status") is ",\"status\":" and its length, so a key costs one
 * append, not three. */
#define MW_KEY(name) ",\"" name "\":", sizeof(",\"" name "\":") - 1

/* Numbers without printf: formatting a dozen integers with it cost more
 * than the rest of the answer together (instructions counted under
 * tests/bench/bench_llfs.sh). */
static void mw_num(struct meta_w *w, const char *key, size_t klen, uint64_t v)
{
  char tmp[64];
  char *p = tmp + sizeof tmp;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while(v);
  if(klen > (size_t)(p - tmp)) {
    w->e = CM_INVALID;  /* a key too long for tmp: a bug of this file */
    return;
  }
  p -= klen;
  memcpy(p, key, klen);
  mw_add(w, p, (size_t)(tmp + sizeof tmp - p));
}

static void mw_bool(struct meta_w *w, const char *key, size_t klen, bool v)
{
  mw_add(w, key, klen);
  mw_add(w, v ? "true" : "false", v ? 4 : 5);
}

/* A string known to need no escaping (table names, IP addresses). */
static void mw_word(struct meta_w *w, const char *key, size_t klen, const char *v)
{
  mw_add(w, key, klen);
  mw_add(w, "\"", 1);
  mw_add(w, v, strlen(v));
  mw_add(w, "\"", 1);
}

static void meta_str(struct meta_w *w, const char *key, size_t klen, const char *v)
{
  mw_add(w, key, klen);
  mw_str(w, v, strlen(v));
}

/* "Name: value\n" lines into [["Name","value"],...]. */
static void meta_headers(struct meta_w *w, const struct buf *h)
{
  const char *p = h->data ? h->data : "";
  const char *end = p + h->len;
  bool first = true;
  mw_add(w, ",\"headers\":[", 12);
  while(p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *stop = eol ? eol : end;
    const char *colon = memchr(p, ':', (size_t)(stop - p));
    if(colon) {
      const char *v = colon + 1;
      while(v < stop && (*v == ' ' || *v == '\t'))
        v++;
      if(first)
        mw_add(w, "[", 1);
      else
        mw_add(w, ",[", 2);
      mw_str(w, p, (size_t)(colon - p));
      mw_add(w, ",", 1);
      mw_str(w, v, (size_t)(stop - v));
      mw_add(w, "]", 1);
      first = false;
    }
    p = stop + 1;
  }
  mw_add(w, "]", 1);
}

static void meta_timings(struct meta_w *w, const struct fetch_timings *t)
{
  mw_num(w, MW_KEY("timings_us\":{\"hold"), t->hold_us);
  mw_num(w, MW_KEY("queue"), t->queue_us);
  mw_num(w, MW_KEY("dns"), t->dns_us);
  mw_num(w, MW_KEY("connect"), t->connect_us);
  mw_num(w, MW_KEY("tls"), t->tls_us);
  mw_num(w, MW_KEY("first_byte"), t->first_byte_us);
  mw_num(w, MW_KEY("total"), t->total_us);
  mw_add(w, "}", 1);
}

static cm_err meta_build(struct buf *b, const struct fetch_res *r)
{
  struct meta_w w = { b, CM_OK };
  const char *o = outcome_name(r->outcome);
  mw_add(&w, "{\"outcome\":\"", 12);
  mw_add(&w, o, strlen(o));
  mw_add(&w, "\"", 1);
  if(r->detail && *r->detail)
    meta_str(&w, MW_KEY("detail"), r->detail);
  meta_str(&w, MW_KEY("url"), r->url ? r->url : "");
  if(r->status) {
    mw_num(&w, MW_KEY("status"), (uint64_t)r->status);
    mw_num(&w, MW_KEY("http_version"), (uint64_t)r->http_version);
  }
  if(r->addr[0]) {
    mw_word(&w, MW_KEY("address"), r->addr);
    mw_num(&w, MW_KEY("port"), r->port);
  }
  if(r->outcome == OUTCOME_BLOCKED_ADDRESS)
    mw_word(&w, MW_KEY("blocked_range"), guard_verdict_name(r->blocked));
  meta_headers(&w, &r->headers);
  if(r->redirect)
    meta_str(&w, MW_KEY("redirect"), r->redirect);
  else
    mw_add(&w, ",\"redirect\":null", 16);
  mw_bool(&w, MW_KEY("truncated"), r->truncated);
  mw_num(&w, MW_KEY("body_bytes"), r->body.len);
  mw_num(&w, MW_KEY("downloaded_bytes"), r->bytes_raw);
  mw_bool(&w, MW_KEY("reused_connection"), r->reused);
  meta_timings(&w, &r->t);
  mw_add(&w, "}", 1);
  return w.e;
}

/* Largest meta line r can give: JSON escaping turns a byte into at most 6
 * (\u00XX), and header lines gain at most 6 bytes of brackets, quotes and
 * commas each; the fixed fields take well under 1 KiB. So the cap never
 * refuses a real result, yet still bounds the buffer. */
static size_t meta_cap(const struct fetch_res *r)
{
  size_t var = r->headers.len + (r->url ? strlen(r->url) : 0) +
               (r->detail ? strlen(r->detail) : 0) + (r->redirect ? strlen(r->redirect) : 0);
  return 6 * var + 2048;
}

static char *answer_framed(const struct buf *meta, const struct fetch_res *r, size_t *len)
{
  size_t n = meta->len + 1 + r->body.len;
  char *out = mem_alloc(n);
  if(!out)
    return NULL;
  memcpy(out, meta->data, meta->len);
  out[meta->len] = '\n';
  if(r->body.len)
    memcpy(out + meta->len + 1, r->body.data, r->body.len);
  *len = n;
  return out;
}

static char *answer_json(const struct buf *meta, const struct fetch_res *r, size_t *len)
{
  size_t b64 = 4 * ((r->body.len + 2) / 3);
  size_t n = meta->len - 1 + strlen(",\"body_base64\":\"\"}") + b64;
  char *out = mem_alloc(n + 1);
  if(!out)
    return NULL;
  memcpy(out, meta->data, meta->len - 1);  /* without the closing brace */
  size_t o = meta->len - 1;
  memcpy(out + o, ",\"body_base64\":\"", 16);
  o += 16;
  if(r->body.len)
    EVP_EncodeBlock((unsigned char *)out + o, (const unsigned char *)r->body.data,
                    (int)r->body.len);
  o += b64;
  memcpy(out + o, "\"}", 2);
  *len = o + 2;
  return out;
}

/* The meta line goes into the service's scratch buffer, kept between
 * answers (one at a time: each worker has its own), so a warm service
 * builds an answer with one allocation, the answer itself. */
static void call_reply(struct llfs_call *c, struct fetch_res *r)
{
  struct buf *meta = &c->svc->meta;
  size_t len = 0;
  char *out = NULL;
  char mlen[24];
  buf_reset(meta);
  meta->max = meta_cap(r);
  if(meta_build(meta, r) == CM_OK)
    out = c->framed ? answer_framed(meta, r, &len) : answer_json(meta, r, &len);
  size_t meta_len = meta->len;
  if(meta->cap > LLFS_META_KEEP)
    buf_free(meta);  /* a rare huge head: do not keep its memory */
  if(!out) {
    api_problem(c->rq, 503, "overloaded", "Out of memory", NULL, "answer too large to build");
    return;
  }
  if(c->framed) {
    str_u64(mlen, meta_len);
    api_reply_header(c->rq, "Wpfs-Meta-Length", mlen);
  }
  api_reply(c->rq, 200, c->framed ? FRAMED_TYPE : "application/json", out, len);
}

static void call_done(struct fetch_res *r, void *arg)
{
  struct llfs_call *c = arg;
  if(!c || c->magic != LLFS_CALL_MAGIC)
    abort();
  struct log_ctx lc = { .req = api_req_id(c->rq), .url = r->url, .action = "fetched" };
  LOGC(LOG_DEBUG, &lc, "outcome %s status %ld bytes %zu", outcome_name(r->outcome),
       r->status, r->body.len);
  c->job = NULL;
  call_reply(c, r);
  call_free(c);
}

/* The client's connection died first (only at server stop). */
static void call_abort(void *arg)
{
  struct llfs_call *c = arg;
  fetch_cancel(&c->job);
  call_free(c);
}

/* ---- POST /internal/v1/fetch -------------------------------------------------------- */

static void fetch_refused(struct api_req *rq, enum outcome o)
{
  if(o == OUTCOME_OVERLOADED || o == OUTCOME_NOMEM) {
    api_reply_header(rq, "Retry-After", "1");
    api_problem(rq, 503, "overloaded", "Fetcher overloaded", NULL,
                "too many fetches in flight and queued; retry later");
  } else if(o == OUTCOME_SHUTTING_DOWN) {
    api_reply_header(rq, "Retry-After", "1");
    /* a kept-alive client goes to another replica for its next request */
    api_reply_header(rq, "Connection", "close");
    api_problem(rq, 503, "shutting-down", "Fetcher shutting down", NULL,
                "this replica is stopping; retry on another");
  } else if(o == OUTCOME_BAD_REQUEST) {
    api_problem(rq, 400, "invalid-field", "Invalid request", NULL, "%s", outcome_text(o));
  } else {
    api_problem(rq, 500, "internal", "Fetch refused", NULL, "%s", outcome_text(o));
  }
}

static void decode_failed(struct api_req *rq, const struct llfs_req_err *e)
{
  json_t *ext = json_pack("{s:s, s:s}", "field", e->e.field, "reason", e->e.reason);
  if(e->url_error)
    json_object_set_new(ext, "url_error", json_string(e->url_error));
  api_problem(rq, e->status, e->type, e->status == 422 ? "Invalid field" : "Invalid URL", ext,
              "%s: %s", e->e.field, e->e.reason);
}

static bool wants_framed(struct api_req *rq)
{
  const char *acc = api_req_header(rq, "Accept");
  return acc && strstr(acc, FRAMED_TYPE);
}

static void call_start(struct llfs_svc *svc, struct api_req *rq, struct llfs_call *c)
{
  struct fetch_req fr = {
    .url = c->in.url, .method = c->in.method == LLFS_HEAD ? FETCH_HEAD : FETCH_GET,
    .headers = (const char *const *)c->in.headers, .nheaders = c->in.nheaders,
    .connect_timeout_ms = c->in.connect_timeout_ms, .timeout_ms = c->in.timeout_ms,
    .max_body = c->in.max_body, .max_decoded = c->in.max_decoded,
    .pin_addr = c->in.pin, .req_id = api_req_id(rq), .hold_us = c->in.hold_us,
  };
  enum outcome o = fetch_start(svc->f, &fr, call_done, c, &c->job);
  if(o != OUTCOME_OK) {
    call_free(c);
    fetch_refused(rq, o);
    return;
  }
  api_req_on_abort(rq, call_abort, c);
}

static void h_fetch(struct api_req *rq, void *arg)
{
  struct llfs_svc *svc = arg;
  struct llfs_req_err err;
  json_t *body = jin_body(rq);
  if(!body)
    return;
  struct llfs_call *c = mem_calloc(1, sizeof *c);
  if(!c) {
    json_decref(body);
    fetch_refused(rq, OUTCOME_NOMEM);
    return;
  }
  c->magic = LLFS_CALL_MAGIC;
  c->svc = svc;
  c->rq = rq;
  c->framed = wants_framed(rq);
  atomic_fetch_add_explicit(&svc->calls_live, 1, memory_order_relaxed);
  int rc = llfs_req_decode(body, &svc->lim, &c->in, &err);
  json_decref(body);
  if(rc) {
    call_free(c);
    decode_failed(rq, &err);
    return;
  }
  call_start(svc, rq, c);
}

const struct api_route llfs_routes[] = {
  { "POST", "/internal/v1/fetch", h_fetch, "fetch" },
  { "GET", "/internal/v1/resolve", llfs_resolve, "resolve" },
};
const size_t llfs_nroutes = sizeof llfs_routes / sizeof llfs_routes[0];

int llfs_ready(void *arg, char *why, size_t whylen)
{
  struct llfs_svc *svc = arg;
  if(llfs_stopping(svc)) {
    snprintf(why, whylen, "shutting down");
    return -1;
  }
  return 0;
}
