#ifndef WPFS_HLFS_SCHED_INT_H
#define WPFS_HLFS_SCHED_INT_H
/* Shared by hlfs/sched/sched*.c only. */
#include "common/hrtimer.h"
#include "hlfs/sched/sched.h"
#include "hlfs/sched/sched_robots.h"

#define SCHED_MAGIC     0x5c4ed001u
#define SCHED_JOB_MAGIC 0x5c4ed10bu
#define SCHED_SHARDS_MAX 256

/* A job's life; only sched_job_state changes it (and logs the move). */
#define SCHED_JOB_STATES(X)                                      \
  X(CLAIMED)   /* lease taken, nothing started */                \
  X(LOOKUP)    /* reading the origin's robots record */          \
  X(FETCH)     /* the fetcher has it */                          \
  X(HOP_WAIT)  /* robots.txt redirect: waiting for its site */   \
  X(HOP_LEASE) /* robots.txt redirect: asking for its site */    \
  X(COMPLETE)  /* outcome being stored */                        \
  X(ABORT)     /* claim being given back */                      \
  X(DONE)      /* to be reaped */

enum sched_job_st {
#define X(e) SJ_##e,
  SCHED_JOB_STATES(X)
#undef X
};

struct sched_job {
  unsigned              magic;
  struct sched         *s;
  enum sched_job_st     st;
  unsigned              shard;
  int                   refs;        /* store calls in flight that point here */
  bool                  renewing;    /* a renewal of this lease is in flight */
  struct sched_job_info info;
  char                 *token;
  char                 *page_url;    /* the claimed URL (info.url may be robots') */
  char                 *robots_url;
  char                 *strs;        /* one block holding every string above */
  uint32_t              streak;      /* the site's error streak at claim */
  uint32_t              crawl_delay_ms;
  uint64_t              lease_ok_ms; /* mono: the lease was last proven at (or after) this */
  uint64_t              retry_at_ms; /* mono: completion to retry */
  struct sched_outcome  out;         /* copy; strings in outstrs */
  char                 *outstrs;
  struct sched_hop     *hop;         /* robots.txt fetches: the redirect chain */
  struct state_item    *hop_item;    /* a redirect hop being queued */
  bool                  hopped;      /* it was: publish to the waiters only */
  enum sched_retry      retry;       /* the outcome's class (sched_retry_class) */
  struct state_robots   rec;         /* robots.txt: the record to store */
  struct robots        *rules;       /* and its body parsed (sched_robots_digest) */
  char                 *recstrs;     /* its strings */
  struct sched_job     *prev, *next;
};

struct sched {
  unsigned                magic;
  uv_loop_t              *loop;
  struct state           *st;
  struct sched_cfg        cfg;
  char                   *replica;
  char                    instance[17];  /* random, this process's: names its clock in
                                            state_done.local_due ("": none) */
  struct sched_fetch_ops  fops;
  bool                    have_robots;
  uv_timer_t              t_kick, t_renew;
  struct hrtimer          t_wake;        /* at the next due time, to the us */
  int                     open_handles;
  struct sched_job       *jobs;          /* every job not yet reaped */
  unsigned                live;          /* jobs not DONE */
  unsigned                asked;         /* claims requested, not answered */
  bool                    claiming[SCHED_SHARDS_MAX];
  uint64_t                wake_at[SCHED_SHARDS_MAX];  /* mono us */
  uint64_t                pause_until;   /* mono: no claims before */
  unsigned                next_shard;
  uint64_t                token_seq;
  uint64_t                rng;           /* xorshift state: backoff jitter */
  int64_t                 srv_off;       /* Redis clock - mono clock */
  bool                    running, stopping;
  sched_stopped_fn       *on_stopped;
  void                   *stopped_arg;
  struct sched_robots    *robots;        /* origins' records and parsed rules */
  struct sched_stats      stats;
};

uint64_t sched_srv_now(const struct sched *s);
/* Uniform in [0, 1): the jitter of a backoff. */
double   sched_jitter(struct sched *s);
void     sched_job_check(const struct sched_job *j);
/* The job's lease is still ours by our clock, with a margin for clock
 * rates and the time a cancel takes (sched.c). */
bool     sched_lease_provable(const struct sched_job *j, uint64_t now);

/* sched_job.c */
struct sched_job *sched_job_new(struct sched *s, unsigned shard, const struct state_claim *c);
void sched_job_begin(struct sched_job *j);
void sched_job_free(struct sched_job **jp);
void sched_job_lost(struct sched_job *j);
void sched_job_abort(struct sched_job *j);
void sched_job_retry(struct sched_job *j);
#define sched_job_state(j, to) sched_job_set_state((j), (to), __LINE__)
void sched_job_set_state(struct sched_job *j, enum sched_job_st to, int line);
/* The fetch is over (o's strings are copied): store the outcome. */
void sched_job_complete(struct sched_job *j, const struct sched_outcome *o);
/* Start the fetcher on j->info.url; non-zero: it could not start. Zero
 * also when the lease can no longer be proven: the job is then lost. */
int  sched_job_start(struct sched_job *j);
/* Politeness input of an answer from a site whose error streak is streak. */
void sched_job_delay_in(const struct sched_outcome *o, uint32_t streak,
                        uint32_t crawl_delay_ms, struct delay_in *in);

/* sched_hop.c: a robots.txt fetch and its redirect chain */
/* The origin's record is missing or stale (prev, copied): fetch robots.txt. */
void sched_hop_begin(struct sched_job *j, const struct state_robots *prev);
/* An answer of the chain (sched_job_done of a robots.txt fetch). */
void sched_hop_answer(struct sched_job *j, const struct sched_outcome *o);
/* Timer tick: a wait that is over, a hop lease that can no longer be proven. */
void sched_hop_tick(struct sched_job *j, uint64_t now_mono);
/* The job is given back or lost: release a hop lease it holds. */
void sched_hop_drop(struct sched_job *j);
/* Politeness owed to the job's own site at the end of the chain, counted
 * from its last answer in the chain: returned (monotonic us; 0: none). */
uint64_t sched_hop_own_delay(const struct sched_job *j, uint32_t crawl_delay_ms,
                             struct delay_out *d);
/* Connections the chain opened to the job's own site (its hops on other
 * sites count for those, at each hop's release). */
unsigned sched_hop_own_conns(const struct sched_job *j);
void sched_hop_free(struct sched_hop **hp);

#endif
