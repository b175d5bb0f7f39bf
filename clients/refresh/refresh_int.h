#ifndef WPFS_CLIENTS_REFRESH_REFRESH_INT_H
#define WPFS_CLIENTS_REFRESH_REFRESH_INT_H
/* Between refresh.c (the loop) and refresh_rec.c (what a result means,
 * and how it is written down and read back). */
#include <jansson.h>

#include "clients/gwclient/gwproto.h"
#include "clients/refresh/refresh.h"

/* What a result says of its page. */
struct rf_judged {
  enum rf_seen seen;
  uint64_t     at_ms;         /* the copy's fetch time, or now */
  uint64_t     digest;        /* of the body, 0 when none */
  uint64_t     lm_ms;         /* its Last-Modified, 0 when none */
  bool         not_modified;  /* the site answered 304 */
  bool         news;          /* a copy newer than the last one seen */
};

void rf_judge(const struct rf_page *p, const struct gw_result *g, uint64_t now_ms,
              struct rf_judged *j);

/* Archive (when the copy is news) and log one judged result of p, whose
 * history already includes it; prev_ms is when the copy before it was
 * fetched. */
crawl_err rf_record(struct refresh_out *out, const struct rf_page *p, const struct gw_result *g,
                    const struct rf_judged *j, uint64_t prev_ms, uint64_t now_ms);
/* The Last-Modified among a result's headers, in ms (0: none, or not a
 * date). */
uint64_t rf_last_modified(const struct gw_result *g);
/* A page's snapshot line, {"url":..,"state":{...}} (compact.c; NULL: no
 * memory): what refresh_restore reads back. */
json_t   *rf_page_state(const struct rf_page *p);
/* A page's state from a snapshot line of a compacted log (compact.c). */
crawl_err refresh_restore(struct rf_pages *ps, struct rf_page *p, json_t *state);

/* A URL the gateway refused for good (reason): logged as failed. */
crawl_err rf_record_refused(struct refresh_out *out, const struct rf_page *p,
                            const char *reason, uint64_t now_ms);

#endif
