/* Following redirects: the verdict on one 3xx and the next hop's record. */
#include "hlfs/sched/sched_follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

#define FOLLOW_REC_MAX (64 * 1024)  /* far above FOLLOW_MAX + 2 URLs of the usual cap */

/* Is target one of the record's URLs (line 3 on) or url? */
static int follow_seen(const char *rec, const char *url, const char *target)
{
  size_t tl = strlen(target);
  if(!strcmp(url, target))
    return 1;
  const char *p = strchr(rec, '\n');
  p = p ? strchr(p + 1, '\n') : NULL;  /* skip hops left and the first id */
  while(p) {
    const char *s = p + 1, *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if(n == tl && !memcmp(s, target, tl))
      return 1;
    p = e;
  }
  return 0;
}

enum follow_verdict follow_next(const char *rec, const char *url, const char *target,
                                char **next)
{
  *next = NULL;
  char *end;
  unsigned long left = strtoul(rec, &end, 10);
  if(end == rec || *end != '\n' || left > FOLLOW_MAX || strchr(target, '\n'))
    return FOLLOW_BAD;
  if(follow_seen(rec, url, target))
    return FOLLOW_LOOP;
  if(!left)
    return FOLLOW_LIMIT;
  size_t n = strlen(end) + strlen(target) + 24;
  if(n > FOLLOW_REC_MAX || !(*next = mem_alloc(n)))
    return FOLLOW_BAD;
  snprintf(*next, n, "%lu%s\n%s", left - 1, end, target);
  return FOLLOW_HOP;
}
