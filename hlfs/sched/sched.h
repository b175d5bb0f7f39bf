#ifndef WPFS_HLFS_SCHED_H
#define WPFS_HLFS_SCHED_H
/* The scheduler of one gateway replica, on its libuv loop. It claims due
 * requests from Redis (hlfs/state/state.h) within its in-flight budget, decides
 * robots.txt first when an origin's record is missing or stale, hands each
 * fetch to the fetch layer (struct sched_fetch_ops), completes it with the politeness
 * arithmetic of hlfs/policy/delay.h, renews the leases of long fetches and gives
 * up (cancels) a fetch whose lease it can no longer prove. Other replicas'
 * dead leases are reaped by the claim script itself.
 *
 * Wake-ups: after every claim at the earliest due time Redis reports
 * (capped by poll_ms, which also bounds how late a replica notices work
 * submitted through another replica), and at once on sched_kick (call it
 * after a submission) or when a fetch ends.
 *
 * Nothing blocks and nothing is freed inside a callback: finished jobs are
 * reaped on the next loop turn. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "api/metrics.h"

#include "hlfs/policy/delay.h"
#include "hlfs/policy/robots.h"
#include "hlfs/policy/robots_decide.h"
#include "hlfs/policy/robots_policy.h"
#include "hlfs/state/state.h"

struct sched_cfg {
  const char *replica;       /* lease token prefix, unique per process */
  unsigned    budget;        /* fetches in flight in this replica (global cap) */
  unsigned    claim_batch;   /* claims per claim call, <= 256 */
  uint32_t    claim_ahead_us;  /* claim a site due this soon; its fetch leaves when due */
  uint32_t    lease_ms;
  uint32_t    renew_ms;      /* 0: lease_ms / 3 */
  uint32_t    poll_ms;       /* longest sleep between claim attempts */
  unsigned    max_attempts;  /* runs of a request whose lease keeps expiring, 1..4 */
  unsigned    reap_max;      /* expired leases reaped per claim call */
  unsigned    scan_clients;  /* clients examined per claim */
  bool        robots;        /* robots.txt first (hlfs/sched/sched_robots.h) */
  unsigned    robots_cache;  /* origins' records kept in memory */
  size_t      robots_cache_bytes;  /* and the bytes of their bodies */
  unsigned    robots_rules_max;    /* parsed rules kept (0: every check parses) */
  size_t      robots_rules_bytes;  /* and their heap bytes */
  struct robots_policy_cfg robots_policy;
  struct robots_limits     robots_limits;
  uint32_t    robots_hop_wait_ms;  /* longest wait for a redirect target's lease
                                      and delay; 0: lease_ms */
  struct delay_cfg delay;
};

enum sched_kind { SCHED_PAGE, SCHED_ROBOTS };

/* What a fetch needs; strings live until sched_job_done returns. */
struct sched_job_info {
  enum sched_kind kind;
  const char *url;        /* the page, or the origin's /robots.txt */
  const char *site, *client, *rid, *origin;
  unsigned    prio, attempts;
  uint64_t    max_age_s;  /* QENC_MAXAGE_ANY: any cached copy */
  const char *follow;     /* redirect record (hlfs/sched/sched_follow.h), or NULL */
  const char *opts;       /* the request's own options (state_item.opts), or NULL */
  uint64_t    not_before_us;  /* monotonic: the site may be contacted from then on
                                 (claimed ahead: claim_ahead_us); 0: now */
  void       *user;       /* the fetcher's own pointer */
};

/* How a fetch ended. Strings are copied by sched_job_done. */
struct sched_outcome {
  bool        contacted;      /* a request reached (or may have reached) the site */
  bool        transport_err;  /* no HTTP response: connect, TLS, reset, timeout */
  bool        new_connection; /* contacted over a connection the fetch opened (the
                                 fetcher reused none): counted per site */
  int         http_status;
  uint32_t    response_ms;    /* request start to last byte */
  const char *retry_after;    /* header values, or NULL */
  const char *date;
  const char *outcome;        /* result name ("ok", "http_error", ...); NULL: derived */
  const char *error;          /* detail for the result, or NULL */
  const char *ref;            /* where the page went (cache key), or NULL */
  const char *body;           /* robots.txt only */
  size_t      body_len;
  const char *location;       /* redirect target, or NULL: robots.txt absolute, a
                                 page's canonical (followed on request) */
  const char *cache_control;  /* robots.txt: caching headers, or NULL */
  const char *expires;
  uint64_t    bytes;
  bool        stored;         /* a stored copy served (waiters wanting fresher requeue) */
  uint64_t    age_ms;         /* and its age */
  bool        fetcher_lost;   /* the fetcher's answer was lost after the fetch was sent */
  const char *cause;          /* robots_unavailable: the robots.txt fetch's outcome, or NULL */
  int         cause_status;   /* and its HTTP status when the site answered */
  uint64_t    robots_retry_at; /* robots_unavailable: when robots.txt is fetched again
                                  (wall ms), or 0 */
  uint64_t    ended_us;       /* monotonic us when the answer was in; 0: at sched_job_done.
                                 The site's delay counts from then (sj_credit) */
};

/* The retry policy's class of a page's outcome (docs/retries.md). */
enum sched_retry {
  SCHED_FINAL,      /* the answer stands: delivered as the result */
  SCHED_TRANSIENT,  /* the site failed for now: tried again while the request's
                       attempts allow (each under the site's politeness) */
  SCHED_LOST,       /* the fetcher failed, not the site: tried again without
                       counting an attempt, while below SCHED_LOST_MAX */
};
/* Fetcher losses a request may meet before it ends as fetcher_unavailable:
 * a URL that kills every fetcher it meets must not loop for ever. */
