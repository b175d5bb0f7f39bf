/* libmicrohttpd on the libuv loop. MHD runs without threads in epoll mode:
 * its epoll fd is watched by a uv_poll, its timeout by a uv_timer, and every
 * wake-up calls MHD_run once. Requests whose handler answers later are
 * suspended (MHD_suspend_connection) and resumed by api_reply. A server
 * either listens itself or is a member of a group (group.c), which
 * accepts for it on another thread. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <strings.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/metrics.h"
#include "api/req_int.h"
#include "api/route.h"
#include "api/srv_int.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/str.h"

#define API_SRV_MAGIC 0x1f0c2b9du

struct api_srv {
  unsigned magic;
  uv_loop_t *loop;
  struct MHD_Daemon *d;
  uv_poll_t poll;
  uv_timer_t timer;
  struct api_srv_cfg cfg;
  int port;
  int listen_fd;             /* -1: not listening (quiesced, or a member) */
  uint64_t id_base;
  uint64_t id_seq;
  struct srv_counters own;   /* a server on its own */
  struct srv_counters *ctr;  /* &own, or the group's slot of a member */
  struct api_srv_group *group;
  unsigned member;
  bool conn_started;         /* MHD said STARTED inside MHD_add_connection */
  bool peer_gone;            /* MHD just said a client left mid-request */
  int handles_open;
  struct door door;          /* its connections (api/door.h) */
  struct door_addrs *own_addrs;   /* a server on its own; a member uses its group's */
  uv_timer_t sweep;          /* the head deadlines */
  unsigned nlinger;          /* connections lingering (srv_linger.c) */
};


/* ---- counters ---------------------------------------------------------- */

void srv_counters_init(struct srv_counters *c, size_t nroutes)
{
  pthread_mutex_init(&c->mu, NULL);
  c->nroutes = nroutes;
  c->rs = xalloc((nroutes + 1) * sizeof *c->rs);
  c->pending = 0;
  memset(c->door, 0, sizeof c->door);
  c->abandoned = c->malformed = 0;
}

void srv_counters_fini(struct srv_counters *c)
{
  pthread_mutex_destroy(&c->mu);
  free(c->rs);
  c->rs = NULL;
}

void srv_counters_add(struct srv_counters *into, struct srv_counters *from)
{
  pthread_mutex_lock(&from->mu);
  for(size_t i = 0; i <= into->nroutes && i <= from->nroutes; i++) {
    for(int c = 0; c < 6; c++)
      into->rs[i].by_class[c] += from->rs[i].by_class[c];
    metrics_lat_merge(&into->rs[i].lat, &from->rs[i].lat);
  }
  into->pending += from->pending;
  for(int r = 0; r < DOOR__COUNT; r++)
    into->door[r] += from->door[r];
  into->abandoned += from->abandoned;
  into->malformed += from->malformed;
  pthread_mutex_unlock(&from->mu);
}

void srv_counters_door(struct srv_counters *c, enum door_reason why)
{
  pthread_mutex_lock(&c->mu);
  c->door[why]++;
  pthread_mutex_unlock(&c->mu);
}

/* What the door closed since last time, into the shared counters. */
static void srv_door_flush(struct api_srv *s)
{
  pthread_mutex_lock(&s->ctr->mu);
  for(int r = 0; r < DOOR__COUNT; r++) {
    s->ctr->door[r] += s->door.closed[r];
    s->door.closed[r] = 0;
  }
  pthread_mutex_unlock(&s->ctr->mu);
}

static void srv_pending_add(struct api_srv *s, int d)
{
  pthread_mutex_lock(&s->ctr->mu);
  s->ctr->pending += (size_t)d;
  pthread_mutex_unlock(&s->ctr->mu);
}

static void srv_run(struct api_srv *s);
static void srv_on_timer(uv_timer_t *t);

/* ---- answering ------------------------------------------------------- */

static void srv_count(struct api_srv *s, struct api_req *rq)
{
  size_t i = rq->route >= 0 ? (size_t)rq->route : s->cfg.nroutes;
  unsigned cls = rq->status / 100;
  uint64_t us = clock_mono_us() - rq->t_start_us;
  pthread_mutex_lock(&s->ctr->mu);
  s->ctr->rs[i].by_class[cls < 6 ? cls : 0]++;
  metrics_lat_add(&s->ctr->rs[i].lat, us);
  pthread_mutex_unlock(&s->ctr->mu);
}

