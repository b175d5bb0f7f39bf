#ifndef WPFS_HLFS_SCHED_ROBOTS_H
#define WPFS_HLFS_SCHED_ROBOTS_H
/* robots.txt as the scheduler keeps it: one cache of the origins' records
 * (hlfs/state/state.h, struct state_robots) with the rules of each body
 * parsed at most once, and the calls that turn a robots.txt answer into a
 * record and a URL into a verdict, made with the policy of
 * hlfs/policy/robots_policy.h and hlfs/policy/robots_decide.h.
 *
 * The cache is direct-mapped by origin (a colliding origin replaces the
 * older one: Redis has the record), bounded by the bytes of bodies
 * (robots_cache_bytes) and, apart, by the parsed sets kept
 * (robots_rules_max, robots_rules_bytes): over a bound, a clock hand drops
 * records, or only their parsed rules. Not shared between threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/policy/robots_decide.h"
#include "hlfs/sched/sched.h"

struct sched_robots;

/* One answer of a robots.txt fetch: /robots.txt itself, or a redirect hop. */
struct sched_robots_answer {
  const struct sched_outcome *o;    /* o->location is canonical, NULL when absent
                                       or not an http(s) URL */
  const char                 *url;  /* the URL that answered */
  unsigned                    hops; /* redirects followed before this answer */
  const struct state_robots  *prev; /* the origin's stored record (status 0: none):
                                       policy state and last good copy */
  uint64_t                    now_ms;  /* Redis clock */
};

struct sched_robots_stats {
  uint64_t parses;  /* bodies parsed */
  uint64_t hits;    /* verdicts answered by rules already parsed */
  size_t   records, bytes;      /* records kept, bytes of their bodies and origins */
  size_t   rules, rules_bytes;  /* parsed sets kept, their heap bytes */
};

/* Sized by cfg's robots_cache, robots_cache_bytes, robots_rules_max (0:
 * nothing parsed is kept: every check parses) and robots_rules_bytes;
 * decides with robots_policy and robots_limits. */
struct sched_robots *sched_robots_new(const struct sched_cfg *cfg);
void sched_robots_free(struct sched_robots **rp);
/* The book of a running scheduler (hlfs/gw reads it for its answers). */
struct sched_robots *sched_robots_of(struct sched *s);

/* A copy of origin's record if kept and fresh at srv_now (Redis clock);
 * its strings stay valid until the next sched_robots_put. */
bool sched_robots_get(struct sched_robots *b, const char *origin, uint64_t srv_now,
                      struct state_robots *out);
/* Keep rec as origin's record. *rules, when not NULL, is rec's body
 * parsed (sched_robots_digest): the cache takes it (*rules is cleared). */
void sched_robots_put(struct sched_robots *b, const char *origin,
                      const struct state_robots *rec, struct robots **rules);

/* A robots.txt answer arrived. true: follow o->location (a redirect; see
 * docs/robots.md). Otherwise rec is filled: status != 0, body (the answer's,
 * capped, or the last good copy, or NULL), the policy state, crawl_delay_ms
 * (the strictest of the n agents), ttl_ms, retry_ms, and the cause when
 * robots.txt is unreachable; *rules is the body parsed (NULL: no rules),
 * for sched_robots_put. rec's pointers live as long as a's. */
bool sched_robots_digest(struct sched_robots *b, const char *origin,
                         const struct sched_robots_answer *a,
                         const struct robots_agent *agents, size_t n,
                         struct state_robots *rec, struct robots **rules);

/* May url be fetched by agent under origin's record rec? */
enum robots_answer sched_robots_check(struct sched_robots *b, const char *origin,
                                      const struct state_robots *rec, const char *url,
                                      const struct robots_agent *agent);

/* May url be answered from the page cache without queueing it? Only when
 * its origin's record is kept here, valid for at least another second by
 * this machine's clock, and its parsed rules (if it has any) are kept too
 * and allow url for agent. false means "queue it": the claim decides. One
 * split of the canonical URL, no allocation. */
bool sched_robots_allows_now(struct sched_robots *b, const struct robots_agent *agent,
                             const char *url);

/* The parsed rules of rec (origin's record): those kept, else parsed (and
 * kept when rec is the record kept). NULL on out of memory or a bad body.
 * Valid until the next call on b. */
const struct robots *sched_robots_rules(struct sched_robots *b, const char *origin,
                                        const struct state_robots *rec);

void sched_robots_stats(const struct sched_robots *b, struct sched_robots_stats *st);

#endif
