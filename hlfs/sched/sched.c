/* The scheduler loop: claim within the budget, wake when work is due,
 * renew leases, reap finished jobs, stop cleanly. Jobs are in sched_job.c. */
#include "hlfs/sched/sched_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/list.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define SCHED_RENEW_MAGIC 0x5c4e3e11u
#define SCHED_SLOT_MAGIC  0x5c4e5107u

/* One claim call in flight per shard. */
struct claim_slot {
  unsigned      magic;
  struct sched *s;
  unsigned      shard;
  unsigned      asked;
  uint64_t      sent_ms, sent_us;
  char          prefix[96];
};

struct renew_ctx {
  unsigned           magic;
  uint64_t           sent_ms;
  size_t             n;
  struct sched_job **jobs;
  const char       **sites, **tokens;
};

static void sched_check(const struct sched *s)
{
  assert(s && s->magic == SCHED_MAGIC);
}

uint64_t sched_srv_now(const struct sched *s)
{
  return (uint64_t)((int64_t)clock_mono_ms() + s->srv_off);
}

const struct sched_stats *sched_stats(const struct sched *s) { return &s->stats; }
struct sched_robots *sched_robots_of(struct sched *s) { return s->robots; }
unsigned sched_in_flight(const struct sched *s) { return s->live; }
unsigned sched_budget(const struct sched *s) { return s->cfg.budget; }

void sched_set_budget(struct sched *s, unsigned budget)
{
  sched_check(s);
  s->cfg.budget = budget ? budget : 1;
  sched_kick(s);  /* a larger budget may claim now; a smaller one just claims less */
}
struct sched_job_info *sched_job_info(struct sched_job *j) { return &j->info; }

/* ---- set-up ------------------------------------------------------------ */

static void sched_defaults(struct sched_cfg *c)
{
  if(!c->budget)
    c->budget = 1;
  if(!c->claim_batch || c->claim_batch > 256)
    c->claim_batch = 16;
  if(!c->lease_ms)
    c->lease_ms = 30000;
  if(!c->renew_ms)
    c->renew_ms = c->lease_ms / 3 ? c->lease_ms / 3 : 1;
  if(!c->poll_ms)
    c->poll_ms = 200;
  if(c->max_attempts < 1 || c->max_attempts > QENC_ATTEMPTS_MAX + 1)
    c->max_attempts = 3;
  if(!c->reap_max)
    c->reap_max = 64;
  if(!c->scan_clients)
    c->scan_clients = 1000;
  if(!c->robots_cache)
    c->robots_cache = 4096;
  if(!c->robots_cache_bytes)
    c->robots_cache_bytes = 16u << 20;
  if(!c->robots_hop_wait_ms)
    c->robots_hop_wait_ms = c->lease_ms;
  if(!c->robots_limits.max_bytes)  /* unset: RFC 9309's */
    c->robots_limits = robots_limits_default();
  if(!c->robots_policy.max_ttl_ms)
    c->robots_policy = robots_policy_defaults();
}

static char *sched_replica_name(const char *given)
{
  char name[64];
  if(given && *given)
    return xstrdup(given);
  uint64_t r = clock_wall_ms() ^ ((uint64_t)getpid() << 32) ^ clock_mono_us();
  snprintf(name, sizeof name, "r%d-%llx", (int)getpid(),
           (unsigned long long)hash_fp64(&r, sizeof r));
  return xstrdup(name);
}

static void sched_on_wake(struct hrtimer *t);

/* A name for this process's monotonic clock: a replica's name may be
 * reused by a process on another machine, whose clock is another. */
static void sched_instance(struct sched *s)
{
  uint64_t r;
  if(getrandom(&r, sizeof r, 0) == (ssize_t)sizeof r)
    snprintf(s->instance, sizeof s->instance, "%016llx", (unsigned long long)r);
  s->rng = hash_fp64(&r, sizeof r) | 1;  /* xorshift needs a non-zero state */
}

double sched_jitter(struct sched *s)
{
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 7;
  s->rng ^= s->rng << 17;
  return (double)(s->rng >> 11) / 9007199254740992.0;  /* 53 bits / 2^53 */
}