/* One line per request, as every HTTP service writes: probes and scrapes
 * only at debug, so that a kubelet does not fill the log. */
static void srv_access_log(const struct api_req *rq, unsigned status)
{
  bool probe = rq->route < 0 && (!strcmp(rq->path, "/healthz") ||
                                 !strcmp(rq->path, "/readyz") || !strcmp(rq->path, "/metrics"));
  enum log_level lvl = probe && status < 500 ? LOG_DEBUG : LOG_INFO;
  if(lvl < log_level)
    return;
  struct log_ctx c = { .req = rq->id, .client = rq->client[0] ? rq->client : NULL,
                       .method = rq->method, .path = rq->path, .status = status,
                       .work = rq->work[0] ? rq->work : NULL,
                       .ms = (double)(clock_mono_us() - rq->t_start_us) / 1000.0 };
  log_emit(lvl, &c, "request");
}

static void srv_free_body(void *p) { mem_free(p); }

/* Hand the stored answer to MHD. */
static enum MHD_Result srv_queue(struct api_srv *s, struct api_req *rq)
{
  struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(
    rq->resp_len, rq->resp_body, srv_free_body);
  if(!r)
    return MHD_NO;
  rq->resp_body = NULL;
  MHD_add_response_header(r, "Content-Type", rq->resp_ctype ? rq->resp_ctype : "text/plain");
  MHD_add_response_header(r, "X-Request-Id", rq->id);
  for(unsigned i = 0; i < rq->nresp_hdr; i++)
    MHD_add_response_header(r, rq->resp_hdr[i].k, rq->resp_hdr[i].v);
  enum MHD_Result ret = MHD_queue_response(rq->conn, rq->status, r);
  MHD_destroy_response(r);
  rq->st = API_RQ_QUEUED;
  srv_count(s, rq);
  srv_access_log(rq, rq->status);
  return ret;
}

/* Called by api_reply. Inside the access handler the handler's caller will
 * queue; later, the connection is resumed and MHD calls us again. */
void api_srv_answered(struct api_srv *s, struct api_req *rq)
{
  if(!rq->suspended)
    return;
  rq->suspended = false;
  srv_pending_add(s, -1);
  MHD_resume_connection(rq->conn);
  uv_timer_start(&s->timer, srv_on_timer, 0, 0);
}

/* ---- built-in routes -------------------------------------------------- */

static void srv_healthz(struct api_req *rq)
{
  api_reply_json(rq, 200, json_pack("{s:s}", "status", "ok"));
}

static void srv_readyz(struct api_srv *s, struct api_req *rq)
{
  char why[256] = "";
  if(s->cfg.ready && s->cfg.ready(s->cfg.arg, why, sizeof why)) {
    api_problem(rq, 503, "not-ready", "Service not ready", NULL, "%s", why);
    return;
  }
  api_reply_json(rq, 200, json_pack("{s:s}", "status", "ready"));
}

static void srv_metrics_http(struct api_srv *s, struct buf *b, const struct srv_counters *c)
{
  static const char *cls[] = { "other", "1xx", "2xx", "3xx", "4xx", "5xx" };
  char name[128];
  char lb[160];
  snprintf(name, sizeof name, "%s_http_requests_total", s->cfg.service);
  metrics_family(b, name, "counter", "HTTP requests answered, by route and status class.");
  for(size_t i = 0; i <= s->cfg.nroutes; i++)
    for(int k = 0; k < 6; k++)
      if(c->rs[i].by_class[k]) {
        snprintf(lb, sizeof lb, "route=\"%s\",code=\"%s\"",
                 i < s->cfg.nroutes ? s->cfg.routes[i].name : "builtin", cls[k]);
        metrics_sample_u(b, name, lb, c->rs[i].by_class[k]);
      }
  snprintf(name, sizeof name, "%s_http_request_duration_seconds", s->cfg.service);
  metrics_family(b, name, "histogram", "Time from request arrival to answer, by route.");
  for(size_t i = 0; i <= s->cfg.nroutes; i++) {
    snprintf(lb, sizeof lb, "route=\"%s\"",
             i < s->cfg.nroutes ? s->cfg.routes[i].name : "builtin");
    metrics_lat_write(b, name, lb, &c->rs[i].lat);
  }
}

