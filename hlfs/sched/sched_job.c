/* One claimed request, from claim to reaping:
 *   CLAIMED -> [LOOKUP] -> FETCH -> COMPLETE -> DONE
 *   robots.txt first:      FETCH (robots) [-> HOP_WAIT -> [HOP_LEASE ->] FETCH
 *                          (a redirect hop), repeated: sched_hop.c]
 *                          -> COMPLETE (requeues the request)
 *   robots verdict:        CLAIMED/LOOKUP -> COMPLETE (not contacted)
 *   given back:            any -> ABORT -> DONE
 *   lease lost:            any -> DONE (fetch cancelled)
 * A job is freed only by the reaper, once DONE and no store call in flight
 * points at it (refs == 0). */
#include "hlfs/sched/sched_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "hlfs/sched/sched_follow.h"

static const char *const sj_names[] = {
#define X(e) #e,
  SCHED_JOB_STATES(X)
#undef X
};

void sched_job_check(const struct sched_job *j)
{
  assert(j && j->magic == SCHED_JOB_MAGIC);
}

void sched_job_set_state(struct sched_job *j, enum sched_job_st to, int line)
{
  if(j->st == to)
    return;
  struct log_ctx ctx = { .req = j->info.rid, .client = j->info.client, .url = j->info.url };
  LOGC(LOG_DEBUG, &ctx, "job %s -> %s (line %d)", sj_names[j->st], sj_names[to], line);
  if(to == SJ_DONE)
    j->s->live--;
  j->st = to;
}

/* The robots.txt URL of an origin "scheme://host:port", default port dropped. */
static void sj_robots_url(const char *origin, char *out, size_t outlen)
{
  size_t n = strlen(origin);
  if((!strncmp(origin, "http:", 5) && n > 3 && !strcmp(origin + n - 3, ":80"))
     || (!strncmp(origin, "https:", 6) && n > 4 && !strcmp(origin + n - 4, ":443")))
    n = (size_t)(strrchr(origin, ':') - origin);
  snprintf(out, outlen, "%.*s/robots.txt", (int)n, origin);
}

struct sched_job *sched_job_new(struct sched *s, unsigned shard, const struct state_claim *c)
{
  char origin[SITE_ORIGIN_MAX] = "", rurl[SITE_ORIGIN_MAX + 16];
  const char *sep = strchr(c->url, QENC_OPT_SEP);  /* the request's options follow */
  size_t ulen = sep ? (size_t)(sep - c->url) : strlen(c->url);
  char *url0 = sep ? mem_strndup(c->url, ulen) : NULL;  /* only such a request pays */
  if(sep && !url0)
    return NULL;
  if(site_origin(sep ? url0 : c->url, origin, sizeof origin))
    origin[0] = '\0';
  mem_free(url0);
  sj_robots_url(origin, rurl, sizeof rurl);
  const char *src[] = { c->site, c->client, c->url, c->token, c->rid, origin, rurl,
                        c->follow ? c->follow : "" };
  enum { NSRC = sizeof src / sizeof src[0] };
  size_t len[NSRC], total = 0;
  for(int i = 0; i < NSRC; i++)
    total += (len[i] = strlen(src[i])) + 1;
  struct sched_job *j = mem_calloc(1, sizeof *j);
  char *p = mem_alloc(total);
  if(!j || !p) {
    mem_free(j);
    mem_free(p);
    return NULL;
  }
  char *dst[NSRC];
  j->strs = p;
  for(int i = 0; i < NSRC; i++) {
    memcpy(p, src[i], len[i] + 1);
    dst[i] = p;
    p += len[i] + 1;
  }
  char *opts = sep ? dst[2] + ulen + 1 : NULL;
  dst[2][ulen] = '\0';
  j->magic = SCHED_JOB_MAGIC;
  j->s = s;
  j->shard = shard;
  j->st = SJ_CLAIMED;
  j->info = (struct sched_job_info){ .kind = SCHED_PAGE, .url = dst[2], .site = dst[0],
                                     .client = dst[1], .rid = dst[4], .origin = dst[5],
                                     .prio = c->q.prio, .attempts = c->q.attempts,
                                     .max_age_s = c->q.max_age_s,
                                     .follow = c->follow ? dst[7] : NULL,
                                     .opts = opts };
  j->page_url = dst[2];
  j->token = dst[3];
  j->robots_url = dst[6];
  j->streak = c->error_streak;
  return j;
}

