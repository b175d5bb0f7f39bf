#ifndef WPFS_API_SRV_INT_H
#define WPFS_API_SRV_INT_H
/* Inside the api library only: the seams between one server (srv.c) and
 * a group of them on several threads (group.c). */
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "api/door.h"
#include "api/metrics.h"
#include "api/req_int.h"
#include "api/srv.h"

struct route_stats {
  uint64_t by_class[6];  /* status / 100 */
  struct metrics_lat lat;
};

/* The HTTP counters of one server, written on its loop's thread and read
 * by /metrics of any member of its group: under mu. A group member's live
 * in the group, which outlives its members. */
struct srv_counters {
  pthread_mutex_t     mu;
  size_t              nroutes;
  struct route_stats *rs;       /* nroutes + 1 (last: built-in and unmatched) */
  size_t              pending;  /* requests accepted, not yet answered */
  uint64_t            door[DOOR__COUNT];  /* connections closed or refused by the server */
  uint64_t            abandoned;  /* closed by the client before its request was answered */
  uint64_t            malformed;  /* requests the HTTP library itself refused */
};

/* srv.c */
/* Bind and listen (IPv4 or IPv6 literal; port 0: any); 0 or an errno. */
int  srv_listen(const char *addr, long port, int *fd_out, int *port_out);
/* srv_linger.c: keep a connection MHD is closing with a request body
 * unread, read and drop the rest, then close; *count: the server's. */
void srv_linger(uv_loop_t *loop, int fd, unsigned *count);
void srv_counters_init(struct srv_counters *c, size_t nroutes);
void srv_counters_fini(struct srv_counters *c);
/* One more connection closed or refused for why (locked). */
void srv_counters_door(struct srv_counters *c, enum door_reason why);
/* into (not locked: the caller's own) += from (locked). */
void srv_counters_add(struct srv_counters *into, struct srv_counters *from);
/* A server for member i of g, without a listening socket. */
int  srv_start_member(uv_loop_t *loop, const struct api_srv_cfg *cfg, struct api_srv_group *g,
                      unsigned i, struct api_srv **out);
/* Hand an accepted connection to s (on s's thread); MHD owns fd from here,
 * and closes it if it cannot take it (-1). */
int  srv_add_conn(struct api_srv *s, int fd, const struct sockaddr *sa, socklen_t len);

/* srv_guard.c */
/* Ambiguous framing (api/srv.h): answered (400/501, the connection to be
 * closed) and true. */
bool   srv_framing_bad(struct api_req *rq);
/* Does a body follow the head? */
bool   srv_has_body(struct MHD_Connection *conn);
/* n more body bytes held by rq, within budget (0: none) for the process. */
bool   srv_reserve(struct api_req *rq, size_t n, size_t budget);
/* All of rq's bytes given back. */
void   srv_release(struct api_req *rq);
/* 503 with Retry-After: the budget is spent. */
void   srv_over_budget(struct api_req *rq, size_t budget);
size_t srv_buffered_bytes(void);
enum srv_mhd_kind { SRV_MHD_OTHER, SRV_MHD_PEER_GONE, SRV_MHD_MALFORMED, SRV_MHD_FULL,
                    SRV_MHD_DETAIL };
/* Which of libmicrohttpd's messages msg is. */
enum srv_mhd_kind srv_mhd_kind(const char *msg);

/* group.c */
struct srv_counters *group_counters(struct api_srv_group *g, unsigned i);
/* Sum of every member's counters into acc (initialized by the caller). */
void group_sum(struct api_srv_group *g, struct srv_counters *acc);
/* MHD closed a connection of member i (any thread). */
void group_conn_closed(struct api_srv_group *g, unsigned i);
/* Open connections of member i, and the number of members. */
long group_conns(const struct api_srv_group *g, unsigned i);
unsigned group_members(const struct api_srv_group *g);
/* The unauthenticated connections per address of the whole group. */
struct door_addrs *group_addrs(struct api_srv_group *g);
/* Member i stops (on its thread): no more connections for it; those
 * handed and not yet taken are closed. */
void group_leave(struct api_srv_group *g, unsigned i);

#endif
