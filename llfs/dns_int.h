#ifndef WPFS_LLFS_DNS_INT_H
#define WPFS_LLFS_DNS_INT_H
/* Private to llfs/dns*.c: the resolver's objects and the seams between
 * the cache (dns_cache.c), the c-ares glue (dns_ares.c) and the policy and
 * public API (dns.c).
 *
 * Threads: a struct dns is one loop's resolver (its c-ares channel, its
 * timers, the waiters it calls back); several of them, each on its own
 * thread, may share one struct dns_shared: the cache, the queries in
 * flight with their waiters, and the counters, all under shared->mu. A
 * query runs on the channel of the resolver that missed; its answer goes
 * to every waiter, on the waiter's own loop (its resolver's ready list,
 * under ready_mu, then the kick timer when it is the same loop, or the
 * wake async from another thread). Lock order: shared->mu, then a
 * ready_mu. */
#include <ares.h>
#include <pthread.h>

#include "common/err.h"
#include "common/list.h"
#include "common/lru.h"
#include "llfs/dns.h"

#define DNS_MAGIC        0x2d9c41b3u
#define DNS_WAITER_MAGIC 0x5e17a0c9u
#define DNS_ENTRY_MAGIC  0x7b03e6d1u
#define DNS_NAME_MAX     253


struct dns_wlist {
  struct dns_waiter *first, *last;
};

struct dns_waiter {
  unsigned           magic;
  struct dns        *d;           /* the resolver (loop) it is called back on */
  struct dns_entry  *e;           /* query waited on; NULL once on d->ready
                                     (both under shared->mu) */
  struct dns_waiter *prev, *next; /* on e->waiters or on d->ready */
  dns_cb            *cb;
  void              *arg;
  struct dns_result  res;
};

enum dns_entry_st { DNS_ENT_PENDING, DNS_ENT_POSITIVE, DNS_ENT_NEGATIVE };

/* One name: a query in flight (PENDING, not on the LRU list, not counted
 * against cache_max) or an answer (on the LRU list until it is evicted or
 * asked again after expiry). */
struct dns_entry {
  unsigned          magic;
  struct dns       *d;             /* while PENDING: whose channel asks */
  struct lru_node   node;          /* h: the name's hash; in the order
                                      (LRU) when answered only */
  struct dns_entry *pprev, *pnext; /* pending list, PENDING entries only */
  enum dns_entry_st st;
  enum outcome      outcome;       /* of the answer */
  uint64_t          expires_ms;    /* monotonic */
  size_t            naddr;
  struct dns_addr   addr[DNS_MAX_ADDRS];
  struct dns_wlist  waiters;       /* while PENDING */
  char              name[];        /* lower case, no trailing dot */
};

CLIST_HEAD(dns_pending, struct dns_entry);

struct dns_cache {
  struct lru         lru;          /* every name; answered ones in use order (lru.n) */
  struct dns_pending pending;      /* queries in flight, any order */
  size_t             max;
};

struct dns_sock {
  uv_poll_t        poll;
  unsigned         magic;
#define DNS_SOCK_MAGIC 0x61c0d2f4u
  int              fd;
  int              events;         /* what c-ares wants watched */
  bool             closing;
  struct dns      *d;
  struct dns_sock *next;
};

/* What every resolver of a dns_shared sees alike. cfg and servers never
 * change after creation; the rest is under mu. */
struct dns_shared {
  unsigned          magic;
#define DNS_SHARED_MAGIC 0x0d5c5a4eu
  pthread_mutex_t   mu;
  struct dns_cfg    cfg;
  char             *servers;       /* our copy of cfg.servers */
  struct dns_cache  cache;
  struct dns_stats  st;
  unsigned          refs;          /* the creator's, and one per resolver */
};

struct dns {
  unsigned          magic;
  uv_loop_t        *loop;
  struct dns_shared *sh;
  struct dns_cfg    cfg;           /* sh->cfg (servers: sh->servers) */
  ares_channel      channel;
  bool              channel_ok;
  uv_timer_t        ares_timer;    /* c-ares retransmits and timeouts */
  uv_timer_t        kick;          /* runs the callbacks on d->ready */
  uv_async_t        wake;          /* the same, asked from another thread */
  struct dns_sock  *socks;
  pthread_mutex_t   ready_mu;
  struct dns_wlist  ready;         /* under ready_mu */
  size_t            nwaiters;      /* not yet called back nor cancelled:
                                      while any, wake keeps the loop alive
                                      (the answer may come from another
                                      thread's query) */
  int               open_handles;  /* uv handles not yet closed */
  bool              freeing;
  bool              in_cb;
};

/* dns.c */
/* A query ended: addresses (n > 0) when o is OUTCOME_OK; ttl_s is the
 * smallest TTL of the answer (before clamping). On e->d's thread, without
 * shared->mu. */
void dns_query_done(struct dns_entry *e, enum outcome o, const struct dns_addr *a, size_t n,
                    long ttl_s);
void dns_handle_closed(uv_handle_t *h);

/* dns_cache.c: every function under shared->mu. */
int  dns_cache_init(struct dns_cache *c, size_t max);
void dns_cache_fini(struct dns_cache *c);
struct dns_entry *dns_cache_find(const struct dns_cache *c, const char *name, uint64_t h);
/* A new PENDING entry, NULL when out of memory. */
struct dns_entry *dns_cache_add(struct dns *d, const char *name, uint64_t h);
/* e got its answer: onto the LRU list; returns how many entries the cap
 * evicted. */
size_t dns_cache_answered(struct dns_cache *c, struct dns_entry *e);
void dns_cache_touch(struct dns_cache *c, struct dns_entry *e);
/* e expired and is asked again by d: back to PENDING. */
void dns_cache_requery(struct dns_cache *c, struct dns_entry *e, struct dns *d);
void dns_cache_remove(struct dns_cache *c, struct dns_entry *e);

/* dns_ares.c: on d's thread, without shared->mu (c-ares may answer at
 * once, from inside dns_ares_query). */
int  dns_ares_init(struct dns *d, char *err, size_t errlen);
void dns_ares_query(struct dns *d, struct dns_entry *e);
void dns_ares_fini(struct dns *d);

#endif
