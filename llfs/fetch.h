#ifndef WPFS_LLFS_FETCH_H
#define WPFS_LLFS_FETCH_H
/* The fetch engine of LLFS: one URL in, one HTTP response (or a precise
 * outcome) out, asynchronously on a libuv loop. A fetcher belongs to one
 * loop and is used from that loop's thread; fetchers on several threads
 * may share their DNS and TLS session caches (struct fetch_shared).
 *
 * Per fetch: canonicalize and split the URL -> resolve the host through
 * the DNS cache (llfs/dns.h) -> run the address guard (llfs/guard.h) on
 * every address -> pin the first allowed one so that libcurl never
 * resolves by itself -> GET or HEAD with the caller's headers -> result.
 * Redirects are never followed: the absolute Location comes back in
 * res->redirect. Connections are kept alive per host and TLS sessions are
 * reused. At most max_in_flight fetches run; up to max_queue more wait in
 * FIFO order; beyond that fetch_start answers overloaded. Fetchers that
 * share a fetch_shared count these limits together (each keeps its own
 * FIFO; a slot freed by one lets the others admit).
 *
 * Contracts:
 *  - fetch_start returns 0 and the callback runs exactly once, later, from
 *    the loop (never from inside fetch_start), unless fetch_cancel comes
 *    first; on a non-zero return the callback is never called.
 *  - The result belongs to the engine and is valid only during the
 *    callback; the callback may take res->body or res->headers with
 *    buf_steal and res->redirect by setting it to NULL (free with mem_free).
 *  - The job handle is valid until the callback returns or fetch_cancel.
 *  - Callbacks may call fetch_start, fetch_cancel (on other jobs),
 *    fetcher_stats, fetcher_shutdown and fetcher_free. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "api/metrics.h"
#include "common/buf.h"
#include "common/cfg.h"
#include "llfs/dns.h"
#include "llfs/guard.h"
#include "llfs/outcome.h"

/* Configuration. Every limit is both the default of a request that does
 * not set it and the maximum a request may ask for. */
struct fetch_cfg {
  char  *allow_cidrs;          /* guard allow-list, comma-separated CIDRs */
  long   connect_timeout_ms;
  long   dns_cache_max;
  long   dns_negative_ttl_s;
  char  *dns_servers;          /* NULL: /etc/resolv.conf */
  long   dns_timeout_ms;
  long   dns_ttl_ceiling_s;
  long   dns_ttl_floor_s;
  size_t low_speed_bytes;      /* abort below this many bytes/s ... */
  long   low_speed_time_ms;    /* ... sustained this long (whole seconds) */
  size_t max_body_bytes;       /* raw (on the wire) body bytes */
  long   max_connections;      /* idle + busy connections kept by libcurl */
  size_t max_decoded_bytes;    /* body bytes after content decoding */
  size_t max_header_bytes;     /* all response header lines together */
  long   max_host_connections; /* per host:port */
  long   max_in_flight;
  long   max_queue;
  char  *proxy;                /* NULL or "": direct; else every connection goes there */
  long   timeout_ms;           /* from leaving the queue to the last byte; the queue
                                  wait has the same bound (then: overloaded) */
  char  *tls_ca_file;          /* NULL: the system store */
  char  *user_agent;
};

/* The config rows, for merging into a program's table. base is the
 * offset of the struct fetch_cfg inside the program's config struct:
 *   static const struct cfg_key keys[] = { FETCH_CFG_KEYS(offsetof(struct x, fetch)), ... };
 * fetch_cfg.c holds the same table with base 0. */