struct sched *sched_new(uv_loop_t *loop, struct state *st, const struct sched_cfg *cfg,
                        const struct sched_fetch_ops *fetch)
{
  struct sched *s = xalloc(sizeof *s + state_cfg(st)->nshards * sizeof(struct claim_slot));
  s->magic = SCHED_MAGIC;
  s->loop = loop;
  s->st = st;
  s->cfg = *cfg;
  sched_defaults(&s->cfg);
  s->replica = sched_replica_name(cfg->replica);
  s->cfg.replica = s->replica;
  sched_instance(s);
  s->fops = *fetch;
  s->have_robots = cfg->robots && fetch->agent && fetch->agents;
  s->robots = sched_robots_new(&s->cfg);
  uv_timer_t *t[] = { &s->t_kick, &s->t_renew };
  for(int i = 0; i < 2; i++) {
    uv_timer_init(loop, t[i]);
    t[i]->data = s;
  }
  /* No timerfd (out of descriptors at start-up): nothing can run. */
  if(hrtimer_init(loop, &s->t_wake, sched_on_wake, s))
    abort();
  s->open_handles = 3;
  assert(state_cfg(st)->nshards <= SCHED_SHARDS_MAX);
  return s;
}

static struct claim_slot *sched_slot(struct sched *s, unsigned shard)
{
  return (struct claim_slot *)(void *)(s + 1) + shard;
}

/* ---- reaping ----------------------------------------------------------- */

static void sched_unlink(struct sched *s, struct sched_job *j)
{
  DL_UNLINK(s->jobs, j, prev, next);
}

static void sched_reap(struct sched *s)
{
  struct sched_job *j = s->jobs, *next;
  for(; j; j = next) {
    next = j->next;
    if(j->st == SJ_DONE && !j->refs) {
      sched_unlink(s, j);
      sched_job_free(&j);
    }
  }
}

static void sched_link(struct sched *s, struct sched_job *j)
{
  DL_PUSH_FRONT(s->jobs, j, prev, next);
  s->live++;
}

/* ---- claiming ---------------------------------------------------------- */

/* Sleep until the earliest wake-up of an idle shard, to the microsecond
 * (common/hrtimer.h): a site's next request is due then. A time that has
 * passed fires at the loop's next turn (the timer polls, so the loop does
 * turn); a shard at 0 waits for a kick. Nothing is armed while the budget
 * is full (a finished job kicks); during a pause, its end is the wake-up. */
static void sched_arm_wake(struct sched *s)
{
  uint64_t now = clock_mono_us(), at = UINT64_MAX, pause = s->pause_until * 1000;
  if(s->running && s->live + s->asked < s->cfg.budget) {
    for(unsigned i = 0; i < state_cfg(s->st)->nshards; i++)
      if(!s->claiming[i] && s->wake_at[i] && s->wake_at[i] < at)
        at = s->wake_at[i];
    if(pause > now)
      at = pause;
  }
  /* Re-armed in place: stopping first would take the timer's descriptor
   * out of the loop's epoll only to put it back. */
  if(at != UINT64_MAX)
    hrtimer_at(&s->t_wake, at);
  else
    hrtimer_stop(&s->t_wake);
}

static void sched_give_back(struct sched *s, unsigned shard, const struct state_claim *c);

/* When a site claimed ahead may be contacted, in our clock: hold_us (from
 * Redis's clock during the call) after the claim's answer came in, which
 * was after that clock was read; or, when this process completed the
 * site's last request, the time it computed then in its own clock
 * (local_due), which the trips to Redis and back do not make later. */
static uint64_t sched_not_before(const struct sched *s, const struct state_claim *c,
                                 uint64_t answered_us)
{
  size_t n = strlen(s->instance);
  const char *l = c->local_due;
  if(l && n && !strncmp(l, s->instance, n) && l[n] == ':')
    return strtoull(l + n + 1, NULL, 10);
  return c->hold_us ? answered_us + c->hold_us : 0;
}


