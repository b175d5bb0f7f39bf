/* robots.txt records by origin, each with its rules parsed at most once,
 * and the digest and check made with them: see sched_robots.h. */
#include "hlfs/sched/sched_robots.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/policy/robots_policy.h"
#include "hlfs/policy/site.h"

/* Records expiring sooner than this are not trusted by
 * sched_robots_allows_now: their expiry is on Redis' clock, compared with
 * this machine's. */
#define ROBOTS_NOW_MARGIN_MS 1000

struct rb_entry {
  char               *origin;  /* NULL: empty slot */
  char               *strs;    /* body, NUL, final URL, NUL */
  struct state_robots rec;     /* strings point into strs */
  struct robots      *rules;   /* rec's body parsed, or NULL */
  size_t              rules_bytes;
};

struct sched_robots {
  struct rb_entry *slot;
  unsigned         nslots;
  unsigned         hand;        /* next slot to evict when over the bytes cap */
  unsigned         rules_hand;  /* next slot to drop the rules of */
  size_t           bytes, max_bytes;
  unsigned         nrules, rules_max;
  size_t           rules_bytes, rules_max_bytes;
  struct robots   *scratch;     /* rules of a record not kept, until the next call */
  struct robots_policy_cfg policy;
  struct robots_limits     limits;
  struct sched_robots_stats st;
};

struct sched_robots *sched_robots_new(const struct sched_cfg *cfg)
{
  struct sched_robots *b = xalloc(sizeof *b);
  b->nslots = cfg->robots_cache ? cfg->robots_cache : 1;
  b->slot = xalloc(b->nslots * sizeof *b->slot);
  b->max_bytes = cfg->robots_cache_bytes;
  b->rules_max = cfg->robots_rules_max;
  b->rules_max_bytes = cfg->robots_rules_bytes;
  b->policy = cfg->robots_policy;
  b->limits = cfg->robots_limits;
  return b;
}

static void rb_drop_rules(struct sched_robots *b, struct rb_entry *e)
{
  if(!e->rules)
    return;
  robots_free(&e->rules);
  b->nrules--;
  b->rules_bytes -= e->rules_bytes;
  e->rules_bytes = 0;
}

static void rb_clear(struct sched_robots *b, struct rb_entry *e)
{
  if(!e->origin)
    return;
  rb_drop_rules(b, e);
  b->bytes -= e->rec.body_len + strlen(e->origin);
  mem_free(e->origin);
  mem_free(e->strs);
  memset(e, 0, sizeof *e);
}

void sched_robots_free(struct sched_robots **rp)
{
  struct sched_robots *b = *rp;
  if(!b)
    return;
  *rp = NULL;
  for(unsigned i = 0; i < b->nslots; i++)
    rb_clear(b, &b->slot[i]);
  robots_free(&b->scratch);
  free(b->slot);  /* xalloc: set-up memory */
  free(b);
}

static struct rb_entry *rb_slot(const struct sched_robots *b, const char *origin)
{
  return &b->slot[hash_fp64(origin, strlen(origin)) % b->nslots];
}

/* origin's entry, whatever its expiry, or NULL. */
static struct rb_entry *rb_find(const struct sched_robots *b, const char *origin)
{
  struct rb_entry *e = rb_slot(b, origin);
  return e->origin && !strcmp(e->origin, origin) ? e : NULL;
}

bool sched_robots_get(struct sched_robots *b, const char *origin, uint64_t srv_now,
                      struct state_robots *out)
{
  struct rb_entry *e = rb_find(b, origin);
  if(!e || srv_now >= e->rec.expires_at)
    return false;
  *out = e->rec;
  return true;
}

static void rb_make_room(struct sched_robots *b, size_t need, const struct rb_entry *keep)
{
  for(unsigned n = 0; b->bytes + need > b->max_bytes && n < b->nslots; n++) {
    struct rb_entry *e = &b->slot[b->hand];
    b->hand = (b->hand + 1) % b->nslots;
    if(e != keep)
      rb_clear(b, e);
  }
}

/* Over a bound of parsed sets: drop the rules (not the records) of others
 * than keep, in turn. */
static void rb_trim_rules(struct sched_robots *b, const struct rb_entry *keep)
{
  for(unsigned n = 0; (b->nrules > b->rules_max || b->rules_bytes > b->rules_max_bytes) &&
                      n < b->nslots; n++) {
    struct rb_entry *e = &b->slot[b->rules_hand];
    b->rules_hand = (b->rules_hand + 1) % b->nslots;
    if(e != keep)
      rb_drop_rules(b, e);
  }
}

