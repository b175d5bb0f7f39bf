#include "hlfs/fetch/llfs_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/curluv.h"
#include "common/log.h"
#include "common/mem.h"

#define LLFS_JOB_MAGIC 0x11f5c1e7u
#define LLFS_MAX_BASES 16
#define LLFS_MAX_EPS   256   /* fetcher endpoints in all */
#define LLFS_EP_LEN    300   /* "http://[v6 address]:port", or https://host:port */
#define LLFS_TRIES     3     /* fetchers a refused fetch is offered to */
#define LLFS_DOWN_MS   2000  /* a fetcher that refused is skipped this long */
#define LLFS_CONN_LIFE_S 30L /* connections to a fetcher are recycled after */

/* A configured base URL; its host name, when it is one, is resolved again
 * and again, and every address it has is an endpoint of its own (a
 * headless Service lists one address per fetcher pod). */
struct llfs_base {
  char scheme[8], host[256], port[8];
  bool literal;                /* the host is an address: nothing to resolve */
  bool resolving;
  uv_getaddrinfo_t req;
  struct llfs_client *c;
};

/* Over http an endpoint is its address; over https the URL keeps the host
 * name the certificate names, and libcurl connects to the address
 * (CURLOPT_CONNECT_TO "host:port:address:port"). */
struct llfs_ep {
  char     url[LLFS_EP_LEN];   /* scheme://address:port, or https://host:port */
  char     to[LLFS_EP_LEN];    /* "host:port:address:port", or "" */
  unsigned base;
  uint64_t down_until;         /* monotonic ms */
};

struct llfs_client {
  uv_loop_t *loop;
  struct curluv *cu;
  struct llfs_base bases[LLFS_MAX_BASES];
  unsigned nbases;
  struct llfs_ep eps[LLFS_MAX_EPS];
  unsigned neps, next;
  uv_timer_t refresh;
  int open_handles;
  struct llfs_client_cfg cfg;
  unsigned in_flight;
  struct llfs_client_stats st;
};

struct llfs_client_job {
  unsigned magic;
  struct llfs_client *c;
  CURL *easy;
  struct curl_slist *hdrs;
  struct curl_slist *to;  /* CURLOPT_CONNECT_TO of the current try (ep_use) */
  struct buf req;     /* JSON request body */
  struct buf resp;    /* framed answer */
  long meta_len;      /* from Wpfs-Meta-Length, -1 if absent */
  unsigned tries;     /* fetchers offered the fetch so far */
  bool sent;          /* a connection took the request: a fetcher may have
                         fetched, whatever the end (libcurl retries a
                         request whose reused connection died, and that
                         retry's connect error must not read as a refusal) */
  int ep;             /* the endpoint of the current try */
  llfs_client_cb *cb;
  void *arg;
  struct llfs_client_job **owner;  /* cleared when the job ends */
};

/* ---- endpoints ------------------------------------------------------------- */

/* The next endpoint not known to be refusing, in turn (any, if all are). */
static int ep_pick(struct llfs_client *c)
{
  uint64_t now = uv_now(c->loop);
  for(unsigned k = 0; k < c->neps; k++) {
    unsigned i = c->next++ % c->neps;
    if(c->eps[i].down_until <= now)
      return (int)i;
  }
  return (int)(c->next++ % c->neps);
}

static void ep_down(struct llfs_client *c, int i)
{
  if(i >= 0 && (unsigned)i < c->neps)
    c->eps[i].down_until = uv_now(c->loop) + LLFS_DOWN_MS;
}

