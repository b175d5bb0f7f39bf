#ifndef WPFS_HLFS_GW_H
#define WPFS_HLFS_GW_H
/* The gateway's REST service (openapi.yaml, tag gateway): what each route
 * does on top of the fetch layer (hlfs/fetch/fetch.h), the scheduler
 * (hlfs/sched/sched.h), the shared state (hlfs/state/state.h) and the page
 * store (hlfs/state/pages.h). main.c owns the process. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* Only what the struct's members and the prototypes need by value; the
 * services the gateway points to are declared, and each file includes
 * the headers of those it calls. */
#include "api/jin.h"
#include "api/metrics.h"
#include "api/srv.h"
#include "common/url.h"
#include "hlfs/fetch/auth.h"
#include "hlfs/fetch/fetch.h"
#include "hlfs/gw/tenant.h"
#include "hlfs/policy/robots.h"
#include "hlfs/policy/robots_policy.h"
#include "hlfs/state/notify.h"
#include "hlfs/state/pages.h"
#include "hlfs/state/state.h"

struct page_memo;
struct gw;
struct reqopt_allow;
struct sched;

struct gw_cfg {
  const char *replica;          /* unique per process: lease tokens, consumer name */
  const char *agent;            /* User-Agent sent to sites; its product token for robots */
  unsigned    max_batch;        /* URLs per POST /v1/batches */
  uint32_t    page_ttl_s;       /* pages kept in Redis */
  uint32_t    visibility_ms;    /* unacknowledged results are delivered again after */
  uint32_t    max_wait_ms;      /* longest long-poll / synchronous wait */
  size_t      max_url_len;
  unsigned    max_redirects;    /* follow_redirects allowed, at most FOLLOW_MAX */
  size_t      max_result_bytes; /* cap on one answer of GET /v1/results */
  enum site_mode site_mode;
  size_t      page_memo_bytes;        /* hot pages kept rendered (0: none) */
  unsigned    fleet_budget;           /* fetches in flight over all replicas (0: per replica) */
  unsigned    budget;                 /* this replica's, at most */
  bool        metrics_client_names;   /* the per-client families in /metrics too */
  const struct reqopt_allow *client_headers;  /* headers a request may carry (hlfs/fetch/reqopt.h) */
};

/* The options of a request of client c (hlfs/fetch/reqopt.h): "method"
 * and "headers" of object v (NULL: none) and c's identity; *out NULL when
 * the request has none, else mem_alloc'd. -1 with e filled (422). */
int gw_req_opts(const struct gw *g, const struct state_client *c, json_t *v, const char *pre,
                char **out, struct jin_err *e);

#define GW_COUNTERS(X)                                                   \
  X(unauthorized,      "requests refused for a missing or unknown key")  \
  X(forbidden,         "requests refused for a key whose role may not make them") \
  X(sync_fetches,      "synchronous fetches asked")                      \
  X(sync_timeouts,     "synchronous fetches that passed their deadline") \
  X(pages_stored,      "pages written to the page store")                \
  X(page_store_errors, "pages that could not be stored")                 \
  X(pages_held,        "pages held in memory because the page cache could not take them (stored later, or given up)") \
  X(pages_held_stored, "held pages stored once the page cache was back")   \
  X(fetcher_errors,    "fetches the fetcher service could not answer")   \
  X(results_served,    "results handed to clients")                     \
  X(results_wakes,     "waiting result reads woken by their client's channel") \
  X(results_page_expired, "results delivered without their page (evicted or expired from the page cache)") \
  X(results_partial,   "result reads answered with some shard groups missing (Wpfs-Missing-Shards)") \
  X(results_page_withheld, "results delivered without their page: another key's private copy, or a shared one for a private key (coalesced requests)") \
  X(results_fresh,     "results given the page their fetch stored, kept in this replica (no page cache read)") \
  X(cache_hits,        "requests answered from a stored page, site untouched") \
  X(sync_cache_hits,   "synchronous fetches answered from a stored page before queueing (also in cache_hits)") \
  X(revalidated,       "stored pages confirmed by a 304 (conditional refetch)") \
  X(connections_opened, "fetches (pages, robots.txt and its redirects) that opened a new connection to their site") \
  X(robots_parses,     "robots.txt bodies parsed (parsed-rules cache misses)") \
  X(robots_rule_hits,  "robots checks answered by parsed rules kept in memory") \
  X(page_memo_hits,    "answers made from a page kept rendered in memory, confirmed by the page cache") \
  X(page_memo_stale,   "pages kept in memory found changed in the page cache (read again)")

struct gw_stats {
#define X(n, h) uint64_t n;
  GW_COUNTERS(X)
#undef X
};

struct gw_waiter;

/* The fleet as this replica last saw it (gw_fleet.c): the gauges of
 * /metrics. Polled with the fetcher's ping. */
