#ifndef WPFS_HLFS_TENANT_H
#define WPFS_HLFS_TENANT_H
/* Per-client (tenant) counters for /metrics: URLs submitted by answer and
 * results delivered by outcome. Clients are few and known (API keys plus
 * the synchronous pseudo-clients), so a small table is enough; outcomes map
 * onto a fixed list so that label values stay bounded. */
#include <stdint.h>

#include "common/buf.h"
#include "hlfs/state/state.h"
#include "llfs/outcome.h"

#define TENANT_MAX 1100

/* Outcomes a result can have: the fetcher's (its table, llfs/outcome.h,
 * is the one list: a name added there is counted here), then the
 * gateway's own decisions, then everything else. */
#define TENANT_GW_OUTCOMES(X)                                                   \
  X(cached) X(not_modified) X(robots_disallowed) X(robots_unavailable)          \
  X(fetcher_unavailable) X(page_store_error) X(abandoned) X(redirect_loop)      \
  X(too_many_redirects)

enum tenant_outcome {
#define X(e, name, err, contact, txt) TENANT_O_##name,
  OUTCOMES(X)
#undef X
#define X(n) TENANT_O_##n,
  TENANT_GW_OUTCOMES(X)
#undef X
  TENANT_O_other,
  TENANT_O__COUNT
};

struct tenant {
  char name[STATE_CLIENT_MAX + 1];
  uint64_t reclaim_at;  /* monotonic ms: this replica's next look for results
                           to take over (gw_results.c) */
  uint64_t submitted[STATE_SUB__LAST];
  uint64_t results[TENANT_O__COUNT];
};

struct tenants {
  struct tenant t[TENANT_MAX];
  unsigned n;
  uint64_t dropped;  /* counts for clients past TENANT_MAX */
};

/* The tenant of name, added on first sight; NULL when the table is full. */
struct tenant *tenant_get(struct tenants *ts, const char *name);
void tenant_result(struct tenants *ts, const char *client, const char *outcome);
void tenant_submitted(struct tenants *ts, const char *client, enum state_sub_code c);
void tenant_metrics(const struct tenants *ts, struct buf *b);

#endif