static void ep_add(struct llfs_client *c, unsigned b, const char *addr, bool v6)
{
  const struct llfs_base *bs = &c->bases[b];
  char url[LLFS_EP_LEN], to[LLFS_EP_LEN] = "";
  bool named = !bs->literal && !strcmp(bs->scheme, "https");
  const char *lb = v6 ? "[" : "", *rb = v6 ? "]" : "";
  if(named) {
    snprintf(url, sizeof url, "https://%s:%s", bs->host, bs->port);
    snprintf(to, sizeof to, "%s:%s:%s%s%s:%s", bs->host, bs->port, lb, addr, rb, bs->port);
  } else {
    snprintf(url, sizeof url, "%s://%s%s%s:%s", bs->scheme, lb, addr, rb, bs->port);
  }
  for(unsigned i = 0; i < c->neps; i++)
    if(!strcmp(c->eps[i].url, url) && !strcmp(c->eps[i].to, to))
      return;
  if(c->neps < LLFS_MAX_EPS)
    c->eps[c->neps++] = (struct llfs_ep){ .base = b };
  snprintf(c->eps[c->neps - 1].url, LLFS_EP_LEN, "%s", url);
  snprintf(c->eps[c->neps - 1].to, LLFS_EP_LEN, "%s", to);
}

/* Point e at endpoint ep, path appended; *to (freed by the caller once the
 * transfer is over: libcurl does not copy it) is the address to connect to
 * over https. The fetchers' CA, when given, is the only one trusted; the
 * fetchers' shared secret goes with every request. */
static int ep_use(const struct llfs_client *c, unsigned ep, CURL *e, const char *path,
                  struct curl_slist **to)
{
  char url[LLFS_EP_LEN + 600];
  snprintf(url, sizeof url, "%s%s", c->eps[ep].url, path);
  curl_easy_setopt(e, CURLOPT_URL, url);
  curl_slist_free_all(*to);
  *to = c->eps[ep].to[0] ? curl_slist_append(NULL, c->eps[ep].to) : NULL;
  if(c->eps[ep].to[0] && !*to)
    return -1;
  curl_easy_setopt(e, CURLOPT_CONNECT_TO, *to);
  if(c->cfg.ca_file && *c->cfg.ca_file)
    curl_easy_setopt(e, CURLOPT_CAINFO, c->cfg.ca_file);
  /* "Authorization: Bearer <secret>", sent with the first request (the
   * only scheme allowed), and to the fetcher's host only */
  if(c->cfg.secret && *c->cfg.secret) {
    curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
    curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, c->cfg.secret);
  }
  return 0;
}

/* Replace base b's endpoints with the addresses of ai (kept when none). */
static void ep_set(struct llfs_client *c, unsigned b, const struct addrinfo *ai)
{
  char addr[INET6_ADDRSTRLEN];
  if(!ai)
    return;
  unsigned k = 0;
  for(unsigned i = 0; i < c->neps; i++)
    if(c->eps[i].base != b)
      c->eps[k++] = c->eps[i];
  c->neps = k;
  for(; ai; ai = ai->ai_next) {
    const void *a = ai->ai_family == AF_INET6
                      ? (const void *)&((const struct sockaddr_in6 *)(const void *)ai->ai_addr)->sin6_addr
                      : (const void *)&((const struct sockaddr_in *)(const void *)ai->ai_addr)->sin_addr;
    if(inet_ntop(ai->ai_family, a, addr, sizeof addr))
      ep_add(c, b, addr, ai->ai_family == AF_INET6);
  }
}

static void base_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *ai)
{
  struct llfs_base *bs = req->data;
  struct llfs_client *c = bs->c;
  bs->resolving = false;
  if(status == 0 && c->cu) {
    unsigned before = c->neps;
    ep_set(c, (unsigned)(bs - c->bases), ai);
    c->st.resolves++;
    if(c->neps != before)
      LOG(LOG_INFO, "fetcher %s: %u endpoint(s) in all", bs->host, c->neps);
  } else if(status) {
    c->st.resolve_errors++;
  }
  uv_freeaddrinfo(ai);
  if(--c->open_handles == 0 && !c->cu)
    free(c);
}