void sched_job_free(struct sched_job **jp)
{
  struct sched_job *j = *jp;
  if(!j)
    return;
  *jp = NULL;
  sched_job_check(j);
  sched_hop_free(&j->hop);
  mem_free(j->hop_item);
  mem_free(j->strs);
  mem_free(j->outstrs);
  mem_free(j->recstrs);
  robots_free(&j->rules);
  j->magic = 0;
  mem_free(j);
}

/* ---- giving back ---------------------------------------------------- */

static void sj_kick_done(struct sched_job *j)
{
  sched_job_state(j, SJ_DONE);
  sched_kick(j->s);
}

static void sj_on_aborted(void *arg, store_err err, const int *held, size_t n)
{
  struct sched_job *j = arg;
  sched_job_check(j);
  (void)err;
  (void)held;
  (void)n;  /* refused or failed: the lease expires and the request is reaped */
  j->refs--;
  sj_kick_done(j);
}

/* Give the claim back; charge_ms > 0: the site may have been contacted
 * and rests that long. */
static void sj_abort_why(struct sched_job *j, uint64_t charge_ms, const char *why)
{
  struct sched *s = j->s;
  sched_hop_drop(j);
  sched_job_state(j, SJ_ABORT);
  if(state_abort_why(s->st, j->shard, j->info.site, j->token, charge_ms, why, sj_on_aborted,
                     j) == STORE_OK)
    j->refs++;
  else
    sj_kick_done(j);
}

static void sj_abort(struct sched_job *j, uint64_t charge_ms) { sj_abort_why(j, charge_ms, NULL); }

void sched_job_abort(struct sched_job *j) { sj_abort(j, 0); }

void sched_job_deferred(struct sched_job *j, uint32_t wait_ms)
{
  sched_job_check(j);
  j->s->stats.addr_deferred++;
  sj_abort_why(j, wait_ms ? wait_ms : 1, "address_busy");
}

void sched_job_refused(struct sched_job *j)
{
  struct sched *s = j->s;
  sched_job_check(j);
  s->stats.fetch_refused++;
  s->pause_until = clock_mono_ms() + s->cfg.poll_ms;
  sj_abort(j, 0);
}

void sched_job_lost(struct sched_job *j)
{
  struct sched *s = j->s;
  if(j->st == SJ_DONE)
    return;
  if(j->st == SJ_FETCH && s->fops.cancel)
    s->fops.cancel(s->fops.arg, j);
  sched_hop_drop(j);
  s->stats.cancelled++;
  struct log_ctx ctx = { .req = j->info.rid, .client = j->info.client, .url = j->info.url };
  LOGC(LOG_WARN, &ctx, "lease on %s lost, fetch dropped", j->info.site);
  sj_kick_done(j);
}

/* ---- completion ------------------------------------------------------- */

static void sj_store(struct sched_job *j);

static void sj_on_stored(void *arg, store_err err, int held, uint64_t next_at, const char *id)
{
  struct sched_job *j = arg;
  sched_job_check(j);
  (void)next_at;
  (void)id;
  j->refs--;
  if(j->st != SJ_COMPLETE)
    return;  /* lost meanwhile */
  if(err) {
    /* keep the lease (renewals go on) and try again shortly */
    j->s->stats.complete_retries++;
    j->retry_at_ms = clock_mono_ms() + 200;
    return;
  }
  /* !held: another claim owns the request now; counted by state */
  if(held == 2 && j->retry == SCHED_TRANSIENT)
    j->s->stats.retries++;
  else if(held == 2)
    j->s->stats.fetcher_requeued++;
  sj_kick_done(j);
}