#define FETCH_CFG_OFF(base, f) ((base) + offsetof(struct fetch_cfg, f))
#define FETCH_CFG_KEYS(base)                                                              \
  { "allow_cidr", CFG_LIST, FETCH_CFG_OFF(base, allow_cidrs), NULL, 1, 0, "WPFS_ALLOW_CIDRS",\
    "one more allow-listed CIDR (repeatable); adds to allow_cidrs" },                     \
  { "allow_cidrs", CFG_LIST, FETCH_CFG_OFF(base, allow_cidrs), NULL, 1, 0, NULL,          \
    "CIDRs the address guard lets through (e.g. 127.0.0.0/8 in tests)" },                 \
  { "connect_timeout_ms", CFG_MSEC, FETCH_CFG_OFF(base, connect_timeout_ms), "10s", 1,    \
    600000, NULL, "TCP+TLS connect timeout: default and maximum per request" },           \
  { "dns_cache_max", CFG_INT, FETCH_CFG_OFF(base, dns_cache_max), "100000", 1, 10000000,  \
    NULL, "host names kept in the DNS cache (least recently used dropped)" },             \
  { "dns_negative_ttl_s", CFG_INT, FETCH_CFG_OFF(base, dns_negative_ttl_s), "30", 0,      \
    86400, NULL, "seconds NXDOMAIN and SERVFAIL answers are cached" },                    \
  { "dns_servers", CFG_LIST, FETCH_CFG_OFF(base, dns_servers), NULL, 1, 0, NULL,          \
    "DNS servers as host:port, comma-separated (default: /etc/resolv.conf)" },            \
  { "dns_timeout_ms", CFG_MSEC, FETCH_CFG_OFF(base, dns_timeout_ms), "5s", 30, 60000,     \
    NULL, "DNS answer deadline per server (two tries)" },                                 \
  { "dns_ttl_ceiling_s", CFG_INT, FETCH_CFG_OFF(base, dns_ttl_ceiling_s), "3600", 0,      \
    604800, NULL, "longest time a DNS answer is cached" },                                \
  { "dns_ttl_floor_s", CFG_INT, FETCH_CFG_OFF(base, dns_ttl_floor_s), "30", 0, 86400,     \
    NULL, "shortest time a DNS answer is cached, whatever its TTL" },                     \
  { "low_speed_bytes", CFG_SIZE, FETCH_CFG_OFF(base, low_speed_bytes), "1k", 0,           \
    1073741824, NULL, "abort a transfer slower than this many bytes/s (0: never)" },      \
  { "low_speed_time_ms", CFG_MSEC, FETCH_CFG_OFF(base, low_speed_time_ms), "20s", 1000,   \
    600000, NULL, "for this long (rounded up to whole seconds)" },                        \
  { "max_body_bytes", CFG_SIZE, FETCH_CFG_OFF(base, max_body_bytes), "10m", 1,            \
    1073741824, NULL, "body bytes read off the wire (before decoding): default and maximum" },           \
  { "max_connections", CFG_INT, FETCH_CFG_OFF(base, max_connections), "1024", 1, 1000000, \
    NULL, "connections libcurl keeps open (keep-alive cache), per fetcher: per llfs worker" },                          \
  { "max_decoded_bytes", CFG_SIZE, FETCH_CFG_OFF(base, max_decoded_bytes), "20m", 1,      \
    1073741824, NULL, "decoded (gunzipped...) body bytes: default and maximum" },         \
  { "max_header_bytes", CFG_SIZE, FETCH_CFG_OFF(base, max_header_bytes), "64k", 256,      \
    1048576, NULL, "response header bytes; more is too_large" },                          \
  { "max_host_connections", CFG_INT, FETCH_CFG_OFF(base, max_host_connections), "4", 1,   \
    10000, NULL, "connections per host:port at once, per fetcher: per llfs worker" },                                   \
  { "max_in_flight", CFG_INT, FETCH_CFG_OFF(base, max_in_flight), "256", 1, 100000, NULL, \
    "fetches resolving or transferring at once (all llfs workers together)" },                                        \
  { "max_queue", CFG_INT, FETCH_CFG_OFF(base, max_queue), "10000", 0, 10000000, NULL,     \
    "fetches waiting for a slot (all llfs workers together); beyond: overloaded" },              \
  { "proxy", CFG_STR, FETCH_CFG_OFF(base, proxy), NULL, 1, 0, NULL,                       \
    "outgoing proxy, http://, https:// or socks5://HOST:PORT (targets still pass the guard)" }, \
  { "timeout_ms", CFG_MSEC, FETCH_CFG_OFF(base, timeout_ms), "30s", 1, 600000, NULL,      \
    "time of one fetch from leaving the queue to the last byte (a longer wait in the queue: overloaded): default and maximum per request" },                         \
  { "tls_ca_file", CFG_STR, FETCH_CFG_OFF(base, tls_ca_file), NULL, 1, 0, NULL,           \
    "CA bundle for TLS verification (default: the system store)" },                       \
  { "user_agent", CFG_STR, FETCH_CFG_OFF(base, user_agent), "wpfs-llfs/0.1", 1, 0, NULL,  \
    "User-Agent header unless the request sets one" }

