#ifndef WPFS_CLIENTS_LOOP_CRAWL_LOOP_H
#define WPFS_CLIENTS_LOOP_CRAWL_LOOP_H
/* The crawl loop: the crawl engine (crawl.h) fed through the gateway
 * (gwclient.h) in the loop every crawler runs (loop.h). wpfs-discover
 * runs it, and wpfs-focus with a scorer in the engine, a small window and
 * no sitemaps.
 *
 *  - submit: while fewer than `window` URLs are outstanding at the gateway,
 *    take the next batch from the frontier (best first, fair across
 *    hosts) and POST it; one batch in flight at a time. URLs the gateway
 *    refuses for now (quotas, 429 with Retry-After, store unavailable) go
 *    back to the queue and submitting pauses as long as it asks; URLs it
 *    refuses for good are recorded as rejected.
 *  - results: one long-poll GET /v1/results always open while URLs are
 *    outstanding; each result goes to the engine, and the batch is
 *    acknowledged once the engine's disk thread has written their crawl
 *    log lines (a crash before the ack gets them again, and the engine
 *    ignores results of finished URLs).
 *  - the disk: while the engine's writes wait for the disk beyond
 *    write_soft_bytes, no batch is submitted and no result read; the loop
 *    goes on (acks, robots, progress, signals) and resumes when they are
 *    written.
 *  - sitemaps: the first result of each host triggers one GET /v1/robots
 *    for that host (robots.txt is known by then); the sitemaps it names
 *    are queued as sitemaps.
 *  - a checkpoint every checkpoint_ms, and at the end; progress on stderr
 *    when it is a terminal.
 * It ends when the engine is finished (exit 0), on SIGINT/SIGTERM after a
 * checkpoint (exit 3: --resume continues), when the gateway gave nothing
 * useful for stall_ms (exit 4), or on a local error such as a full disk
 * (exit 2); a crawl that ended but none of whose seeds was answered 2xx
 * or 3xx (each refused, or ended without a page: the log names the
 * causes) exits 5. The final summary is one JSON line on stdout. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clients/crawl/crawl.h"
#include "clients/gwclient/gwclient.h"

struct crawl_loop_opts {
  struct gwclient_opts gw;
  unsigned batch_max;     /* URLs per POST /v1/batches */
  unsigned window;        /* URLs outstanding at the gateway */
  unsigned results_max;   /* results per GET /v1/results */
  unsigned wait_ms;       /* its long-poll */
  long     max_age_s;     /* a cached copy this young is fine (-1: any) */
  uint64_t checkpoint_ms;
  uint64_t stall_ms;
  bool     sitemaps;
  bool     progress;      /* draw it if stderr is a terminal */
  size_t   write_soft_bytes;  /* disk backlog past which no more results are read */
  /* A crawl on several processes (clients/part/part.h), or NULL: its
   * tick runs in the loop's, URLs taken that are no longer this
   * process's are not submitted, and the crawl ends when the whole crawl
   * is over, not when this process has nothing left. */
  struct part *part;
  /* The summary line also written to this file (or NULL): a member's
   * run directory keeps its run's summary when its log is gone. */
  const char  *summary_path;
};
struct crawl_loop_opts crawl_loop_opts_default(void);

enum {
  CRAWL_LOOP_EXIT_DONE = 0,
  CRAWL_LOOP_EXIT_LOCAL = 2,
  CRAWL_LOOP_EXIT_STOPPED = 3,
  CRAWL_LOOP_EXIT_STALLED = 4,
  CRAWL_LOOP_EXIT_NO_SEED = 5,  /* done, but no seed got a 2xx or 3xx: nothing crawled */
};

/* Run the crawl to its end; returns the exit status. summary (may be
 * NULL) gets the final JSON line. */
int crawl_loop_run(struct crawl *c, const struct crawl_loop_opts *o, FILE *summary);

#endif