/* e takes *rules, if the bounds let it keep any. */
static void rb_keep_rules(struct sched_robots *b, struct rb_entry *e, struct robots **rules)
{
  struct robots_stats rs;
  if(!*rules || !b->rules_max)
    return;
  robots_stats(*rules, &rs);
  if(rs.mem_bytes > b->rules_max_bytes)
    return;
  rb_drop_rules(b, e);
  e->rules = *rules;
  *rules = NULL;
  e->rules_bytes = rs.mem_bytes;
  b->nrules++;
  b->rules_bytes += rs.mem_bytes;
  rb_trim_rules(b, e);
}

/* The same record (read back from Redis, say): its parsed rules stay. A
 * record's body never changes once stored, and a new fetch gives a new
 * fetch time, so (origin, fetched_at, body length) names one parse. */
static bool rb_same(const struct rb_entry *e, const char *origin, const struct state_robots *rec)
{
  size_t blen = rec->body ? rec->body_len : 0;
  return e->origin && e->rec.fetched_at == rec->fetched_at && e->rec.body_len == blen &&
         !strcmp(e->origin, origin);
}

static void rb_fill(struct rb_entry *e, const struct state_robots *rec, size_t blen)
{
  size_t ulen = rec->final_url ? strlen(rec->final_url) : 0;
  if(blen)
    memcpy(e->strs, rec->body, blen);
  e->strs[blen] = '\0';
  memcpy(e->strs + blen + 1, ulen ? rec->final_url : "", ulen + 1);
  e->rec = *rec;
  e->rec.body = rec->body ? e->strs : NULL;
  e->rec.body_len = blen;
  e->rec.final_url = rec->final_url ? e->strs + blen + 1 : NULL;
}

void sched_robots_put(struct sched_robots *b, const char *origin,
                      const struct state_robots *rec, struct robots **rules)
{
  struct rb_entry *e = rb_slot(b, origin);
  size_t blen = rec->body ? rec->body_len : 0;
  size_t need = blen + strlen(origin);
  struct robots *kept = NULL;
  if(rb_same(e, origin, rec) && e->rules && !(rules && *rules)) {
    kept = e->rules;  /* the parse outlives the copy of its record */
    e->rules = NULL;
    b->nrules--;
    b->rules_bytes -= e->rules_bytes;
  }
  rb_clear(b, e);
  if(need <= b->max_bytes) {
    rb_make_room(b, need, e);
    size_t ulen = rec->final_url ? strlen(rec->final_url) : 0;
    e->origin = mem_strdup(origin);
    e->strs = mem_alloc(blen + ulen + 2);
    if(e->origin && e->strs) {
      rb_fill(e, rec, blen);
      b->bytes += need;
      rb_keep_rules(b, e, rules && *rules ? rules : &kept);
    } else {  /* not cached: the next claim reads Redis again */
      mem_free(e->origin);
      mem_free(e->strs);
      memset(e, 0, sizeof *e);
    }
  }
  robots_free(&kept);
  if(rules)
    robots_free(rules);
}

/* ---- rules ---------------------------------------------------------------- */

static struct robots *rb_parse(struct sched_robots *b, const struct state_robots *rec)
{
  struct robots *r = NULL;
  b->st.parses++;
  if(robots_parse(rec->body ? rec->body : "", rec->body ? rec->body_len : 0, &b->limits, &r) !=
     ROBOTS_OK)
    robots_free(&r);
  return r;
}

const struct robots *sched_robots_rules(struct sched_robots *b, const char *origin,
                                        const struct state_robots *rec)
{
  struct rb_entry *e = rb_find(b, origin);
  if(e && rb_same(e, origin, rec) && e->rules) {
    b->st.hits++;
    return e->rules;
  }
  struct robots *r = rb_parse(b, rec);
  if(e && rb_same(e, origin, rec) && b->rules_max) {
    rb_keep_rules(b, e, &r);
    if(e->rules)
      return e->rules;
  }
  robots_free(&b->scratch);
  b->scratch = r;
  return r;
}

enum robots_answer sched_robots_check(struct sched_robots *b, const char *origin,
                                      const struct state_robots *rec, const char *url,
                                      const struct robots_agent *agent)
{
  if(!robots_has_rules(rec->status))
    return robots_decide(rec->status, NULL, agent, "", 0);
  char *target = NULL;
  size_t tlen = 0;
  if(robots_url_target(url, strlen(url), &target, &tlen))
    return ROBOTS_UNAVAILABLE;
  enum robots_answer v =
    robots_decide(rec->status, sched_robots_rules(b, origin, rec), agent, target, tlen);
  mem_free(target);
  return v;
}

bool sched_robots_allows_now(struct sched_robots *b, const struct robots_agent *agent,
                             const char *url)
{
  char origin[SITE_ORIGIN_MAX];
  struct url_parts up;
  const struct rb_entry *e;
  if(url_split(url, &up) || site_origin_split(&up, origin, sizeof origin) ||
     !(e = rb_find(b, origin)) ||
     e->rec.expires_at < clock_wall_ms() + ROBOTS_NOW_MARGIN_MS)
    return false;
  if(robots_has_rules(e->rec.status) && !e->rules)
    return false;  /* not parsed here: the claim parses it */
  if(e->rules)
    b->st.hits++;
  return robots_decide(e->rec.status, e->rules, agent, up.target, up.target_len) == ROBOTS_ALLOW;
}

