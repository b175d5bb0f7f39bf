#ifndef WPFS_LLFS_DNS_INT_H
#define WPFS_LLFS_DNS_INT_H
/* Private to llfs/dns*.c: the resolver's objects and the seams between
 * the cache (dns_cache.c), the c-ares glue (dns_ares.c) and the policy and
 * public API (dns.c). */
#include <ares.h>

#include "llfs/dns.h"

#define DNS_MAGIC        0x2d9c41b3u
#define DNS_WAITER_MAGIC 0x5e17a0c9u
#define DNS_ENTRY_MAGIC  0x7b03e6d1u
#define DNS_NAME_MAX     253

/* Abort on a broken invariant, in release builds too. */
#define DNS_CHECK(cond)                                                 \
  do {                                                                  \
    if(!(cond))                                                         \
      dns_panic(__FILE__, __LINE__, #cond);                             \
  } while(0)
_Noreturn void dns_panic(const char *file, int line, const char *what);

struct dns_wlist {
  struct dns_waiter *first, *last;
};

struct dns_waiter {
  unsigned           magic;
  struct dns        *d;
  struct dns_entry  *e;           /* query waited on; NULL once on d->ready */
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
  struct dns       *d;
  struct dns_entry *hnext;         /* hash chain */
  struct dns_entry *lprev, *lnext; /* LRU list, answered entries only */
  enum dns_entry_st st;
  enum outcome      outcome;       /* of the answer */
  uint64_t          hash;
  uint64_t          expires_ms;    /* monotonic */
  size_t            naddr;
  struct dns_addr   addr[DNS_MAX_ADDRS];
  struct dns_wlist  waiters;       /* while PENDING */
  char              name[];        /* lower case, no trailing dot */
};

struct dns_cache {
  struct dns_entry **buckets;
  size_t             mask;         /* nbuckets - 1 */
  struct dns_entry  *lru_first, *lru_last;  /* first = most recently used */
  size_t             nanswered, npending, max;
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

struct dns {
  unsigned          magic;
  uv_loop_t        *loop;
  struct dns_cfg    cfg;
  char             *servers;       /* our copy of cfg.servers */
  ares_channel      channel;
  bool              channel_ok;
  uv_timer_t        ares_timer;    /* c-ares retransmits and timeouts */
  uv_timer_t        kick;          /* runs the callbacks on d->ready */
  struct dns_sock  *socks;
  struct dns_cache  cache;
  struct dns_wlist  ready;
  struct dns_stats  st;
  int               open_handles;  /* uv handles not yet closed */
  bool              freeing;
  bool              in_cb;
};

/* dns.c */
void dns_wlist_push(struct dns_wlist *l, struct dns_waiter *w);
void dns_wlist_remove(struct dns_wlist *l, struct dns_waiter *w);
/* A query ended: addresses (n > 0) when o is OUTCOME_OK; ttl_s is the
 * smallest TTL of the answer (before clamping). */
void dns_query_done(struct dns_entry *e, enum outcome o, const struct dns_addr *a, size_t n,
                    long ttl_s);
void dns_handle_closed(uv_handle_t *h);

/* dns_cache.c */
int  dns_cache_init(struct dns_cache *c, size_t max);
void dns_cache_fini(struct dns_cache *c);
struct dns_entry *dns_cache_find(const struct dns_cache *c, const char *name, uint64_t h);
/* A new PENDING entry, NULL when out of memory. */
struct dns_entry *dns_cache_add(struct dns *d, const char *name, uint64_t h);
/* e got its answer: onto the LRU list; returns how many entries the cap
 * evicted. */
size_t dns_cache_answered(struct dns_cache *c, struct dns_entry *e);
void dns_cache_touch(struct dns_cache *c, struct dns_entry *e);
/* e expired and is asked again: back to PENDING. */
void dns_cache_requery(struct dns_cache *c, struct dns_entry *e);
void dns_cache_remove(struct dns_cache *c, struct dns_entry *e);

/* dns_ares.c */
int  dns_ares_init(struct dns *d, char *err, size_t errlen);
void dns_ares_query(struct dns *d, struct dns_entry *e);
void dns_ares_fini(struct dns *d);

#endif
