/* Verdicts and Crawl-delay from parsed rules: see robots_decide.h. */
#include "hlfs/policy/robots_decide.h"

#include "hlfs/policy/robots_policy.h"

bool robots_has_rules(int status)
{
  return status == ROBOTS_P_OK || status == ROBOTS_P_STALE_FALLBACK ||
         status == ROBOTS_P_NOT_MODIFIED;
}

enum robots_answer robots_decide(int status, const struct robots *r,
                                 const struct robots_agent *agent, const char *target,
                                 size_t tlen)
{
  struct robots_verdict v;
  if(status == ROBOTS_P_UNREACHABLE_DISALLOW)
    return ROBOTS_UNAVAILABLE;
  if(!robots_has_rules(status))
    return ROBOTS_ALLOW;
  if(!r || robots_query(r, agent->tok, agent->len, target, tlen, &v))
    return ROBOTS_UNAVAILABLE;
  return v.allowed ? ROBOTS_ALLOW : ROBOTS_DISALLOW;
}

uint32_t robots_delay_ms(const struct robots *r, const struct robots_agent *agents, size_t n)
{
  uint32_t ms = 0;
  struct robots_verdict v;
  for(size_t i = 0; r && i < n; i++)
    if(robots_query(r, agents[i].tok, agents[i].len, "/", 1, &v) == 0 && v.crawl_delay >= 0 &&
       (uint32_t)(v.crawl_delay * 1000.0) > ms)
      ms = (uint32_t)(v.crawl_delay * 1000.0);
  return ms;
}
