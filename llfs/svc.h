#ifndef WPFS_LLFS_SVC_H
#define WPFS_LLFS_SVC_H
/* The LLFS REST service: routes of openapi.yaml (tag fetcher) on top of the
 * fetch engine. main.c owns the process (config, signals, the engine on
 * its loop), http.c the HTTP threads; this file owns what a request does.
 * Every HTTP thread has its own struct llfs_svc, used on that thread only;
 * what needs the engine goes there as a call (engine.h) and its answer is
 * built back on the HTTP thread. */
#include <stdatomic.h>
#include <stdbool.h>

#include "api/srv.h"
#include "llfs/engine.h"
#include "llfs/req.h"

/* The process's, seen by every HTTP thread. */
struct llfs_shared {
  atomic_bool stopping;   /* set on SIGTERM: /readyz 503, no new resolves */
  unsigned    nthreads;   /* HTTP threads, for /metrics */
};

struct llfs_svc {
  unsigned magic;
#define LLFS_SVC_MAGIC 0x7e11f5a3u
  struct llfs_shared *sh;
  struct llfs_engine *engine;
  const struct guard *guard;      /* the engine's; read-only, so any thread may */
  struct llfs_limits  lim;
  struct mbox         home;       /* calls coming back from the engine */
  unsigned long       calls_live; /* calls sent to the engine, not yet answered */
  struct buf          meta;       /* scratch for the meta line of an answer;
                                     buf_free it when the service ends */
};

static inline bool llfs_stopping(const struct llfs_svc *svc)
{
  return atomic_load_explicit(&svc->sh->stopping, memory_order_relaxed);
}

/* The home mailbox's callback: the answers of finished calls. */
void llfs_home_ready(struct mbox *mb);

extern const struct api_route llfs_routes[];
extern const size_t llfs_nroutes;

/* GET /internal/v1/resolve (llfs/svc_resolve.c). */
void llfs_resolve(struct api_req *rq, void *arg);
int  llfs_ready(void *arg, char *why, size_t whylen);
/* /metrics: the engine's counters are read on its loop (svc_metrics.c). */
void llfs_metrics(struct api_req *rq, void *arg);

#endif