/* How a group's connections are spread over its members. */
static void srv_metrics_conns(struct api_srv *s, struct buf *b)
{
  char name[128], lb[32];
  snprintf(name, sizeof name, "%s_http_connections", s->cfg.service);
  metrics_family(b, name, "gauge", "Open client connections, by HTTP thread.");
  for(unsigned i = 0; i < group_members(s->group); i++) {
    snprintf(lb, sizeof lb, "thread=\"%u\"", i);
    metrics_sample_u(b, name, lb, (uint64_t)group_conns(s->group, i));
  }
}

/* What the front door turned away, and what clients left half-done: a
 * counter each rather than a log line each (those are the clients'
 * doing, and would drown the server's own errors). */
static void srv_metrics_door(struct api_srv *s, struct buf *b, const struct srv_counters *c)
{
  char name[128], lb[64];
  snprintf(name, sizeof name, "%s_http_connections_closed_total", s->cfg.service);
  metrics_family(b, name, "counter",
                 "Connections the server refused or closed to keep its connections for "
                 "keyed clients, by reason.");
  for(int r = 0; r < DOOR__COUNT; r++) {
    snprintf(lb, sizeof lb, "reason=\"%s\"", door_reason_name((enum door_reason)r));
    metrics_sample_u(b, name, lb, c->door[r]);
  }
  snprintf(name, sizeof name, "%s_http_connections_abandoned_total", s->cfg.service);
  metrics_family(b, name, "counter",
                 "Connections the client closed (or let time out) in the middle of a request.");
  metrics_sample_u(b, name, "", c->abandoned);
  snprintf(name, sizeof name, "%s_http_requests_malformed_total", s->cfg.service);
  metrics_family(b, name, "counter",
                 "Requests refused as malformed HTTP before they reached a route (400).");
  metrics_sample_u(b, name, "", c->malformed);
  snprintf(name, sizeof name, "%s_http_buffered_bytes", s->cfg.service);
  metrics_family(b, name, "gauge", "Request body bytes held by requests under way.");
  metrics_sample_u(b, name, "", srv_buffered_bytes());
}

/* The HTTP families count every member of a group: a scrape lands on one
 * member, and must see the whole process. */
static void srv_metrics(struct api_srv *s, struct api_req *rq)
{
  struct buf b;
  struct srv_counters all;
  char name[128];
  srv_counters_init(&all, s->cfg.nroutes);
  if(s->group)
    group_sum(s->group, &all);
  else
    srv_counters_add(&all, s->ctr);
  buf_init(&b, 8 << 20);
  srv_metrics_http(s, &b, &all);
  snprintf(name, sizeof name, "%s_http_requests_pending", s->cfg.service);
  metrics_family(&b, name, "gauge", "Requests accepted and not yet answered.");
  metrics_sample_u(&b, name, "", all.pending);
  srv_metrics_door(s, &b, &all);
  srv_counters_fini(&all);
  if(s->group)
    srv_metrics_conns(s, &b);
  if(s->cfg.metrics)
    s->cfg.metrics(&b, s->cfg.arg);
  size_t len;
  char *body = buf_steal(&b, &len);
  api_reply(rq, 200, "text/plain; version=0.0.4", body, body ? len : 0);
}

static bool srv_builtin(struct api_srv *s, struct api_req *rq)
{
  bool known = !strcmp(rq->path, "/healthz") || !strcmp(rq->path, "/readyz") ||
               !strcmp(rq->path, "/metrics");
  if(known && strcmp(rq->method, "GET")) {
    api_reply_header(rq, "Allow", "GET");
    api_problem(rq, 405, "method-not-allowed", "Method not allowed", NULL,
                "%s is not allowed on this path; allowed: GET", rq->method);
    return true;
  }
  if(!known)
    return false;
  if(!strcmp(rq->path, "/healthz"))
    srv_healthz(rq);
  else if(!strcmp(rq->path, "/readyz"))
    srv_readyz(s, rq);
  else if(!strcmp(rq->path, "/metrics"))
    srv_metrics(s, rq);
  else
    return false;
  return true;
}

/* ---- the head ---------------------------------------------------------- */

static enum MHD_Result srv_collect(void *cls, enum MHD_ValueKind kind, const char *k,
                                   const char *v)
{
  struct api_req *rq = cls;
  if(kind == MHD_HEADER_KIND && rq->nhdr < API_MAX_HEADERS) {
    rq->hdr[rq->nhdr].k = k;
    rq->hdr[rq->nhdr++].v = v ? v : "";
  } else if(kind == MHD_GET_ARGUMENT_KIND && rq->narg < API_MAX_ARGS) {
    rq->arg[rq->narg].k = k;
    rq->arg[rq->narg++].v = v ? v : "";
  }
  return MHD_YES;
}

