/* GET /internal/v1/resolve?host=NAME: what the fetcher's own resolver and
 * address guard make of a host, so that an operator (or the gateway) sees
 * exactly what a fetch of that host would see: the same cache (a resolve
 * here fills it for later fetches and the other way round), the same
 * canonical host (IDNA, odd IPv4 spellings), the same guard verdicts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "common/mem.h"
#include "common/url.h"
#include "llfs/svc.h"

#define LLFS_RESOLVE_MAGIC 0x4e50a1c3u

struct llfs_resolve {
  unsigned magic;
  struct llfs_svc   *svc;
  struct api_req    *rq;
  struct dns_waiter *w;
  char               host[URL_HOST_MAX + 1];
};

/* Why a host parameter is refused: field reason plus, when the URL library
 * said so, its error name. */
struct resolve_err {
  const char *reason;
  const char *url_error;
};

static void resolve_free(struct llfs_resolve **rp)
{
  struct llfs_resolve *r = *rp;
  *rp = NULL;
  r->magic = 0;
  mem_free(r);
}

/* ---- the host parameter ------------------------------------------------- */

/* Characters that would make "http://HOST/" mean something else than a
 * bare host (a path, a query, user info), and controls. */
static bool resolve_host_chars_ok(const char *h)
{
  for(const unsigned char *p = (const unsigned char *)h; *p; p++)
    if(*p <= 0x20 || *p == 0x7f || strchr("/?#@\\%", *p))
      return false;
  return true;
}

/* Canonical host into out, the way a fetch of http://HOST/ would see it. */
static int resolve_canon(const char *h, char *out, size_t outlen, struct resolve_err *e)
{
  char url[URL_HOST_MAX + 16];
  char *canon = NULL;
  struct url_parts p;
  size_t n = strlen(h);
  bool bracketed = h[0] == '[';
  if(bracketed && (h[n - 1] != ']' || strchr(h + 1, ']') != h + n - 1)) {
    e->reason = "an IPv6 literal in brackets must be the whole value (no port)";
    return -1;
  }
  /* An unbracketed colon can only be IPv6; a name with ":port" then fails
   * as a bad IPv6 literal, which is what it is here. */
  if(!bracketed && strchr(h, ':'))
    snprintf(url, sizeof url, "http://[%s]/", h);
  else
    snprintf(url, sizeof url, "http://%s/", h);
  url_err ue = url_canon(url, strlen(url), NULL, &canon);
  if(ue == URL_OK)
    ue = url_split(canon, &p);
  if(ue == URL_OK)
    snprintf(out, outlen, "%s", p.host);
  mem_free(canon);
  if(ue != URL_OK) {
    e->reason = url_err_text(ue);
    e->url_error = url_err_name(ue);
    return -1;
  }
  return 0;
}

static int resolve_param(const char *h, char *out, size_t outlen, struct resolve_err *e)
{
  if(!h) {
    e->reason = "required query parameter";
    return -1;
  }
  if(!*h) {
    e->reason = "must not be empty";
    return -1;
  }
  if(strlen(h) > URL_HOST_MAX) {
    e->reason = "longer than 253 bytes";
    return -1;
  }
  if(!resolve_host_chars_ok(h)) {
    e->reason = "not a host name or IP address (no port, path, spaces or controls)";
    return -1;
  }
  return resolve_canon(h, out, outlen, e);
}

static void resolve_bad_param(struct api_req *rq, const struct resolve_err *e)
{
  json_t *ext = json_pack("{s:s, s:s}", "field", "host", "reason", e->reason);
  if(ext && e->url_error)
    json_object_set_new(ext, "url_error", json_string(e->url_error));
  api_problem(rq, 400, "invalid-parameter", "Invalid parameter", ext, "host: %s", e->reason);
}

/* ---- the answer ------------------------------------------------------------ */

static json_t *resolve_addr_json(const struct guard *g, const struct dns_addr *a)
{
  char text[64];
  dns_addr_format(a, text, sizeof text);
  enum guard_verdict v = guard_check(g, a->family, a->b);
  json_t *o = json_pack("{s:s, s:i, s:b}", "address", text, "family",
                        a->family == AF_INET ? 4 : 6, "allowed", v == GUARD_OK);
  if(o && v != GUARD_OK)
    json_object_set_new(o, "blocked_range", json_string(guard_verdict_name(v)));
  return o;
}

