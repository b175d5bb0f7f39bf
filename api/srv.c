/* libmicrohttpd on the libuv loop. MHD runs without threads in epoll mode:
 * its epoll fd is watched by a uv_poll, its timeout by a uv_timer, and every
 * wake-up calls MHD_run once. Requests whose handler answers later are
 * suspended (MHD_suspend_connection) and resumed by api_reply. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"

#define API_SRV_MAGIC 0x1f0c2b9du

struct route_stats {
  uint64_t by_class[6];  /* status / 100 */
  struct metrics_lat lat;
};

struct api_srv {
  unsigned magic;
  uv_loop_t *loop;
  struct MHD_Daemon *d;
  uv_poll_t poll;
  uv_timer_t timer;
  struct api_srv_cfg cfg;
  int port;
  int listen_fd;
  size_t pending;
  uint64_t id_base;
  uint64_t id_seq;
  struct route_stats *rs;  /* cfg.nroutes + 1 (last: built-in and unmatched) */
  int handles_open;
};

static void srv_run(struct api_srv *s);
static void srv_on_timer(uv_timer_t *t);

/* ---- answering ------------------------------------------------------- */

static void srv_count(struct api_srv *s, struct api_req *rq)
{
  size_t i = rq->route >= 0 ? (size_t)rq->route : s->cfg.nroutes;
  unsigned cls = rq->status / 100;
  s->rs[i].by_class[cls < 6 ? cls : 0]++;
  metrics_lat_add(&s->rs[i].lat, clock_mono_us() - rq->t_start_us);
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
  return ret;
}

/* Called by api_reply. Inside the access handler the handler's caller will
 * queue; later, the connection is resumed and MHD calls us again. */