static void sched_take(struct sched *s, struct claim_slot *sl, const struct state_claim *c,
                       uint64_t answered_us)
{
  struct sched_job *j = sched_job_new(s, sl->shard, c);
  if(!j) {
    sched_give_back(s, sl->shard, c);
    return;
  }
  sched_link(s, j);
  j->lease_ok_ms = sl->sent_ms;
  j->info.not_before_us = sched_not_before(s, c, answered_us);
  if(s->running)
    sched_job_begin(j);
  else
    sched_job_abort(j);
}

/* The claim said when its shard's next site is due (less claim_ahead_us,
 * which a claim may take ahead), counted from Redis's
 * clock during the call: from the moment the claim was sent, the wake-up
 * may come a little early (by the trip to Redis), never late; a claim
 * that comes too early is told how long is left. A time that passed while
 * the answer travelled is due at the loop's next turn. 0 (a due site this
 * call could not take: leased by a replica that died, reserved by a
 * robots.txt hop, a client over its quota) is asked again after poll_ms:
 * woken at once, such a claim would be asked again and again; left to a
 * kick, the shard slept until the next submission, and with none coming
 * (the torture run with Sentinel, seed 20261127, drained after its
 * clients stopped) its queued requests waited for ever. */
static void sched_wake_after(struct sched *s, struct claim_slot *sl, int64_t in_us)
{
  uint64_t poll_us = (uint64_t)s->cfg.poll_ms * 1000;
  uint64_t in = in_us <= 0 || (uint64_t)in_us > poll_us ? poll_us : (uint64_t)in_us;
  s->wake_at[sl->shard] = sl->sent_us + in;
  sched_arm_wake(s);
}

static void sched_on_claimed(void *arg, store_err err, const struct state_claim_res *r)
{
  struct claim_slot *sl = arg;
  assert(sl && sl->magic == SCHED_SLOT_MAGIC);
  struct sched *s = sl->s;
  sched_check(s);
  uint64_t now_us = clock_mono_us(), now = now_us / 1000;
  metrics_lat_add(&s->stats.claim_lat, now_us - sl->sent_us);
  s->claiming[sl->shard] = false;
  s->asked -= sl->asked;
  if(err) {
    s->stats.claim_errors++;
    s->wake_at[sl->shard] = now_us + (uint64_t)s->cfg.poll_ms * 1000;
    sched_arm_wake(s);
    return;
  }
  s->srv_off = (int64_t)r->now - (int64_t)now;
  for(size_t i = 0; i < r->n; i++)
    sched_take(s, sl, &r->claims[i], now_us);
  if(r->n < sl->asked)
    sched_wake_after(s, sl, r->wake_in_us);
  else {
    s->wake_at[sl->shard] = 0;
    sched_kick(s);
  }
}

static void sched_claim_shard(struct sched *s, unsigned shard, unsigned n)
{
  struct claim_slot *sl = sched_slot(s, shard);
  sl->magic = SCHED_SLOT_MAGIC;
  sl->s = s;
  sl->shard = shard;
  sl->asked = n;
  sl->sent_us = clock_mono_us();
  sl->sent_ms = sl->sent_us / 1000;
  snprintf(sl->prefix, sizeof sl->prefix, "%s:%llu", s->replica,
           (unsigned long long)++s->token_seq);
  struct state_claim_args a = { .max = n, .lease_ms = s->cfg.lease_ms,
                                .token_prefix = sl->prefix, .reap_max = s->cfg.reap_max,
                                .max_attempts = s->cfg.max_attempts,
                                .scan_clients = s->cfg.scan_clients,
                                .ahead_us = s->cfg.claim_ahead_us };
  if(state_claim(s->st, shard, &a, sched_on_claimed, sl) != STORE_OK) {
    s->stats.claim_errors++;
    s->wake_at[shard] = sl->sent_us + (uint64_t)s->cfg.poll_ms * 1000;
    return;
  }
  s->claiming[shard] = true;
  s->asked += n;
}

