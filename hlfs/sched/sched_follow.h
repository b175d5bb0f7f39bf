#ifndef WPFS_HLFS_SCHED_FOLLOW_H
#define WPFS_HLFS_SCHED_FOLLOW_H
/* Redirects followed for a client that asked (follow_redirects). Each hop
 * is a request of its own, queued at the target's site, so the target's
 * robots.txt and politeness apply to it like to any request. A record in
 * Redis (fr:{N}, hlfs/state/lua/lib.lua) goes with the request along the chain:
 *
 *   "<hops left>\n<first request id>\n<first URL>" then "\n<URL>" per hop
 *
 * and the last hop's result is published as the result of the request the
 * client made (its id and URL, the URLs followed in "redirects"). */
#include <stddef.h>

#define FOLLOW_MAX 20  /* redirects a request may ask to follow */

enum follow_verdict {
  FOLLOW_HOP,    /* queue the target: *next is its record */
  FOLLOW_LOOP,   /* the target was visited already in this chain */
  FOLLOW_LIMIT,  /* no hop left */
  FOLLOW_BAD,    /* the record is malformed or the chain would be too long */
};

/* A 3xx of the request at url (holding record rec) points to target (a
 * canonical absolute URL). For FOLLOW_HOP, *next is the hop's record
 * (mem_alloc'd, the caller frees); otherwise *next is NULL. */
enum follow_verdict follow_next(const char *rec, const char *url, const char *target,
                                char **next);

#endif