static json_t *resolve_json(const struct llfs_resolve *r, const struct dns_result *res)
{
  const struct guard *g = fetcher_guard(r->svc->f);
  json_t *addrs = json_array();
  if(!addrs)
    return NULL;
  json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:o}", "host", r->host, "outcome",
                        outcome_name(res->outcome), "cached", res->cached, "literal",
                        res->literal, "addresses", addrs);
  if(!o)
    return NULL;
  for(size_t i = 0; i < res->naddr; i++)
    json_array_append_new(addrs, resolve_addr_json(g, &res->addr[i]));
  if(res->outcome != OUTCOME_OK)
    json_object_set_new(o, "detail", json_string(outcome_text(res->outcome)));
  if(res->ttl_ms)  /* whole seconds, rounded up: a fresh 300 s answer says 300 */
    json_object_set_new(o, "ttl_s", json_integer((json_int_t)((res->ttl_ms + 999) / 1000)));
  return o;
}

static void resolve_done(const struct dns_result *res, void *arg)
{
  struct llfs_resolve *r = arg;
  if(!r || r->magic != LLFS_RESOLVE_MAGIC)
    abort();
  r->w = NULL;
  struct log_ctx lc = { .req = api_req_id(r->rq), .action = "resolved" };
  LOGC(LOG_DEBUG, &lc, "resolve %s: %s, %zu address(es)%s", r->host,
       outcome_name(res->outcome), res->naddr, res->cached ? ", cached" : "");
  api_reply_json(r->rq, 200, resolve_json(r, res));
  resolve_free(&r);
}

/* The request died first (server stop): the resolver must not call us. */
static void resolve_abort(void *arg)
{
  struct llfs_resolve *r = arg;
  if(!r || r->magic != LLFS_RESOLVE_MAGIC)
    abort();
  dns_cancel(&r->w);
  resolve_free(&r);
}

/* ---- GET /internal/v1/resolve --------------------------------------------- */

static void resolve_refused(struct api_req *rq, enum outcome o)
{
  api_reply_header(rq, "Retry-After", "1");
  if(o == OUTCOME_SHUTTING_DOWN)
    api_reply_header(rq, "Connection", "close");
  if(o == OUTCOME_SHUTTING_DOWN)
    api_problem(rq, 503, "shutting-down", "Fetcher shutting down", NULL,
                "this replica is stopping; retry on another");
  else
    api_problem(rq, 503, "overloaded", "Fetcher overloaded", NULL, "%s", outcome_text(o));
}

void llfs_resolve(struct api_req *rq, void *arg)
{
  struct llfs_svc *svc = arg;
  struct resolve_err e = { 0 };
  char host[URL_HOST_MAX + 1];
  if(resolve_param(api_req_arg(rq, "host"), host, sizeof host, &e)) {
    resolve_bad_param(rq, &e);
    return;
  }
  if(llfs_stopping(svc)) {
    resolve_refused(rq, OUTCOME_SHUTTING_DOWN);
    return;
  }
  struct llfs_resolve *r = mem_calloc(1, sizeof *r);
  if(!r) {
    resolve_refused(rq, OUTCOME_NOMEM);
    return;
  }
  *r = (struct llfs_resolve){ .magic = LLFS_RESOLVE_MAGIC, .svc = svc, .rq = rq };
  memcpy(r->host, host, sizeof host);
  enum outcome o = dns_resolve(fetcher_dns(svc->f), r->host, resolve_done, r, &r->w);
  if(o == OUTCOME_BAD_URL) {
    resolve_free(&r);
    resolve_bad_param(rq, &(struct resolve_err){ .reason = "not a host name the resolver takes" });
    return;
  }
  if(o != OUTCOME_OK) {
    resolve_free(&r);
    resolve_refused(rq, o);
    return;
  }
  api_req_on_abort(rq, resolve_abort, r);
}