/* The route of rq, or an answer (404, 405, 503) and false. */
static bool srv_route_find(struct api_srv *s, struct api_req *rq, size_t *idx)
{
  char allow[128];
  enum route_rc rc = route_match(s->cfg.routes, s->cfg.nroutes, rq->method, rq->path, idx,
                                 rq->param, API_MAX_PARAMS, &rq->nparam, allow, sizeof allow);
  switch(rc) {
  case ROUTE_FOUND:
    return true;
  case ROUTE_BAD_METHOD:
    api_reply_header(rq, "Allow", allow);
    api_problem(rq, 405, "method-not-allowed", "Method not allowed", NULL,
                "%s is not allowed on this path; allowed: %s", rq->method, allow);
    return false;
  case ROUTE_NOMEM:
    api_problem(rq, 503, "overloaded", "Out of memory", NULL, "try again later");
    return false;
  default:
    api_problem(rq, 404, "not-found", "No such route", NULL, "no route for %s %s",
                rq->method, rq->path);
    return false;
  }
}

static struct door_conn *srv_door_conn(struct MHD_Connection *conn)
{
  const union MHD_ConnectionInfo *ci =
    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return ci ? ci->socket_context : NULL;
}

/* The request showed a valid key: its connection leaves the door's watch
 * and gets the keyed clients' idle timeout. */
static void srv_authed(struct api_srv *s, struct api_req *rq)
{
  struct door_conn *dc = srv_door_conn(rq->conn);
  if(!dc || dc->authed)
    return;
  door_authed(&s->door, dc);
  if(s->cfg.conn_timeout_s != s->cfg.idle_timeout_s)
    MHD_set_connection_option(rq->conn, MHD_CONNECTION_OPTION_TIMEOUT,
                              (unsigned)s->cfg.conn_timeout_s);
}

/* The head is complete. Whatever needs no body is answered now; only an
 * authorized route's body is read, and only within the limits. false:
 * rq is answered. */
static bool srv_head(struct api_srv *s, struct api_req *rq)
{
  size_t idx;
  rq->st = API_RQ_HANDLING;
  MHD_get_connection_values(rq->conn, MHD_HEADER_KIND | MHD_GET_ARGUMENT_KIND, srv_collect, rq);
  if(srv_framing_bad(rq) || srv_builtin(s, rq) || !srv_route_find(s, rq, &idx))
    return false;
  rq->route = (int)idx;
  if(s->cfg.authorize && !s->cfg.authorize(rq, &s->cfg.routes[idx], s->cfg.arg)) {
    if(rq->st != API_RQ_ANSWERED)   /* a hook must answer what it refuses */
      api_problem(rq, 401, "unauthorized", "Unauthorized", NULL, "no valid key");
    return false;
  }
  srv_authed(s, rq);
  const char *cl = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Content-Length");
  unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
  if(announced > s->cfg.max_body) {
    api_problem(rq, 413, "body-too-large", "Request body too large", NULL,
                "the body is over the limit of %zu bytes", s->cfg.max_body);
    return false;
  }
  if(!srv_reserve(rq, (size_t)announced, s->cfg.body_budget)) {
    srv_over_budget(rq, s->cfg.body_budget);
    return false;
  }
  rq->st = API_RQ_READING;
  return true;
}

/* A piece of an authorized request's body. Past a limit the body is
 * dropped (the rest is read and thrown away) and the answer says why. */
static void srv_body(struct api_srv *s, struct api_req *rq, const char *p, size_t n)
{
  if(rq->too_large || rq->over_budget)
    return;
  size_t need = rq->body.len + n;
  if(need > rq->reserved && !srv_reserve(rq, need - rq->reserved, s->cfg.body_budget))
    rq->over_budget = true;
  else if(buf_add(&rq->body, p, n) != CM_OK)
    rq->too_large = true;
  else
    return;
  buf_free(&rq->body);
  srv_release(rq);
}

/* The whole body is in. */
static void srv_dispatch(struct api_srv *s, struct api_req *rq)
{
  rq->st = API_RQ_HANDLING;
  if(rq->too_large)
    api_problem(rq, 413, "body-too-large", "Request body too large", NULL,
                "the body is over the limit of %zu bytes", s->cfg.max_body);
  else if(rq->over_budget)
    srv_over_budget(rq, s->cfg.body_budget);
  else
    s->cfg.routes[rq->route].fn(rq, s->cfg.arg);
}

