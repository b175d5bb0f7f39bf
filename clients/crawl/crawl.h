#ifndef WPFS_CLIENTS_CRAWL_H
#define WPFS_CLIENTS_CRAWL_H
/* The discovery crawler's engine, without any I/O to the gateway: the
 * caller's loop is
 *
 *   crawl_open(opts, resume) ; crawl_add_seed(...) ...
 *   while(!crawl_finished(c)) {
 *     n = crawl_take(c, N, items)        -> submit items to the gateway
 *     for each answer that refused one    -> crawl_requeue / crawl_reject
 *     for each result read back           -> crawl_result(c, &r)
 *     every so often                      -> crawl_checkpoint(c)
 *   }
 *
 * crawl_result records the page (WARC record, crawl log line), runs the
 * content-seen test, and for an original HTML page extracts its links,
 * filters them (scope, file type, depth, nofollow), applies the trap
 * defences, runs the URL-seen test and queues the new ones in the
 * frontier. Everything lives in opts.out_dir (docs/crawler.md, "Files"):
 * WARC files, crawl.jsonl, the checkpoint and the seen set's runs.
 *
 * Files are written by a disk thread (wq.h), in order, so the caller's
 * loop never waits on the disk: crawl_fd turns readable when written jobs
 * can be reaped (crawl_poll); crawl_backlog says how far behind the disk
 * is, for the caller to slow down (past write_queue_bytes the engine
 * itself waits). A URL is finished once its line is on disk: crawl_fence
 * tells when everything handed over so far is (the caller acknowledges
 * results to the gateway then).
 *
 * Resume (after a crash, even SIGKILL): the last checkpoint is loaded, then
 * every crawl log line written after it is replayed: the URL is finished
 * (never submitted again), and its page is read back from the WARC file
 * and processed again without writing anything, so the links it gave are
 * queued again. Nothing finished is fetched twice. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/crawl/crawl_types.h"
#include "common/buf.h"

struct crawl_opts crawl_opts_default(void);

struct crawl;

crawl_err crawl_open(const struct crawl_opts *o, bool resume, struct crawl **out);
/* Frees everything; writes no checkpoint (call crawl_checkpoint first). */
void      crawl_close(struct crawl **cp);
/* CRAWL_ERR_INVALID when url is not an http(s) URL. A seed already seen
 * (resume) is skipped. */
crawl_err crawl_add_seed(struct crawl *c, const char *url);
/* The same, saying what became of it: *refused is NULL when it was
 * queued, else why not, a stable word counted in seed_refusals:
 * "malformed" (not an http(s) URL), "duplicate" (already queued or
 * crawled), or a drop reason ("extension", "path_depth", ...). Only local
 * errors are returned. */
crawl_err crawl_seed(struct crawl *c, const char *url, const char **refused);
/* A URL learned elsewhere: a link of depth, level. */
crawl_err crawl_add_url(struct crawl *c, const char *url, uint32_t depth, unsigned level);
/* A sitemap (named by robots.txt, or by a sitemap index): queued like a
 * link (same filters and seen test); its result is read for <loc>s rather
 * than parsed as a page. */
crawl_err crawl_add_sitemap(struct crawl *c, const char *url);
/* The sitemaps of url's host will not be read (why: the gateway did not
 * answer the question, or too many hosts wait to be asked): counted and
 * said, not lost in silence. */
void      crawl_sitemaps_unasked(struct crawl *c, const char *url, const char *why);
/* A crawl on several processes: where URLs belong (crawl_types.h); set
 * before the first seed. */
void      crawl_set_route(struct crawl *c, const struct crawl_route *r);
/* An outstanding URL another process crawls now: out of the frontier,
 * with no crawl log line. */
crawl_err crawl_forget(struct crawl *c, const char *url);
/* A URL handed over with its partition: queued as it is, without the
 * URL-seen test (it was passed by the former owner); one already in the
 * frontier stays as it is. */
crawl_err crawl_inherit(struct crawl *c, const char *url, uint32_t depth, unsigned level);
/* Up to max URLs to submit now; each item (its url too) stays valid until
 * crawl_result, crawl_reject or crawl_requeue returns for it. */
size_t    crawl_take(struct crawl *c, size_t max, struct frontier_item *out);
crawl_err crawl_result(struct crawl *c, const struct crawl_result *r);
/* The gateway did not take url now (429, retry later): back in the queue. */
crawl_err crawl_requeue(struct crawl *c, const char *url);
/* The gateway refused url for good: recorded with outcome "rejected". */
crawl_err crawl_reject(struct crawl *c, const char *url, const char *reason);
/* Takes a snapshot now (a copy in memory); the disk thread writes it. */
crawl_err crawl_checkpoint(struct crawl *c);
/* Checkpoints taken and not yet on disk. */
unsigned  crawl_checkpoints_out(const struct crawl *c);

/* The disk thread. fn(arg, e) runs at a crawl_poll once everything handed
 * over before the call is written (e: the write error, if any). */
crawl_err crawl_fence(struct crawl *c, crawl_fence_fn *fn, void *arg);
/* Writes handed over between crawl_hold and crawl_release (they nest)
 * wake the disk thread once, at the release (wq_hold). */
void      crawl_hold(struct crawl *c);
void      crawl_release(struct crawl *c);
/* Run what finished writes have to do (answers of the seen set, fences);
 * never waits. */
size_t    crawl_poll(struct crawl *c);
/* Wait until a write finishes, then poll; false when none is under way. */
bool      crawl_wait(struct crawl *c);
/* Wait until everything handed over is written. */
void      crawl_sync(struct crawl *c);
/* Readable when crawl_poll has something to do. */
int       crawl_fd(const struct crawl *c);
/* Bytes handed to the disk thread and not yet written. */
size_t    crawl_backlog(struct crawl *c);
/* Nothing queued, outstanding or pending; or max_pages recorded. When it
 * says so, everything is written. */
bool      crawl_finished(struct crawl *c);
void      crawl_stats(const struct crawl *c, struct crawl_stats *st);
/* The first local error that stopped the engine (disk, memory), or 0. */
crawl_err crawl_error(const struct crawl *c);
/* A heap copy (mem_free) of the URL with fingerprint fp in the frontier,
 * or NULL. */
char     *crawl_url_of(struct crawl *c, uint64_t fp);
/* Sizes of the parts, for progress and the summary. */
struct crawl_sizes {
  struct frontier_stats frontier;
  uint64_t              seen_distinct, seen_pending;
  size_t                seen_mem_bytes, seen_disk_bytes;
  unsigned              seen_runs;
  struct dedup_stats    dedup;
  uint64_t              warc_records, warc_bytes;
  unsigned              warc_files;
  size_t                robots_waiting;  /* URLs waiting for robots.txt (outstanding) */
};
void      crawl_sizes(const struct crawl *c, struct crawl_sizes *s);
/* One JSON object (no newline) with every counter and size. */
crawl_err crawl_summary(const struct crawl *c, struct buf *out);
/* One line for a person at the end: records written, the WARC files'
 * folder, the crawl log, and the URLs without a page by cause. */
void crawl_where(const struct crawl *c, char *out, size_t n);
/* The scorer's words for the progress line ("" without one). */
void      crawl_note(const struct crawl *c, char *out, size_t n);

#endif