static const char *sj_outcome_name(const struct sched_outcome *o)
{
  if(o->outcome)
    return o->outcome;
  if(!o->contacted)
    return "not_fetched";
  if(o->transport_err)
    return "transport_error";
  return o->http_status >= 200 && o->http_status < 400 ? "ok" : "http_error";
}

void sched_job_delay_in(const struct sched_outcome *o, uint32_t streak,
                        uint32_t crawl_delay_ms, struct delay_in *in)
{
  *in = (struct delay_in){ .ev = delay_classify(o->contacted, o->transport_err, o->http_status),
                           .response_ms = o->response_ms, .crawl_delay_ms = crawl_delay_ms,
                           .streak = streak, .retry_after_ms = -1 };
  if(o->fetcher_lost)  /* maybe contacted: the usual rest, not an error of the site's */
    in->ev = DELAY_EV_OK;
  if(in->ev == DELAY_EV_THROTTLED
     && delay_retry_after(o->retry_after, o->date, clock_wall_ms(), &in->retry_after_ms))
    in->retry_after_ms = -1;
}

/* Outcomes of the fetcher that say the site failed for now: another try
 * may well succeed (docs/retries.md). */
static const char *const sj_transient[] = {
  "connect_refused", "connect_timeout", "connect_error", "timeout", "reset",
  "dns_servfail", "dns_timeout", NULL,
};
/* ... and those that say the fetcher, or this gateway, could not make
 * or keep the fetch: page_store_error is a page the page cache could not
 * take while the gateway held it (hlfs/fetch/fetch.c, page_hold_ms);
 * proxy_error is the fetcher's egress proxy down or refusing, not the site. */
static const char *const sj_fetcher_fault[] = { "overloaded", "shutting_down",
                                                "page_store_error", "proxy_error", NULL };

static bool sj_listed(const char *const *list, const char *name)
{
  for(; name && *list; list++)
    if(!strcmp(*list, name))
      return true;
  return false;
}

static enum sched_retry sched_retry_class(const struct sched_outcome *o)
{
  if(o->fetcher_lost || sj_listed(sj_fetcher_fault, o->outcome))
    return SCHED_LOST;
  if(sj_listed(sj_transient, o->outcome))
    return SCHED_TRANSIENT;
  if(o->outcome && strcmp(o->outcome, "ok"))
    return SCHED_FINAL;  /* cached, not_modified, too_large, gateway verdicts... */
  if(!o->outcome && o->contacted && o->transport_err)
    return SCHED_TRANSIENT;  /* a fetcher that names no outcome: no answer at all */
  switch(o->http_status) {
  case 429: case 500: case 502: case 503: case 504:
    return SCHED_TRANSIENT;
  default:
    return SCHED_FINAL;
  }
}

static void sj_delay(struct sched_job *j, uint32_t crawl_delay_ms, struct delay_out *d)
{
  struct delay_in in;
  sched_job_delay_in(&j->out, j->streak, crawl_delay_ms, &in);
  in.jitter = sched_jitter(j->s);
  /* a name server that failed: the site saw nothing, but its next try
   * waits the error backoff all the same, like a refused connection */
  if(in.ev == DELAY_EV_NONE && j->retry == SCHED_TRANSIENT)
    in.ev = DELAY_EV_CONN_ERR;
  delay_next(&j->s->cfg.delay, &in, d);
  if((unsigned)d->reason < DELAY__LAST) {
    j->s->stats.delays[d->reason]++;
    j->s->stats.delay_ms[d->reason] += d->delay_ms;
  }
}

