#ifndef WPFS_HLFS_STATE_H
#define WPFS_HLFS_STATE_H
/* The gateway's shared state in Redis, as typed asynchronous calls: submit,
 * claim, complete, renew, robots records, result streams, site state.
 * Each call is one script or command on one shard (docs/hlfs-state.md has
 * the key layout and the reasons for it). The REST layer calls
 * state_submit, state_results_*, state_site and state_robots_get; the
 * scheduler (hlfs/sched/sched.h) calls the rest.
 *
 * Contracts (those of hlfs/state/store.h): a non-zero return means the callback
 * is never called; otherwise it is called once, from the loop. Strings in a
 * callback's arguments live only during the callback. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/policy/delay.h"
#include "hlfs/state/qenc.h"
#include "hlfs/policy/site.h"
#include "hlfs/state/store.h"

#define STATE_SUBMIT_MAX   5000  /* URLs per state_submit call */
#define STATE_CLIENT_MAX   64    /* bytes of a client name: [A-Za-z0-9._-] */
#define STATE_RID_MAX      24    /* "<shard>-<seq>" */
#define STATE_RESULTS_MAX  1000  /* entries per read */
#define STATE_STORES_MAX   32    /* Redis servers (shard groups) */

/* Per-URL answer of a submission. Append only: names reach the API. */
#define STATE_SUB_CODES(X)                                              \
  X(ACCEPTED,     "accepted")                                           \
  X(DUP_QUEUED,   "duplicate_queued")      /* same client, same URL */  \
  X(DUP_INFLIGHT, "duplicate_in_flight")                                \
  X(OVER_RATE,    "over_rate_quota")       /* retry_ms says when */     \
  X(OVER_QUEUE,   "over_queue_quota")                                   \
  X(BAD_URL,      "bad_url")               /* no site could be made */  \
  X(UNAVAILABLE,  "store_unavailable")

enum state_sub_code {
#define X(e, s) STATE_SUB_##e,
  STATE_SUB_CODES(X)
#undef X
  STATE_SUB__LAST
};
const char *state_sub_name(enum state_sub_code c);

/* Counters for /metrics; tests assert on them. */
#define STATE_COUNTERS(X)                                                        \
  X(claim_calls,     "claim scripts run")                                        \
  X(claims,          "requests claimed")                                         \
  X(lease_skipped,   "claims that found a due site still leased")                \
  X(lease_lost,      "leases found taken at renewal or completion")              \
  X(leases_reaped,   "expired leases whose request went back to its queue")      \
  X(abandoned,       "requests given up after max attempts (published)")         \
  X(completed,       "results published by completions")                         \
  X(robots_stored,   "robots.txt records stored")                                \
  X(aborted,         "claims given back untouched")                              \
  X(renewed,         "leases extended")                                          \
  X(results_read,    "results delivered to readers (first delivery)")            \
  X(results_redelivered, "results delivered again after the visibility timeout") \
  X(results_acked,   "results acknowledged")                                  \
  X(coalesce_joined, "submissions that joined the same URL's fetch in flight")  \
  X(coalesce_served, "results published to waiters of another request's fetch") \
  X(coalesce_requeued, "waiters sent back to queue: the result was an older stored copy") \
  X(retried,         "requests sent back to queue by the retry policy (docs/retries.md)") \
  X(reapplied,       "sites whose politeness this replica wrote again after a failover") \
  X(submit_unreplicated, "URLs answered store_unavailable: no replica had their submission in time")

struct state_stats {
#define X(name, help) uint64_t name;
  STATE_COUNTERS(X)
#undef X
  uint64_t submit[STATE_SUB__LAST];
};

struct state_cfg {
  unsigned       nshards;         /* 1 on a single Redis; see docs */
  enum site_mode site_mode;
  uint32_t       results_maxlen;  /* XADD MAXLEN ~ per client stream */
  uint32_t       idle_keep_ms;    /* an idle site's politeness state outlives next_at by this */
  uint32_t       robots_keep_ms;  /* a robots record outlives its expiry by this */
  uint32_t       queue_retry_ms;  /* Retry-After given for the queued-URL quota */
  uint32_t       journal_max;     /* sites whose recent politeness writes are kept to
                                     write again after a failover (0: none) */
  uint32_t       submit_replicas; /* replicas that must have a submission before it is
                                     answered accepted (WAIT; 0: none) */
  uint32_t       submit_wait_ms;  /* ...within this long */
};

