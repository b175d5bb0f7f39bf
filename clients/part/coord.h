#ifndef WPFS_CLIENTS_COORD_H
#define WPFS_CLIENTS_COORD_H
/* The Redis of a crawl on several processes: one connection, blocking
 * calls with a short timeout (the crawl loop makes them from its tick;
 * docs/crawler.md, "A crawl on several processes", says what that costs),
 * the crawl's key names, and the functions of clients/part/lua/ loaded
 * once per connection. Every key of crawl NAME is wc:{NAME}:<what>: one
 * hash slot per crawl, so crawls share a Redis (or a cluster) without
 * meeting. A broken connection is made again at the next call. */
#include <stdbool.h>
#include <stddef.h>
#include <hiredis/hiredis.h>

#include "clients/base/crawl_err.h"

#define COORD_NAME_MAX 128   /* a crawl's name, a member's id */
#define COORD_KEY_MAX  (COORD_NAME_MAX + 32)
#define COORD_GROUP    "wpfs"  /* the consumer group of every links stream */

struct coord;

/* url: redis://host:port or host:port. Names: letters, digits, . _ -. */
crawl_err coord_open(const char *url, const char *crawl, unsigned timeout_ms,
                     struct coord **out);
void      coord_close(struct coord **kp);
bool      coord_name_ok(const char *s);
/* wc:{NAME}:what, or with a partition wc:{NAME}:what:p (p >= 0). */
const char *coord_key(const struct coord *k, const char *what, long p, char *out, size_t n);
/* A command (argv, lens may be NULL: strings); NULL after an error, said
 * once per failure at the warning level. The reply is the caller's
 * (freeReplyObject); an error reply is returned as it is. */
redisReply *coord_cmd(struct coord *k, int argc, const char **argv, const size_t *lens);
/* FCALL of one of part_lua's functions. */
redisReply *coord_fcall(struct coord *k, const char *fn, int nkeys, int argc,
                        const char **argv, const size_t *lens);
/* Pipelining: append commands, then read their replies in order
 * (coord_reply: NULL after an error; the connection is then dropped). */
bool        coord_append(struct coord *k, int argc, const char **argv, const size_t *lens);
redisReply *coord_reply(struct coord *k);
/* Commands sent since open. */
unsigned long long coord_commands(const struct coord *k);

#endif
