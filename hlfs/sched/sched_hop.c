/* A robots.txt fetch and its redirect chain (RFC 9309 §2.3.1.2), inside the
 * job that claimed a request of the origin's site:
 *
 *   FETCH /robots.txt -> digest -> redirect? -> HOP_WAIT -> [HOP_LEASE ->]
 *   FETCH the hop -> digest -> ... -> the record (COMPLETE, sched_job.c)
 *
 * Every hop is a request to some site, so it obeys that site's politeness:
 * - a hop on the job's own site (whose lease the job holds) waits until
 *   the delay owed for the previous contact in the chain has passed;
 * - a hop on another site takes that site's lease (lua_hop_take) only when
 *   the site is free and due, and gives it back charging the site's delay
 *   (lua_hop_free): one request in flight per site holds for hops too.
 * The job holds its own lease while it waits for another site's, so the
 * wait is bounded (robots_hop_wait_ms): two origins redirecting to each
 * other's sites would otherwise wait for each other forever. A hop that
 * cannot be made (that wait passed, the fetcher refused it, its lease could
 * no longer be proven) is answered as a network error at that hop, which
 * the policy turns into "disallow, retry with backoff". */
#include "hlfs/sched/sched_int.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/url.h"

#define SCHED_HOPS_MAX    32   /* whatever digest says, a chain ends here */
#define SCHED_HOP_POLL_MS 100  /* asking again for a leased site, or after a store error */
/* A site a hop waits for is reserved (its claims wait) until this long past
 * its due time: more than the hop's own latency (the scheduler tick, 200 ms
 * at most, plus a Redis round trip), so the hop gets the site, not its
 * queue; a hop that went away costs the site this much at most. */
#define SCHED_HOP_HOLD_MS 1000

struct sched_hop {
  struct state_robots prev;   /* the record read at lookup; strings in prevstrs */
  char           *prevstrs;
  unsigned        hops;       /* redirects followed */
  char           *url;        /* the hop being fetched (canonical); NULL: /robots.txt */
  bool            foreign;    /* url is on another site than the job's */
  bool            leased;     /* we hold that site's lease (token) */
  char            site[SITE_MAX];
  char            token[160];
  uint32_t        streak;     /* the other site's error streak */
  uint64_t        at_ms;      /* mono: next try */
  uint64_t        give_up_ms; /* mono: stop waiting for the other site */
  uint64_t        taken_ms;   /* mono: the hop lease was asked for at */
  struct delay_in own;        /* the job's own site: its last answer in the chain */
  unsigned        own_conns;  /* connections the chain opened to the job's own site */
  uint64_t        own_us;     /* mono: when it came */
};

static void hop_answer(struct sched_job *j, const struct sched_outcome *o);

void sched_hop_begin(struct sched_job *j, const struct state_robots *prev)
{
  struct sched_hop *h = mem_calloc(1, sizeof *h);
  size_t blen = prev->body ? prev->body_len : 0;
  size_t ulen = prev->final_url ? strlen(prev->final_url) : 0;
  char *p = mem_alloc(blen + ulen + 2);
  if(!h || !p) {
    mem_free(h);
    mem_free(p);
    return;
  }
  h->prev = *prev;
  h->prevstrs = p;
  if(blen)
    memcpy(p, prev->body, blen);
  p[blen] = '\0';
  memcpy(p + blen + 1, ulen ? prev->final_url : "", ulen + 1);
  h->prev.body = prev->body ? p : NULL;
  h->prev.final_url = prev->final_url ? p + blen + 1 : NULL;
  j->hop = h;
}

void sched_hop_free(struct sched_hop **hp)
{
  struct sched_hop *h = *hp;
  if(!h)
    return;
  *hp = NULL;
  mem_free(h->prevstrs);
  mem_free(h->url);
  mem_free(h);
}

/* ---- the other site's lease --------------------------------------------- */

/* Give the hop site's lease back; in says what it did (DELAY_EV_NONE: not
 * contacted), conns the connections it opened there. If the store refuses,
 * the lease expires by itself. */
static void hop_release(struct sched_job *j, const struct delay_in *in, unsigned conns)
{
  struct sched_hop *h = j->hop;
  struct state_done d = { .site = h->site, .token = h->token,
                          .response_ms = in->response_ms, .conns = conns };
  delay_next(&j->s->cfg.delay, in, &d.delay);
  h->leased = false;
  if(state_hop_free(j->s->st, &d, NULL, NULL) != STORE_OK)
    LOG(LOG_WARN, "robots hop: cannot release %s now; its lease will expire", h->site);
}

