#ifndef WPFS_LLFS_DNS_H
#define WPFS_LLFS_DNS_H
/* Asynchronous DNS with a cache, on a libuv loop (c-ares underneath).
 *
 * One query in flight per name: every resolve of a name that is already
 * being asked joins the waiters of that query. Answers are cached for
 * their TTL clamped to [ttl_floor_s, ttl_ceiling_s]; NXDOMAIN (and names
 * without A/AAAA records) and SERVFAIL are cached for negative_ttl_s;
 * timeouts and other failures are not cached. The cache holds at most
 * cache_max answered names and drops the least recently used beyond that.
 * IP literals are answered without a query.
 *
 * Callbacks always run from the loop, never from inside dns_resolve or
 * dns_cancel, so callers are never re-entered.
 *
 * Threads: a struct dns belongs to one loop and is used from that loop's
 * thread only. Several of them, on several threads, can share one cache
 * (struct dns_shared): a name is then asked once for all of them, and
 * waiters of another thread are called back on their own loop. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "llfs/outcome.h"

struct dns_cfg {
  const char *servers;      /* "127.0.0.1:5353,[::1]:53"; NULL/"" = /etc/resolv.conf */
  long        ttl_floor_s;
  long        ttl_ceiling_s;
  long        negative_ttl_s;
  long        timeout_ms;   /* per server: two tries, timeout_ms/3 then 2*timeout_ms/3 */
  size_t      cache_max;    /* answered names kept, >= 1 */
};

struct dns_addr {
  int           family;     /* AF_INET or AF_INET6 */
  unsigned char b[16];      /* network order; 4 bytes used for AF_INET */
};

#define DNS_MAX_ADDRS 16    /* further addresses of one name are dropped */

struct dns_result {
  enum outcome    outcome;  /* OUTCOME_OK or dns_*, bad_url, no_memory, shutting_down */
  size_t          naddr;    /* > 0 exactly when outcome is OUTCOME_OK */
  struct dns_addr addr[DNS_MAX_ADDRS];  /* IPv4 first, then IPv6, in answer order */
  bool            cached;   /* answered from the cache (or a coalesced query) */
  bool            literal;  /* the host was an IP literal */
  uint64_t        ttl_ms;   /* how long the cache keeps this answer from now;
                               0 when it is not cached (literal, timeout) */
};

/* r is valid only during the call. */
typedef void dns_cb(const struct dns_result *r, void *arg);

struct dns_stats {
  uint64_t hits;           /* answered from a fresh positive entry */
  uint64_t negative_hits;  /* answered from a fresh negative entry */
  uint64_t misses;         /* a query was started (absent or expired) */
  uint64_t queries;        /* A+AAAA lookups sent to c-ares (== misses) */
  uint64_t coalesced;      /* resolves that joined a query in flight */
  uint64_t literals;       /* IP literals answered without a query */
  uint64_t evictions;      /* entries dropped by the cache_max cap */
  uint64_t failures;       /* queries that ended without addresses */
  uint64_t entries;        /* gauge: names in the cache, answered */
  uint64_t in_flight;      /* gauge: queries in flight */
};

struct dns;
struct dns_waiter;
struct dns_shared;

/* Returns NULL with a reason in err (bad servers list, c-ares failure). */
struct dns *dns_new(uv_loop_t *loop, const struct dns_cfg *cfg, char *err, size_t errlen);

/* A cache (with its counters) for several resolvers, and a resolver on
 * loop that uses it (call dns_new_shared on loop's thread, or before that
 * thread runs the loop). dns_shared_free drops the creator's hold: the
 * cache goes with the last of its resolvers. A resolver freed while
 * another's waiter joined one of its queries ends that waiter with
 * shutting_down, so free them together, when the process stops. */
struct dns_shared *dns_shared_new(const struct dns_cfg *cfg, char *err, size_t errlen);
struct dns *dns_new_shared(uv_loop_t *loop, struct dns_shared *sh, char *err, size_t errlen);
void dns_shared_free(struct dns_shared **shp);

/* Resolve host (a name, or an IPv4/IPv6 literal, brackets allowed).
 * Returns 0 and sets *wp (which may be NULL if the caller will never
 * cancel) to a handle valid until cb has run or dns_cancel; cb runs
 * exactly once, later, from the loop. On a non-zero return (bad_url for
 * an empty or over-long name, no_memory, shutting_down) cb is never called. */
enum outcome dns_resolve(struct dns *d, const char *host, dns_cb *cb, void *arg,
                         struct dns_waiter **wp);

/* The caller lost interest: cb will not be called. Clears *wp. The query
 * itself goes on, and its answer is still cached. Not valid after cb ran. */
void dns_cancel(struct dns_waiter **wp);

/* The counters of d's cache: shared resolvers all report the same. */
void dns_stats(const struct dns *d, struct dns_stats *out);

/* Drop every waiter without calling it, stop c-ares and close the loop
 * handles; the memory is released from the loop, so run it afterwards
 * (uv_run returns once everything is closed). Clears *dp. Must not be
 * called from inside a dns_cb. */
void dns_free(struct dns **dp);

/* Parse "1.2.3.4", "::1" or "[::1]" (n bytes of s); 0 on success. */
int  dns_addr_parse(const char *s, size_t n, struct dns_addr *out);
/* Text form into out (at least 46 bytes); IPv6 without brackets. */
void dns_addr_format(const struct dns_addr *a, char *out, size_t outlen);

#endif