#define GW_FLEET_CLIENTS 256
struct gw_fleet_client {
  char     name[STATE_CLIENT_MAX + 1];
  uint64_t queued, in_flight, results, oldest_ms;
};
#define GW_MEM_CACHE STATE_STORES_MAX  /* mem_*[k]: state Redis k, or the page cache's */
struct gw_fleet_mem {
  struct gw *g;
  unsigned   which;
  bool       polling, known;
  long long  used, max;
};
#define GW_FLEET_ROLL 64  /* replica names kept for a failover's roll call */
struct gw_fleet {
  bool     polling;
  bool     ok;          /* the last poll was answered */
  uint64_t now_ms;      /* the Redis clock then */
  uint64_t roll_at;     /* monotonic ms of the last answer that filled roll */
  size_t   nreplicas, nclients, nroll;
  char     roll[GW_FLEET_ROLL][96];  /* the replicas of that answer, by name */
  struct gw_fleet_client c[GW_FLEET_CLIENTS];
  struct gw_fleet_mem mem[STATE_STORES_MAX + 1];  /* INFO memory of each Redis */
  unsigned status_busy;               /* GET /status being answered */
};

struct gw {
  unsigned magic;
#define GW_MAGIC 0x6a7e3a11u
  uv_loop_t           *loop;
  struct gw_cfg        cfg;
  unsigned             nstores;      /* state Redis: one per shard group */
  struct store        *store[STATE_STORES_MAX];  /* queues, leases, results */
  struct store        *sub[STATE_STORES_MAX];    /* the same again, subscribed (notify.h) */
  struct store        *pages;        /* the page cache's Redis (hlfs/state/pages.h), or store[0] */
  struct notify       *notify;
  struct state        *st;
  struct sched        *sched;
  struct fetch        *fetch;        /* the fetch path (hlfs/fetch/fetch.h): fetcher client,
                                        pages just fetched, identities */
  struct auth         *auth;
  struct page_memo    *memo;         /* hot pages, rendered (gw_page.c) */
  struct state_client  sync_client;  /* "sync.<replica>": synchronous fetches */
  char                 sync_name[STATE_CLIENT_MAX + 1];
  struct gw_waiter    *waiters;      /* synchronous fetches waiting, by rid */
  uv_timer_t           sync_timer;   /* the next deadline, or the safety re-read */
  struct notify_waiter sync_nw;
  bool                 sync_reading;
  unsigned             sync_part;    /* the state Redis being read (state_results_read) */
  bool                 stopping;
  bool                 llfs_ok;
  struct gw_stats      stats;
  struct metrics_lat   delivery_lag;  /* publish to first delivery of each result */
  struct gw_fleet      fleet;
  struct tenants       tenants;  /* per-client counters */
};

extern const struct api_route gw_routes[];
extern const size_t gw_nroutes;

/* gw_fleet.c. The replicas alive as last seen (at most GW_FLEET_ROLL, this
 * one among them) into names, for a failover's roll call; 0 when that
 * was too long ago to be sure of (a replica may have joined since). */
size_t gw_fleet_roll(const struct gw *g, const char **names, size_t cap);

/* gw_common.c. The authenticated client of rq when its key's role is one of
 * roles (GW_ROLE bits), or NULL after answering 401 (no such key) or 403
 * forbidden (why, with the key's client and role). */
#define GW_ROLE(r) (1u << (r))
#define GW_ROLES_CRAWL (GW_ROLE(AUTH_ROLE_OPERATOR) | GW_ROLE(AUTH_ROLE_CRAWLER))
const struct state_client *gw_auth_as(struct gw *g, struct api_req *rq, unsigned roles,
                                      const char *why);
/* The same for the routes of crawlers (and operators). */
const struct state_client *gw_auth(struct gw *g, struct api_req *rq);
/* Answer 403 forbidden: c's key may not do this (why). */
void gw_forbidden(struct gw *g, struct api_req *rq, const struct state_client *c,
                  const char *why);
/* Answer a store failure (503 store-unavailable). */
void gw_store_down(struct api_req *rq, store_err e);
/* Answer a URL the URL library refused (400 url-too-long, unsupported-scheme
 * or invalid-url, naming the field and the library's error). */
void gw_url_problem(struct api_req *rq, const char *field, url_err ue);
/* Canonical form of url under the gateway's options; on failure answers. */
char *gw_canon(struct gw *g, struct api_req *rq, const char *field, const char *url);