static void base_resolve(struct llfs_client *c, struct llfs_base *bs)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  if(bs->literal || bs->resolving)
    return;
  bs->req.data = bs;
  if(uv_getaddrinfo(c->loop, &bs->req, base_resolved, bs->host, bs->port, &hints) == 0) {
    bs->resolving = true;
    c->open_handles++;
  }
}

static void on_refresh(uv_timer_t *t)
{
  struct llfs_client *c = t->data;
  for(unsigned i = 0; i < c->nbases; i++)
    base_resolve(c, &c->bases[i]);
}

/* "scheme://host[:port][/]" into b; -1 when it is not that. */
static int base_parse(const char *p, size_t n, struct llfs_base *b)
{
  const char *sep = memmem(p, n, "://", 3);
  if(!sep || (size_t)(sep - p) >= sizeof b->scheme)
    return -1;
  memcpy(b->scheme, p, (size_t)(sep - p));
  b->scheme[sep - p] = '\0';
  const char *h = sep + 3, *end = p + n, *hend, *port = NULL;
  while(end > h && end[-1] == '/')
    end--;
  if(*h == '[') {
    hend = memchr(h, ']', (size_t)(end - h));
    if(!hend)
      return -1;
    port = hend + 1 < end && hend[1] == ':' ? hend + 2 : NULL;
    h++;
  } else {
    hend = memchr(h, ':', (size_t)(end - h));
    port = hend ? hend + 1 : NULL;
    hend = hend ? hend : end;
  }
  size_t hl = (size_t)(hend - h), pl = port ? (size_t)(end - port) : 0;
  if(!hl || hl >= sizeof b->host || pl >= sizeof b->port || memchr(h, '/', hl))
    return -1;
  memcpy(b->host, h, hl);
  b->host[hl] = '\0';
  snprintf(b->port, sizeof b->port, "%.*s", (int)pl, port ? port : "");
  if(!pl)
    snprintf(b->port, sizeof b->port, "%s", strcmp(b->scheme, "https") ? "80" : "443");
  unsigned char tmp[16];
  b->literal = inet_pton(AF_INET, b->host, tmp) == 1 || inet_pton(AF_INET6, b->host, tmp) == 1;
  return 0;
}

/* ---- answers ------------------------------------------------------------- */

const char *llfs_answer_header(const struct llfs_answer *a, const char *name)
{
  json_t *hs = a->meta ? json_object_get(a->meta, "headers") : NULL;
  size_t i;
  json_t *pair;
  json_array_foreach(hs, i, pair) {
    const char *n = json_string_value(json_array_get(pair, 0));
    if(n && !strcasecmp(n, name))
      return json_string_value(json_array_get(pair, 1));
  }
  return NULL;
}

static void answer_fail(struct llfs_answer *a, const char *detail)
{
  memset(a, 0, sizeof *a);
  a->outcome = "fetcher_unavailable";
  a->detail = detail;
}

int llfs_answer_parse(const char *p, size_t len, long meta_len, struct llfs_answer *a,
                      json_t **meta)
{
  const char *nl = memchr(p, '\n', len);
  size_t mlen = nl ? (size_t)(nl - p) : len;
  *meta = NULL;
  if(!nl || (meta_len >= 0 && (size_t)meta_len != mlen))
    return -1;
  *meta = json_loadb(p, mlen, 0, NULL);
  if(!*meta || !json_is_string(json_object_get(*meta, "outcome"))) {
    json_decref(*meta);
    *meta = NULL;
    return -1;
  }
  memset(a, 0, sizeof *a);
  a->reached = true;
  a->meta = *meta;
  a->outcome = json_string_value(json_object_get(*meta, "outcome"));
  a->detail = json_string_value(json_object_get(*meta, "detail"));
  a->status = (long)json_integer_value(json_object_get(*meta, "status"));
  a->redirect = json_string_value(json_object_get(*meta, "redirect"));
  a->truncated = json_is_true(json_object_get(*meta, "truncated"));
  a->reused = json_is_true(json_object_get(*meta, "reused_connection"));
  a->downloaded = (uint64_t)json_integer_value(json_object_get(*meta, "downloaded_bytes"));
  a->total_us = (uint64_t)json_integer_value(
    json_object_get(json_object_get(*meta, "timings_us"), "total"));
  a->body = nl + 1;
  a->body_len = len - mlen - 1;
  return 0;
}

