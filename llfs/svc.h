#ifndef WPFS_LLFS_SVC_H
#define WPFS_LLFS_SVC_H
/* The LLFS REST service: routes of openapi.yaml (tag fetcher) on top of the
 * fetch engine. main.c owns the process (config, signals) and worker.c the
 * worker threads; this file owns what a request does. Each worker has its
 * own struct llfs_svc (its fetcher, its scratch buffer), used on its
 * thread only; what they share is struct llfs_shared. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "api/srv.h"
#include "llfs/fetch.h"
#include "llfs/req.h"

struct llfs_svc;

/* The process's, seen by every worker. */
struct llfs_shared {
  atomic_bool       stopping;   /* set by SIGTERM: /readyz 503, no new resolves */
  unsigned          nsvcs;
  struct llfs_svc **svcs;       /* every worker's, for /metrics */
  pthread_rwlock_t  fetchers;   /* svcs[i]->f: read by /metrics on any
                                   worker, written when a worker closes */
};

struct llfs_svc {
  unsigned magic;
#define LLFS_SVC_MAGIC 0x7e11f5a3u
  struct llfs_shared *sh;
  struct fetcher     *f;
  struct llfs_limits  lim;
  atomic_ulong        calls_live;  /* /internal/v1/fetch answered later, not
                                      yet (read by main.c's signal log) */
  struct buf          meta;        /* scratch for the meta line of an answer;
                                      buf_free it when the service ends */
};

static inline bool llfs_stopping(const struct llfs_svc *svc)
{
  return atomic_load_explicit(&svc->sh->stopping, memory_order_relaxed);
}

extern const struct api_route llfs_routes[];
extern const size_t llfs_nroutes;

/* GET /internal/v1/resolve (llfs/svc_resolve.c). */
void llfs_resolve(struct api_req *rq, void *arg);
int  llfs_ready(void *arg, char *why, size_t whylen);
void llfs_metrics(struct buf *out, void *arg);

#endif
