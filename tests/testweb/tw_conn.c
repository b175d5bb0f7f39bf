/* One client connection: read and parse requests, answer them one at a
 * time following their plan (hold, drip, hang, cut), record them in their
 * site's record. A connection changes state only through conn_state().
 * Memory is freed in the libuv close callbacks, never in the callback
 * that decided to close (uv_close defers it past the running callback). */
#include <assert.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/list.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "tests/testweb/tw_srv.h"

/* Bytes per write when not dripping: big enough for bulk, small enough to
 * let other connections run between two writes. */
#define CONN_BATCH (256u << 10)
#define CONN_SYNC_ROUNDS 4
/* Control requests carry site configs: their buffer may grow to this. */
#define CONN_CTL_MAX (4u << 20)
/* A reset waits for the kernel to send what it has, at most this long. */
#define CONN_RESET_POLL_MS 2
#define CONN_RESET_POLLS 250

#define CONN_STATES(X) X(IDLE) X(HOLD) X(HANG) X(SEND) X(DRIP) X(CUT) X(CLOSING)
enum conn_st {
#define X(s) CS_##s,
  CONN_STATES(X)
#undef X
};
static const char *const conn_st_name[] = {
#define X(s) #s,
  CONN_STATES(X)
#undef X
};

struct tw_conn {
  unsigned magic;
#define TW_CONN_MAGIC 0xc0bb1e55u
  uv_tcp_t        tcp;
  uv_timer_t      timer;
  uv_write_t      wreq;
  struct tw_srv  *srv;
  struct tw_conn *prev, *next;   /* srv->conns */
  uint32_t        id, local;
  bool            ctl, reading, writing, in_process, has_plan;
  enum conn_st    st;
  int             handles;       /* open libuv handles; freed at 0 */
  struct tw_site *site;          /* the site this connection counts for */
  char           *rbuf;
  size_t          rlen, rcap, rmax;
  uint64_t        discard;       /* request body bytes still to skip */
  struct tw_plan  plan;
  struct tw_site *rsite;         /* the current request's site, or NULL */
  uint64_t        rseq;
  uint64_t        sent_us;       /* when the last write the kernel took whole began; 0: none */
  unsigned        polls;
  uv_buf_t        iov[TW_PLAN_IOV];
};

static void conn_process(struct tw_conn *c);
static void conn_pump(struct tw_conn *c);

static struct tw_conn *conn_of(void *data)
{
  struct tw_conn *c = data;
  assert(c && c->magic == TW_CONN_MAGIC);
  return c;
}

static void conn_state(struct tw_conn *c, enum conn_st to, int line)
{
  if(c->st == to)
    return;
  if(log_level <= LOG_DEBUG)
    LOG(LOG_DEBUG, "conn %u: %s -> %s (line %d)", c->id, conn_st_name[c->st],
        conn_st_name[to], line);
  c->st = to;
}
#define CONN_STATE(c, s) conn_state((c), (s), __LINE__)

static void conn_on_close(uv_handle_t *h)
{
  struct tw_conn *c = conn_of(h->data);
  if(--c->handles)
    return;
  if(c->has_plan)
    tw_plan_free(&c->plan);
  mem_free(c->rbuf);
  c->magic = 0;
  mem_free(c);
}

/* The current request ends: record it, drop its plan. */
static void conn_req_end(struct tw_conn *c, enum tw_outcome o)
{
  struct tw_srv *srv = c->srv;
  if(!c->has_plan)
    return;
  /* A response's end is when its last bytes were handed to the kernel:
   * the time taken before that write, not after it. On a loaded machine
   * the reader the write wakes can run first, and read the answer, pass
   * it on and act on it before this process reads the clock again; the
   * end would then be recorded after the client had the answer. */
  uint64_t end = o == TW_OUT_DONE && c->sent_us ? c->sent_us : tw_srv_now_us(srv);
  if(c->rsite)  /* no status when no head was sent (hang, hold, client gone) */
    tw_rec_end(&c->rsite->rec, c->rseq, c->plan.head_sent ? c->plan.status : 0,
               c->plan.wire_sent, o, end);
  if(!c->ctl) {
    srv->stats.in_flight--;
    srv->stats.bytes_out += c->plan.wire_sent;
    srv->stats.aborted += o == TW_OUT_ABORTED;
    srv->stats.cut += o == TW_OUT_CLOSED || o == TW_OUT_RESET;
  }
  c->rsite = NULL;
  c->has_plan = false;
  if(!c->writing)  /* else the write callback still uses its buffers */
    tw_plan_free(&c->plan);
}