static void srv_req_id(struct api_srv *s, struct api_req *rq)
{
  const char *h = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "X-Request-Id");
  size_t n = h ? strlen(h) : 0;
  if(n > 0 && n < sizeof rq->id && strspn(h, "abcdefghijklmnopqrstuvwxyz"
                                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == n) {
    memcpy(rq->id, h, n + 1);
    return;
  }
  str_hex64(rq->id, s->id_base + ++s->id_seq);
}

static struct api_req *srv_req_new(struct api_srv *s, struct MHD_Connection *conn,
                                   const char *url, const char *method)
{
  struct api_req *rq = mem_calloc(1, sizeof *rq);
  if(!rq)
    return NULL;
  rq->magic = API_REQ_MAGIC;
  rq->srv = s;
  rq->conn = conn;
  rq->route = -1;
  rq->t_start_us = clock_mono_us();
  str_copy(rq->method, sizeof rq->method, method);
  rq->path = mem_strdup(url);
  buf_init(&rq->body, s->cfg.max_body);
  if(!rq->path) {
    api_req_free(rq);
    return NULL;
  }
  srv_req_id(s, rq);
  return rq;
}

/* After the handler ran (or on resumption): queue, or suspend and wait. */
static enum MHD_Result srv_after_handler(struct api_srv *s, struct api_req *rq)
{
  if(rq->st == API_RQ_ANSWERED)
    return srv_queue(s, rq);
  rq->suspended = true;
  srv_pending_add(s, 1);
  MHD_suspend_connection(rq->conn);
  return MHD_YES;
}

