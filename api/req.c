/* What a handler sees of a request, and how it answers. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/problem.h"
#include "api/req_int.h"
#include "api/req_test.h"
#include "common/mem.h"
#include "common/str.h"

#define CHECK_REQ(rq)                                  \
  do {                                                 \
    if(!(rq) || (rq)->magic != API_REQ_MAGIC)          \
      abort();                                         \
  } while(0)

const char *api_req_method(const struct api_req *rq) { return rq->method; }
const char *api_req_id(const struct api_req *rq) { return rq->id; }

void api_req_set_client(struct api_req *rq, const char *client)
{
  str_copy(rq->client, sizeof rq->client, client ? client : "");
}

void api_req_set_work(struct api_req *rq, const char *id)
{
  str_copy(rq->work, sizeof rq->work, id ? id : "");
}

static const char *api_kv_find(const struct api_kv *kv, unsigned n, const char *k, bool icase)
{
  for(unsigned i = 0; i < n; i++)
    if(icase ? !strcasecmp(kv[i].k, k) : !strcmp(kv[i].k, k))
      return kv[i].v;
  return NULL;
}

const char *api_req_header(const struct api_req *rq, const char *name)
{
  return api_kv_find(rq->hdr, rq->nhdr, name, true);
}

const char *api_req_arg(const struct api_req *rq, const char *name)
{
  return api_kv_find(rq->arg, rq->narg, name, false);
}

const char *api_req_param(const struct api_req *rq, unsigned i)
{
  return i < rq->nparam ? rq->param[i] : NULL;
}

const char *api_req_body(const struct api_req *rq, size_t *len)
{
  if(len)
    *len = rq->body.len;
  return rq->body.data ? rq->body.data : "";
}

void api_req_on_abort(struct api_req *rq, void (*fn)(void *), void *arg)
{
  rq->on_abort = fn;
  rq->abort_arg = arg;
}

void api_reply_header(struct api_req *rq, const char *name, const char *value)
{
  CHECK_REQ(rq);
  if(rq->nresp_hdr >= sizeof rq->resp_hdr / sizeof rq->resp_hdr[0])
    return;
  char *k = mem_strdup(name);
  char *v = mem_strdup(value);
  if(!k || !v) {
    mem_free(k);
    mem_free(v);
    return;
  }
  rq->resp_hdr[rq->nresp_hdr].k = k;
  rq->resp_hdr[rq->nresp_hdr++].v = v;
}

void api_reply(struct api_req *rq, unsigned status, const char *ctype, char *body, size_t len)
{
  CHECK_REQ(rq);
  if(rq->st == API_RQ_ANSWERED || rq->st == API_RQ_QUEUED)
    abort();  /* answering twice is a bug in the caller */
  rq->status = status;
  rq->resp_ctype = mem_strdup(ctype);
  rq->resp_body = body;
  rq->resp_len = len;
  rq->on_abort = NULL;
  rq->st = API_RQ_ANSWERED;
  if(rq->srv)
    api_srv_answered(rq->srv, rq);
}

void api_reply_json(struct api_req *rq, unsigned status, json_t *j)
{
  char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  if(!s) {
    static const char oom[] =
      "{\"type\":\"urn:wpfs:problem:internal\",\"title\":\"out of memory\",\"status\":500}";
    char *b = mem_strdup(oom);
    api_reply(rq, 500, "application/problem+json", b, b ? sizeof oom - 1 : 0);
    return;
  }
  /* json_dumps memory comes from malloc; hand over a mem_ copy so that one
   * allocator frees every response body. */
  size_t n = strlen(s);
  char *b = mem_strndup(s, n);
  free(s);
  api_reply(rq, status, "application/json", b, b ? n : 0);
}

void api_problem(struct api_req *rq, unsigned status, const char *type, const char *title,
                 json_t *ext, const char *detail_fmt, ...)
{
  char detail[512];
  va_list ap;
  va_start(ap, detail_fmt);
  vsnprintf(detail, sizeof detail, detail_fmt, ap);
  va_end(ap);
  json_t *j = problem_new(status, type, title, detail, rq->path, ext);
  char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  size_t n = s ? strlen(s) : 0;
  char *b = s ? mem_strndup(s, n) : NULL;
  free(s);
  api_reply(rq, status, "application/problem+json", b, b ? n : 0);
}

void api_req_free(struct api_req *rq)
{
  if(!rq)
    return;
  CHECK_REQ(rq);
  buf_free(&rq->body);
  mem_free(rq->path);
  for(unsigned i = 0; i < rq->nparam; i++)
    mem_free(rq->param[i]);
  for(unsigned i = 0; i < rq->nresp_hdr; i++) {
    mem_free((char *)rq->resp_hdr[i].k);
    mem_free((char *)rq->resp_hdr[i].v);
  }
  mem_free(rq->resp_ctype);
  mem_free(rq->resp_body);
  rq->magic = 0;
  mem_free(rq);
}

/* Test requests: header storage is owned by the request itself. */
struct api_req *api_req_test_new(const char *method, const char *path, const char *body)
{
  struct api_req *rq = mem_calloc(1, sizeof *rq);
  if(!rq)
    return NULL;
  rq->magic = API_REQ_MAGIC;
  rq->st = API_RQ_HANDLING;
  snprintf(rq->method, sizeof rq->method, "%s", method);
  rq->path = mem_strdup(path);
  snprintf(rq->id, sizeof rq->id, "test");
  buf_init(&rq->body, 64 << 20);
  if(body)
    buf_adds(&rq->body, body);
  return rq;
}

void api_req_test_set_header(struct api_req *rq, const char *name, const char *value)
{
  if(rq->nhdr < API_MAX_HEADERS) {
    rq->hdr[rq->nhdr].k = name;   /* test strings are literals */
    rq->hdr[rq->nhdr++].v = value;
  }
}

unsigned api_req_test_status(const struct api_req *rq) { return rq->status; }

void api_req_test_free(struct api_req **rq)
{
  api_req_free(*rq);
  *rq = NULL;
}