static void conn_unlink(struct tw_conn *c)
{
  DL_UNLINK(c->srv->conns, c, prev, next);
}

static void conn_close(struct tw_conn *c, enum tw_outcome o)
{
  if(c->st == CS_CLOSING)
    return;
  conn_req_end(c, o);
  CONN_STATE(c, CS_CLOSING);
  conn_unlink(c);
  if(c->site)
    tw_rec_conn_close(&c->site->rec);
  if(!c->ctl)
    c->srv->stats.open_conns--;
  uv_close((uv_handle_t *)&c->timer, conn_on_close);
  uv_close((uv_handle_t *)&c->tcp, conn_on_close);
}

static void conn_reset_now(struct tw_conn *c)
{
  uv_os_fd_t fd;
  struct linger lg = { 1, 0 };  /* close() then sends RST, not FIN */
  if(uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  conn_close(c, TW_OUT_RESET);
}

/* A reset discards unsent data: wait until the kernel's send queue is
 * empty, so the client receives the bytes before the RST. */
static void conn_on_reset_poll(uv_timer_t *t)
{
  struct tw_conn *c = conn_of(t->data);
  uv_os_fd_t fd;
  int queued = 0;
  if(uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
    ioctl(fd, SIOCOUTQ, &queued);
  if(queued > 0 && ++c->polls < CONN_RESET_POLLS)
    return;
  uv_timer_stop(&c->timer);
  conn_reset_now(c);
}

static void conn_cut(struct tw_conn *c)
{
  CONN_STATE(c, CS_CUT);
  if(c->plan.cut == TW_CUT_CLOSE) {
    conn_close(c, TW_OUT_CLOSED);
    return;
  }
  c->polls = 0;
  uv_timer_start(&c->timer, conn_on_reset_poll, 0, CONN_RESET_POLL_MS);
}

static void conn_read_resume(struct tw_conn *c);

/* The response was written. */
static void conn_resp_done(struct tw_conn *c)
{
  if(c->plan.cut_reached) {
    conn_cut(c);
    return;
  }
  bool close = c->plan.close;
  conn_req_end(c, TW_OUT_DONE);
  CONN_STATE(c, CS_IDLE);
  if(close) {
    conn_close(c, TW_OUT_DONE);
    return;
  }
  conn_read_resume(c);
  if(!c->in_process)
    conn_process(c);
}

static void conn_on_drip(uv_timer_t *t)
{
  struct tw_conn *c = conn_of(t->data);
  CONN_STATE(c, CS_SEND);
  conn_pump(c);
}

/* After a write: next piece now, after the drip pause, or done. */
static void conn_written(struct tw_conn *c)
{
  if(tw_plan_finished(&c->plan)) {
    conn_resp_done(c);
  } else if(c->plan.drip_bytes) {
    CONN_STATE(c, CS_DRIP);
    uv_update_time(c->srv->loop);  /* the cached loop time may be stale: never wait less */
    uv_timer_start(&c->timer, conn_on_drip, c->plan.drip_ms, 0);
  }
}

static void conn_on_write(uv_write_t *w, int status)
{
  struct tw_conn *c = conn_of(w->data);
  c->writing = false;
  if(!c->has_plan && c->plan.magic == TW_PLAN_MAGIC)
    tw_plan_free(&c->plan);  /* the request ended while this write ran */
  if(c->st == CS_CLOSING)
    return;
  if(status < 0) {
    conn_close(c, TW_OUT_ABORTED);
    return;
  }
  conn_written(c);
  if(c->st == CS_SEND)
    conn_pump(c);
}

/* Write what the plan has: synchronously while the kernel takes it all,
 * else hand the rest to libuv and continue in conn_on_write. After a few
 * synchronous batches libuv gets the rest anyway, so that a fast reader of
 * an endless body cannot keep the loop from the other connections. */
static void conn_pump(struct tw_conn *c)
{
  for(unsigned round = 0; c->st == CS_SEND && !c->writing; round++) {
    uint64_t max = c->plan.drip_bytes ? c->plan.drip_bytes : CONN_BATCH;
    unsigned n = tw_plan_fill(&c->plan, c->iov, max), k = 0;
    size_t total = 0;
    for(unsigned i = 0; i < n; i++)
      total += c->iov[i].len;
    int r = 0;
    c->sent_us = tw_srv_now_us(c->srv);
    if(total && round < CONN_SYNC_ROUNDS)
      r = uv_try_write((uv_stream_t *)&c->tcp, c->iov, n);
    if(r == UV_EAGAIN)
      r = 0;
    if(r < 0) {
      conn_close(c, TW_OUT_ABORTED);
      return;
    }
    if((size_t)r < total) {
      for(size_t left = (size_t)r; left >= c->iov[k].len; k++)
        left -= c->iov[k].len, r -= (int)c->iov[k].len;
      c->iov[k].base += r;
      c->iov[k].len -= (size_t)r;
      c->writing = true;
      c->sent_us = 0;  /* the rest goes later: its end is when the callback runs */
      c->wreq.data = c;
      uv_write(&c->wreq, (uv_stream_t *)&c->tcp, c->iov + k, n - k, conn_on_write);
      return;
    }
    conn_written(c);
  }
}

static void conn_on_hold(uv_timer_t *t)
{
  struct tw_conn *c = conn_of(t->data);
  CONN_STATE(c, CS_SEND);
  conn_pump(c);
}

static void conn_respond(struct tw_conn *c)
{
  if(c->plan.hang) {
    CONN_STATE(c, CS_HANG);  /* until the client goes away */
  } else if(c->plan.hold_ms) {
    CONN_STATE(c, CS_HOLD);
    uv_update_time(c->srv->loop);  /* the cached loop time may be stale: never hold less */
    uv_timer_start(&c->timer, conn_on_hold, c->plan.hold_ms, 0);
  } else {
    CONN_STATE(c, CS_SEND);
    conn_pump(c);
  }
}

/* Attribute the connection to the site it now serves. */
static void conn_attribute(struct tw_conn *c, struct tw_site *s)
{
  if(!s || s == c->site)
    return;
  if(c->site)
    tw_rec_conn_close(&c->site->rec);
  c->site = s;
  tw_rec_conn_open(&s->rec);
}

static void conn_begin_site(struct tw_conn *c, const struct tw_req *req)
{
  struct tw_srv *srv = c->srv;
  struct tw_site *s = tw_world_route(&srv->world, req->host.p, req->host.n, c->local);
  srv->stats.requests++;
  srv->stats.unknown_site += !s;
  if(++srv->stats.in_flight > srv->stats.max_in_flight)
    srv->stats.max_in_flight = srv->stats.in_flight;
  conn_attribute(c, s);
  if(s) {
    struct tw_rec_in in = { req->method, req->target, req->ua, req->inm, req->ims, c->id,
                            tw_srv_now_us(srv) };
    c->rseq = tw_rec_begin(&s->rec, &in);
  }
  c->rsite = s;
  tw_route(&srv->env, s, req, &c->plan);
}

static void conn_consume(struct tw_conn *c, size_t n)
{
  memmove(c->rbuf, c->rbuf + n, c->rlen - n);
  c->rlen -= n;
}

static void conn_skip_body(struct tw_conn *c)
{
  size_t n = c->discard < c->rlen ? (size_t)c->discard : c->rlen;
  conn_consume(c, n);
  c->discard -= n;
}

/* A bad head: answer it and close, no site involved. */
static void conn_reject(struct tw_conn *c, int status, const char *why)
{
  tw_plan_init(&c->plan);
  c->has_plan = true;
  c->rsite = NULL;
  if(!c->ctl)
    c->srv->stats.in_flight++;
  c->plan.status = status;
  c->plan.close = true;
  buf_addf(&c->plan.body, "testweb: %s\n", why);
  tw_plan_seg(&c->plan, c->plan.body.data, c->plan.body.len, 1);
  buf_addf(&c->plan.head, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
           "Content-Length: %zu\r\nConnection: close\r\n\r\n", status,
           tw_route_reason(status), c->plan.body.len);
  conn_respond(c);
}

/* A control request waits for its whole body. */
static bool conn_ctl_ready(struct tw_conn *c, const struct tw_req *req)
{
  uint64_t need = req->head_len + (uint64_t)(req->content_length > 0 ? req->content_length : 0);
  if(need > c->rmax) {
    conn_reject(c, 413, "control request body too large");
    return false;
  }
  return c->rlen >= need;
}

static void conn_begin(struct tw_conn *c, const struct tw_req *req)
{
  tw_plan_init(&c->plan);
  c->has_plan = true;
  size_t body = req->content_length > 0 ? (size_t)req->content_length : 0;
  if(c->ctl) {
    c->srv->stats.ctl_requests++;
    tw_ctl_handle(c->srv, req, c->rbuf + req->head_len, body, &c->plan);
    conn_consume(c, req->head_len + body);
  } else {
    conn_begin_site(c, req);
    conn_consume(c, req->head_len);
    c->discard = body;
    conn_skip_body(c);
  }
  conn_respond(c);
}

/* Answer the requests waiting in the buffer, one at a time. */
static void conn_process(struct tw_conn *c)
{
  c->in_process = true;
  while(c->st == CS_IDLE && c->rlen) {
    struct tw_req req;
    conn_skip_body(c);
    tw_err e = c->rlen ? tw_http_parse(c->rbuf, c->rlen, c->rmax, &req) : TW_AGAIN;
    if(e == TW_AGAIN)
      break;
    if(e) {
      c->srv->stats.bad_requests += e == TW_BAD_REQUEST;
      c->srv->stats.too_large += e == TW_TOO_LARGE;
      conn_reject(c, e == TW_TOO_LARGE ? 431 : 400, tw_strerror(e));
    } else if(req.chunked) {
      conn_reject(c, 501, "chunked request bodies are not supported");
    } else if(!c->ctl || conn_ctl_ready(c, &req)) {
      conn_begin(c, &req);
    } else {
      break;
    }
  }
  c->in_process = false;
}

static void conn_on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *out)
{
  struct tw_conn *c = conn_of(h->data);
  (void)hint;
  if(c->rlen == c->rcap && c->rcap < c->rmax) {
    size_t cap = c->rcap ? c->rcap * 2 : 16384;
    char *p = mem_realloc(c->rbuf, cap < c->rmax ? cap : c->rmax);
    if(p) {
      c->rbuf = p;
      c->rcap = cap < c->rmax ? cap : c->rmax;
    }
  }
  *out = uv_buf_init(c->rbuf + c->rlen, (unsigned)(c->rcap - c->rlen));
}

static void conn_read_stop(struct tw_conn *c)
{
  if(c->reading)
    uv_read_stop((uv_stream_t *)&c->tcp);
  c->reading = false;
}

static void conn_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
  struct tw_conn *c = conn_of(s->data);
  (void)b;
  if(n == UV_ENOBUFS) {
    conn_read_stop(c);  /* full while answering: resumes when idle */
    return;
  }
  if(n < 0) {
    conn_close(c, c->st == CS_IDLE ? TW_OUT_DONE : TW_OUT_ABORTED);
    return;
  }
  c->rlen += (size_t)n;
  if(c->st == CS_IDLE)
    conn_process(c);
  else if(c->rlen == c->rcap && c->rcap == c->rmax)
    conn_read_stop(c);
}