/* The shards live on nstores Redis (1..STATE_STORES_MAX), shard s on
 * stores[s % nstores]; cfg->nshards below nstores is raised to it. */
struct state *state_new(struct store *const *stores, unsigned nstores,
                        const struct state_cfg *cfg);
void          state_free(struct state **stp);
const struct state_cfg *state_cfg(const struct state *st);
unsigned      state_nstores(const struct state *st);
/* The Redis that holds shard. */
struct store *state_store(const struct state *st, unsigned shard);
/* Each Redis is checked to be the shard group this gateway takes it for
 * (state_group.c): claims and submissions on a shard wait for that. */
bool          state_shard_ok(const struct state *st, unsigned shard);
bool          state_ready(const struct state *st);  /* every shard group checked */
/* fn runs once a Redis turns out to be another shard group (a fleet whose
 * gateways list the Redis differently): nothing more is claimed. */
void          state_on_mismatch(struct state *st, void (*fn)(void *arg), void *arg);
struct state_stats     *state_stats(struct state *st);
/* 1 if name is a valid client name. */
int state_client_ok(const char *name);

/* ---- submission (REST) ---- */
struct state_client {
  const char *name;
  unsigned    weight;      /* fair share, >= 1 */
  double      rate;        /* URLs per second offered, 0 = no limit */
  unsigned    burst;       /* token bucket depth */
  unsigned    max_queued;  /* URLs queued or in flight, 0 = no limit */
  unsigned    max_attempts; /* its requests' attempts (docs/retries.md), 0: the gateway's */
  bool        hops;        /* redirect hops of accepted requests: no quota,
                              weight and bucket untouched */
};
struct state_item {
  /* in */
  const char *url;         /* canonical absolute URL */
  unsigned    prio;        /* 0..QENC_PRIO_MAX, higher first */
  uint64_t    max_age_s;   /* QENC_MAXAGE_ANY: any cached copy */
  const char *addr;        /* resolved address, SITE_BY_IP only; may be NULL */
  const char *follow;      /* NULL; "N": follow up to N redirects; a hop's
                              record (hlfs/sched/sched_follow.h) */
  unsigned    max_attempts; /* 0: the gateway's; else 1..QENC_ATTEMPTS_MAX + 1,
                              the request's own (docs/retries.md) */
  const char *opts;        /* the request's own options (hlfs/fetch/reqopt.h), NULL
                              or "" for none: kept in its member after QENC_OPT_SEP */
  /* out */
  enum state_sub_code code;
  char        rid[STATE_RID_MAX];  /* request id (accepted, duplicates) */
  uint32_t    retry_ms;            /* over quota: retry after */
};
/* items are filled in place before cb; err is the first store error met
 * (the items it concerns read STATE_SUB_UNAVAILABLE). When no URL needs
 * Redis (all rejected as bad URLs), cb runs before state_submit returns.
 * After a submission, sched_kick lets this replica claim at once. */
typedef void state_submit_cb(void *arg, store_err err, struct state_item *items, size_t n);
store_err state_submit(struct state *st, const struct state_client *c,
                       struct state_item *items, size_t n, state_submit_cb *cb, void *arg);
/* The same, queued for owner (its queue, weight and results) but under
 * quota's rate bucket and max_queued: the synchronous fetches of a client
 * are queued for the replica that waits for them, and paid for by the
 * client. They spend the client's tokens and are refused when its queue
 * is full, but take no place in it (they wait in an HTTP request). */
store_err state_submit_as(struct state *st, const struct state_client *owner,
                          const struct state_client *quota, struct state_item *items,
                          size_t n, state_submit_cb *cb, void *arg);