/* lua_complete counts the delay from its own clock, when the completion
 * runs; the answer was in earlier (the page stored first, a retried
 * store, a busy loop). Take that time off, so the delay counts from the
 * answer: the site still rests the whole delay after its last byte, which
 * left it before the answer was in, but no longer waits on the gateway.
 * The age is measured here, a little before the completion reaches Redis,
 * so it never exceeds the true one. An earlier version kept 5 ms of it
 * back, because testweb recorded a response's end after its last write
 * returned, which on a loaded machine came after the answer had reached
 * us; testweb now takes that time before the write. at: when the answer
 * was in (monotonic us; 0: not known). In microseconds: whole milliseconds
 * read at both ends would count up to 1 ms more than had passed, and the
 * site's next request would come that early (robots.txt's did). */
static void sj_credit(const struct sched_job *j, struct state_done *d, uint64_t at, char *due,
                      size_t len)
{
  uint64_t now = clock_mono_us();
  d->credit_us = at && now > at ? now - at : 0;
  /* the same next allowed time in our clock, for our own next claim of
   * the site (sched.c's sched_not_before) */
  if(j->s->instance[0] && d->delay.reason != DELAY_NONE) {
    snprintf(due, len, "%s:%llu", j->s->instance,
             (unsigned long long)(now - d->credit_us + d->delay.delay_ms * 1000));
    d->local_due = due;
  }
}

/* A robots.txt that could not be read is retried after its backoff; the
 * site meanwhile rests the delay its failure charged. The record must
 * outlast that rest: the claim of the site's next request, due when the
 * rest ends, then finds it and answers the request robots_unavailable.
 * Expired first (a robots backoff set shorter than the error backoff, a
 * Retry-After capped lower for robots.txt than for the site), that claim
 * would fetch robots.txt again and give the request back to the queue,
 * again at every rest: a request never answered while robots.txt fails.
 * The margin covers the claim coming late (a tick, Redis, a busy loop). */
#define SJ_ROBOTS_OUTLAST_MS 2000

static void sj_robots_outlast(struct state_robots *rec, const struct delay_out *rest)
{
  uint64_t need = (uint64_t)rest->delay_ms + SJ_ROBOTS_OUTLAST_MS;
  if(!rec->retry_ms || rec->retry_ms >= need)
    return;
  rec->retry_ms = need;
  if(rec->ttl_ms < need)
    rec->ttl_ms = need;
}

/* The record was digested when the chain ended (sched_hop.c); the site's
 * politeness counts from its own last contact in the chain. */
static store_err sj_store_robots(struct sched_job *j, struct state_done *d)
{
  struct sched *s = j->s;
  struct state_robots rec = j->rec;
  if(!rec.status)
    rec.status = -1;  /* a record must exist, or the next claim fetches again */
  char due[48];
  sj_credit(j, d, sched_hop_own_delay(j, rec.crawl_delay_ms, &d->delay), due, sizeof due);
  sj_robots_outlast(&rec, &d->delay);
  d->conns = sched_hop_own_conns(j);
  rec.fetched_at = sched_srv_now(s);
  rec.expires_at = rec.fetched_at + rec.ttl_ms;
  rec.retry_at = rec.retry_ms ? rec.fetched_at + rec.retry_ms : 0;
  sched_robots_put(s->robots, j->info.origin, &rec, &j->rules);
  return state_robots_done(s->st, j->shard, d, j->info.origin, &rec, sj_on_stored, j);
}

/* This try for the attempt log: "outcome,status,ms". The outcome name
 * comes from the fetcher's answer: anything but [a-z0-9_] would break the
 * log's lines and fields, and is written '_'. */
static void sj_attempt(const char *outcome, const struct sched_outcome *o, char *out,
                       size_t len)
{
  char name[STATE_CAUSE_MAX];
  size_t n = 0;
  for(; outcome[n] && n < sizeof name - 1; n++) {
    char c = outcome[n];
    name[n] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_';
  }
  name[n] = '\0';
  snprintf(out, len, "%s,%d,%u", n ? name : "unknown", o->http_status, o->response_ms);
}

