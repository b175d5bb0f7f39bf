#ifndef WPFS_TESTWEB_TW_CHURN_H
#define WPFS_TESTWEB_TW_CHURN_H
/* A changing web (docs/testweb.md): pages /_b/churn/<j> whose content
 * changes as Poisson processes of known rates, spread over the world's
 * sites, with ETag and Last-Modified (the time of the last change) and
 * 304 to conditional requests; some never change, some go 404/410 at a
 * set time. Every fetch is recorded with the version it served, so the
 * time-averaged freshness of whoever fetches the pages is measured from
 * the server's side: page j is fresh at time t when the version its last
 * fetch got is still the live one (before any fetch it is stale).
 *
 * Control endpoint:
 *   POST /churn?pages=N&seed=S&static=0.1&gone=0.05&min_s=2&max_s=600&gone_s=120&cluster=0&history=0
 *        a new world (the clock starts now); mean change intervals are
 *        log-uniform in [min_s, max_s]; with cluster=c in (0, 1], each
 *        site's pages fall in a band c of that log range wide, placed
 *        uniformly per site (pages of one site change alike); with
 *        history=1 each page's first Last-Modified lies in the past as
 *        its process would have left it (else every page is new at the
 *        start), the changes after the start being the same
 *   GET  /churn/urls    "URL<TAB>mean_s<TAB>gone_s" per page (0: never)
 *   GET  /churn/fresh   freshness so far, per page and overall (JSON)
 *   GET  /churn/changes?to_s=T  the change times so far (to T), per page
 *        "j<TAB>born t1 t2 ..." in ms after the start, born the first
 *        version's last change (0 without a history); capped (413) */
#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"

struct tw_world;
struct tw_route;
struct tw_churn;

void tw_churn_free(struct tw_churn **cp);
/* The kind handler of /_b/churn/<j>. */
void tw_churn_serve(struct tw_route *r, long j);
/* Answer a control request under /churn; false when path is not one. */
bool tw_churn_ctl(struct tw_world *w, bool post, const char *path, const char *query,
                  struct buf *out, int *status, const char **ctype);

#endif