/* Routes, by file. */
void gw_h_batches(struct api_req *rq, void *arg);       /* gw_submit.c */
void gw_h_results(struct api_req *rq, void *arg);       /* gw_results.c */
void gw_h_ack(struct api_req *rq, void *arg);
void gw_h_fetch(struct api_req *rq, void *arg);         /* gw_fetch.c */
void gw_h_site(struct api_req *rq, void *arg);          /* gw_info.c */
void gw_h_robots(struct api_req *rq, void *arg);
void gw_h_stats(struct api_req *rq, void *arg);
void gw_metrics(struct buf *out, void *arg);
void gw_h_client_metrics(struct api_req *rq, void *arg);
void gw_h_status(struct api_req *rq, void *arg);        /* gw_status.c */
/* The server's header-time key check (api/srv.h, authorize): a valid key,
 * or a 401 answered. */
bool gw_authorize(struct api_req *rq, const struct api_route *route, void *arg); /* gw_door.c */
/* gw_fleet.c: heartbeat and fleet gauges, each ping; their /metrics. */
void gw_fleet_tick(struct gw *g);
void gw_fleet_metrics(struct gw *g, struct buf *b);
/* The families labelled by client: per-client counters (tenant.h) and
 * fleet gauges (GET /v1/metrics/clients; /metrics with
 * metrics_client_names). */
void gw_client_metrics(struct gw *g, struct buf *b);
/* The clients the fleet view asks about: every API key's and this
 * replica's synchronous one. Returns how many (at most cap). */
size_t gw_fleet_clients(struct gw *g, const char **out, size_t cap);
int  gw_ready(void *arg, char *why, size_t whylen);      /* gw_common.c */

/* gw_results.c: one result entry as JSON for reader, page inlined
 * (body_base64, or with raw_body its bytes under GW_RAW_BODY_KEY, for the
 * framed answer) when reader may read it (page_key_readable: else "page":
 * "withheld"); cb gets NULL on out of memory. */
typedef void gw_result_cb(void *arg, json_t *result);
void gw_result_render(struct gw *g, const struct state_result *r,
                      const struct state_client *reader, bool raw_body, gw_result_cb *cb,
                      void *arg);
#define GW_RAW_BODY_KEY " body"  /* no member of a Result has a space */
/* and, for a verified copy, its stored header list as JSON text to splice */
#define GW_RAW_HEADERS_KEY " headers"
/* GET /v1/results' framed answer (openapi.yaml): per result, a line of
 * JSON, then body_bytes bytes of page and a newline. */
#define GW_RESULTS_FRAMED "application/vnd.wpfs.results"

void gw_h_page(struct api_req *rq, void *arg);             /* gw_pages.c */

/* gw_xrobots.c: the X-Robots-Tag directives of a stored header list (JSON
 * text) that apply to the product token of agent (a User-Agent), added to
 * a result: "robots_tags" (names, in ROBOTS_TAGS order) and
 * "robots_unavailable_after" (ms since the epoch). */
void gw_xrobots_render(json_t *res, const char *headers_json, const char *agent);
/* The same members as JSON text, ",\"robots_tags\":[...]...", or nothing. */
cm_err gw_xrobots_text(struct buf *b, const char *headers_json, const char *agent);

/* gw_page.c: a stored page as JSON text (a Page, or the Result of a
 * synchronous fetch answered from the page cache), read and answered.
 * A key's stored copy: head has url, outcome, status, fetched_at (and
 * hash); tail is the rest of its JSON text. NULL head: no such copy (err
 * STORE_OK) or err. Everything lives only during the callback. */
typedef void gw_page_cb(void *arg, store_err err, const struct page *head, const char *tail,
                        size_t tail_len);
/* Read key's copy, from the pages kept rendered when the page cache
 * confirms them (hlfs/gw/page_memo.h). Contracts of hlfs/state/store.h. */
store_err gw_page_read(struct gw *g, const char *key, gw_page_cb *cb, void *arg);
/* Answer rq 200 with head's text then tail (503 on out of memory). */
void gw_page_reply(struct api_req *rq, const struct page *head, const char *tail,
                   size_t tail_len, const char *rid, uint64_t now_ms);

/* gw_raw.c: the page itself instead of JSON. */
/* Whether rq asks for it (format=raw|json, else Accept); -1 after answering
 * 400 for a bad format. */
int  gw_wants_raw(struct api_req *rq, bool *raw);
/* Whether an Accept header lists type itself, with a q above 0 and at
 * least that of any JSON range (application/json, application/ *, * / *). */
bool gw_accepts(const char *accept, const char *type);
/* Answer rq 200 with p's bytes and Content-Type, the rest in X-Wpfs-*. */
void gw_raw_page(struct api_req *rq, const struct page *p, const char *id, const char *outcome,
                 uint64_t now_ms);
/* Answer rq with a rendered Result: its page, or 502 no-page. */
void gw_raw_result(struct api_req *rq, json_t *res, uint64_t now_ms);

/* gw_fetch.c: the synchronous-results reader hands entries to waiters. */
void gw_sync_start(struct gw *g);
void gw_sync_stop(struct gw *g);

#endif
