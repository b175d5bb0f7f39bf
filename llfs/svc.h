#ifndef WPFS_LLFS_SVC_H
#define WPFS_LLFS_SVC_H
/* The LLFS REST service: routes of openapi.yaml (tag fetcher) on top of the
 * fetch engine. main.c owns the process (config, loop, signals); this file
 * owns what a request does. */
#include <stdbool.h>

#include "api/srv.h"
#include "llfs/fetch.h"
#include "llfs/req.h"

struct llfs_svc {
  unsigned magic;
#define LLFS_SVC_MAGIC 0x7e11f5a3u
  struct fetcher    *f;
  struct llfs_limits lim;
  bool               stopping;
  unsigned long      calls_live;  /* /internal/v1/fetch answered later, not yet */
  struct buf         meta;        /* scratch for the meta line of an answer;
                                     buf_free it when the service ends */
};

extern const struct api_route llfs_routes[];
extern const size_t llfs_nroutes;

/* GET /internal/v1/resolve (llfs/svc_resolve.c). */
void llfs_resolve(struct api_req *rq, void *arg);
int  llfs_ready(void *arg, char *why, size_t whylen);
void llfs_metrics(struct buf *out, void *arg);

#endif