/* ---- claims (scheduler) ---- */
struct state_claim_args {
  unsigned    max;          /* claims wanted */
  uint32_t    lease_ms;
  const char *token_prefix; /* unique per call: replica id + counter */
  unsigned    reap_max;     /* expired leases to reap first */
  unsigned    max_attempts; /* 1..QENC_ATTEMPTS_MAX + 1 */
  unsigned    scan_clients; /* clients examined per claim */
  uint32_t    ahead_us;     /* a site due this soon is claimed, with its hold_us */
};
struct state_claim {
  const char *site, *client, *url, *token, *rid;
  const char *opts;          /* the request's own options, or NULL (state_item.opts) */
  uint64_t    score;
  struct qenc_score q;       /* priority, attempts, max_age */
  uint32_t    error_streak;  /* the site's, for delay_next */
  uint64_t    lease_until;   /* Redis clock */
  unsigned    waiters;       /* other clients' requests for the URL waiting on this claim */
  const char *follow;        /* its redirect record, or NULL (hlfs/sched/sched_follow.h) */
  uint64_t    hold_us;       /* the site's next request is allowed this long after the
                                claim's clock (0: now); at most ahead_us */
  const char *local_due;     /* state_done.local_due of the completion that set that
                                time, or NULL */
};
struct state_claim_res {
  uint64_t now;              /* Redis clock */
  int64_t  wake_in_us;       /* next due site or lease expiry, from Redis's clock
                                at the claim; -1: none */
  unsigned reaped, abandoned, skipped;
  size_t   n;
  const struct state_claim *claims;
};
typedef void state_claim_cb(void *arg, store_err err, const struct state_claim_res *r);
store_err state_claim(struct state *st, unsigned shard, const struct state_claim_args *a,
                      state_claim_cb *cb, void *arg);

/* ---- completion (scheduler) ---- */
struct state_done {
  const char *site, *token;
  struct delay_out delay;     /* DELAY_NONE: the site was not contacted */
  uint64_t    credit_us;      /* the delay counts from this long before the completion
                                 (when the answer came in: sj_credit) */
  uint32_t    response_ms;
  unsigned    conns;          /* connections the fetch opened to the site (a robots.txt
                                 chain's, on the site, all of them): added to its
                                 count when it was contacted */
  bool        stored;         /* complete: a stored copy was served (not a fetch) */
  uint64_t    age_ms;         /* and its age */
  bool        hopped;         /* complete: a redirect hop was queued for the request: its
                                 own result is not published (its waiters' is) */
  bool        followed;       /* complete: the claim handed a follow record (only then
                                 is one looked up, to be taken with the result) */
  const char *const *fields;  /* result stream field/value pairs */
  size_t      nfields;        /* entries in fields (2 per pair) */
  const char *local_due;      /* "<instance>:<monotonic us>": the same next allowed time
                                 in the completing process's clock, kept with it for
                                 that process's own next claim; NULL: none */
  /* complete: the retry policy (docs/retries.md) */
  char        retry;          /* 0: final; 'r': transient, retried while the request's
                                 attempts allow; 'l': the fetcher was lost, retried
                                 without counting an attempt while below lost_max */
  unsigned    max_attempts;   /* the gateway's (a request's own wins), 1..4 */
  unsigned    lost_max;       /* fetcher losses a request may meet before it ends */
  const char *attempt;        /* this attempt for the log: "outcome,status,ms" */
};
/* held 0: the lease was lost; nothing was written; 2: the request went
 * back to its queue to be tried again (no result published). */
typedef void state_done_cb(void *arg, store_err err, int held, uint64_t next_at,
                           const char *entry_id);
store_err state_complete(struct state *st, unsigned shard, const struct state_done *d,
                         state_done_cb *cb, void *arg);

#define STATE_CAUSE_MAX        32   /* bytes of a cause: an outcome name */
#define STATE_CAUSE_DETAIL_MAX 160  /* bytes of its text, cut beyond */
struct state_robots {
  int         status;         /* the robots policy's code; 0 = no record */
  /* why robots.txt is unreachable (records that disallow everything for
   * that reason): the fetch's outcome, its HTTP status when the site
   * answered, the fetcher's text; "" and 0 otherwise */
  char        cause[STATE_CAUSE_MAX];
  int         cause_status;
  char        cause_detail[STATE_CAUSE_DETAIL_MAX];
  const char *body;           /* the last good copy; the rules when status says so */
  size_t      body_len;
  uint32_t    crawl_delay_ms;
  uint64_t    good_at;        /* policy state (Redis clock): last good copy fetched at, */
  uint64_t    outage_since;   /* first failure of the current outage, */
  uint32_t    error_streak;   /* failed fetches in a row */
  uint32_t    hops;           /* redirects followed to the answer */
  const char *final_url;      /* the URL that answered, when hops > 0; or NULL */
  uint64_t    ttl_ms, retry_ms;                  /* when storing */
  uint64_t    fetched_at, expires_at, retry_at;  /* when read; Redis clock */
};
/* The robots fetch of d is over: store rec for origin, requeue the request
 * that waited for it. */
