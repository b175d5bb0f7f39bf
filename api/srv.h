#ifndef WPFS_API_SRV_H
#define WPFS_API_SRV_H
/* The HTTP server both services share: libmicrohttpd driven by the process's
 * libuv loop (MHD's epoll fd polled by uv_poll, its timeout by a uv_timer),
 * single-threaded, so handlers run on the loop like everything else; and a
 * group of such servers on one port. What a handler sees of a request is
 * api/req.h.
 *
 * Built-in routes: GET /healthz, GET /readyz, GET /metrics.
 *
 * Requests are framed strictly: Content-Length with Transfer-Encoding,
 * several Content-Length headers, or a transfer coding other than chunked
 * get 400 (501 for the coding) and the connection is closed, so that no
 * request can hide in another's body. Everything but an authorized route
 * is answered as soon as its head is complete. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "api/req.h"
#include "common/buf.h"

struct api_srv;

struct api_route {
  const char  *method;   /* "GET", "POST", "DELETE" */
  const char  *pattern;  /* "/v1/sites/{}": {} captures one path segment */
  api_handler *fn;
  const char  *name;     /* metrics label, e.g. "fetch" */
};

struct api_srv_cfg {
  const char *service;      /* "llfs": logs and metric prefix */
  const char *listen_addr;  /* IPv4 or IPv6 literal */
  long        port;         /* 0 = any free port, see api_srv_port */
  size_t      max_body;     /* request bodies over this get 413 */
  long        max_conns;
  long        conn_timeout_s;   /* idle, once a request showed a valid key */
  /* The front door (docs/operations.md, "Connection limits"); 0: none. */
  size_t      body_budget;      /* body bytes buffered by every request of the
                                   process together: 503 with Retry-After beyond */
  long        idle_timeout_s;   /* idle, before a request showed a valid key
                                   (0: conn_timeout_s) */
  long        head_timeout_ms;  /* before that, each request head must be complete
                                   this long after the connection opened or the
                                   previous answer */
  long        max_conns_per_addr;   /* unauthenticated connections from one address */
  long        max_conns_unauth; /* unauthenticated connections at once: beyond, the
                                   oldest is closed for the newcomer */
  size_t      conn_memory;  /* per connection, cleared for every request;
                               bounds the request head (0: 32 KiB) */
  const struct api_route *routes;
  size_t      nroutes;
  void       *arg;          /* handed to handlers and hooks */
  /* /readyz: 0 = ready; otherwise why names the missing dependency. */
  int  (*ready)(void *arg, char *why, size_t whylen);
  /* /metrics: the service appends its own families. */
  void (*metrics)(struct buf *out, void *arg);
  /* Called once a routed request's head is complete, before any of its
   * body is read: true lets it go on (the body is read, then the route's
   * handler runs, and the connection counts as authenticated); false
   * means the hook answered (401), and the body is never read. NULL:
   * every request goes on. Built-in routes and unknown paths never
   * reach it. */
  bool (*authorize)(struct api_req *rq, const struct api_route *route, void *arg);
  /* HTTPS: PEM certificate chain and key (api/tls.h); NULL: plain HTTP. */
  const char *tls_cert, *tls_key;
};

int  api_srv_start(uv_loop_t *loop, const struct api_srv_cfg *cfg, struct api_srv **out);
int  api_srv_port(const struct api_srv *s);
/* Stop accepting connections; requests under way go on. */
void api_srv_quiesce(struct api_srv *s);
/* Requests accepted and not yet answered. */
size_t api_srv_pending(const struct api_srv *s);
/* Abort what is pending (503), close everything, free. */
void api_srv_stop(struct api_srv **sp);

/* A group: several servers on one port, each on its own loop and thread
 * (llfs --workers). The group listens, and accepts on the loop it is made
 * on, handing each new connection to the member with the fewest open
 * connections (at most 256 members);
 * cfg->max_conns bounds the connections of all members together, and
 * /metrics of any member counts the requests of all of them. Members are
 * ordinary servers otherwise (api_srv_pending, api_srv_stop...), except
 * that api_srv_quiesce does nothing to them: api_group_quiesce stops the
 * accepting for all. */
struct api_srv_group;
/* Bind and listen (cfg's address, port and max_conns); nothing is
 * accepted before api_group_accept. */
int  api_group_new(uv_loop_t *loop, const struct api_srv_cfg *cfg, unsigned members,
                   struct api_srv_group **out);
int  api_group_port(const struct api_srv_group *g);
/* Member i (< members), on loop: call it on loop's thread. cfg is the
 * group's but for arg (and the hooks), which are the member's own. */
int  api_group_join(struct api_srv_group *g, unsigned i, uv_loop_t *loop,
                    const struct api_srv_cfg *cfg, struct api_srv **out);
/* Start accepting (once the members have joined); on the group's loop. */
void api_group_accept(struct api_srv_group *g);
/* Close the listening socket: new connections are refused at once;
 * members go on with the connections they have. */
void api_group_quiesce(struct api_srv_group *g);
/* Once every member is stopped: close and free (run the loop after). */
void api_group_free(struct api_srv_group **gp);

/* The default of max_conns_unauth for a service of max_conns connections:
 * three quarters of them, so that a quarter stays for keyed clients and
 * probes when unauthenticated ones pile up. */
long api_srv_unauth_default(long max_conns);

#endif
