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

#include "clients/base/ckfile.h"
#include "clients/base/tally.h"
#include "clients/base/crawl_err.h"
#include "clients/crawl/dedup.h"
#include "clients/crawl/drop.h"
#include "clients/crawl/frontier.h"
#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "clients/crawl/linkfilter.h"
#include "clients/web/sitemap.h"
#include "clients/crawl/trap.h"
#include "clients/out/warc.h"
#include "common/buf.h"
#include "common/url.h"

/* A focused crawl (docs/focus.md): a scorer orders the frontier. With
 * one, the frontier is scored (frontier.h): each URL carries the score and
 * the scorer's meta bytes of the link that chose it until its result, and
 * the scorer sees every result, live or replayed at a resume, exactly once
 * and in crawl log order. */
struct crawl_scored {
  const char                  *url;
  const char                  *outcome;   /* the gateway's, or "rejected" */
  int                          status;
  const struct frontier_score *own;       /* the link that chose the URL */
  const char                  *text;      /* visible text of an HTML page, else NULL */
  size_t                       text_len;
  const struct html_links     *links;     /* an original page's links, their place in
                                           * links->text; else NULL */
  bool                         replaying; /* resume: nothing is written */
  /* Out, for each of links->n: its score and meta (meta valid until the
   * next call), and whether to follow it at all. */
  struct frontier_score       *scores;
  bool                        *follow;
  struct buf                  *log;       /* members for the crawl log line: ,"k":v */
  bool                         copy;      /* links of a near duplicate (links of its own,
                                           * dedup.h): not an original page */
};

struct crawl_scorer {
  void *arg;
  void      (*seed)(void *arg, const char *url, struct frontier_score *out);
  crawl_err (*page)(void *arg, struct crawl_scored *p);
  /* Resume: the link a recorded URL was chosen by, from its crawl log
   * line (which holds what page wrote); meta valid until the next call. */
  crawl_err (*recorded)(void *arg, const char *line, size_t len, struct frontier_score *own);
  void      (*save)(void *arg, struct ckfile *c);
  void      (*load)(void *arg, struct ckfile *c);
  crawl_err (*summary)(void *arg, struct buf *out);  /* members: ,"k":v */
  void      (*note)(void *arg, char *out, size_t n);  /* words for the progress line */
};

struct crawl_opts {
  const char           *out_dir;      /* created if missing */
  uint64_t              max_pages;    /* crawl log lines; 0 = no limit */
  uint32_t              max_depth;    /* link hops from a seed */
  enum linkfilter_scope scope;
  const char           *deny_ext;     /* NULL = LINKFILTER_DENY_EXT_DEFAULT */
  bool                  obey_nofollow;
  const char           *robots_agent; /* <meta name=TOKEN> for this crawler (html_links.h) */
  bool                  path_ascend;  /* also queue the directories above fetched URLs */
  struct url_opts       url;          /* canonicalization of links */
  struct html_opts      html;
  size_t                max_links;    /* per page */
  size_t                max_text;     /* visible text for SimHash */
  struct trap_opts      trap;
  struct dedup_opts     dedup;
  size_t                seen_mem;     /* URL-seen memory budget */
  unsigned              seen_max_runs;
  size_t                frontier_bytes;  /* memory; beyond, URLs wait on disk */
  uint64_t              frontier_seg_bytes; /* its segment files; 0 = 64 MiB */
  unsigned              max_per_host; /* outstanding at the gateway per host */
  uint64_t              warc_max_bytes;
  int                   warc_level;      /* compression level of the WARC records (libdeflate, 1..12) */
  size_t                write_queue_bytes; /* held for the disk thread at most */
  size_t                sitemap_max_text; /* XML bytes read of one sitemap, decompressed */
  const char           *warc_prefix;
  const char           *software;     /* warcinfo */
  const struct crawl_scorer *scorer;  /* NULL: levels from in-links (discovery) */
};
struct crawl_opts crawl_opts_default(void);