store_err state_robots_done(struct state *st, unsigned shard, const struct state_done *d,
                            const char *origin, const struct state_robots *rec,
                            state_done_cb *cb, void *arg);
typedef void state_robots_cb(void *arg, store_err err, const struct state_robots *rec);
store_err state_robots_get(struct state *st, unsigned shard, const char *origin,
                           state_robots_cb *cb, void *arg);

/* A robots.txt redirect hop to another site: take that site's lease for
 * one request of our own (no queued request attached) when it is free and
 * due; otherwise wait_ms says how long until it is due, or 0 when it is
 * leased (ask again later), and the site is reserved for this token (its
 * claims wait) until hold_ms past its due time, if that is within
 * max_wait_ms. error_streak is the site's, for its politeness. */
typedef void state_hop_cb(void *arg, store_err err, bool granted, uint64_t wait_ms,
                          uint32_t error_streak);
store_err state_hop_take(struct state *st, const char *site, const char *token,
                         uint32_t lease_ms, uint64_t max_wait_ms, uint32_t hold_ms,
                         state_hop_cb *cb, void *arg);
/* Give the hop's lease back, charging the site's politeness as d->delay
 * says (DELAY_NONE: not contacted). cb may be NULL. */
typedef void state_flags_cb(void *arg, store_err err, const int *held, size_t n);
store_err state_hop_free(struct state *st, const struct state_done *d,
                         state_flags_cb *cb, void *arg);

store_err state_renew(struct state *st, unsigned shard, uint32_t lease_ms,
                      const char *const *sites, const char *const *tokens, size_t n,
                      state_flags_cb *cb, void *arg);
/* Give a claim back: the request returns to its place, attempts unchanged.
 * charge_ms 0: the site keeps its next allowed time; else it may have been
 * contacted, and rests charge_ms from now (at least). */
store_err state_abort(struct state *st, unsigned shard, const char *site,
                      const char *token, uint64_t charge_ms, state_flags_cb *cb, void *arg);
/* The same with the reason the site's next allowed time gives (its "nr",
 * shown by GET /v1/sites): NULL is "fetcher_lost". */
store_err state_abort_why(struct state *st, unsigned shard, const char *site,
                          const char *token, uint64_t charge_ms, const char *reason,
                          state_flags_cb *cb, void *arg);

/* ---- politeness per address (hlfs/state/lua/addr.lua) ---- */
struct state_addr_limit {
  uint32_t max_conns;   /* fetches at once to one address; 0: no limit */
  uint32_t min_gap_ms;  /* between two fetches' starts at one address */
  uint32_t lease_ms;    /* a slot lapses this long after it was taken */
  uint32_t busy_ms;     /* wait when every slot is held */
};
/* wait_ms 0: the slot is token's (give it back with state_addr_give);
 * else ask again no sooner than that. */
typedef void state_addr_cb(void *arg, store_err err, uint32_t wait_ms);
store_err state_addr_take(struct state *st, const char *addr, const char *token,
                          const struct state_addr_limit *lim, state_addr_cb *cb, void *arg);
store_err state_addr_give(struct state *st, const char *addr, const char *token);

/* ---- results (REST) ---- */
struct state_result {
  unsigned    shard;
  const char *id;                 /* stream entry id: ack with (shard, id) */
  const struct store_val *fields; /* read with state_result_field */
  bool        redelivered;        /* taken over after the visibility timeout */
};
const char *state_result_field(const struct state_result *r, const char *name);
typedef void state_results_cb(void *arg, store_err err, const struct state_result *r, size_t n);
/* New results of client for consumer (the REST replica's name), from the
 * shards on one Redis: part < state_nstores (read each in turn). block_ms > 0
 * waits for the first one and holds that connection meanwhile (tests). */
store_err state_results_read(struct state *st, unsigned part, const char *client,
                             const char *consumer, unsigned count, uint32_t block_ms,
                             state_results_cb *cb, void *arg);
/* Results delivered more than min_idle_ms ago and never acknowledged, taken
 * over by consumer (at-least-once). */
