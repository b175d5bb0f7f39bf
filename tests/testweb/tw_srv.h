#ifndef WPFS_TESTWEB_TW_SRV_H
#define WPFS_TESTWEB_TW_SRV_H
/* The server: one libuv loop, one listening socket for every site (all of
 * 127.0.0.0/8 on one port, sites told apart by Host or by the local
 * address), one for the control endpoint on 127.0.0.1, and the counters. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "tests/testweb/tw_bomb.h"
#include "tests/testweb/tw_route.h"
#include "tests/testweb/tw_world.h"

/* Server-wide counters, exposed by GET /stats. */
#define TW_STATS(X)                                                            \
  X(connections,  "TCP connections accepted on the sites' port")             \
  X(requests,     "requests parsed, for any site or none")                     \
  X(unknown_site, "requests that matched no site (answered 404)")            \
  X(bad_requests, "request heads that failed to parse (answered 400)")       \
  X(too_large,    "request heads over max_header_bytes (answered 431)")      \
  X(aborted,      "responses ended early by the client going away")          \
  X(cut,          "responses closed or reset on purpose mid-way")            \
  X(non_loopback, "connections refused: local address outside 127.0.0.0/8") \
  X(ctl_requests, "control endpoint requests")                               \
  X(bytes_out,    "bytes handed to the kernel on the sites' port")

struct tw_stats {
#define X(name, help) uint64_t name;
  TW_STATS(X)
#undef X
  uint64_t open_conns, in_flight, max_in_flight;
};

struct tw_opts {
  char  *bind;
  size_t bomb_size;
  long   control_port;
  char  *control_port_file;
  char  *generate;
  long   link_port;
  char  *log_level;
  size_t max_header_bytes;
  long   port;
  char  *port_file;
  bool   print_docs;
  bool   print_zone;
  long   record_max;
  char  *sites;
  char  *topics;
};

struct tw_conn;

struct tw_srv {
  unsigned magic;
#define TW_SRV_MAGIC 0x7e5b0a44u
  uv_loop_t         *loop;
  uv_tcp_t           lis, ctl;
  uv_signal_t        sig_term, sig_int;
  const struct tw_opts *opts;
  struct tw_world    world;
  struct tw_bomb     bombs;
  struct tw_route_env env;
  struct tw_stats    stats;
  struct tw_conn    *conns;       /* every open connection, for shutdown */
  uint32_t           next_conn;
  int                port, ctl_port;
  bool               stopping;
  uint64_t           wall_base_us, mono_base_us;
};

/* Bind, listen, write the port files. The world must be built already. */
int  tw_srv_start(struct tw_srv *srv, uv_loop_t *loop, const struct tw_opts *opts);
/* Wall-clock microseconds that never go backwards. */
uint64_t tw_srv_now_us(const struct tw_srv *srv);
/* Reset every site's record, the fetch counts, and the counters. */
void tw_srv_reset(struct tw_srv *srv);

/* Connections (tw_conn.c). */
void tw_conn_accept(struct tw_srv *srv, uv_stream_t *lis, bool ctl);
void tw_conn_close_all(struct tw_srv *srv);

/* Control endpoint (tw_ctl.c): the answer to one request into pl. */
void tw_ctl_handle(struct tw_srv *srv, const struct tw_req *req, const char *body,
                   size_t blen, struct tw_plan *pl);

#endif
