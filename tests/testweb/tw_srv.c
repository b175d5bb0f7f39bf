#include "tests/testweb/tw_srv.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/portfile.h"

#define SRV_BACKLOG 4096

static struct tw_srv *srv_of(void *data)
{
  struct tw_srv *srv = data;
  assert(srv && srv->magic == TW_SRV_MAGIC);
  return srv;
}

uint64_t tw_srv_now_us(const struct tw_srv *srv)
{
  return srv->wall_base_us + (clock_mono_us() - srv->mono_base_us);
}

static void srv_on_conn(uv_stream_t *lis, int status)
{
  struct tw_srv *srv = srv_of(lis->data);
  if(status < 0) {
    LOG(LOG_WARN, "accept: %s", uv_strerror(status));
    return;
  }
  tw_conn_accept(srv, lis, (uv_tcp_t *)lis == &srv->ctl);
}

static int srv_port_file(const char *path, int port)
{
  if(!path || !*path)
    return 0;
  if(portfile_write(path, port)) {
    LOG(LOG_ERROR, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

static int srv_listen(struct tw_srv *srv, uv_tcp_t *t, const char *addr, long port, int *bound)
{
  struct sockaddr_in sa;
  struct sockaddr_storage got;
  int len = sizeof got, rc;
  uv_tcp_init(srv->loop, t);
  t->data = srv;
  if((rc = uv_ip4_addr(addr, (int)port, &sa)) ||
     (rc = uv_tcp_bind(t, (const struct sockaddr *)&sa, 0)) ||
     (rc = uv_listen((uv_stream_t *)t, SRV_BACKLOG, srv_on_conn)) ||
     (rc = uv_tcp_getsockname(t, (struct sockaddr *)&got, &len))) {
    LOG(LOG_ERROR, "listen on %s:%ld: %s", addr, port, uv_strerror(rc));
    return -1;
  }
  *bound = ntohs(((struct sockaddr_in *)&got)->sin_port);
  return 0;
}

/* Close everything; uv_run then returns. Idempotent. */
static void tw_srv_stop(struct tw_srv *srv);

static void srv_on_signal(uv_signal_t *h, int signum)
{
  struct tw_srv *srv = srv_of(h->data);
  LOG(LOG_INFO, "signal %d: stopping", signum);
  tw_srv_stop(srv);
}

int tw_srv_start(struct tw_srv *srv, uv_loop_t *loop, const struct tw_opts *opts)
{
  srv->magic = TW_SRV_MAGIC;
  srv->loop = loop;
  srv->opts = opts;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);  /* microseconds: clock_wall_ms is too coarse */
  srv->mono_base_us = clock_mono_us();
  srv->wall_base_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
  srv->env.w = &srv->world;
  srv->env.bombs = &srv->bombs;
  if(srv_listen(srv, &srv->lis, opts->bind, opts->port, &srv->port) ||
     srv_listen(srv, &srv->ctl, "127.0.0.1", opts->control_port, &srv->ctl_port))
    return -1;
  if(!srv->world.link_port)
    srv->world.link_port = srv->port;
  uv_signal_init(loop, &srv->sig_term);
  uv_signal_init(loop, &srv->sig_int);
  srv->sig_term.data = srv->sig_int.data = srv;
  uv_signal_start(&srv->sig_term, srv_on_signal, SIGTERM);
  uv_signal_start(&srv->sig_int, srv_on_signal, SIGINT);
  LOG(LOG_INFO, "listening on %s:%d (%zu sites), control on 127.0.0.1:%d", opts->bind,
      srv->port, srv->world.n, srv->ctl_port);
  if(srv_port_file(opts->port_file, srv->port) ||
     srv_port_file(opts->control_port_file, srv->ctl_port))
    return -1;
  return 0;
}

/* Only after a successful tw_srv_start: every handle is initialised. */
static void tw_srv_stop(struct tw_srv *srv)
{
  if(srv->stopping)
    return;
  srv->stopping = true;
  uv_close((uv_handle_t *)&srv->lis, NULL);
  uv_close((uv_handle_t *)&srv->ctl, NULL);
  uv_close((uv_handle_t *)&srv->sig_term, NULL);
  uv_close((uv_handle_t *)&srv->sig_int, NULL);
  tw_conn_close_all(srv);
}

void tw_srv_reset(struct tw_srv *srv)
{
  for(size_t i = 0; i < srv->world.n; i++)
    tw_site_reset(srv->world.sites[i]);
  uint64_t open = srv->stats.open_conns, inflight = srv->stats.in_flight;
  memset(&srv->stats, 0, sizeof srv->stats);
  srv->stats.open_conns = open;
  srv->stats.in_flight = srv->stats.max_in_flight = inflight;
}