static void sched_claim_all(struct sched *s)
{
  uint64_t now = clock_mono_us();
  unsigned ns = state_cfg(s->st)->nshards;
  if(!s->running || now < s->pause_until * 1000) {
    sched_arm_wake(s);
    return;
  }
  for(unsigned k = 0; k < ns; k++) {
    unsigned busy = s->live + s->asked;
    if(busy >= s->cfg.budget)
      break;
    unsigned sh = (s->next_shard + k) % ns;
    if(s->claiming[sh] || s->wake_at[sh] > now)
      continue;
    unsigned n = s->cfg.budget - busy;
    sched_claim_shard(s, sh, n < s->cfg.claim_batch ? n : s->cfg.claim_batch);
  }
  s->next_shard = (s->next_shard + 1) % ns;
  sched_arm_wake(s);
}

static void sched_on_wake(struct hrtimer *t)
{
  struct sched *s = t->data;
  sched_check(s);
  sched_claim_all(s);
}

/* ---- kick: the deferred work of the loop turn ------------------------- */

static void sched_stop_check(struct sched *s)
{
  if(!s->stopping || s->jobs || s->asked)
    return;
  s->stopping = false;
  uv_timer_stop(&s->t_renew);
  hrtimer_stop(&s->t_wake);
  if(s->on_stopped)
    s->on_stopped(s->stopped_arg);
}

static void sched_on_kick(uv_timer_t *t)
{
  struct sched *s = t->data;
  sched_check(s);
  sched_reap(s);
  for(unsigned i = 0; i < state_cfg(s->st)->nshards; i++)
    s->wake_at[i] = 0;
  sched_claim_all(s);
  sched_stop_check(s);
}

void sched_kick(struct sched *s)
{
  sched_check(s);
  if(!uv_is_active((uv_handle_t *)&s->t_kick) && !uv_is_closing((uv_handle_t *)&s->t_kick))
    uv_timer_start(&s->t_kick, sched_on_kick, 0, 0);
}

/* ---- leases ------------------------------------------------------------- */

static void sched_ignore(void *arg, store_err err, const int *held, size_t n)
{
  (void)arg;
  (void)err;
  (void)held;
  (void)n;
}

/* A claim that could not become a job (no memory) goes straight back. */
static void sched_give_back(struct sched *s, unsigned shard, const struct state_claim *c)
{
  state_abort(s->st, shard, c->site, c->token, 0, sched_ignore, NULL);
}

static void renew_free(struct renew_ctx *x)
{
  x->magic = 0;
  mem_free(x->jobs);
  mem_free(x->sites);
  mem_free(x->tokens);
  mem_free(x);
}

static void sched_on_renewed(void *arg, store_err err, const int *held, size_t n)
{
  struct renew_ctx *x = arg;
  assert(x && x->magic == SCHED_RENEW_MAGIC);
  for(size_t i = 0; i < x->n; i++) {
    struct sched_job *j = x->jobs[i];
    sched_job_check(j);
    j->refs--;
    j->renewing = false;
    if(err || i >= n || j->st == SJ_DONE || j->st == SJ_ABORT)
      continue;  /* unknown: the local deadline decides */
    if(held[i])
      j->lease_ok_ms = x->sent_ms > j->lease_ok_ms ? x->sent_ms : j->lease_ok_ms;
    else
      sched_job_lost(j);
  }
  renew_free(x);
}

static bool sched_renewable(const struct sched_job *j)
{
  return j->st != SJ_DONE && j->st != SJ_ABORT && !j->renewing;
}