void sched_hop_drop(struct sched_job *j)
{
  if(!j->hop || !j->hop->leased)
    return;
  /* the hop may have reached the site: charge at least its minimum delay */
  struct delay_in in = { .ev = DELAY_EV_OK, .streak = j->hop->streak, .retry_after_ms = -1 };
  hop_release(j, &in, 0);
}

/* Politeness of the site that gave answer o. */
static void hop_charge(struct sched_job *j, const struct sched_outcome *o)
{
  struct sched_hop *h = j->hop;
  struct delay_in in;
  struct delay_out d;
  if(h->foreign) {
    if(!h->leased)
      return;  /* never reached it */
    sched_job_delay_in(o, h->streak, 0, &in);
    hop_release(j, &in, o->new_connection);
    return;
  }
  h->own_conns += o->new_connection;
  sched_job_delay_in(o, j->streak, 0, &in);
  if(in.ev == DELAY_EV_NONE)
    return;  /* not contacted: the debt of an earlier answer stands */
  h->own = in;
  h->own_us = o->ended_us ? o->ended_us : clock_mono_us();
  delay_next(&j->s->cfg.delay, &h->own, &d);
  j->streak = d.streak;  /* a later hop on this site backs off further */
}

uint64_t sched_hop_own_delay(const struct sched_job *j, uint32_t crawl_delay_ms,
                             struct delay_out *d)
{
  const struct sched_hop *h = j->hop;
  struct delay_in in = h ? h->own : (struct delay_in){ .ev = DELAY_EV_NONE };
  in.crawl_delay_ms = crawl_delay_ms;
  delay_next(&j->s->cfg.delay, &in, d);
  return h ? h->own_us : 0;
}

unsigned sched_hop_own_conns(const struct sched_job *j)
{
  return j->hop ? j->hop->own_conns : 0;
}

/* ---- moving along the chain ---------------------------------------------- */

/* A hop that cannot be made: answered as a network error at that hop. */
static void hop_fail(struct sched_job *j, const char *outcome, bool contacted)
{
  struct sched_outcome o = { .contacted = contacted, .transport_err = true,
                             .outcome = outcome, .error = "robots.txt redirect not followed" };
  hop_answer(j, &o);
}

static void hop_fetch(struct sched_job *j)
{
  j->info.kind = SCHED_ROBOTS;
  j->info.url = j->hop->url;
  if(sched_job_start(j))
    hop_fail(j, "fetcher_unavailable", false);
}

/* Try again in ms, unless that is past the time we give up. */
static void hop_wait(struct sched_job *j, uint64_t ms)
{
  struct sched_hop *h = j->hop;
  uint64_t now = clock_mono_ms();
  if(now + ms > h->give_up_ms) {
    hop_fail(j, "robots_hop_busy", false);
    return;
  }
  h->at_ms = now + ms;
  sched_job_state(j, SJ_HOP_WAIT);
}

static void hop_on_taken(void *arg, store_err err, bool granted, uint64_t wait_ms,
                         uint32_t streak)
{
  struct sched_job *j = arg;
  sched_job_check(j);
  struct sched_hop *h = j->hop;
  j->refs--;
  if(j->st != SJ_HOP_LEASE) {  /* given back or lost meanwhile */
    struct delay_in none = { .ev = DELAY_EV_NONE, .retry_after_ms = -1 };
    if(!err && granted)
      hop_release(j, &none, 0);
    return;
  }
  if(err || !granted) {
    j->s->stats.robots_hop_waits += !err;
    hop_wait(j, err || !wait_ms ? SCHED_HOP_POLL_MS : wait_ms);  /* !wait_ms: leased */
    return;
  }
  h->leased = true;
  h->streak = streak;
  hop_fetch(j);
}

static void hop_go(struct sched_job *j)
{
  struct sched_hop *h = j->hop;
  struct sched *s = j->s;
  if(!h->foreign) {
    hop_fetch(j);
    return;
  }
  sched_job_state(j, SJ_HOP_LEASE);
  h->taken_ms = clock_mono_ms();
  uint64_t left = h->give_up_ms > h->taken_ms ? h->give_up_ms - h->taken_ms : 0;
  if(state_hop_take(s->st, h->site, h->token, s->cfg.lease_ms, left, SCHED_HOP_HOLD_MS,
                    hop_on_taken, j) == STORE_OK)
    j->refs++;
  else
    hop_wait(j, SCHED_HOP_POLL_MS);
}