/* ---- transfers ------------------------------------------------------------ */

static size_t job_on_body(char *p, size_t sz, size_t n, void *arg)
{
  struct llfs_client_job *j = arg;
  return buf_add(&j->resp, p, sz * n) == CM_OK ? sz * n : 0;
}

static size_t job_on_header(char *p, size_t sz, size_t n, void *arg)
{
  struct llfs_client_job *j = arg;
  static const char name[] = "wpfs-meta-length:";
  if(sz * n > sizeof name && !strncasecmp(p, name, sizeof name - 1))
    j->meta_len = strtol(p + sizeof name - 1, NULL, 10);
  return sz * n;
}

static void job_free(struct llfs_client_job *j)
{
  if(j->owner)
    *j->owner = NULL;
  curl_easy_cleanup(j->easy);
  curl_slist_free_all(j->hdrs);
  curl_slist_free_all(j->to);
  buf_free(&j->req);
  buf_free(&j->resp);
  j->c->in_flight--;
  j->magic = 0;
  mem_free(j);
}

static int job_try(struct llfs_client *c, struct llfs_client_job *j);

/* The fetcher certainly did not fetch: no connection ever took the
 * request, or it answered with something else than a result (503
 * shutting-down or overloaded, 4xx, 500: every fetch it made is answered
 * 200). */
static bool job_refused(const struct llfs_client_job *j, CURLcode rc, long code)
{
  if(rc == CURLE_OK)
    return code != 200;
  return !j->sent && (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST);
}

/* Called once a connection (new or reused) is about to carry the request. */
static int job_on_prereq(void *arg, char *conn_primary_ip, char *conn_local_ip,
                         int conn_primary_port, int conn_local_port)
{
  struct llfs_client_job *j = arg;
  (void)conn_primary_ip;
  (void)conn_local_ip;
  (void)conn_primary_port;
  (void)conn_local_port;
  j->sent = true;
  return CURL_PREREQFUNC_OK;
}

/* Offer a refused fetch to another fetcher; true when it went. */
static bool job_retry(struct llfs_client_job *j)
{
  struct llfs_client *c = j->c;
  ep_down(c, j->ep);
  unsigned most = c->neps < LLFS_TRIES ? c->neps : LLFS_TRIES;
  if(j->tries >= most)
    return false;
  buf_reset(&j->resp);
  j->meta_len = -1;
  if(job_try(c, j))
    return false;
  c->st.retries++;
  return true;
}

static void job_done(CURL *e, CURLcode rc, void *arg)
{
  struct llfs_client_job *j = arg;
  struct llfs_answer a;
  json_t *meta = NULL;
  long code = 0;
  char detail[160];
  if(!j || j->magic != LLFS_JOB_MAGIC)
    abort();
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
  bool refused = job_refused(j, rc, code);
  if(refused && job_retry(j))
    return;
  if(rc != CURLE_OK) {
    snprintf(detail, sizeof detail, "fetcher: %s", curl_easy_strerror(rc));
    answer_fail(&a, detail);
  } else if(code != 200) {
    snprintf(detail, sizeof detail, "fetcher answered %ld", code);
    answer_fail(&a, detail);
  } else if(llfs_answer_parse(j->resp.data ? j->resp.data : "", j->resp.len, j->meta_len, &a,
                               &meta)) {
    answer_fail(&a, "fetcher: malformed answer");
  }
  a.refused = refused && !a.reached;
  if(!a.reached) {
    j->c->st.refused += a.refused;
    j->c->st.lost += !a.refused;
    /* refusals repeat while the fetchers are down: hlfs_fetcher_up and
     * the counters say it once */
    LOG(a.refused ? LOG_DEBUG : LOG_WARN, "%s", a.detail);
  }
  if(j->owner)
    *j->owner = NULL;
  j->owner = NULL;
  j->cb(j->arg, &a);
  json_decref(meta);
  job_free(j);
}