static store_err sj_store_page(struct sched_job *j, struct state_done *d)
{
  const struct sched_outcome *o = &j->out;
  char hs[16], ms[16], bytes[24], cs[16], rra[24];
  const char *f[20];
  size_t n = 0;
  snprintf(hs, sizeof hs, "%d", o->http_status);
  snprintf(ms, sizeof ms, "%u", o->response_ms);
  snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)o->bytes);
  f[n++] = "o";
  f[n++] = sj_outcome_name(o);
  f[n++] = "hs";
  f[n++] = hs;
  f[n++] = "ms";
  f[n++] = ms;
  f[n++] = "bytes";
  f[n++] = bytes;
  if(o->error) {
    f[n++] = "err";
    f[n++] = o->error;
  }
  if(o->ref) {
    f[n++] = "ref";
    f[n++] = o->ref;
  }
  if(o->cause) {
    snprintf(cs, sizeof cs, "%d", o->cause_status);
    f[n++] = "ca";
    f[n++] = o->cause;
    f[n++] = "cs";
    f[n++] = cs;
  }
  if(o->contacted) {  /* lua_complete adds the site's count ('sn') */
    f[n++] = "nc";
    f[n++] = o->new_connection ? "1" : "0";
  }
  if(o->robots_retry_at) {  /* a client's own retry waits for the gateway's */
    snprintf(rra, sizeof rra, "%llu", (unsigned long long)o->robots_retry_at);
    f[n++] = "rra";
    f[n++] = rra;
  }
  d->fields = f;
  d->nfields = n;
  d->stored = o->stored;
  d->age_ms = o->age_ms;
  d->conns = o->new_connection;
  d->hopped = j->hopped;
  d->followed = j->info.follow != NULL;
  char attempt[STATE_CAUSE_MAX + 32];
  sj_attempt(f[1], o, attempt, sizeof attempt);
  d->attempt = attempt;
  d->retry = j->retry == SCHED_TRANSIENT ? 'r' : j->retry == SCHED_LOST ? 'l' : 0;
  d->max_attempts = j->s->cfg.max_attempts;
  d->lost_max = SCHED_LOST_MAX;
  sj_delay(j, j->crawl_delay_ms, &d->delay);
  char due[48];
  sj_credit(j, d, j->out.ended_us, due, sizeof due);
  return state_complete(j->s->st, j->shard, d, sj_on_stored, j);
}

static void sj_store(struct sched_job *j)
{
  struct state_done d = { .site = j->info.site, .token = j->token,
                          .response_ms = j->out.response_ms };
  j->retry_at_ms = 0;
  store_err e = j->info.kind == SCHED_ROBOTS ? sj_store_robots(j, &d) : sj_store_page(j, &d);
  if(e == STORE_OK) {
    j->refs++;
    return;
  }
  j->s->stats.complete_retries++;
  j->retry_at_ms = clock_mono_ms() + 200;
}

void sched_job_retry(struct sched_job *j)
{
  if(j->st == SJ_COMPLETE && !j->refs && j->retry_at_ms && clock_mono_ms() >= j->retry_at_ms)
    sj_store(j);
}

/* Strings of o copied into one block owned by the job. */
static int sj_copy_outcome(struct sched_job *j, const struct sched_outcome *o)
{
  const char *src[] = { o->retry_after, o->date, o->outcome, o->error, o->ref,
                        o->location, o->cache_control, o->expires, o->cause };
  const char **dst[] = { &j->out.retry_after, &j->out.date, &j->out.outcome,
                         &j->out.error, &j->out.ref, &j->out.location,
                         &j->out.cache_control, &j->out.expires, &j->out.cause };
  enum { NSTR = sizeof src / sizeof src[0] };
  size_t total = o->body_len + 1;
  for(int i = 0; i < NSTR; i++)
    total += src[i] ? strlen(src[i]) + 1 : 0;
  j->out = *o;
  mem_free(j->outstrs);
  char *p = j->outstrs = mem_alloc(total);
  if(!p)
    return -1;
  for(int i = 0; i < NSTR; i++) {
    *dst[i] = src[i] ? memcpy(p, src[i], strlen(src[i]) + 1) : NULL;
    p += src[i] ? strlen(src[i]) + 1 : 0;
  }
  if(o->body_len)
    memcpy(p, o->body, o->body_len);
  p[o->body_len] = '\0';
  j->out.body = p;
  return 0;
}

