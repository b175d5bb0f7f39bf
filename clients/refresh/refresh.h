#ifndef WPFS_CLIENTS_REFRESH_REFRESH_H
#define WPFS_CLIENTS_REFRESH_REFRESH_H
/* The refresh loop: pages.h's plan carried out through the gateway
 * (gwclient.h) in the loop every crawler runs (clients/loop/loop.h), at
 * a fixed fetch rate.
 *  - budget: a token bucket fills at `rate` tokens a second (holding at
 *    most one second's worth); each token sends the page due first, never
 *    sooner than half its interval early, so the rate is kept while there
 *    is work and no page is fetched merely to spend it. No more than
 *    `window` requests are outstanding at the gateway, so its queue stays
 *    bounded whatever the rate.
 *  - each request asks for a copy younger than max_age_share of the
 *    page's interval: the gateway revalidates its stored copy with
 *    If-None-Match / If-Modified-Since and answers not_modified on a 304.
 *  - each result is judged (changed, unchanged, first, gone, moved,
 *    failed), archived (WARC response, or revisit: server-not-modified
 *    for a 304, identical-payload-digest for the same body), logged as a
 *    line of the change log, then acknowledged: a crash before the ack
 *    gets it again, and replaying the log on --resume rebuilds every
 *    page's history.
 *  - every plan_ms the rates are estimated again and the budget allocated
 *    again (pages.h).
 * It ends after duration_ms (0: never) with exit 0, on SIGINT/SIGTERM with
 * exit 3, when the gateway answers nothing useful for stall_ms with exit
 * 4, on a local error (disk) with exit 2; outstanding results are waited
 * for up to drain_ms first. When the duration ran out and not one visit
 * got an HTTP answer (every page refused or ended without one: the
 * summary's causes say why), the exit is 5. The summary is one JSON
 * line, with the causes of the visits that ended without a page. */
#include <stdint.h>
#include <stdio.h>

#include "clients/gwclient/gwclient.h"
#include "clients/out/crawllog.h"
#include "clients/out/warc.h"
#include "clients/refresh/pages.h"
#include "clients/refresh/rpart.h"

struct refresh_opts {
  struct gwclient_opts gw;
  double         rate;           /* fetches per second */
  enum rf_policy policy;
  uint64_t       duration_ms;
  unsigned       window;
  unsigned       results_max, wait_ms;
  uint64_t       plan_ms, stall_ms, drain_ms;
  double         max_age_share;
  unsigned       priority;
  bool           progress;
  const char    *out_dir;        /* named in the summary (its WARC files, changes.jsonl) */
  const struct tally *input_refused;  /* URLs of the input not kept, by reason (or NULL) */
  double         compact_factor; /* the log is compacted once what was added since
                                    passes this many times its compacted size
                                    (0: never) */
  struct rpart  *part;           /* a member of a crawl on several processes (rpart.h):
                                    only its partitions' pages, at its share of rate */
};

struct refresh_out {
  struct warc     *warc;
  struct crawllog *log;
  const char      *log_path;   /* to compact it */
  const char      *robots_agent;  /* <meta name=TOKEN> for this crawler (html_robots.h) */
};

enum {
  REFRESH_EXIT_DONE = 0,
  REFRESH_EXIT_LOCAL = 2,
  REFRESH_EXIT_STOPPED = 3,
  REFRESH_EXIT_STALLED = 4,
  REFRESH_EXIT_NO_PAGE = 5,  /* the duration ran out and no visit got an HTTP answer */
};

int refresh_run(struct rf_pages *ps, struct refresh_out *out, const struct refresh_opts *o,
                FILE *summary);

/* Replay the change log at path into ps (pages it names that ps lacks are
 * added: the targets of redirects). */
crawl_err refresh_replay(struct rf_pages *ps, const char *path, uint64_t *lines);

/* Compaction: the change log at path replaced by one snapshot line per
 * page, {"url":..,"state":{...}}, which replays to the same history
 * (observations, digest, Last-Modified, failures, retirement). Written to
 * path.compact, synced, renamed over path, the directory synced: a crash
 * at any point leaves either the old log or the new one whole. *bytes is
 * the size of the snapshot. The caller reopens its crawllog after. */
crawl_err refresh_compact(struct rf_pages *ps, const char *path, uint64_t *bytes);
/* Called at each step of refresh_compact when set (after each page's
 * line: its index; ~0u - 1 written; ~0u renamed): where a test kills it. */
extern void (*rf_compact_test_hook)(unsigned step);

#endif