/* Counters: the interface tests assert on. */
#define CRAWL_COUNTERS(X)                                                     \
  X(seeds)          /* seeds queued */                                        \
  X(pages)          /* results recorded (crawl log lines) */                  \
  X(ok)             /* 2xx */                                                 \
  X(redirects)      /* 3xx */                                                 \
  X(http_errors)    /* 4xx and 5xx */                                         \
  X(fetch_errors)   /* no HTTP answer (timeouts, DNS, ...) */                 \
  X(robots)         /* robots_disallowed */                                   \
  X(rejected)       /* refused by the gateway for good */                     \
  X(html)           /* original HTML pages parsed for links */                \
  X(parsed)         /* HTML pages parsed (exact duplicates are not, unless scored) */ \
  X(dup_exact)                                                                \
  X(dup_near)                                                                 \
  X(dup_near_followed) /* near duplicates with links of their own: followed */ \
  X(links)          /* links extracted */                                     \
  X(links_invalid)  /* not URLs, or too long */                               \
  X(links_not_http)                                                           \
  X(links_known)    /* seen before (or already queued: one more in-link) */   \
  X(links_new)      /* queued */                                              \
  X(html_cut)       /* pages whose links were not all read (size, link cap) */ \
  X(noindex)        /* pages marked noindex (X-Robots-Tag or meta robots) */  \
  X(nofollow)       /* pages with nofollow or none (links not taken) */       \
  X(redelivered)    /* results for URLs already finished: ignored */          \
  X(requeued)                                                                 \
  X(replayed)       /* crawl log lines replayed at resume */                  \
  X(checkpoints)                                                              \
  X(body_bytes)                                                               \
  X(sitemaps)       /* sitemaps read */                                       \
  X(sitemap_urls)   /* URLs they listed */                                   \
  X(sitemap_hinted) /* ...with a lastmod, changefreq or priority */          \
  X(feeds)          /* feeds read (RSS, Atom) */                              \
  X(feed_links)     /* links they listed */                                   \
  X(feeds_broken)   /* feeds whose XML had an error (read up to it) */        \
  X(sitemaps_gzip)  /* sitemaps that were gzip data */                       \
  X(sitemaps_cut)   /* read in part: over sitemap_max_text, damaged or cut */ \
  X(ascents)        /* directories above fetched URLs offered (path_ascend) */ \
  X(records_too_large) /* pages past the WARC record's caps: a log line, no record */ \
  X(seeds_refused)  /* seeds not queued: seed_refusals says why */          \
  X(seeds_fetched)  /* seeds answered 2xx or 3xx */                        \
  X(sitemaps_unasked) /* hosts whose sitemaps were not asked or not answered */

struct crawl_stats {
#define X(name) uint64_t name;
  CRAWL_COUNTERS(X)
#undef X
  uint64_t drop[DROP__LAST];  /* by reason */
  struct tally causes;        /* URLs that ended without a page, by cause */
  struct tally seed_refusals; /* seeds not queued, by reason */
};

/* A result from the gateway. headers/body may be empty for outcomes
 * without an HTTP response. */
struct crawl_result {
  const char               *url;          /* as submitted */
  const char               *outcome;      /* "ok" when an HTTP response came */
  int                       status;
  const struct warc_header *headers;
  size_t                    nheaders;
  const void               *body;
  size_t                    body_len;
  bool                      truncated;
  const char               *redirect;     /* Location of a 3xx, absolute or not */
  uint64_t                  fetched_at_ms;
  uint64_t                  elapsed_ms;
  const char               *cause;        /* no page: why (gwproto_cause), else NULL */
  int                       cause_status; /* robots_5xx, robots_429: robots.txt's status */
  unsigned                  robots_tags;  /* ROBOTS_TAG_* of X-Robots-Tag (the gateway's) */
};

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
typedef void crawl_fence_fn(void *arg, crawl_err e);
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
/* Outcomes that carry an HTTP response: "ok", "cached", "not_modified". */
bool      crawl_outcome_http(const char *outcome);
/* Sizes of the parts, for progress and the summary. */
struct crawl_sizes {
  struct frontier_stats frontier;
  uint64_t              seen_distinct, seen_pending;
  size_t                seen_mem_bytes, seen_disk_bytes;
  unsigned              seen_runs;
  struct dedup_stats    dedup;
  uint64_t              warc_records, warc_bytes;
  unsigned              warc_files;
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
