/* Redis Sentinel discovery: one short connection per question, to each
 * sentinel in turn from the one after the last that answered, until one
 * names the master. A sentinel that is down or slow costs timeout_ms. */
#include "hlfs/state/sentinel.h"

#include <assert.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"
#include "hlfs/state/redis_uv.h"

#define SENTINEL_MAGIC 0x5e471e11u
#define SENTINEL_MAX   16

struct sentinel_addr { char host[256]; int port; };

struct sentinel {
  unsigned             magic;
  uv_loop_t           *loop;
  struct sentinel_addr a[SENTINEL_MAX];
  unsigned             n, next, tried;
  char                *master;
  uint32_t             timeout_ms;
  redisAsyncContext   *ac;      /* the question under way */
  uv_timer_t           t;
  bool                 asking, freed;
  sentinel_cb         *cb;
  void                *arg;
};

static void q_try(struct sentinel *q);

static int parse_addrs(struct sentinel *q, const char *addrs)
{
  for(const char *p = addrs; p && *p && q->n < SENTINEL_MAX;) {
    size_t len = strcspn(p, ",");
    const char *colon = memchr(p, ':', len);
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    size_t hl = colon ? (size_t)(colon - p) : 0;
    if(!colon || end != p + len || port < 1 || port > 65535 || !hl || hl >= sizeof q->a[0].host)
      return -1;
    memcpy(q->a[q->n].host, p, hl);
    q->a[q->n].host[hl] = '\0';
    q->a[q->n++].port = (int)port;
    p += len + (p[len] == ',');
  }
  return q->n ? 0 : -1;
}

struct sentinel *sentinel_new(uv_loop_t *loop, const char *addrs, const char *master,
                              uint32_t timeout_ms)
{
  struct sentinel *q = xalloc(sizeof *q);
  q->magic = SENTINEL_MAGIC;
  q->loop = loop;
  q->timeout_ms = timeout_ms ? timeout_ms : 1000;
  if(parse_addrs(q, addrs) || !master || !*master) {
    free(q);
    return NULL;
  }
  q->master = xstrdup(master);
  uv_timer_init(loop, &q->t);
  q->t.data = q;
  return q;
}

/* The question is over: hand the answer on (not when freed). */
static void q_done(struct sentinel *q, const char *host, int port)
{
  q->asking = false;
  uv_timer_stop(&q->t);
  if(!q->freed)
    q->cb(q->arg, host, port);
}

/* This sentinel did not say: the next one, or "nobody knows". */
static void q_next(struct sentinel *q)
{
  if(++q->tried >= q->n) {
    LOG(LOG_WARN, "redis sentinel: no sentinel named master \"%s\"", q->master);
    q_done(q, NULL, 0);
    return;
  }
  q->next = (q->next + 1) % q->n;
  q_try(q);
}

static void q_on_reply(redisAsyncContext *ac, void *r, void *priv)
{
  struct sentinel *q = priv;
  assert(q->magic == SENTINEL_MAGIC);
  const redisReply *rep = r;
  if(q->ac != ac)
    return;  /* freed by a timeout: it already moved on */
  q->ac = NULL;
  redisAsyncDisconnect(ac);  /* after this callback: one connection per question */
  if(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
     rep->element[0]->type == REDIS_REPLY_STRING && rep->element[1]->type == REDIS_REPLY_STRING) {
    long port = strtol(rep->element[1]->str, NULL, 10);
    if(port > 0 && port < 65536 && rep->element[0]->len < 256) {
      char host[256];
      memcpy(host, rep->element[0]->str, rep->element[0]->len + 1);
      q_done(q, host, (int)port);
      return;
    }
  }
  q_next(q);
}

static void q_on_timeout(uv_timer_t *t)
{
  struct sentinel *q = t->data;
  redisAsyncContext *ac = q->ac;
  q->ac = NULL;
  if(ac)
    redisAsyncFree(ac);  /* its reply callback sees q->ac != ac and returns */
  LOG(LOG_WARN, "redis sentinel %s:%d: no answer within %u ms", q->a[q->next].host,
      q->a[q->next].port, q->timeout_ms);
  q_next(q);
}

static void q_on_connect(const redisAsyncContext *ac, int status)
{
  struct sentinel *q = ac->data;
  if(status == REDIS_OK || q->ac != ac)
    return;
  q->ac = NULL;  /* hiredis frees it after this callback */
  LOG(LOG_WARN, "redis sentinel %s:%d: %s", q->a[q->next].host, q->a[q->next].port, ac->errstr);
  q_next(q);
}

static void q_try(struct sentinel *q)
{
  const struct sentinel_addr *a = &q->a[q->next];
  redisAsyncContext *ac = redisAsyncConnect(a->host, a->port);
  if(!ac || ac->err || redis_uv_attach(ac, q->loop) != REDIS_OK) {
    if(ac)
      redisAsyncFree(ac);
    q_next(q);
    return;
  }
  ac->data = q;
  redisAsyncSetConnectCallback(ac, q_on_connect);
  q->ac = ac;
  uv_timer_start(&q->t, q_on_timeout, q->timeout_ms, 0);
  if(redisAsyncCommand(ac, q_on_reply, q, "SENTINEL get-master-addr-by-name %s", q->master)
     != REDIS_OK) {
    uv_timer_stop(&q->t);
    q->ac = NULL;
    redisAsyncFree(ac);
    q_next(q);
  }
}

int sentinel_ask(struct sentinel *q, sentinel_cb *cb, void *arg)
{
  assert(q && q->magic == SENTINEL_MAGIC);
  if(q->asking || q->freed)
    return -1;
  q->asking = true;
  q->cb = cb;
  q->arg = arg;
  q->tried = 0;
  q_try(q);
  return 0;
}

static void q_closed(uv_handle_t *h)
{
  struct sentinel *q = h->data;
  q->magic = 0;
  free(q->master);
  free(q);
}

void sentinel_free(struct sentinel **qp)
{
  struct sentinel *q = *qp;
  if(!q)
    return;
  *qp = NULL;
  q->freed = true;
  redisAsyncContext *ac = q->ac;
  q->ac = NULL;
  if(ac)
    redisAsyncFree(ac);
  uv_close((uv_handle_t *)&q->t, q_closed);
}