static void hop_follow(struct sched_job *j, char *url)
{
  struct sched_hop *h = j->hop;
  struct sched *s = j->s;
  uint64_t now = clock_mono_ms();
  struct delay_out d;
  h->hops++;
  s->stats.robots_hops++;
  mem_free(h->url);
  j->info.url = h->url = url;
  h->foreign = false;
  if(site_of_url(state_cfg(s->st)->site_mode, url, NULL, h->site, sizeof h->site) != CM_OK) {
    hop_fail(j, "robots_hop_bad_url", false);
    return;
  }
  h->foreign = strcmp(h->site, j->info.site) != 0;
  h->give_up_ms = now + s->cfg.robots_hop_wait_ms;
  /* one token per hop: it names the hop's reservation across its tries */
  snprintf(h->token, sizeof h->token, "%s:h%llu", s->replica,
           (unsigned long long)++s->token_seq);
  delay_next(&s->cfg.delay, &h->own, &d);
  /* rounded up: the tick compares whole milliseconds */
  h->at_ms = h->foreign ? now : (h->own_us + 999) / 1000 + d.delay_ms;
  sched_job_state(j, SJ_HOP_WAIT);
  if(h->at_ms <= now)
    hop_go(j);
}

void sched_hop_tick(struct sched_job *j, uint64_t now)
{
  struct sched_hop *h = j->hop;
  struct sched *s = j->s;
  if(!h)
    return;
  if(j->st == SJ_HOP_WAIT && now >= h->at_ms) {
    hop_go(j);
    return;
  }
  /* the hop lease is not renewed: a hop outliving it is cut, as a page
   * fetch whose lease cannot be proven */
  if(j->st == SJ_FETCH && h->leased && now - h->taken_ms >= s->cfg.lease_ms - s->cfg.lease_ms / 10) {
    if(s->fops.cancel)
      s->fops.cancel(s->fops.arg, j);
    hop_fail(j, "robots_hop_timeout", true);
  }
}

/* ---- answers ----------------------------------------------------------------- */

/* The record is decided: keep a copy of its strings, then store it. */
static void hop_final(struct sched_job *j, const struct sched_outcome *o,
                      const struct state_robots *rec, struct robots **rules)
{
  size_t blen = rec->body ? rec->body_len : 0;
  size_t ulen = rec->final_url ? strlen(rec->final_url) : 0;
  char *p = mem_alloc(blen + ulen + 2);
  if(!p) {
    robots_free(rules);
    sched_job_abort(j);  /* out of memory: another turn runs it */
    return;
  }
  robots_free(&j->rules);
  j->rules = *rules;  /* kept with the record when it is stored */
  *rules = NULL;
  if(blen)
    memcpy(p, rec->body, blen);
  p[blen] = '\0';
  memcpy(p + blen + 1, ulen ? rec->final_url : "", ulen + 1);
  mem_free(j->recstrs);
  j->recstrs = p;
  j->rec = *rec;
  j->rec.body = rec->body ? p : NULL;
  j->rec.final_url = rec->final_url ? p + blen + 1 : NULL;
  sched_job_complete(j, o);
}

/* Location as a canonical http(s) URL, or NULL if it is not one. */
static char *hop_location(const char *loc)
{
  char *canon = NULL;
  if(!loc || url_canon(loc, strlen(loc), NULL, &canon) != URL_OK)
    return NULL;
  return canon;
}

static void hop_answer(struct sched_job *j, const struct sched_outcome *o)
{
  struct sched_hop *h = j->hop;
  struct sched *s = j->s;
  struct state_robots rec = { 0 };
  struct robots *rules = NULL;
  size_t nagents = 0;
  const struct robots_agent *agents = s->fops.agents(s->fops.arg, &nagents);
  hop_charge(j, o);
  struct sched_outcome ho = *o;
  char *next = hop_location(o->location);
  ho.location = next;
  struct sched_robots_answer a = { .o = &ho, .url = j->info.url, .hops = h->hops,
                                   .prev = &h->prev, .now_ms = sched_srv_now(s) };
  bool follow = sched_robots_digest(s->robots, j->info.origin, &a, agents, nagents, &rec, &rules);
  if(follow && next && h->hops < SCHED_HOPS_MAX) {
    hop_follow(j, next);
    return;
  }
  mem_free(next);
  if(follow)
    rec = (struct state_robots){ 0 };  /* stored as "no outcome": fetched again */
  hop_final(j, o, &rec, &rules);
}

void sched_hop_answer(struct sched_job *j, const struct sched_outcome *o)
{
  if(!j->hop) {  /* cannot happen: sched_hop_begin precedes every robots fetch */
    sched_job_abort(j);
    return;
  }
  hop_answer(j, o);
}