#define SCHED_LOST_MAX 5

struct sched_job;

/* The fetch layer as the scheduler sees it: the one table it calls
 * through (hlfs/fetch/fetch.h fills it). Every slot is called on the
 * scheduler's loop, never from inside another slot. */
struct sched_fetch_ops {
  /* start: begin the fetch of job (sched_job_info: a page, or an origin's
   *   /robots.txt). The fetcher owns the job until it calls sched_job_done
   *   exactly once, or sched_job_refused when no fetcher would take it;
   *   either may come from inside start. It may set info->user.
   *   Returns 0 when started; non-zero when it could not start (nothing
   *   else is called for the job): the claim is given back and claiming
   *   pauses for poll_ms. */
  int  (*start)(void *arg, struct sched_job *job);
  /* cancel: abandon a started fetch (its lease is lost, or the scheduler
   *   stops). Neither sched_job_done nor sched_job_refused may follow;
   *   what the fetch holds is freed now or when its pending I/O returns.
   *   Optional (NULL: fetches are never abandoned mid-way). */
  void (*cancel)(void *arg, struct sched_job *job);
  /* agent: the product token robots.txt is read for on behalf of the
   *   request of in (its client and options name the identity it fetches
   *   as); in NULL: the gateway's own. out->tok lives as long as arg's
   *   identities (the process). Required when robots is on. */
  void (*agent)(void *arg, const struct sched_job_info *in, struct robots_agent *out);
  /* agents: every identity the gateway fetches as, the first being its
   *   own: a site's Crawl-delay is the strictest robots.txt gives any of
   *   them (robots_delay_ms). *n is set; the array lives as long as arg.
   *   Required when robots is on. */
  const struct robots_agent *(*agents)(void *arg, size_t *n);
  void  *arg;  /* the first argument of every slot */
};

#define SCHED_COUNTERS(X)                                                    \
  X(fetches,           "page fetches started")                               \
  X(robots_fetches,    "robots.txt fetches started")                         \
  X(robots_lookups,    "robots records read from redis (cache misses)")      \
  X(robots_disallowed, "requests completed as disallowed by robots.txt")     \
  X(robots_unavailable, "requests completed as robots.txt unavailable")      \
  X(robots_hops,       "robots.txt redirect hops fetched")                   \
  X(robots_hop_waits,  "robots.txt hops that waited for their site's lease") \
  X(start_failed,      "fetches that could not start (claim given back)")    \
  X(fetch_refused,     "fetches no fetcher would take (claim given back)")   \
  X(addr_deferred,     "fetches put off because their address's slots were all held (claim given back)") \
  X(robots_lost,       "robots.txt answers lost by the fetcher, or fetches it could not make (overloaded, stopping, proxy down): claim given back, delay charged") \
  X(cancelled,         "fetches cancelled: lease lost or unprovable")        \
  X(complete_retries,  "completions retried after a redis error")            \
  X(claim_errors,      "claim calls that failed")                            \
  X(redirects_followed, "redirect hops queued for requests that follow them") \
  X(redirect_loops,    "redirect chains cut because they came back to a URL") \
  X(retries,           "page attempts sent back to queue: a transient failure of the site") \
  X(fetcher_requeued,  "page fetches sent back to queue: the fetcher was lost (no attempt)")

struct sched_stats {
#define X(name, help) uint64_t name;
  SCHED_COUNTERS(X)
#undef X
  /* Politeness decisions: how often each term set a site's next time, and
   * the waits it imposed (ms), by delay_reason. */
  uint64_t delays[DELAY__LAST];
  uint64_t delay_ms[DELAY__LAST];
  /* Round trip of each claim call to Redis (the script's run included):
   * the scheduler's view of the shared state's health. */
  struct metrics_lat claim_lat;
};

typedef void sched_stopped_fn(void *arg);

struct sched *sched_new(uv_loop_t *loop, struct state *st, const struct sched_cfg *cfg,
                        const struct sched_fetch_ops *fetch);
void sched_start(struct sched *s);
/* New work may be due (e.g. after state_submit): claim on the next turn. */
void sched_kick(struct sched *s);
/* Stop claiming, cancel fetches, give their claims back; cb once idle. */
void sched_stop(struct sched *s, sched_stopped_fn *cb, void *arg);
/* After the stop callback; handles close on the loop. *sp is cleared. */
void sched_free(struct sched **sp);
const struct sched_stats *sched_stats(const struct sched *s);
unsigned sched_in_flight(const struct sched *s);
/* Fetches this scheduler may have in flight; changed at run time when the
 * fleet shares one budget (fetches already started are not cut). */
unsigned sched_budget(const struct sched *s);
void     sched_set_budget(struct sched *s, unsigned budget);

struct sched_job_info *sched_job_info(struct sched_job *j);
void sched_job_done(struct sched_job *j, const struct sched_outcome *o);
/* Instead of sched_job_done: no fetcher would take the fetch (certainly not
 * made). The claim goes back unchanged, the site untouched, and claiming
 * pauses for poll_ms. */
void sched_job_refused(struct sched_job *j);
/* Instead of sched_job_done: the fetch was put off, not made (every slot
 * of the site's address is held, --addr-max-conns): the claim goes back
 * unchanged and the site rests wait_ms (reason "address_busy"). */
void sched_job_deferred(struct sched_job *j, uint32_t wait_ms);

#endif
