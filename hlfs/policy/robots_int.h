#ifndef WPFS_HLFS_ROBOTS_INT_H
#define WPFS_HLFS_ROBOTS_INT_H
/* Inside of a parsed robots.txt, shared by robots.c (building it) and
 * robots_query.c (reading it). Nobody else includes this.
 *
 * Everything lives in a few flat arrays with 32-bit offsets into one text
 * arena, so a set costs a handful of allocations whatever its size, and a
 * rule is 24 bytes plus its two strings. */
#include <stdint.h>

#include "hlfs/policy/robots.h"

struct robots_rule {
  uint32_t line;
  uint32_t pat;         /* normalised pattern, NUL-terminated, in text */
  uint32_t pat_len;     /* its length: the "octets" of RFC 9309 longest match */
  uint32_t raw;         /* the pattern as written, for explanations */
  uint32_t prefix_len;  /* literal bytes before the first '*' or final '$' */
  uint32_t allow;       /* 1 = allow, 0 = disallow */
};

/* A group: user-agent lines, then rules until the next user-agent line that
 * follows a rule. Its rules are rules[rule0 .. rule0 + nrules), sorted by
 * literal prefix (robots_query.c narrows them by binary search). */
struct robots_group {
  uint32_t rule0, nrules;
  double   crawl_delay;  /* seconds as written; < 0 = none */
};

/* One user-agent token. Sorted by (token, group) so that all groups of an
 * agent are one binary search away; tokens are lower-cased, and "*" (which
 * no valid token contains) stands for the catch-all group. */
struct robots_agent {
  uint32_t tok, tok_len;
  uint32_t group;
};

struct robots_sitemap {
  uint32_t off, line;
};

struct robots {
  unsigned magic;
#define ROBOTS_MAGIC 0x52b07e71u
  char                 *text;     /* arena: all strings, NUL-terminated */
  uint32_t              text_len, text_cap;
  struct robots_rule   *rules;
  struct robots_group  *groups;
  struct robots_agent  *agents;
  struct robots_sitemap *sitemaps;
  uint32_t nrules, ngroups, nagents, nsitemaps;
  uint32_t cap_rules, cap_groups, cap_agents, cap_sitemaps;
  struct robots_limits lim;
  struct robots_stats  st;
};

#endif
