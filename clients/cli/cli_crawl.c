/* wpfs crawl-status: a crawl on several processes (docs/crawler.md, "A
 * crawl on several processes"), read from its coordination Redis: the
 * members, the partitions each holds, and each member's progress as it
 * published it at its last report. Read-only. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "clients/cli/cli.h"
#include "clients/part/coord.h"
#include "clients/part/status.h"

#define CS_MEMBERS_MAX 4096

struct cs_member {
  char        name[COORD_NAME_MAX + 1];
  unsigned    held;
  bool        live;
};

static redisReply *cs_cmd(struct coord *k, const char *verb, const char *key, const char *a,
                          const char *b)
{
  const char *argv[] = { verb, key, a, b };
  return coord_cmd(k, !key ? 1 : !a ? 2 : !b ? 3 : 4, argv, NULL);
}

static struct cs_member *cs_find(struct cs_member *m, size_t *n, const char *name)
{
  for(size_t i = 0; i < *n; i++)
    if(!strcmp(m[i].name, name))
      return &m[i];
  if(*n == CS_MEMBERS_MAX)
    return NULL;
  snprintf(m[*n].name, sizeof m[*n].name, "%s", name);
  return &m[(*n)++];
}

/* The table: members from the owners, the live list and the progress. */
static int cs_print(struct cli *c, const redisReply *own, const redisReply *live,
                    const redisReply *prog, const char *crawl, const char *parts, bool done)
{
  struct cs_member *m = calloc(CS_MEMBERS_MAX, sizeof *m);
  size_t n = 0, held = 0;
  if(!m) {
    cli_err(c, "out of memory");
    return CLI_LOCAL;
  }
  char name[COORD_NAME_MAX + 1];
  for(size_t i = 0; i + 1 < own->elements; i += 2) {
    if(sscanf(own->element[i + 1]->str, "%128s", name) != 1)  /* "member epoch end" */
      continue;
    struct cs_member *x = cs_find(m, &n, name);
    if(x) {
      x->held++;
      held++;
    }
  }
  for(size_t i = 0; i < live->elements; i++) {
    struct cs_member *x = cs_find(m, &n, live->element[i]->str);
    if(x)
      x->live = true;
  }
  for(size_t i = 0; i + 1 < prog->elements; i += 2)
    cs_find(m, &n, prog->element[i]->str);
  printf("crawl %s: %s partitions, %zu held, %zu live members, %s\n", crawl, parts, held,
         live->elements, done ? "over" : "running");
  printf("%-24s %4s %6s %10s %10s %8s %10s %10s %8s %5s %8s\n", "member", "live", "parts", "pages",
         "queued", "out", "links_sent", "links_read", "waiting", "lost", "refetch");
  for(size_t i = 0; i < n; i++) {
    struct part_progress g = { 0 };
    for(size_t k = 0; k + 1 < prog->elements; k += 2)
      if(!strcmp(prog->element[k]->str, m[i].name))
        part_progress_parse(prog->element[k + 1]->str, &g);
    printf("%-24s %4s %6u %10lld %10lld %8lld %10lld %10lld %8lld %5lld %8lld\n", m[i].name,
           m[i].live ? "yes" : "no", m[i].held, g.pages, g.queued, g.outstanding, g.links_sent,
           g.links_read, g.links_waiting, g.lost, g.refetch_bound);
  }
  free(m);
  return fflush(stdout) ? CLI_LOCAL : CLI_OK;
}

static int cs_read(struct cli *c, struct coord *k, const char *crawl)
{
  char ko[COORD_KEY_MAX], km[COORD_KEY_MAX], kp[COORD_KEY_MAX], kt[COORD_KEY_MAX],
       ks[COORD_KEY_MAX], now[32];
  snprintf(now, sizeof now, "%llu", (unsigned long long)0);
  redisReply *t = cs_cmd(k, "TIME", NULL, NULL, NULL);
  redisReply *meta = cs_cmd(k, "HGET", coord_key(k, "meta", -1, kt, sizeof kt), "partitions", NULL);
  redisReply *own = cs_cmd(k, "HGETALL", coord_key(k, "owner", -1, ko, sizeof ko), NULL, NULL);
  redisReply *prog = cs_cmd(k, "HGETALL", coord_key(k, "progress", -1, kp, sizeof kp), NULL, NULL);
  redisReply *done = cs_cmd(k, "HGET", coord_key(k, "stats", -1, ks, sizeof ks), "done", NULL);
  redisReply *live = NULL;
  int rc = CLI_UNREACHABLE;
  if(t && t->type == REDIS_REPLY_ARRAY && t->elements == 2) {
    snprintf(now, sizeof now, "%lld",
             atoll(t->element[0]->str) * 1000 + atoll(t->element[1]->str) / 1000);
    live = cs_cmd(k, "ZRANGEBYSCORE", coord_key(k, "members", -1, km, sizeof km), now, "+inf");
  }
  if(meta && own && prog && done && live && live->type == REDIS_REPLY_ARRAY) {
    if(meta->type != REDIS_REPLY_STRING) {
      cli_err(c, "no crawl named %s there", crawl);
      rc = CLI_NO;
    } else {
      rc = cs_print(c, own, live, prog, crawl, meta->str,
                    done->type == REDIS_REPLY_STRING && !strcmp(done->str, "1"));
    }
  } else {
    cli_err(c, "the coordination Redis did not answer");
  }
  redisReply *all[] = { t, meta, own, prog, done, live };
  for(size_t i = 0; i < sizeof all / sizeof *all; i++)
    if(all[i])
      freeReplyObject(all[i]);
  return rc;
}

int cli_crawl_status(struct cli *c, int argc, char **argv)
{
  static const struct option lo[] = {
    { "coord-redis", required_argument, NULL, 'r' }, { "crawl", required_argument, NULL, 'c' },
    { NULL, 0, NULL, 0 },
  };
  const char *url = getenv("WPFS_COORD_REDIS"), *crawl = getenv("WPFS_CRAWL");
  int ch;
  optind = 0;
  while((ch = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
    if(ch == 'r')
      url = optarg;
    else if(ch == 'c')
      crawl = optarg;
    else
      return CLI_USAGE;
  }
  if(!url || !*url)
    url = "redis://127.0.0.1:6379";
  if(!crawl || !coord_name_ok(crawl) || optind != argc) {
    cli_err(c, "--crawl NAME (letters, digits, . _ -), and nothing else (wpfs crawl-status --help)");
    return CLI_USAGE;
  }
  struct coord *k;
  crawl_err e = coord_open(url, crawl, (unsigned)(c->timeout_ms < 10000 ? c->timeout_ms : 10000), &k);
  if(e) {
    cli_err(c, e == CRAWL_ERR_INVALID ? "%s is not redis://host:port" : "cannot reach the "
            "coordination Redis at %s", url);
    return e == CRAWL_ERR_INVALID ? CLI_USAGE : CLI_UNREACHABLE;
  }
  int rc = cs_read(c, k, crawl);
  coord_close(&k);
  return rc;
}