/* ---- following a redirect ------------------------------------------------ */

static void sj_hop_queued(void *arg, store_err err, struct state_item *items, size_t n)
{
  struct sched_job *j = arg;
  sched_job_check(j);
  (void)err;
  (void)n;
  j->refs--;
  /* Anything but a new request (the client has the target queued or in
   * flight already, or Redis failed): the 3xx is the result. */
  j->hopped = items[0].code == STATE_SUB_ACCEPTED;
  if(j->hopped)
    j->s->stats.redirects_followed++;
  else
    j->out.error = "the redirect target could not be queued as a new request";
  if(j->st == SJ_COMPLETE)
    sj_store(j);
}

/* A 3xx of a request that follows redirects: queue the target as the next
 * hop (true: the completion waits for that), or mark why not. */
static bool sj_follow(struct sched_job *j)
{
  struct sched_outcome *o = &j->out;
  char *next;
  if(j->info.kind != SCHED_PAGE || !j->info.follow || !o->location || o->http_status < 300 ||
     o->http_status > 399)
    return false;
  switch(follow_next(j->info.follow, j->page_url, o->location, &next)) {
  case FOLLOW_LOOP:
    o->outcome = "redirect_loop";
    j->s->stats.redirect_loops++;
    return false;
  case FOLLOW_LIMIT:
    o->outcome = "too_many_redirects";
    return false;
  case FOLLOW_BAD:
    return false;
  case FOLLOW_HOP:
    break;
  }
  struct state_client c = { .name = j->info.client, .hops = true };
  bool queued = false;
  j->hop_item = mem_alloc(sizeof *j->hop_item);
  if(j->hop_item) {
    *j->hop_item = (struct state_item){ .url = o->location, .prio = j->info.prio,
                                        .max_age_s = j->info.max_age_s, .follow = next,
                                        .opts = j->info.opts };
    queued = state_submit(j->s->st, &c, j->hop_item, 1, sj_hop_queued, j) == STORE_OK;
  }
  mem_free(next);
  if(queued)
    j->refs++;
  return queued;
}

void sched_job_complete(struct sched_job *j, const struct sched_outcome *o)
{
  if(sj_copy_outcome(j, o)) {
    sched_job_abort(j);  /* out of memory: let another turn run it */
    return;
  }
  if(!j->out.ended_us)
    j->out.ended_us = clock_mono_us();
  sched_job_state(j, SJ_COMPLETE);
  j->retry = j->info.kind == SCHED_PAGE ? sched_retry_class(&j->out) : SCHED_FINAL;
  if(!sj_follow(j))
    sj_store(j);
}

/* robots.txt's answer was lost by the fetcher, or the fetcher could not
 * make the fetch (overloaded, stopping, its proxy down): nothing is known of the
 * site's robots.txt, so no record is stored (it would block the site for
 * every gateway); the claim goes back, the site resting its usual delay
 * since it may have been contacted. */
static void sj_robots_lost(struct sched_job *j, const struct sched_outcome *o)
{
  struct delay_in in;
  struct delay_out d;
  j->s->stats.robots_lost++;
  sched_job_delay_in(o, j->streak, 0, &in);
  delay_next(&j->s->cfg.delay, &in, &d);
  sj_abort(j, d.delay_ms ? d.delay_ms : 1);
}

void sched_job_done(struct sched_job *j, const struct sched_outcome *o)
{
  sched_job_check(j);
  assert(j->st == SJ_FETCH);
  if(j->info.kind == SCHED_ROBOTS && sched_retry_class(o) == SCHED_LOST)
    sj_robots_lost(j, o);
  else if(j->info.kind == SCHED_ROBOTS)
    sched_hop_answer(j, o);  /* a redirect to follow, or the record */
  else
    sched_job_complete(j, o);
}

