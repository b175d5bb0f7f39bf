#ifndef WPFS_HLFS_TENANT_H
#define WPFS_HLFS_TENANT_H
/* Per-client (tenant) counters for /metrics: URLs submitted by answer and
 * results delivered by outcome. Clients are few and known (API keys plus
 * the synchronous pseudo-clients), so a small table is enough; outcomes map
 * onto a fixed list so that label values stay bounded. */
#include <stdint.h>

#include "common/buf.h"
#include "hlfs/state.h"

#define TENANT_MAX 1100

#define TENANT_OUTCOMES(X)                                                     \
  X(ok) X(cached) X(not_modified) X(robots_disallowed) X(robots_unavailable)   \
  X(blocked_address) X(dns_nxdomain) X(dns_servfail) X(dns_timeout)            \
  X(dns_error) X(connect_refused) X(connect_timeout) X(connect_error)          \
  X(tls_error) X(timeout) X(too_large) X(protocol_error) X(reset)              \
  X(fetcher_unavailable) X(page_store_error) X(abandoned) X(other)

enum tenant_outcome {
#define X(n) TENANT_O_##n,
  TENANT_OUTCOMES(X)
#undef X
  TENANT_O__COUNT
};

struct tenant {
  char name[STATE_CLIENT_MAX + 1];
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
