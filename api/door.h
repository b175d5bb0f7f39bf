#ifndef WPFS_API_DOOR_H
#define WPFS_API_DOOR_H
/* Inside the api library only: who may hold a connection, and for how
 * long (docs/operations.md, "Connection limits"). A connection is
 * unauthenticated until one of its requests shows a valid key; until
 * then it must send each request head within a deadline, it counts
 * against its address's limit, and when too many unauthenticated
 * connections are open the oldest of them is closed for the newcomer:
 * whoever keeps connections open without a key cannot crowd out the
 * keyed clients and the probes. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/list.h"

/* Why the server closed or refused a connection (a metric label). */
enum door_reason {
  DOOR_ADDR_LIMIT,    /* refused: its address has too many unauthenticated ones */
  DOOR_CONN_LIMIT,    /* refused: max_conns */
  DOOR_EVICTED,       /* the oldest unauthenticated, for a newer connection */
  DOOR_HEAD_TIMEOUT,  /* no complete request head within the deadline */
  DOOR__COUNT
};
const char *door_reason_name(enum door_reason r);

/* Unauthenticated connections per client address (IPv4 and IPv6 alike),
 * shared by the members of a group: thread-safe. */
struct door_addrs;
struct door_addrs *door_addrs_new(void);
void door_addrs_free(struct door_addrs **tp);
/* One more connection from sa, unless max (> 0) are open from it already. */
bool door_addrs_take(struct door_addrs *t, const struct sockaddr *sa, long max);
void door_addrs_put(struct door_addrs *t, const struct sockaddr *sa);
/* Connections counted for sa (tests). */
long door_addrs_count(struct door_addrs *t, const struct sockaddr *sa);

/* One connection, from its start to its end (MHD's socket context). */
struct door_conn {
  struct door_conn       *prev, *next;   /* on its door's list while unauthenticated */
  struct sockaddr_storage sa;
  int                     fd;
  uint64_t                t_open_ms;
  uint64_t                t_wait_ms;     /* since when a request head is awaited */
  bool                    authed;        /* a request showed a valid key */
  bool                    busy;          /* a request is under way */
  bool                    holds_addr;    /* counted in door_addrs */
  bool                    forced;        /* closed by the door */
  bool                    linger;        /* answered with a body unread (srv_linger.c) */
};

/* The connections of one server (one thread). */
CLIST_HEAD(door_conns, struct door_conn);

struct door {
  struct door_addrs *addrs;
  struct door_conns  unauth;         /* unauthenticated, oldest first */
  long               max_unauth;     /* <= 0: no limit */
  uint64_t           head_timeout_ms;
  uint64_t           closed[DOOR__COUNT];   /* by the door itself */
};

/* c starts (its fields sa and fd set; holds_addr if the caller counted
 * it). Returns the connection the door closed to make room, or NULL. */
struct door_conn *door_open(struct door *d, struct door_conn *c, uint64_t now_ms);
/* A request of c showed a valid key. */
void door_authed(struct door *d, struct door_conn *c);
/* A request began (its head is complete), and ended. */
void door_busy(struct door_conn *c, bool busy, uint64_t now_ms);
void door_closed(struct door *d, struct door_conn *c);
/* Close the connections whose head deadline passed; how many. */
unsigned door_sweep(struct door *d, uint64_t now_ms);

#endif