static enum MHD_Result srv_access(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **con_cls)
{
  struct api_srv *s = cls;
  struct api_req *rq = *con_cls;
  (void)version;
  if(!rq) {
    if(!(rq = srv_req_new(s, conn, url, method)))
      return MHD_NO;
    *con_cls = rq;
    struct door_conn *dc = srv_door_conn(conn);
    if(dc)
      door_busy(dc, true, clock_mono_us() / 1000);
    if(srv_head(s, rq) || !srv_has_body(conn))
      return MHD_YES;   /* without a body, MHD calls again at once: answered then */
    /* Answered before its body: MHD closes the connection after the
     * answer, without reading the body; it lingers (srv_linger.c). */
    if(dc)
      dc->linger = true;
    return srv_after_handler(s, rq);
  }
  if(*upload_size) {
    if(rq->st == API_RQ_READING)
      srv_body(s, rq, upload, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  if(rq->st == API_RQ_READING) {
    srv_dispatch(s, rq);
    return srv_after_handler(s, rq);
  }
  if(rq->st == API_RQ_ANSWERED)
    return srv_queue(s, rq);
  return MHD_YES;
}

static void srv_abandoned(struct api_srv *s)
{
  pthread_mutex_lock(&s->ctr->mu);
  s->ctr->abandoned++;
  pthread_mutex_unlock(&s->ctr->mu);
}

static void srv_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                          enum MHD_RequestTerminationCode toe)
{
  struct api_srv *s = cls;
  struct api_req *rq = *con_cls;
  struct door_conn *dc = srv_door_conn(conn);
  if(dc)
    door_busy(dc, false, clock_mono_us() / 1000);
  if(!rq)
    return;
  /* MHD says nothing of a timeout: a body that stopped coming */
  if(rq->st == API_RQ_READING && toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
    srv_abandoned(s);
  if(rq->st == API_RQ_HANDLING) {  /* died before its answer */
    srv_access_log(rq, 499);
    if(rq->suspended)
      srv_pending_add(s, -1);
    if(rq->on_abort)
      rq->on_abort(rq->abort_arg);
  }
  *con_cls = NULL;
  srv_release(rq);
  api_req_free(rq);
}

/* ---- loop glue -------------------------------------------------------- */

static void srv_arm_timer(struct api_srv *s)
{
  MHD_UNSIGNED_LONG_LONG ms;
  if(MHD_get_timeout(s->d, &ms) == MHD_YES)
    uv_timer_start(&s->timer, srv_on_timer, ms > 60000 ? 60000 : ms, 0);
  else
    uv_timer_start(&s->timer, srv_on_timer, 1000, 0);
}

static void srv_run(struct api_srv *s)
{
  MHD_run(s->d);
  srv_arm_timer(s);
}

static void srv_on_poll(uv_poll_t *p, int status, int events)
{
  (void)status;
  (void)events;
  srv_run(p->data);
}

static void srv_on_timer(uv_timer_t *t) { srv_run(t->data); }

static void srv_mhd_log(void *cls, const char *fmt, va_list ap)
{
  struct api_srv *s = cls;
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  msg[strcspn(msg, "\n")] = '\0';
  switch(srv_mhd_kind(msg)) {
  case SRV_MHD_PEER_GONE:
    s->peer_gone = true;   /* counted as the connection closes, next */
    break;
  case SRV_MHD_MALFORMED:
    pthread_mutex_lock(&s->ctr->mu);
    s->ctr->malformed++;
    pthread_mutex_unlock(&s->ctr->mu);
    break;
  case SRV_MHD_FULL:
    srv_counters_door(s->ctr, DOOR_CONN_LIMIT);
    break;
  case SRV_MHD_DETAIL:
    break;
  default:
    LOG(LOG_WARN, "http server: %s", msg);
    return;
  }
  LOG(LOG_DEBUG, "http server: %s", msg);
}

int srv_listen(const char *addr, long port, int *fd_out, int *port_out)
{
  struct sockaddr_storage ss = { 0 };
  struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
  socklen_t len;
  if(inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    len = sizeof *v4;
  } else if(inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    len = sizeof *v6;
  } else {
    return EINVAL;
  }
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if(fd < 0)
    return errno;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if(bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 1024) ||
     getsockname(fd, (struct sockaddr *)&ss, &len)) {
    int e = errno;
    close(fd);
    return e;
  }
  *fd_out = fd;
  *port_out = ntohs(ss.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
  return 0;
}

/* A connection starts: the door watches it until it shows a key. A
 * member's connection was counted for its address by the group as it
 * accepted it; a server on its own counts it here (srv_apc checked). */
static void srv_door_open(struct api_srv *s, struct MHD_Connection *conn, void **socket_ctx)
{
  const union MHD_ConnectionInfo *fd =
    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  const union MHD_ConnectionInfo *ad =
    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  struct door_conn *dc = xalloc(sizeof *dc);
  dc->fd = fd ? fd->connect_fd : -1;
  if(ad && ad->client_addr)
    memcpy(&dc->sa, ad->client_addr, ad->client_addr->sa_family == AF_INET6
                                       ? sizeof(struct sockaddr_in6)
                                       : sizeof(struct sockaddr_in));
  dc->holds_addr = s->group || door_addrs_take(s->door.addrs, (struct sockaddr *)&dc->sa, 0);
  *socket_ctx = dc;
  if(door_open(&s->door, dc, clock_mono_us() / 1000))
    srv_door_flush(s);
}

static void srv_door_close(struct api_srv *s, struct door_conn *dc)
{
  if(s->peer_gone) {   /* MHD said so just before closing it */
    s->peer_gone = false;
    if(!dc || !dc->forced)
      srv_abandoned(s);
  }
  if(dc) {
    if(dc->linger && !dc->forced)
      srv_linger(s->loop, dc->fd, &s->nlinger);
    door_closed(&s->door, dc);
    free(dc);
  }
}

/* MHD must tell when a connection ends: the door's count, and the
 * group's count of live connections, stay exact. */
static void srv_conn_notify(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                            enum MHD_ConnectionNotificationCode code)
{
  struct api_srv *s = cls;
  if(code == MHD_CONNECTION_NOTIFY_STARTED) {
    s->conn_started = true;
    srv_door_open(s, conn, socket_ctx);
  } else if(code == MHD_CONNECTION_NOTIFY_CLOSED) {
    srv_door_close(s, *socket_ctx);
    *socket_ctx = NULL;
    if(s->group)
      group_conn_closed(s->group, s->member);
  }
}

/* A server on its own: refuse at accept a connection from an address
 * that holds its share of unauthenticated ones already. */
static enum MHD_Result srv_apc(void *cls, const struct sockaddr *sa, socklen_t len)
{
  struct api_srv *s = cls;
  (void)len;
  if(s->cfg.max_conns_per_addr <= 0 ||
     door_addrs_count(s->door.addrs, sa) < s->cfg.max_conns_per_addr)
    return MHD_YES;
  srv_counters_door(s->ctr, DOOR_ADDR_LIMIT);
  return MHD_NO;
}

static void srv_on_sweep(uv_timer_t *t)
{
  struct api_srv *s = t->data;
  if(door_sweep(&s->door, clock_mono_us() / 1000))
    srv_door_flush(s);
}

static int srv_hexval(char c)
{
  return c >= '0' && c <= '9' ? c - '0'
       : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10
                              : -1;
}

/* Percent-decoding of the path and the query arguments, in place. A %00
 * stays encoded: a NUL would end the C string there, and `url=http://a/%00x`
 * or `wait_ms=%00` would silently become another value ("http://a/", "")
 * instead of the one sent, which then is refused or kept as it was sent. */
static size_t srv_unescape(void *cls, struct MHD_Connection *c, char *v)
{
  (void)cls;
  (void)c;
  char *w = v;
  for(const char *r = v; *r;) {
    int hi = r[0] == '%' ? srv_hexval(r[1]) : -1;
    int lo = hi >= 0 ? srv_hexval(r[2]) : -1;
    if(lo >= 0 && (hi | lo)) {
      *w++ = (char)(hi << 4 | lo);
      r += 3;
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
  return (size_t)(w - v);
}

static int srv_mhd_start(struct api_srv *s)
{
  unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
                   MHD_USE_TURBO;
  struct MHD_OptionItem opts[] = {
    { MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)srv_mhd_log, s },
    { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)srv_completed, s },
    { MHD_OPTION_CONNECTION_LIMIT, (intptr_t)s->cfg.max_conns, NULL },
    { MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)s->cfg.idle_timeout_s, NULL },
    { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)srv_conn_notify, s },
    { MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)srv_unescape, NULL },
    /* MHD clears this pool for every request: 32 KiB holds any sane
     * request head (431 beyond) without paying for 64. */
    { MHD_OPTION_CONNECTION_MEMORY_LIMIT,
      (intptr_t)(s->cfg.conn_memory ? s->cfg.conn_memory : 32 * 1024), NULL },
    { MHD_OPTION_END, 0, NULL },   /* the TLS key, */
    { MHD_OPTION_END, 0, NULL },   /* and certificate, */
    { MHD_OPTION_END, 0, NULL },   /* the listening socket */
    { MHD_OPTION_END, 0, NULL },
  };
  size_t last = sizeof opts / sizeof opts[0] - 4;
  if(s->cfg.tls_cert && s->cfg.tls_key) {
    flags |= MHD_USE_TLS;
    opts[last++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)s->cfg.tls_key };
    opts[last++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
                                            (void *)s->cfg.tls_cert };
  }
  if(s->group)
    flags |= MHD_USE_NO_LISTEN_SOCKET;
  else
    opts[last] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, s->listen_fd, NULL };
  s->d = MHD_start_daemon(flags, 0, s->group ? NULL : srv_apc, s, srv_access, s,
                          MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
  if(!s->d)
    return EIO;
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
  if(!di)
    return EIO;
  uv_poll_init(s->loop, &s->poll, di->epoll_fd);
  s->poll.data = s;
  uv_poll_start(&s->poll, UV_READABLE, srv_on_poll);
  return 0;
}

