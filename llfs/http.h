#ifndef WPFS_LLFS_HTTP_H
#define WPFS_LLFS_HTTP_H
/* The HTTP threads of llfs. Each has its own libuv loop, HTTP server (a
 * member of the process's group, which accepts on main's loop and hands
 * the connections out in turn) and struct llfs_svc: it reads requests,
 * decodes them, sends what needs the engine to the engine's loop as calls
 * (engine.h) and builds the answers when they come back. So the work
 * around a fetch, about as much as the fetch itself, runs beside the
 * engine instead of on its thread.
 *
 * Life: https_start runs them and waits until each has started (or
 * failed); https_drain asks each to report once nothing is pending
 * (after the engine's fetches are done, on SIGTERM); https_close stops
 * each on its own thread and joins them; https_free, once the engine is
 * closed too (calls coming back must find their mailbox), releases them. */
#include <semaphore.h>
#include <stdatomic.h>
#include <uv.h>

#include "api/srv.h"
#include "llfs/svc.h"

struct llfs_http;

struct llfs_https {
  /* given by main.c before https_start */
  struct llfs_engine   *engine;
  struct llfs_limits    lim;
  struct api_srv_cfg    srv;       /* arg is set per thread */
  struct api_srv_group *group;
  unsigned              n;
  void                (*drained)(void *arg);   /* on main's loop, once */
  void                 *drained_arg;
  /* https_start's */
  struct llfs_shared    sh;
  struct llfs_http     *t;
  sem_t                 started;
  uv_async_t            wake;      /* on main's loop: a thread drained */
  atomic_uint           ndrained;
  bool                  drained_called, closed;
};

/* 0 once all n run; otherwise those that ran are closed again and the
 * first failure is logged. On main's loop's thread, like the rest. */
int  https_start(struct llfs_https *hs, uv_loop_t *main_loop);
void https_drain(struct llfs_https *hs);
void https_close(struct llfs_https *hs);
void https_free(struct llfs_https *hs);

#endif