store_err state_results_reclaim(struct state *st, unsigned shard, const char *client,
                                const char *consumer, uint32_t min_idle_ms, unsigned count,
                                state_results_cb *cb, void *arg);
typedef void state_count_cb(void *arg, store_err err, long long n);
store_err state_results_ack(struct state *st, unsigned shard, const char *client,
                            const char *const *ids, size_t n, state_count_cb *cb, void *arg);

/* ---- site state (REST) ---- */
struct state_site {
  uint64_t    next_at, backoff_until, last_at, lease_until;  /* Redis clock, 0 = unset */
  const char *next_reason;    /* delay_reason name */
  uint32_t    error_streak, last_response_ms;
  uint64_t    connections_opened;  /* by fetches to the site while its state is kept */
  uint64_t    queued;         /* requests waiting, all clients */
  unsigned    clients;
  bool        in_flight;
};
typedef void state_site_cb(void *arg, store_err err, const struct state_site *s);
store_err state_site(struct state *st, const char *site, state_site_cb *cb, void *arg);

/* ---- the fleet at a glance (GET /status, the fleet gauges) ---- */
struct state_fleet_args {
  const char        *replica;        /* heartbeat under this name; NULL: none */
  const char        *info;           /* the replica's one-line description */
  uint32_t           replica_ttl_ms; /* replicas not seen for this long are gone */
  unsigned           top;            /* busiest sites wanted (0: none) */
  unsigned           examine;        /* site-client pairs looked at, at most */
  const char *const *clients;        /* asked about (any other with work is added) */
  size_t             nclients;
};
struct state_fleet_replica { const char *name, *info; uint64_t seen_ms; };
struct state_fleet_client {
  const char *name;
  uint64_t    queued, in_flight;
  uint64_t    results;    /* published, not yet acknowledged */
  uint64_t    oldest_ms;  /* when the oldest of those was published (0: none) */
};
struct state_fleet_site {
  const char *site, *next_reason;
  uint64_t    queued, next_at, lease_until, last_at;  /* Redis clock, 0 = unset */
  uint32_t    error_streak;
};
struct state_fleet {
  uint64_t now_ms;  /* the Redis clock */
  const struct state_fleet_replica *replicas;
  const struct state_fleet_client  *clients;
  const struct state_fleet_site    *sites;   /* busiest first */
  size_t nreplicas, nclients, nsites;
  uint64_t pairs;     /* site-client pairs with work, all of them */
  uint64_t examined;  /* of which the sites' ranking looked at */
};
/* After a state Redis changed under the gateways (a failover, a restart):
 * no claim on the shards it holds (part < state_nstores) for hold_ms from
 * now (its clock), or until a later fence already set. With a roll call
 * (roll->run_id, the new server's), the fence lifts sooner: once every
 * replica named has answered with state_reapply. Without one (NULL), it
 * holds hold_ms whatever the others answer. cb (may be NULL) gets the
 * fence of its last shard. docs/hlfs-state.md, "Failover". */
struct state_roll {
  const char        *run_id;   /* the server the roll is for */
  const char *const *names;    /* replicas alive before the change, this one among them */
  size_t             n;        /* at most 256 */
};
store_err state_fence(struct state *st, unsigned part, uint32_t hold_ms,
                      const struct state_roll *roll, state_count_cb *cb, void *arg);
/* This replica's politeness writes of the last moments (leases it holds,
 * next allowed times it set) written again on part's shards, a lease of
 * its own that the server lost resting its site lost_ms past its end;
 * then, with run_id, its answer to that server's roll call (not given
 * when the journal lost an entry it still needed: the fence then holds
 * its whole time). cb (may be NULL) gets, for the last shard, how many
 * replicas are still to answer (0: the fence lifted; -1: no roll). */
store_err state_reapply(struct state *st, unsigned part, const char *replica,
                        const char *run_id, uint32_t lost_ms, state_count_cb *cb, void *arg);
/* Over every shard: clients summed, sites ranked over all (each shard
 * examines at most a->examine pairs), replicas and now_ms from shard 0,
 * which holds the heartbeats. An error of any shard fails the whole.
 * Everything lives only during the callback. */
typedef void state_fleet_cb(void *arg, store_err err, const struct state_fleet *f);
store_err state_fleet(struct state *st, const struct state_fleet_args *a,
                      state_fleet_cb *cb, void *arg);

#endif
