#include "hlfs/state/redis_uv.h"

#include <stdlib.h>

struct redis_uv {
  redisAsyncContext *ac;      /* NULL once hiredis has let go of it */
  uv_poll_t          poll;
  int                events;  /* what the poll watches */
};

static void ru_on_poll(uv_poll_t *h, int status, int events)
{
  struct redis_uv *p = h->data;
  if(status != 0) {
    /* A socket error (POLLERR: the peer reset the connection, or refused
     * the connect) comes as UV_EBADF with no events, and libuv has stopped
     * the poll. hiredis learns of it only by reading or writing, so do
     * what was watched: it then finds the error and disconnects. Dropped,
     * the store counted as up until a command's deadline (10 s). */
    events = p->events;
    p->events = 0;  /* the next request restarts the poll */
  }
  if(p->ac && (events & UV_READABLE))
    redisAsyncHandleRead(p->ac);
  if(p->ac && (events & UV_WRITABLE))
    redisAsyncHandleWrite(p->ac);
}

static void ru_set(struct redis_uv *p, int events)
{
  if(events == p->events)
    return;
  p->events = events;
  if(events)
    uv_poll_start(&p->poll, events, ru_on_poll);
  else
    uv_poll_stop(&p->poll);
}

static void ru_add_read(void *arg)
{
  struct redis_uv *p = arg;
  ru_set(p, p->events | UV_READABLE);
}

static void ru_del_read(void *arg)
{
  struct redis_uv *p = arg;
  ru_set(p, p->events & ~UV_READABLE);
}

static void ru_add_write(void *arg)
{
  struct redis_uv *p = arg;
  ru_set(p, p->events | UV_WRITABLE);
}

static void ru_del_write(void *arg)
{
  struct redis_uv *p = arg;
  ru_set(p, p->events & ~UV_WRITABLE);
}

static void ru_on_closed(uv_handle_t *h)
{
  free(h->data);
}

static void ru_cleanup(void *arg)
{
  struct redis_uv *p = arg;
  p->ac = NULL;
  uv_close((uv_handle_t *)&p->poll, ru_on_closed);
}

int redis_uv_attach(redisAsyncContext *ac, uv_loop_t *loop)
{
  if(ac->ev.data)
    return REDIS_ERR;
  struct redis_uv *p = calloc(1, sizeof *p);
  if(!p)
    return REDIS_ERR;
  if(uv_poll_init(loop, &p->poll, ac->c.fd) != 0) {
    free(p);
    return REDIS_ERR;
  }
  p->poll.data = p;
  p->ac = ac;
  ac->ev.addRead = ru_add_read;
  ac->ev.delRead = ru_del_read;
  ac->ev.addWrite = ru_add_write;
  ac->ev.delWrite = ru_del_write;
  ac->ev.cleanup = ru_cleanup;
  ac->ev.data = p;
  return REDIS_OK;
}