static void sched_renew_shard(struct sched *s, unsigned shard, uint64_t now, size_t n)
{
  struct renew_ctx *x = mem_calloc(1, sizeof *x);
  if(!x)
    return;
  x->magic = SCHED_RENEW_MAGIC;
  x->sent_ms = now;
  x->jobs = mem_calloc(n, sizeof *x->jobs);
  x->sites = mem_calloc(n, sizeof *x->sites);
  x->tokens = mem_calloc(n, sizeof *x->tokens);
  if(!x->jobs || !x->sites || !x->tokens) {
    renew_free(x);
    return;
  }
  for(struct sched_job *j = s->jobs; j && x->n < n; j = j->next)
    if(j->shard == shard && sched_renewable(j) && now - j->lease_ok_ms >= s->cfg.renew_ms / 2) {
      x->jobs[x->n] = j;
      x->sites[x->n] = j->info.site;
      x->tokens[x->n++] = j->token;
    }
  if(!x->n || state_renew(s->st, shard, s->cfg.lease_ms, x->sites, x->tokens, x->n,
                          sched_on_renewed, x) != STORE_OK) {
    renew_free(x);
    return;
  }
  for(size_t i = 0; i < x->n; i++) {
    x->jobs[i]->refs++;
    x->jobs[i]->renewing = true;
  }
}

/* Give up fetches whose lease we can no longer prove: past lease_ms since
 * it was last confirmed, another replica may already hold the site. The
 * margin covers clock rates and the time a cancel takes. */
bool sched_lease_provable(const struct sched_job *j, uint64_t now)
{
  const struct sched *s = j->s;
  return now - j->lease_ok_ms < s->cfg.lease_ms - s->cfg.lease_ms / 10;
}

static void sched_check_deadlines(struct sched *s, uint64_t now)
{
  for(struct sched_job *j = s->jobs; j; j = j->next) {
    if(j->st == SJ_DONE || j->st == SJ_ABORT)
      continue;
    if(!sched_lease_provable(j, now)) {
      sched_job_lost(j);
      continue;
    }
    sched_job_retry(j);
    sched_hop_tick(j, now);  /* robots.txt redirects: waits and hop leases */
  }
}

static void sched_on_renew(uv_timer_t *t)
{
  struct sched *s = t->data;
  sched_check(s);
  uint64_t now = clock_mono_ms();
  sched_check_deadlines(s, now);
  unsigned ns = state_cfg(s->st)->nshards;
  for(unsigned sh = 0; sh < ns; sh++) {
    size_t n = 0;
    for(struct sched_job *j = s->jobs; j; j = j->next)
      n += j->shard == sh && sched_renewable(j);
    if(n)
      sched_renew_shard(s, sh, now, n);
  }
}

/* ---- life cycle --------------------------------------------------------- */

void sched_start(struct sched *s)
{
  sched_check(s);
  s->running = true;
  uint32_t tick = s->cfg.renew_ms < 200 ? s->cfg.renew_ms : 200;
  /* the tick also retries completions: keep it short, renewals are
   * filtered by age inside */
  uv_timer_start(&s->t_renew, sched_on_renew, tick, tick);
  sched_kick(s);
}

void sched_stop(struct sched *s, sched_stopped_fn *cb, void *arg)
{
  sched_check(s);
  s->running = false;
  s->stopping = true;
  s->on_stopped = cb;
  s->stopped_arg = arg;
  hrtimer_stop(&s->t_wake);
  for(struct sched_job *j = s->jobs; j; j = j->next) {
    if(j->st == SJ_FETCH && s->fops.cancel)
      s->fops.cancel(s->fops.arg, j);
    if(j->st == SJ_CLAIMED || j->st == SJ_LOOKUP || j->st == SJ_FETCH
       || j->st == SJ_HOP_WAIT || j->st == SJ_HOP_LEASE)
      sched_job_abort(j);
  }
  sched_kick(s);
}

static void sched_on_closed(uv_handle_t *h)
{
  struct sched *s = h->data;
  sched_check(s);
  if(--s->open_handles > 0)
    return;
  while(s->jobs) {
    struct sched_job *j = s->jobs;
    sched_unlink(s, j);
    sched_job_free(&j);
  }
  sched_robots_free(&s->robots);
  free(s->replica);
  s->magic = 0;
  free(s);
}

void sched_free(struct sched **sp)
{
  struct sched *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  sched_check(s);
  s->running = false;
  uv_close((uv_handle_t *)&s->t_kick, sched_on_closed);
  hrtimer_close(&s->t_wake, sched_on_closed);
  uv_close((uv_handle_t *)&s->t_renew, sched_on_closed);
}