/* The hold counts from the fetcher's receipt of the request, later than
 * now: the request can only leave late. A retry on another fetcher sends
 * the same hold, later still. */
static cm_err job_body(struct buf *b, const struct llfs_client_req *r, uint64_t hold_us)
{
  buf_adds(b, "{\"url\":");
  buf_add_json_str(b, r->url, strlen(r->url));
  if(hold_us)
    buf_addf(b, ",\"hold_us\":%llu", (unsigned long long)hold_us);
  if(r->head)
    buf_adds(b, ",\"method\":\"HEAD\"");
  if(r->pin) {
    buf_adds(b, ",\"pin_address\":");
    buf_add_json_str(b, r->pin, strlen(r->pin));
  }
  if(r->timeout_ms > 0)
    buf_addf(b, ",\"timeout_ms\":%ld", r->timeout_ms);
  if(r->nheaders) {
    buf_adds(b, ",\"headers\":{");
    for(size_t i = 0; i < r->nheaders; i++) {
      const char *h = r->headers[i];
      const char *colon = strchr(h, ':');
      const char *v = colon ? colon + 1 : "";
      while(*v == ' ')
        v++;
      buf_adds(b, i ? "," : "");
      buf_add_json_str(b, h, colon ? (size_t)(colon - h) : strlen(h));
      buf_addc(b, ':');
      buf_add_json_str(b, v, strlen(v));
    }
    buf_addc(b, '}');
  }
  return buf_addc(b, '}');
}

/* Send the fetch to the next endpoint. */
static int job_try(struct llfs_client *c, struct llfs_client_job *j)
{
  j->ep = ep_pick(c);
  j->tries++;
  if(ep_use(c, (unsigned)j->ep, j->easy, "/internal/v1/fetch", &j->to))
    return -1;
  return curluv_add(c->cu, j->easy, job_done, j) ? -1 : 0;
}