static void conn_read_resume(struct tw_conn *c)
{
  if(c->reading || c->st == CS_CLOSING)
    return;
  c->reading = uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read) == 0;
}

static uint32_t conn_local_addr(uv_tcp_t *t)
{
  struct sockaddr_storage ss;
  int len = sizeof ss;
  if(uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len) || ss.ss_family != AF_INET)
    return 0;
  return ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr);
}

static struct tw_conn *conn_new(struct tw_srv *srv, bool ctl)
{
  struct tw_conn *c = mem_calloc(1, sizeof *c);
  if(!c)
    return NULL;
  c->magic = TW_CONN_MAGIC;
  c->srv = srv;
  c->ctl = ctl;
  c->id = ++srv->next_conn;
  c->rmax = ctl ? CONN_CTL_MAX : srv->opts->max_header_bytes;
  uv_tcp_init(srv->loop, &c->tcp);
  uv_timer_init(srv->loop, &c->timer);
  c->tcp.data = c->timer.data = c;
  c->handles = 2;
  DL_PUSH_FRONT(srv->conns, c, prev, next);
  return c;
}

void tw_conn_accept(struct tw_srv *srv, uv_stream_t *lis, bool ctl)
{
  struct tw_conn *c = conn_new(srv, ctl);
  if(!c)
    return;
  if(!ctl)
    srv->stats.open_conns++;
  if(uv_accept(lis, (uv_stream_t *)&c->tcp)) {
    conn_close(c, TW_OUT_DONE);
    return;
  }
  c->local = conn_local_addr(&c->tcp);
  if(!ctl && (c->local >> 24) != 127) {
    srv->stats.non_loopback++;
    conn_close(c, TW_OUT_DONE);
    return;
  }
  if(!ctl) {
    srv->stats.connections++;
    conn_attribute(c, tw_world_by_addr(&srv->world, c->local));
  }
  uv_tcp_nodelay(&c->tcp, 1);
  conn_read_resume(c);
}

void tw_conn_close_all(struct tw_srv *srv)
{
  while(srv->conns)
    conn_close(srv->conns, TW_OUT_ABORTED);
}
