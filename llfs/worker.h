#ifndef WPFS_LLFS_WORKER_H
#define WPFS_LLFS_WORKER_H
/* The worker threads of llfs. Each has its own libuv loop, fetcher (with
 * its own libcurl multi handle, connections and easy handles), service
 * and HTTP server, so a request is read and answered on one thread (its
 * fetch runs on the worker of its host: fetch_shared_affinity), with no
 * lock on its path but those of what is shared: the DNS cache, the hosts
 * table (TLS sessions), the mailboxes and the admission limits (struct
 * fetch_shared), the listening socket (struct
 * api_srv_group, whose loop is main's and which gives each connection to
 * the worker with the fewest), the stop flag and the counters read by
 * /metrics (struct llfs_shared).
 *
 * Life: workers_start runs them and waits until each has started (or
 * failed); workers_stop asks each for the graceful stop (the fetcher's
 * shutdown with the grace, then its answers drained); once all have
 * drained (main's done callback), workers_close closes each on its own
 * thread and joins them. */
#include <semaphore.h>
#include <stdatomic.h>
#include <uv.h>

#include "api/srv.h"
#include "llfs/svc.h"

struct llfs_worker;

struct llfs_workers {
  /* given by main.c before workers_start */
  const struct fetch_cfg *fetch;
  struct llfs_limits      lim;
  struct api_srv_cfg      srv;       /* arg is set per worker */
  long                    grace_ms;
  struct fetch_shared    *fsh;
  struct api_srv_group   *group;
  unsigned                n;
  void                  (*drained)(void *arg);   /* on main's loop, once */
  void                   *drained_arg;
  /* workers_start's */
  struct llfs_shared      sh;
  struct llfs_worker     *w;
  sem_t                   started;
  uv_async_t              wake;      /* on main's loop: a worker drained */
  atomic_uint             ndrained;
  bool                    drained_called;
};

/* 0 once all n run; otherwise each one that ran is closed again and the
 * reason (the first failure) is logged. On main's loop's thread. */
int  workers_start(struct llfs_workers *ws, uv_loop_t *main_loop);
void workers_stop(struct llfs_workers *ws);
/* Fetch calls answered later and not yet, over all workers. */
unsigned long workers_calls_live(const struct llfs_workers *ws);
/* Close every worker, join the threads, release workers_start's. */
void workers_close(struct llfs_workers *ws);

#endif