static struct api_srv *srv_new(uv_loop_t *loop, const struct api_srv_cfg *cfg)
{
  struct api_srv *s = xalloc(sizeof *s);
  s->magic = API_SRV_MAGIC;
  s->loop = loop;
  s->cfg = *cfg;
  if(s->cfg.idle_timeout_s <= 0)
    s->cfg.idle_timeout_s = s->cfg.conn_timeout_s;
  s->listen_fd = -1;
  s->door.max_unauth = cfg->max_conns_unauth;
  s->door.head_timeout_ms = cfg->head_timeout_ms > 0 ? (uint64_t)cfg->head_timeout_ms : 0;
  srv_counters_init(&s->own, cfg->nroutes);
  s->ctr = &s->own;
  if(getrandom(&s->id_base, sizeof s->id_base, 0) != sizeof s->id_base)
    s->id_base = clock_wall_ms() << 20;
  return s;
}

static void srv_free(struct api_srv *s)
{
  srv_counters_fini(&s->own);
  door_addrs_free(&s->own_addrs);
  s->magic = 0;
  free(s);
}

/* The daemon and the loop handles, once s knows how it gets connections. */
static int srv_launch(struct api_srv *s)
{
  uv_timer_init(s->loop, &s->timer);
  uv_timer_init(s->loop, &s->sweep);
  s->timer.data = s->sweep.data = s;
  int e = srv_mhd_start(s);
  if(e) {
    LOG(LOG_ERROR, "cannot start the HTTP server");
    if(s->d)
      MHD_stop_daemon(s->d);
    uv_close((uv_handle_t *)&s->timer, NULL);
    uv_close((uv_handle_t *)&s->sweep, NULL);
    uv_run(s->loop, UV_RUN_NOWAIT);
    return e;
  }
  if(s->door.head_timeout_ms) {
    uint64_t every = s->door.head_timeout_ms / 4;
    every = every < 50 ? 50 : every > 1000 ? 1000 : every;
    uv_timer_start(&s->sweep, srv_on_sweep, every, every);
  }
  srv_run(s);
  return 0;
}