void sched_robots_stats(const struct sched_robots *b, struct sched_robots_stats *st)
{
  *st = b->st;
  st->records = 0;
  for(unsigned i = 0; i < b->nslots; i++)
    st->records += b->slot[i].origin != NULL;
  st->bytes = b->bytes;
  st->rules = b->nrules;
  st->rules_bytes = b->rules_bytes;
}

/* ---- digest ---------------------------------------------------------------- */

static void digest_fetch_of(const struct sched_robots_answer *a, struct robots_fetch *f)
{
  const struct sched_outcome *o = a->o;
  *f = (struct robots_fetch){
    .net_error = o->transport_err || !o->contacted, .status = o->http_status,
    .redirects = a->hops, .has_location = o->location != NULL,
    .cache_control = o->cache_control, .expires = o->expires, .date = o->date,
    .retry_after = o->retry_after, .now_ms = a->now_ms,
  };
}

/* The body a record keeps: the answer's (capped: the parser reads no more
 * than max_bytes, and one byte past tells it the file was cut), the last
 * good copy, or none; and the Crawl-delay of its rules, parsed once here. */
static void digest_rules(struct sched_robots *b, const struct sched_robots_answer *a,
                         const struct robots_decision *d, const struct robots_agent *agents,
                         size_t n, struct state_robots *rec, struct robots **rules)
{
  size_t cap = b->limits.max_bytes + 1;
  if(d->rules == ROBOTS_SRC_BODY) {
    rec->body = a->o->body ? a->o->body : "";
    rec->body_len = a->o->body ? a->o->body_len : 0;
    if(rec->body_len > cap)
      rec->body_len = cap;
  } else if(d->next.good_at_ms && a->prev->body) {
    rec->body = a->prev->body;  /* still the last good copy */
    rec->body_len = a->prev->body_len;
  }
  if(robots_has_rules(rec->status) && rec->body) {
    *rules = rb_parse(b, rec);
    rec->crawl_delay_ms = robots_delay_ms(*rules, agents, n);
  } else {
    rec->crawl_delay_ms = a->prev->crawl_delay_ms;  /* nothing fetched: keep spacing */
  }
}

/* Why robots.txt counts as unreachable, kept with the record for the
 * requests it refuses: the fetch's outcome and text, or the site's status. */
static void digest_cause(const struct sched_outcome *o, struct state_robots *rec)
{
  bool answered = o->contacted && !o->transport_err && o->http_status > 0;
  snprintf(rec->cause, sizeof rec->cause, "%s", o->outcome ? o->outcome : "ok");
  rec->cause_status = answered ? o->http_status : 0;
  if(answered)
    snprintf(rec->cause_detail, sizeof rec->cause_detail, "robots.txt answered HTTP %d",
             o->http_status);
  else
    snprintf(rec->cause_detail, sizeof rec->cause_detail, "robots.txt: %s%s%s", rec->cause,
             o->error ? ": " : "", o->error ? o->error : "");
}

bool sched_robots_digest(struct sched_robots *b, const char *origin,
                         const struct sched_robots_answer *a,
                         const struct robots_agent *agents, size_t n,
                         struct state_robots *rec, struct robots **rules)
{
  const struct state_robots *p = a->prev;
  struct robots_state prev = { p->good_at, p->outage_since, p->error_streak };
  struct robots_fetch f;
  struct robots_decision d;
  *rules = NULL;
  digest_fetch_of(a, &f);
  if(!p->body)
    prev.good_at_ms = 0;  /* no copy to fall back to, whatever the state says */
  robots_policy(&b->policy, &f, &prev, &d);
  LOG(LOG_DEBUG, "robots %s: %s (%d, hop %u)", origin, robots_pstatus_name(d.status),
      a->o->http_status, a->hops);
  if(d.status == ROBOTS_P_REDIRECT)
    return true;
  rec->status = (int)d.status;
  rec->good_at = d.next.good_at_ms;
  rec->outage_since = d.next.outage_since_ms;
  rec->error_streak = d.next.error_streak;
  rec->hops = a->hops;
  rec->final_url = a->hops ? a->url : NULL;
  digest_rules(b, a, &d, agents, n, rec, rules);
  rec->ttl_ms = d.expires_at_ms > a->now_ms ? d.expires_at_ms - a->now_ms : 0;
  rec->retry_ms = d.retry_at_ms > a->now_ms ? d.retry_at_ms - a->now_ms : 0;
  if(d.status == ROBOTS_P_UNREACHABLE_DISALLOW)
    digest_cause(a->o, rec);
  return false;
}
