#ifndef WPFS_HLFS_ROBOTS_DECIDE_H
#define WPFS_HLFS_ROBOTS_DECIDE_H
/* The two decisions robots.txt makes for the gateway, from rules parsed
 * once (hlfs/policy/robots.h) and the record's policy status
 * (hlfs/policy/robots_policy.h): may this request target be fetched, and
 * how far apart must requests to the site be (Crawl-delay). Pure: no
 * cache, no clock, no I/O; the scheduler keeps the parsed rules
 * (hlfs/sched/sched_robots.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/policy/robots.h"

/* An identity's product token, tok[0..len) (not NUL-terminated when cut
 * from a User-Agent: robots_agent_token). */
struct robots_agent {
  const char *tok;
  size_t      len;
};

enum robots_answer {
  ROBOTS_ALLOW,
  ROBOTS_DISALLOW,
  ROBOTS_UNAVAILABLE,  /* robots.txt unreachable, or its rules could not be had */
};

/* Does a record of this policy status take its rules from its body? */
bool robots_has_rules(int status);

/* May target[0..tlen) (a URL's path and query) be fetched by agent, under
 * a record of policy status status whose body parsed into r (NULL: no
 * rules could be had)? */
enum robots_answer robots_decide(int status, const struct robots *r,
                                 const struct robots_agent *agent, const char *target,
                                 size_t tlen);

/* The site's one Crawl-delay, in ms: every client shares a site's
 * politeness (one request at a time, one next allowed time), so the
 * strictest delay r gives any of the n identities applies to all. 0: none
 * (or r NULL). */
uint32_t robots_delay_ms(const struct robots *r, const struct robots_agent *agents, size_t n);

#endif