static int job_setup(struct llfs_client *c, struct llfs_client_job *j,
                     const struct llfs_client_req *r)
{
  char rid[96];
  uint64_t now = clock_mono_us();
  uint64_t hold = r->not_before_us > now ? r->not_before_us - now : 0;
  if(job_body(&j->req, r, hold) != CM_OK || !(j->easy = curl_easy_init()))
    return -1;
  j->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
  j->hdrs = curl_slist_append(j->hdrs, "Accept: application/x-wpfs-fetch");
  j->hdrs = curl_slist_append(j->hdrs, "Expect:");
  if(r->req_id) {
    snprintf(rid, sizeof rid, "X-Request-Id: %s", r->req_id);
    j->hdrs = curl_slist_append(j->hdrs, rid);
  }
  long tmo = (r->timeout_ms > 0 ? r->timeout_ms : 60000) + c->cfg.slack_ms +
             (long)(hold / 1000) + 1;
  curl_easy_setopt(j->easy, CURLOPT_HTTPHEADER, j->hdrs);
  curl_easy_setopt(j->easy, CURLOPT_MAXLIFETIME_CONN, LLFS_CONN_LIFE_S);
  curl_easy_setopt(j->easy, CURLOPT_POSTFIELDS, j->req.data);
  curl_easy_setopt(j->easy, CURLOPT_POSTFIELDSIZE, (long)j->req.len);
  curl_easy_setopt(j->easy, CURLOPT_WRITEFUNCTION, job_on_body);
  curl_easy_setopt(j->easy, CURLOPT_WRITEDATA, j);
  curl_easy_setopt(j->easy, CURLOPT_HEADERFUNCTION, job_on_header);
  curl_easy_setopt(j->easy, CURLOPT_HEADERDATA, j);
  curl_easy_setopt(j->easy, CURLOPT_PREREQFUNCTION, job_on_prereq);
  curl_easy_setopt(j->easy, CURLOPT_PREREQDATA, j);
  curl_easy_setopt(j->easy, CURLOPT_TIMEOUT_MS, tmo);
  curl_easy_setopt(j->easy, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(j->easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(j->easy, CURLOPT_PROTOCOLS_STR, "http,https");
  return j->hdrs ? 0 : -1;
}

int llfs_client_fetch(struct llfs_client *c, const struct llfs_client_req *r,
                      llfs_client_cb *cb, void *arg, struct llfs_client_job **jobp)
{
  struct llfs_client_job *j = mem_calloc(1, sizeof *j);
  if(!j)
    return -1;
  j->magic = LLFS_JOB_MAGIC;
  j->c = c;
  j->cb = cb;
  j->arg = arg;
  j->meta_len = -1;
  buf_init(&j->req, 64 * 1024 + 2 * strlen(r->url));
  buf_init(&j->resp, c->cfg.max_answer);
  c->in_flight++;
  if(job_setup(c, j, r) || job_try(c, j)) {
    job_free(j);
    return -1;
  }
  j->owner = jobp;
  if(jobp)
    *jobp = j;
  return 0;
}

void llfs_client_cancel(struct llfs_client_job **jobp)
{
  struct llfs_client_job *j = *jobp;
  if(!j)
    return;
  *jobp = NULL;
  j->owner = NULL;
  curluv_remove(j->c->cu, j->easy);
  job_free(j);
}

/* ---- readiness ------------------------------------------------------------ */

struct ping {
  void (*cb)(void *, bool);
  void *arg;
  struct curl_slist *to;
};

static size_t ping_sink(char *p, size_t sz, size_t n, void *arg)
{
  (void)p;
  (void)arg;
  return sz * n;
}

static void ping_done(CURL *e, CURLcode rc, void *arg)
{
  struct ping *p = arg;
  long code = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(e);
  curl_slist_free_all(p->to);
  p->cb(p->arg, rc == CURLE_OK && code == 200);
  mem_free(p);
}

int llfs_client_ping(struct llfs_client *c, void (*cb)(void *arg, bool ok), void *arg)
{
  struct ping *p = mem_calloc(1, sizeof *p);
  CURL *e = curl_easy_init();
  if(!p || !e || ep_use(c, (unsigned)ep_pick(c), e, "/readyz", &p->to)) {
    curl_slist_free_all(p ? p->to : NULL);
    mem_free(p);
    curl_easy_cleanup(e);
    return -1;
  }
  p->cb = cb;
  p->arg = arg;
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, ping_sink);
  if(curluv_add(c->cu, e, ping_done, p)) {
    curl_easy_cleanup(e);
    curl_slist_free_all(p->to);
    mem_free(p);
    return -1;
  }
  return 0;
}

/* ---- resolution ----------------------------------------------------------- */

struct resolve {
  llfs_resolve_cb *cb;
  void *arg;
  struct buf body;
  struct curl_slist *to;
};

static size_t resolve_body(char *p, size_t sz, size_t n, void *arg)
{
  struct resolve *r = arg;
  return buf_add(&r->body, p, sz * n) == CM_OK ? sz * n : 0;
}

static const char *resolve_pick(json_t *j)
{
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(j, "addresses"), i, a) {
    if(json_is_true(json_object_get(a, "allowed")))
      return json_string_value(json_object_get(a, "address"));
  }
  return NULL;
}