/* Fill c with the defaults of the table (its strings are owned by c, from
 * malloc as cfg allocates them;
 * release them with fetch_cfg_clear). Returns 0. */
int  fetch_cfg_defaults(struct fetch_cfg *c);
void fetch_cfg_clear(struct fetch_cfg *c);

enum fetch_method { FETCH_GET, FETCH_HEAD };

struct fetch_req {
  const char        *url;       /* absolute http(s) URL; canonicalized here */
  enum fetch_method  method;
  const char *const *headers;   /* "Name: value" lines, copied */
  size_t             nheaders;
  long               connect_timeout_ms;  /* 0: config; larger is capped */
  long               timeout_ms;          /* 0: config; larger is capped */
  size_t             max_body;            /* 0: config; larger is capped */
  size_t             max_decoded;         /* 0: config; larger is capped */
  const char        *pin_addr;  /* IP to connect to instead of resolving
                                   (still guarded); NULL or "" to resolve */
  const char        *req_id;    /* carried into logs; may be NULL */
  uint64_t           hold_us;   /* contact the site no sooner than this long
                                   after fetch_start (0: at once); the
                                   timeout counts from the end of the hold */
};

/* Durations in microseconds; 0 when the phase did not happen (e.g. no
 * connect or TLS on a reused connection). */
struct fetch_timings {
  uint64_t hold_us;        /* held as the request asked (fetch_req.hold_us) */
  uint64_t queue_us;       /* waiting for a slot */
  uint64_t dns_us;         /* our resolver, cache hits included */
  uint64_t connect_us;     /* TCP handshake */
  uint64_t tls_us;         /* TLS handshake */
  uint64_t first_byte_us;  /* request sent -> first response byte */
  uint64_t total_us;       /* fetch_start (the end of the hold) -> end */
};

struct fetch_res {
  enum outcome   outcome;
  const char    *detail;       /* short reason for logs ("" if none) */
  const char    *url;          /* the canonical URL fetched */
  long           status;       /* HTTP status, 0 when no response */
  int            http_version; /* 10, 11, 20; 0 when no response */
  struct buf     headers;      /* final response: "Name: value\n" lines */
  struct buf     body;         /* decoded body, at most max_decoded bytes */
  bool           truncated;    /* body cut at a limit (outcome too_large) */
  char          *redirect;     /* absolute Location of a 3xx, or NULL */
  char           addr[64];     /* address dialled (connected to, unless the
                                  connect failed); for blocked_address the
                                  first refused one; "" if none */
  unsigned       port;
  bool           reused;       /* an existing connection carried it */
  enum guard_verdict blocked;  /* why, when outcome is blocked_address */
  uint64_t       bytes_raw;    /* body bytes on the wire */
  uint64_t       bytes_decoded;/* body bytes after decoding, before the cap */
  struct fetch_timings t;
};

/* Value of the first header called name (case-insensitive) in
 * res->headers, with its length in *len; NULL if absent. */
const char *fetch_res_header(const struct fetch_res *res, const char *name, size_t *len);

typedef void fetch_cb(struct fetch_res *res, void *arg);

#define FETCH_PHASES(X) \
  X(DNS, dns) X(CONNECT, connect) X(TLS, tls) X(FIRST_BYTE, first_byte) X(TOTAL, total)
enum fetch_phase {
#define X(e, n) FETCH_PHASE_##e,
  FETCH_PHASES(X)
#undef X
  FETCH_PHASE__COUNT
};
const char *fetch_phase_name(enum fetch_phase p);

