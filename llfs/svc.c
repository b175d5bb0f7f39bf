/* POST /internal/v1/fetch and GET /internal/v1/resolve. A fetch answer is built once, when
 * the engine calls back, as either the framed representation (one JSON line
 * then the raw body: what the gateway asks for, no base64 on this hop) or
 * JSON with the body in base64 (for people with curl). */
#include "llfs/svc.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"

#define LLFS_CALL_MAGIC 0x2ca11f00u
#define FRAMED_TYPE "application/x-wpfs-fetch"

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
  c->svc->calls_live--;
  llfs_req_clear(&c->in);
  c->magic = 0;
  mem_free(c);
}

/* ---- the answer --------------------------------------------------------- */

static void meta_str(struct buf *b, const char *key, const char *v, size_t n)
{
  buf_addf(b, ",\"%s\":", key);
  buf_add_json_str(b, v, n);
}

/* "Name: value\n" lines into [["Name","value"],...]. */
static void meta_headers(struct buf *b, const struct buf *h)
{
  const char *p = h->data ? h->data : "";
  const char *end = p + h->len;
  bool first = true;
  buf_adds(b, ",\"headers\":[");
  while(p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *colon = memchr(p, ':', (size_t)((eol ? eol : end) - p));
    const char *stop = eol ? eol : end;
    if(colon) {
      const char *v = colon + 1;
      while(v < stop && (*v == ' ' || *v == '\t'))
        v++;
      buf_adds(b, first ? "[" : ",[");
      buf_add_json_str(b, p, (size_t)(colon - p));
      buf_addc(b, ',');
      buf_add_json_str(b, v, (size_t)(stop - v));
      buf_addc(b, ']');
      first = false;
    }
    p = stop + 1;
  }
  buf_addc(b, ']');
}

static void meta_timings(struct buf *b, const struct fetch_timings *t)
{
  buf_addf(b, ",\"timings_us\":{\"queue\":%llu,\"dns\":%llu,\"connect\":%llu,\"tls\":%llu,"
              "\"first_byte\":%llu,\"total\":%llu}",
           (unsigned long long)t->queue_us, (unsigned long long)t->dns_us,
           (unsigned long long)t->connect_us, (unsigned long long)t->tls_us,
           (unsigned long long)t->first_byte_us, (unsigned long long)t->total_us);
}

static cm_err meta_build(struct buf *b, const struct fetch_res *r)
{
  buf_addf(b, "{\"outcome\":\"%s\"", outcome_name(r->outcome));
  if(r->detail && *r->detail)
    meta_str(b, "detail", r->detail, strlen(r->detail));
  meta_str(b, "url", r->url ? r->url : "", r->url ? strlen(r->url) : 0);
  if(r->status)
    buf_addf(b, ",\"status\":%ld,\"http_version\":%d", r->status, r->http_version);
  if(r->addr[0])
    buf_addf(b, ",\"address\":\"%s\",\"port\":%u", r->addr, r->port);
  if(r->outcome == OUTCOME_BLOCKED_ADDRESS)
    buf_addf(b, ",\"blocked_range\":\"%s\"", guard_verdict_name(r->blocked));
  meta_headers(b, &r->headers);
  if(r->redirect)
    meta_str(b, "redirect", r->redirect, strlen(r->redirect));
  else
    buf_adds(b, ",\"redirect\":null");
  buf_addf(b, ",\"truncated\":%s,\"body_bytes\":%zu,\"downloaded_bytes\":%llu,"
              "\"reused_connection\":%s",
           r->truncated ? "true" : "false", r->body.len, (unsigned long long)r->bytes_raw,
           r->reused ? "true" : "false");
  meta_timings(b, &r->t);
  return buf_addc(b, '}');
}

static char *answer_framed(struct buf *meta, const struct fetch_res *r, size_t *len)
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

static char *answer_json(struct buf *meta, const struct fetch_res *r, size_t *len)
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

static void call_reply(struct llfs_call *c, struct fetch_res *r)
{
  struct buf meta;
  size_t len = 0;
  char *out = NULL;
  char mlen[24];
  buf_init(&meta, 2 * r->headers.len + 8192);
  if(meta_build(&meta, r) == CM_OK)
    out = c->framed ? answer_framed(&meta, r, &len) : answer_json(&meta, r, &len);
  if(!out) {
    buf_free(&meta);
    api_problem(c->rq, 503, "overloaded", "Out of memory", NULL, "answer too large to build");
    return;
  }
  if(c->framed) {
    snprintf(mlen, sizeof mlen, "%zu", meta.len);
    api_reply_header(c->rq, "Wpfs-Meta-Length", mlen);
  }
  buf_free(&meta);
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
  if(o == OUTCOME_OVERLOADED || o == OUTCOME_NO_MEMORY) {
    api_reply_header(rq, "Retry-After", "1");
    api_problem(rq, 503, "overloaded", "Fetcher overloaded", NULL,
                "too many fetches in flight and queued; retry later");
  } else if(o == OUTCOME_SHUTTING_DOWN) {
    api_reply_header(rq, "Retry-After", "1");
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
    .pin_addr = c->in.pin, .req_id = api_req_id(rq),
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
    fetch_refused(rq, OUTCOME_NO_MEMORY);
    return;
  }
  c->magic = LLFS_CALL_MAGIC;
  c->svc = svc;
  c->rq = rq;
  c->framed = wants_framed(rq);
  svc->calls_live++;
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
  if(svc->stopping) {
    snprintf(why, whylen, "shutting down");
    return -1;
  }
  return 0;
}
