#ifndef WPFS_HLFS_ROBOTS_POLICY_H
#define WPFS_HLFS_ROBOTS_POLICY_H
/* What to do with the answer to a robots.txt fetch (RFC 9309 §2.3.1, §2.4):
 * which rules hold for the site, until when, and when to try again.
 *
 * Pure: no I/O, no clock, no allocation. The gateway fetches (each redirect
 * hop under the site's politeness), calls robots_policy with the answer and
 * the state it stored last time, and stores decision.next. */
#include <stdbool.h>
#include <stdint.h>

/* Outcome names are stable: they reach the API, logs and metrics.
 * Append only, never renumber or rename. 0 is "none" so that a zeroed
 * record means "never fetched". */
#define ROBOTS_POLICY_STATUS(X)                                                      \
  X(NONE,                 none,                 "no robots.txt outcome yet")         \
  X(OK,                   ok,                   "robots.txt fetched: use its rules") \
  X(NOT_MODIFIED,         not_modified,         "304: keep using the last good copy") \
  X(REDIRECT,             redirect,             "redirect: fetch the next hop")      \
  X(UNAVAILABLE_ALLOW,    unavailable_allow,    "4xx: no robots.txt, everything allowed") \
  X(REDIRECT_LIMIT,       redirect_limit,       "more redirects than allowed: unavailable, everything allowed") \
  X(UNREACHABLE_DISALLOW, unreachable_disallow, "5xx, 429 or network error: everything disallowed until retry") \
  X(STALE_FALLBACK,       stale_fallback,       "unreachable for longer than the outage limit: last good copy") \
  X(UNREACHABLE_ALLOW,    unreachable_allow,    "unreachable for longer than the outage limit, no good copy: allowed")

enum robots_pstatus {
#define X(e, name, txt) ROBOTS_P_##e,
  ROBOTS_POLICY_STATUS(X)
#undef X
  ROBOTS_P__LAST
};
const char *robots_pstatus_name(enum robots_pstatus s);  /* "unavailable_allow" */

/* The rules the site gets from now on. */
enum robots_src {
  ROBOTS_SRC_NONE,          /* REDIRECT: nothing decided yet, fetch the next hop */
  ROBOTS_SRC_BODY,          /* parse the body just fetched; it becomes the last good copy */
  ROBOTS_SRC_LAST_GOOD,     /* the last good copy the caller stored */
  ROBOTS_SRC_ALLOW_ALL,
  ROBOTS_SRC_DISALLOW_ALL,
};

struct robots_policy_cfg {
  uint64_t max_ttl_ms;       /* §2.4: cached no longer than this (24 h) */
  uint64_t min_ttl_ms;       /* floor, whatever the server says (10 min) */
  uint64_t outage_ms;        /* unreachable this long: fall back (30 days) */
  uint64_t backoff_base_ms;  /* first retry after an error (1 min), doubling */
  uint64_t backoff_max_ms;   /* retry interval cap (6 h) */
  unsigned max_redirects;    /* §2.3.1.2: at least 5 */
};
struct robots_policy_cfg robots_policy_defaults(void);

/* The answer to one fetch of /robots.txt (or of a redirect hop). Header
 * values are as received, NULL when absent. */
struct robots_fetch {
  bool        net_error;     /* no HTTP answer: DNS, connect, TLS, reset, timeout */
  int         status;        /* HTTP status when !net_error */
  unsigned    redirects;     /* redirects already followed to get this answer */
  bool        has_location;  /* a 3xx carried a Location to follow */
  const char *cache_control;
  const char *expires;
  const char *date;          /* the answer's Date, for Expires; now if absent */
  const char *retry_after;   /* seconds or HTTP-date (429, 503) */
  uint64_t    now_ms;        /* wall clock when the answer arrived */
};

/* What the caller keeps per site between fetches; all zero at first. */
struct robots_state {
  uint64_t good_at_ms;       /* when the stored last good copy was fetched; 0 = none */
  uint64_t outage_since_ms;  /* first failed fetch of the current outage; 0 = none */
  uint32_t error_streak;     /* failed fetches in a row */
};

struct robots_decision {
  enum robots_pstatus status;
  enum robots_src     rules;
  uint64_t expires_at_ms;  /* fetch /robots.txt again at this time; 0 for REDIRECT */
  uint64_t retry_at_ms;    /* errors: time of the next attempt; 0 otherwise */
  struct robots_state next;  /* store this; good_at_ms = 0 means drop the copy */
};

/* cfg may be NULL (defaults). Never fails. */
void robots_policy(const struct robots_policy_cfg *cfg, const struct robots_fetch *f,
                   const struct robots_state *prev, struct robots_decision *d);

#endif