static void resolve_done(CURL *e, CURLcode rc, void *arg)
{
  struct resolve *r = arg;
  long code = 0;
  json_t *j = NULL;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(e);
  curl_slist_free_all(r->to);
  if(rc == CURLE_OK && code == 200)
    j = json_loadb(r->body.data ? r->body.data : "", r->body.len, 0, NULL);
  r->cb(r->arg, j ? resolve_pick(j) : NULL);
  json_decref(j);
  buf_free(&r->body);
  mem_free(r);
}

int llfs_client_resolve(struct llfs_client *c, const char *host, llfs_resolve_cb *cb, void *arg)
{
  char path[600];
  struct resolve *r = mem_calloc(1, sizeof *r);
  CURL *e = curl_easy_init();
  char *q = e ? curl_easy_escape(e, host, 0) : NULL;
  if(q)
    snprintf(path, sizeof path, "/internal/v1/resolve?host=%s", q);
  if(!r || !q || ep_use(c, (unsigned)ep_pick(c), e, path, &r->to)) {
    curl_slist_free_all(r ? r->to : NULL);
    mem_free(r);
    curl_free(q);
    curl_easy_cleanup(e);
    return -1;
  }
  curl_free(q);
  r->cb = cb;
  r->arg = arg;
  buf_init(&r->body, 64 * 1024);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 15000L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, resolve_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
  if(curluv_add(c->cu, e, resolve_done, r)) {
    curl_easy_cleanup(e);
    buf_free(&r->body);
    curl_slist_free_all(r->to);
    mem_free(r);
    return -1;
  }
  return 0;
}

/* ---- life ------------------------------------------------------------------- */

struct llfs_client *llfs_client_new(uv_loop_t *loop, const struct llfs_client_cfg *cfg)
{
  struct llfs_client *c = xalloc(sizeof *c);
  memset(c, 0, sizeof *c);
  c->loop = loop;
  c->cfg = *cfg;
  c->cu = curluv_new(loop);
  for(const char *p = cfg->base_urls ? cfg->base_urls : ""; *p && c->nbases < LLFS_MAX_BASES;) {
    size_t n = strcspn(p, ",");
    struct llfs_base *b = &c->bases[c->nbases];
    if(n && base_parse(p, n, b) == 0) {
      b->c = c;
      ep_add(c, c->nbases, b->host, strchr(b->host, ':') != NULL);
      c->nbases++;
    } else if(n) {
      LOG(LOG_ERROR, "llfs: \"%.*s\" is not scheme://host[:port]", (int)n, p);
      c->nbases = 0;
      break;
    }
    p += n + (p[n] == ',');
  }
  uv_timer_init(loop, &c->refresh);
  c->refresh.data = c;
  c->open_handles = 1;
  if(!c->cu || !c->nbases) {
    llfs_client_free(&c);
    return NULL;
  }
  CURLM *m = curluv_multi(c->cu);
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, cfg->max_conns);
  curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, cfg->max_conns);
  uv_timer_start(&c->refresh, on_refresh, 0, cfg->refresh_ms ? cfg->refresh_ms : 5000);
  return c;
}

const struct llfs_client_stats *llfs_client_stats(const struct llfs_client *c)
{
  ((struct llfs_client *)(uintptr_t)c)->st.endpoints = c->neps;
  return &c->st;
}

static void client_closed(uv_handle_t *h)
{
  struct llfs_client *c = h->data;
  if(--c->open_handles == 0)
    free(c);
}

void llfs_client_free(struct llfs_client **cp)
{
  struct llfs_client *c = *cp;
  if(!c)
    return;
  *cp = NULL;
  curluv_free(&c->cu);  /* in-flight jobs' owners must have cancelled them */
  for(unsigned i = 0; i < c->nbases; i++)
    if(c->bases[i].resolving)
      uv_cancel((uv_req_t *)&c->bases[i].req);  /* its callback frees last */
  uv_timer_stop(&c->refresh);
  uv_close((uv_handle_t *)&c->refresh, client_closed);
}