struct fetch_stats {
  uint64_t outcome[OUTCOME__COUNT];  /* every request, refused ones included */
  uint64_t accepted;                 /* fetch_start returned 0 */
  uint64_t cancelled;
  uint64_t in_flight;                /* gauge */
  uint64_t queued;                   /* gauge */
  uint64_t held;                     /* gauge: waiting for their hold_us */
  uint64_t conn_opened;              /* new TCP connections */
  uint64_t conn_reused;              /* transfers on a kept-alive connection */
  uint64_t conn_hosts;               /* hosts (HOST:PORT) given a first connection */
  uint64_t tls_full, tls_resumed;    /* TLS handshakes: full, resumed session */
  uint64_t bytes_raw, bytes_decoded, bytes_header;
  uint64_t blocked[GUARD__COUNT];    /* addresses refused, by range */
  struct dns_stats   dns;
  struct metrics_lat phase[FETCH_PHASE__COUNT];  /* total: every finished fetch */
};

struct fetcher;
struct fetch_job;

/* What the fetchers of one process share when each runs on its own thread
 * (llfs --workers): one DNS cache, so a name is asked once for all of them
 * (its dns_* settings are cfg's), libcurl's TLS session cache, so a
 * session one of them made is resumed by the others, and the admission
 * limits (cfg's max_in_flight and max_queue, over all of them).
 * Connections stay each fetcher's own (libcurl cannot share them between
 * threads): fetch_shared_affinity sends each host to one fetcher. NULL
 * with a reason in err. */
struct fetch_shared;
struct fetch_shared *fetch_shared_new(const struct fetch_cfg *cfg, char *err, size_t errlen);
/* A fetcher on loop, sharing sh (its dns_* settings are then ignored; NULL:
 * nothing shared, a fetcher of its own); call it on loop's thread, or
 * before that thread runs the loop. NULL with a reason in err (bad allow
 * list, bad DNS servers, libcurl). */
struct fetcher *fetcher_new_shared(uv_loop_t *loop, const struct fetch_cfg *cfg,
                                   struct fetch_shared *sh, char *err, size_t errlen);
/* Site affinity: every fetch of one host runs on the same one of the next
 * n fetchers made with sh (a hash of the host picks it), whichever of
 * them fetch_start was called on, so that one kept-alive connection
 * carries all the host's requests; the result comes back to the caller's
 * fetcher and loop. Call it once, before the first fetcher_new_shared;
 * n < 2 does nothing. Limits and counters stay as without it (a fetch is
 * counted by the fetcher that runs it). */
void fetch_shared_affinity(struct fetch_shared *sh, unsigned n);
/* Once every fetcher made with it is freed and its loop has run. */
void fetch_shared_free(struct fetch_shared **shp);

/* 0, or the outcome that refused the request at once: bad_url,
 * unsupported_scheme, bad_request (a header with CR/LF or without ':', a
 * pin that is not an IP address), overloaded, shutting_down, no_memory. jobp may be
 * NULL when the caller never cancels. */
enum outcome fetch_start(struct fetcher *f, const struct fetch_req *rq, fetch_cb *cb,
                         void *arg, struct fetch_job **jobp);

/* The client went away: the callback will not be called; clears *jobp.
 * Only before the callback has started. */
void fetch_cancel(struct fetch_job **jobp);

/* From any thread. */
void fetcher_stats(struct fetcher *f, struct fetch_stats *out);
/* Add every counter and gauge of from to into, except dns: fetchers that
 * share a cache all report its counters, so take them from one. */
void fetch_stats_merge(struct fetch_stats *into, const struct fetch_stats *from);

/* The fetcher's own resolver and address guard, for callers that must see
 * exactly what a fetch would (the service's /resolve route). Both live as
 * long as the fetcher; a resolve still waiting when the fetcher is freed is
 * dropped without its callback, so cancel it first (dns_cancel). */
struct dns         *fetcher_dns(struct fetcher *f);
const struct guard *fetcher_guard(const struct fetcher *f);

/* Stop accepting (fetch_start says shutting_down), let every accepted
 * fetch finish until deadline_ms from now, then end the rest with
 * shutting_down; then done(arg) runs once, from the loop. */
typedef void fetcher_done_cb(void *arg);
void fetcher_shutdown(struct fetcher *f, long deadline_ms, fetcher_done_cb *done, void *arg);

/* Drop every fetch without calling back, and release everything; the
 * loop handles close asynchronously, so run the loop until it returns.
 * Clears *fp. */
void fetcher_free(struct fetcher **fp);

#endif
