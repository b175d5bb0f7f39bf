#ifndef WPFS_CLIENTS_REFRESH_RPART_H
#define WPFS_CLIENTS_REFRESH_RPART_H
/* A refresh crawl on several processes (docs/refresh.md, "A refresh crawl
 * on several processes"): every member reads the same URL list, and keeps
 * fresh only the pages of the partitions it holds (hash(host) mod N,
 * partmap.h), with the membership, leases, fencing and rebalancing of a
 * discovery crawl (clients/part/lua/: rebalance, release, snap). There are
 * no links to route, so no streams. The pages of partitions held
 * elsewhere are parked (rf_page.parked).
 *  - a partition taken is loaded from its snapshot in Redis (the page
 *    state rf_page_state writes: estimates, last visit, validators) when
 *    the snapshot saw at least as many visits of a page as this member
 *    did, and its pages are visited from then on;
 *  - every snap_ms each held partition's snapshot is written, fenced by
 *    its epoch (a refused one: the partition is lost, its pages parked);
 *  - a member above its share parks the partitions it hands over, waits
 *    for their outstanding visits, snapshots and releases them.
 * The member's share of the crawl's fetch rate is its pages' share of all
 * pages (rpart_share), recomputed when its partitions change. */
#include <stdbool.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"
#include "clients/refresh/pages.h"

struct rpart_opts {
  const char *crawl, *redis_url, *member;
  unsigned    partitions;
  uint64_t    lease_ms, snap_ms;
  unsigned    timeout_ms;
};

struct rpart_stats {
  uint64_t claimed, claimed_lapsed, released, lost, fenced, snapshots, restored, redis_errors;
  unsigned live, share, held;
};

struct rpart;

/* Joins crawl o->crawl (its N fixed by its first member: another is
 * refused, CRAWL_ERR_INVALID) and parks every page of ps. */
crawl_err rpart_open(const struct rpart_opts *o, struct rf_pages *ps, struct rpart **out);
/* With give_back, every held partition is snapshotted and released. */
void      rpart_close(struct rpart **rp, bool give_back);
/* Each tick: true when the partitions held changed (plan again, with
 * the budget rpart_share says). */
bool      rpart_tick(struct rpart *rp, uint64_t now_mono_ms);
/* Pages of the partitions held (not handed over) over all pages. */
double    rpart_share(struct rpart *rp);
void      rpart_stats(const struct rpart *rp, struct rpart_stats *st);

#endif