int api_srv_start(uv_loop_t *loop, const struct api_srv_cfg *cfg, struct api_srv **out)
{
  struct api_srv *s = srv_new(loop, cfg);
  s->own_addrs = door_addrs_new();
  s->door.addrs = s->own_addrs;
  int e = srv_listen(cfg->listen_addr, cfg->port, &s->listen_fd, &s->port);
  if(e) {
    LOG(LOG_ERROR, "cannot listen on %s:%ld: %s", cfg->listen_addr, cfg->port, strerror(e));
    srv_free(s);
    return e;
  }
  if((e = srv_launch(s)) != 0) {
    close(s->listen_fd);
    srv_free(s);
    return e;
  }
  *out = s;
  return 0;
}

int srv_start_member(uv_loop_t *loop, const struct api_srv_cfg *cfg, struct api_srv_group *g,
                     unsigned i, struct api_srv **out)
{
  struct api_srv *s = srv_new(loop, cfg);
  s->group = g;
  s->member = i;
  s->door.addrs = group_addrs(g);
  /* the group spreads connections evenly: each member its share */
  if(cfg->max_conns_unauth > 0) {
    long share = cfg->max_conns_unauth / (long)group_members(g);
    s->door.max_unauth = share > 0 ? share : 1;
  }
  s->port = api_group_port(g);
  s->ctr = group_counters(g, i);
  int e = srv_launch(s);
  if(e) {
    srv_free(s);
    return e;
  }
  *out = s;
  return 0;
}

int srv_add_conn(struct api_srv *s, int fd, const struct sockaddr *sa, socklen_t len)
{
  s->conn_started = false;
  if(MHD_add_connection(s->d, fd, sa, len) != MHD_YES && !s->conn_started) {
    door_addrs_put(s->door.addrs, sa);   /* counted by the group */
    return -1;   /* MHD closed fd without ever counting it */
  }
  uv_timer_start(&s->timer, srv_on_timer, 0, 0);   /* MHD_run reads it */
  return 0;
}

int api_srv_port(const struct api_srv *s) { return s->port; }

size_t api_srv_pending(const struct api_srv *s)
{
  pthread_mutex_lock(&s->ctr->mu);
  size_t n = s->ctr->pending;
  pthread_mutex_unlock(&s->ctr->mu);
  return n;
}

void api_srv_quiesce(struct api_srv *s)
{
  if(s->listen_fd < 0)
    return;
  MHD_socket fd = MHD_quiesce_daemon(s->d);
  if(fd != MHD_INVALID_SOCKET)
    close(fd);
  s->listen_fd = -1;
}

static void srv_on_close(uv_handle_t *h)
{
  struct api_srv *s = h->data;
  if(--s->handles_open == 0)
    srv_free(s);
}

void api_srv_stop(struct api_srv **sp)
{
  struct api_srv *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  api_srv_quiesce(s);
  if(s->group)
    group_leave(s->group, s->member);
  /* MHD resumes and closes suspended connections itself; our completion
   * hook then runs each request's abort hook. */
  MHD_stop_daemon(s->d);
  s->handles_open = 3;
  uv_poll_stop(&s->poll);
  uv_close((uv_handle_t *)&s->poll, srv_on_close);
  uv_close((uv_handle_t *)&s->timer, srv_on_close);
  uv_close((uv_handle_t *)&s->sweep, srv_on_close);
}

long api_srv_unauth_default(long max_conns)
{
  long n = max_conns / 4 * 3 + max_conns % 4 * 3 / 4;
  return n > 0 ? n : max_conns;
}