void api_srv_answered(struct api_srv *s, struct api_req *rq)
{
  if(!rq->suspended)
    return;
  rq->suspended = false;
  s->pending--;
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

static void srv_metrics_http(struct api_srv *s, struct buf *b)
{
  static const char *cls[] = { "other", "1xx", "2xx", "3xx", "4xx", "5xx" };
  char name[128];
  char lb[160];
  snprintf(name, sizeof name, "%s_http_requests_total", s->cfg.service);
  metrics_family(b, name, "counter", "HTTP requests answered, by route and status class.");
  for(size_t i = 0; i <= s->cfg.nroutes; i++)
    for(int c = 0; c < 6; c++)
      if(s->rs[i].by_class[c]) {
        snprintf(lb, sizeof lb, "route=\"%s\",code=\"%s\"",
                 i < s->cfg.nroutes ? s->cfg.routes[i].name : "builtin", cls[c]);
        metrics_sample_u(b, name, lb, s->rs[i].by_class[c]);
      }
  snprintf(name, sizeof name, "%s_http_request_duration_seconds", s->cfg.service);
  metrics_family(b, name, "histogram", "Time from request arrival to answer, by route.");
  for(size_t i = 0; i <= s->cfg.nroutes; i++) {
    snprintf(lb, sizeof lb, "route=\"%s\"",
             i < s->cfg.nroutes ? s->cfg.routes[i].name : "builtin");
    metrics_lat_write(b, name, lb, &s->rs[i].lat);
  }
}

static void srv_metrics(struct api_srv *s, struct api_req *rq)
{
  struct buf b;
  char name[128];
  buf_init(&b, 8 << 20);
  srv_metrics_http(s, &b);
  snprintf(name, sizeof name, "%s_http_requests_pending", s->cfg.service);
  metrics_family(&b, name, "gauge", "Requests accepted and not yet answered.");
  metrics_sample_u(&b, name, "", s->pending);
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

/* ---- dispatch -------------------------------------------------------- */

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

static void srv_route(struct api_srv *s, struct api_req *rq)
{
  size_t idx;
  char allow[128];
  enum route_rc rc = route_match(s->cfg.routes, s->cfg.nroutes, rq->method, rq->path, &idx,
                                 rq->param, API_MAX_PARAMS, &rq->nparam, allow, sizeof allow);
  switch(rc) {
  case ROUTE_FOUND:
    rq->route = (int)idx;
    s->cfg.routes[idx].fn(rq, s->cfg.arg);
    return;
  case ROUTE_BAD_METHOD:
    api_reply_header(rq, "Allow", allow);
    api_problem(rq, 405, "method-not-allowed", "Method not allowed", NULL,
                "%s is not allowed on this path; allowed: %s", rq->method, allow);
    return;
  case ROUTE_NOMEM:
    api_problem(rq, 503, "overloaded", "Out of memory", NULL, "try again later");
    return;
  default:
    api_problem(rq, 404, "not-found", "No such route", NULL, "no route for %s %s",
                rq->method, rq->path);
  }
}

static void srv_dispatch(struct api_srv *s, struct api_req *rq)
{
  rq->st = API_RQ_HANDLING;
  MHD_get_connection_values(rq->conn, MHD_HEADER_KIND | MHD_GET_ARGUMENT_KIND, srv_collect, rq);
  if(rq->too_large) {
    api_problem(rq, 413, "body-too-large", "Request body too large", NULL,
                "the body is over the limit of %zu bytes", s->cfg.max_body);
    return;
  }
  if(!srv_builtin(s, rq))
    srv_route(s, rq);
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
  snprintf(rq->id, sizeof rq->id, "%016llx", (unsigned long long)(s->id_base + ++s->id_seq));
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
  snprintf(rq->method, sizeof rq->method, "%s", method);
  rq->path = mem_strdup(url);
  buf_init(&rq->body, s->cfg.max_body);
  if(!rq->path) {
    api_req_free(rq);
    return NULL;
  }
  srv_req_id(s, rq);
  const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
  if(cl && strtoull(cl, NULL, 10) > s->cfg.max_body)
    rq->too_large = true;
  return rq;
}

/* After the handler ran (or on resumption): queue, or suspend and wait. */
static enum MHD_Result srv_after_handler(struct api_srv *s, struct api_req *rq)
{
  if(rq->st == API_RQ_ANSWERED)
    return srv_queue(s, rq);
  rq->suspended = true;
  s->pending++;
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
    rq = srv_req_new(s, conn, url, method);
    *con_cls = rq;
    if(rq && rq->too_large) {  /* answer now, without reading the body */
      srv_dispatch(s, rq);
      return srv_queue(s, rq);
    }
    return rq ? MHD_YES : MHD_NO;
  }
  if(*upload_size) {
    if(!rq->too_large && buf_add(&rq->body, upload, *upload_size) != CM_OK)
      rq->too_large = true;
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

static void srv_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                          enum MHD_RequestTerminationCode toe)
{
  struct api_srv *s = cls;
  struct api_req *rq = *con_cls;
  (void)conn;
  (void)toe;
  if(!rq)
    return;
  if(rq->st == API_RQ_HANDLING) {  /* died before its answer */
    if(rq->suspended)
      s->pending--;
    if(rq->on_abort)
      rq->on_abort(rq->abort_arg);
  }
  *con_cls = NULL;
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
  char msg[512];
  (void)cls;
  vsnprintf(msg, sizeof msg, fmt, ap);
  msg[strcspn(msg, "\n")] = '\0';
  LOG(LOG_WARN, "http server: %s", msg);
}

static int srv_listen(const char *addr, long port, int *fd_out, int *port_out)
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

static int srv_mhd_start(struct api_srv *s)
{
  unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
                   MHD_USE_TURBO;
  s->d = MHD_start_daemon(
    flags, 0, NULL, NULL, srv_access, s,
    MHD_OPTION_EXTERNAL_LOGGER, srv_mhd_log, s,
    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->listen_fd,
    MHD_OPTION_NOTIFY_COMPLETED, srv_completed, s,
    MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->cfg.max_conns,
    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)s->cfg.conn_timeout_s,
    /* MHD clears this pool for every request: 32 KiB holds any sane
     * request head (431 beyond) without paying for 64. */
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
    MHD_OPTION_END);
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

int api_srv_start(uv_loop_t *loop, const struct api_srv_cfg *cfg, struct api_srv **out)
{
  struct api_srv *s = xalloc(sizeof *s);
  s->magic = API_SRV_MAGIC;
  s->loop = loop;
  s->cfg = *cfg;
  s->rs = xalloc((cfg->nroutes + 1) * sizeof *s->rs);
  if(getrandom(&s->id_base, sizeof s->id_base, 0) != sizeof s->id_base)
    s->id_base = clock_wall_ms() << 20;
  int e = srv_listen(cfg->listen_addr, cfg->port, &s->listen_fd, &s->port);
  if(e) {
    LOG(LOG_ERROR, "cannot listen on %s:%ld: %s", cfg->listen_addr, cfg->port, strerror(e));
    free(s->rs);
    free(s);
    return e;
  }
  uv_timer_init(loop, &s->timer);
  s->timer.data = s;
  if((e = srv_mhd_start(s)) != 0) {
    LOG(LOG_ERROR, "cannot start the HTTP server");
    close(s->listen_fd);
    uv_close((uv_handle_t *)&s->timer, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    free(s->rs);
    free(s);
    return e;
  }
  srv_run(s);
  *out = s;
  return 0;
}

int api_srv_port(const struct api_srv *s) { return s->port; }
size_t api_srv_pending(const struct api_srv *s) { return s->pending; }

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
  if(--s->handles_open == 0) {
    s->magic = 0;
    free(s->rs);
    free(s);
  }
}

void api_srv_stop(struct api_srv **sp)
{
  struct api_srv *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  api_srv_quiesce(s);
  /* MHD resumes and closes suspended connections itself; our completion
   * hook then runs each request's abort hook. */
  MHD_stop_daemon(s->d);
  s->handles_open = 2;
  uv_poll_stop(&s->poll);
  uv_close((uv_handle_t *)&s->poll, srv_on_close);
  uv_close((uv_handle_t *)&s->timer, srv_on_close);
}