/* Completion without a fetch: the robots verdict says no (and, when
 * robots.txt is unreachable, why: rec's cause). */
static void sj_finish_unfetched(struct sched_job *j, const char *outcome,
                                const struct state_robots *rec)
{
  struct sched_outcome o = { .outcome = outcome };
  if(rec && rec->cause[0]) {
    o.cause = rec->cause;
    o.cause_status = rec->cause_status;
    o.robots_retry_at = rec->retry_at;
    o.error = rec->cause_detail;
  }
  sched_job_complete(j, &o);
}

/* ---- fetching --------------------------------------------------------- */

int sched_job_start(struct sched_job *j)
{
  struct sched *s = j->s;
  /* A process that stalled (CPU starved, stopped) may come back to a claim
   * whose lease has expired and been reaped: another replica may be
   * fetching from the site now. Starting would break one-at-a-time. */
  if(!sched_lease_provable(j, clock_mono_ms())) {
    sched_job_lost(j);
    return 0;
  }
  sched_job_state(j, SJ_FETCH);
  if(s->fops.start(s->fops.arg, j) == 0)
    return 0;
  s->stats.start_failed++;
  s->pause_until = clock_mono_ms() + s->cfg.poll_ms;
  return -1;
}

static void sj_fetch(struct sched_job *j, enum sched_kind kind)
{
  struct sched *s = j->s;
  j->info.kind = kind;
  j->info.url = kind == SCHED_ROBOTS ? j->robots_url : j->page_url;
  if(kind == SCHED_ROBOTS)
    s->stats.robots_fetches++;
  else
    s->stats.fetches++;
  if(sched_job_start(j))
    sched_job_abort(j);
}

static void sj_verdict(struct sched_job *j, const struct state_robots *rec)
{
  struct sched *s = j->s;
  struct robots_agent agent;
  j->crawl_delay_ms = rec->crawl_delay_ms;
  s->fops.agent(s->fops.arg, &j->info, &agent);
  switch(sched_robots_check(s->robots, j->info.origin, rec, j->page_url, &agent)) {
  case ROBOTS_ALLOW:
    sj_fetch(j, SCHED_PAGE);
    break;
  case ROBOTS_DISALLOW:
    s->stats.robots_disallowed++;
    sj_finish_unfetched(j, "robots_disallowed", NULL);
    break;
  default:
    s->stats.robots_unavailable++;
    sj_finish_unfetched(j, "robots_unavailable", rec);
  }
}

static void sj_on_robots(void *arg, store_err err, const struct state_robots *rec)
{
  struct sched_job *j = arg;
  sched_job_check(j);
  j->refs--;
  if(j->st != SJ_LOOKUP)
    return;
  struct sched *s = j->s;
  if(err) {
    sched_job_abort(j);
    return;
  }
  if(rec->status && sched_srv_now(s) < rec->expires_at) {
    sched_robots_put(s->robots, j->info.origin, rec, NULL);
    sj_verdict(j, rec);
    return;
  }
  sched_hop_begin(j, rec);  /* missing or stale: robots.txt first */
  if(j->hop)
    sj_fetch(j, SCHED_ROBOTS);
  else
    sched_job_abort(j);  /* out of memory: another turn runs it */
}

void sched_job_begin(struct sched_job *j)
{
  struct sched *s = j->s;
  if(!s->have_robots || !j->info.origin[0]) {
    sj_fetch(j, SCHED_PAGE);
    return;
  }
  struct state_robots rec;
  if(sched_robots_get(s->robots, j->info.origin, sched_srv_now(s), &rec)) {
    sj_verdict(j, &rec);
    return;
  }
  sched_job_state(j, SJ_LOOKUP);
  s->stats.robots_lookups++;
  if(state_robots_get(s->st, j->shard, j->info.origin, sj_on_robots, j) == STORE_OK)
    j->refs++;
  else
    sched_job_abort(j);
}
