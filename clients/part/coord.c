#include "clients/part/coord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/part/part_lua.h"
#include "common/log.h"
#include "common/mem.h"

struct coord {
  redisContext      *rc;
  char               host[256];
  int                port;
  unsigned           timeout_ms;
  char               prefix[COORD_KEY_MAX];
  bool               warned;   /* the current failure was said */
  unsigned long long commands;
};

bool coord_name_ok(const char *s)
{
  size_t n = s ? strlen(s) : 0;
  if(n == 0 || n > COORD_NAME_MAX)
    return false;
  for(size_t i = 0; i < n; i++)
    if(!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]))
      return false;
  return true;
}

static bool parse_url(struct coord *k, const char *url)
{
  if(!strncmp(url, "redis://", 8))
    url += 8;
  const char *colon = strrchr(url, ':');
  size_t hl = colon ? (size_t)(colon - url) : strlen(url);
  if(hl == 0 || hl >= sizeof k->host)
    return false;
  memcpy(k->host, url, hl);
  k->host[hl] = 0;
  char *end;
  long port = colon ? strtol(colon + 1, &end, 10) : 6379;
  if(colon && (*end && strcmp(end, "/") && strcmp(end, "/0")))
    return false;
  k->port = (int)port;
  return port > 0 && port < 65536;
}

/* The library is loaded under a name made of its text's digest: a member
 * of another version loads its own beside it. */
static bool load_library(struct coord *k)
{
  redisReply *r = redisCommand(k->rc, "FUNCTION LOAD %s", part_lua_library);
  bool ok = r && (r->type != REDIS_REPLY_ERROR || strstr(r->str, "already exists"));
  if(r && !ok)
    LOG(LOG_ERROR, "coordination redis: FUNCTION LOAD: %s (Redis 7.0 or later is needed)",
        r->str);
  if(r)
    freeReplyObject(r);
  return ok;
}

static bool connect_now(struct coord *k)
{
  if(k->rc && !k->rc->err)
    return true;
  if(k->rc)
    redisFree(k->rc);
  struct timeval tv = { k->timeout_ms / 1000, (k->timeout_ms % 1000) * 1000 };
  k->rc = redisConnectWithTimeout(k->host, k->port, tv);
  if(!k->rc || k->rc->err) {
    if(!k->warned)
      LOG(LOG_WARN, "coordination redis %s:%d: %s", k->host, k->port,
          k->rc ? k->rc->errstr : "out of memory");
    k->warned = true;
    if(k->rc)
      redisFree(k->rc);
    k->rc = NULL;
    return false;
  }
  redisSetTimeout(k->rc, tv);
  if(!load_library(k)) {
    redisFree(k->rc);
    k->rc = NULL;
    return false;
  }
  if(k->warned)
    LOG(LOG_INFO, "coordination redis %s:%d: connected again", k->host, k->port);
  k->warned = false;
  return true;
}

crawl_err coord_open(const char *url, const char *crawl, unsigned timeout_ms, struct coord **out)
{
  *out = NULL;
  if(!coord_name_ok(crawl))
    return CRAWL_ERR_INVALID;
  struct coord *k = mem_calloc(1, sizeof *k);
  if(!k)
    return CRAWL_ERR_NOMEM;
  k->timeout_ms = timeout_ms ? timeout_ms : 1000;
  snprintf(k->prefix, sizeof k->prefix, "wc:{%s}:", crawl);
  if(!parse_url(k, url)) {
    mem_free(k);
    return CRAWL_ERR_INVALID;
  }
  if(!connect_now(k)) {
    coord_close(&k);
    return CRAWL_ERR_IO;
  }
  *out = k;
  return CRAWL_OK;
}

void coord_close(struct coord **kp)
{
  struct coord *k = *kp;
  if(!k)
    return;
  if(k->rc)
    redisFree(k->rc);
  mem_free(k);
  *kp = NULL;
}

const char *coord_key(const struct coord *k, const char *what, long p, char *out, size_t n)
{
  if(p >= 0)
    snprintf(out, n, "%s%s:%ld", k->prefix, what, p);
  else
    snprintf(out, n, "%s%s", k->prefix, what);
  return out;
}

static void failed(struct coord *k, const char *what)
{
  if(!k->warned)
    LOG(LOG_WARN, "coordination redis: %s: %s", what, k->rc ? k->rc->errstr : "not connected");
  k->warned = true;
  if(k->rc) {
    redisFree(k->rc);
    k->rc = NULL;
  }
}

bool coord_append(struct coord *k, int argc, const char **argv, const size_t *lens)
{
  if(!connect_now(k))
    return false;
  k->commands++;
  if(redisAppendCommandArgv(k->rc, argc, argv, lens) != REDIS_OK) {
    failed(k, argv[0]);
    return false;
  }
  return true;
}

redisReply *coord_reply(struct coord *k)
{
  void *r = NULL;
  if(!k->rc)
    return NULL;
  if(redisGetReply(k->rc, &r) != REDIS_OK) {
    failed(k, "reading a reply");
    return NULL;
  }
  return r;
}

redisReply *coord_cmd(struct coord *k, int argc, const char **argv, const size_t *lens)
{
  return coord_append(k, argc, argv, lens) ? coord_reply(k) : NULL;
}

redisReply *coord_fcall(struct coord *k, const char *fn, int nkeys, int argc,
                        const char **argv, const size_t *lens)
{
  const char **v = mem_alloc((size_t)(argc + 3) * sizeof *v);
  size_t *l = mem_alloc((size_t)(argc + 3) * sizeof *l);
  redisReply *r = NULL;
  char nk[16];
  snprintf(nk, sizeof nk, "%d", nkeys);
  if(v && l) {
    v[0] = "FCALL";
    v[1] = fn;
    v[2] = nk;
    for(int i = 0; i < 3; i++)
      l[i] = strlen(v[i]);
    for(int i = 0; i < argc; i++) {
      v[i + 3] = argv[i];
      l[i + 3] = lens ? lens[i] : strlen(argv[i]);
    }
    r = coord_cmd(k, argc + 3, v, l);
  }
  mem_free(v);
  mem_free(l);
  return r;
}

unsigned long long coord_commands(const struct coord *k)
{
  return k->commands;
}
