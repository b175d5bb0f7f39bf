#ifndef WPFS_CLIENTS_CRAWL_INT_H
#define WPFS_CLIENTS_CRAWL_INT_H
/* Inside the crawl engine: the struct its files share. */
#include "clients/crawl/crawl.h"
#include "clients/out/crawllog.h"
#include "clients/base/fpset.h"
#include "clients/web/html_links.h"
#include "clients/crawl/seen.h"
#include "clients/out/wq.h"
#include "common/buf.h"

/* What the disk thread owns once the crawl runs (the loop touches it only
 * before the first job and after the last): the output files and where
 * the last record went, for checkpoints. */
struct crawl_out {
  struct warc     *warc;
  struct crawllog *log;
  /* The last WARC record the crawl log refers to: on resume, what follows
   * it in the files was written by a crash and is cut. */
  char             last_warc[WARC_NAME_MAX];
  uint64_t         last_warc_end;
};

struct crawl {
  struct crawl_opts  o;
  char              *dir, *warc_dir, *seen_dir, *frontier_dir, *log_path, *ckpt_path;
  struct linkfilter *lf;
  struct trap       *trap;
  struct seen       *seen;
  struct frontier   *fr;
  struct dedup      *dd;
  struct wq         *wq;         /* the disk thread */
  struct crawl_out   out;        /* its files */
  uint64_t           warc_records, warc_bytes;  /* as of the last record written */
  unsigned           warc_files;
  unsigned           ckpt_out;   /* checkpoints not yet on disk */
  struct crawl_stats st;
  /* Resume: URLs whose lines were replayed are finished even if a replayed
   * page links to them again before the next checkpoint. */
  bool               replaying;
  struct fpset       replayed;
  struct fpset       sitemaps;   /* URL fingerprints queued as sitemaps */
  crawl_err          err;        /* from seen's callback or a disk job: sticky */
  struct warc_ids    ids;        /* the WARC record ids of pages (crawl_page.c) */
  const unsigned char *replay_id;  /* a replayed page's record id (NULL: not read) */
  int                lock_fd;    /* flock on DIR/lock: one crawler per directory */
};

/* crawl.c: dir/name, on the heap (mem_free). */
char     *crawl_path(const char *dir, const char *name);

/* crawl_links.c: a link found on a page, a seed, a sitemap URL. */
enum {
  LINK_NOFOLLOW = 1,  /* rel=nofollow */
  LINK_SITEMAP = 2,   /* a sitemap: any file name (sitemap.xml.gz) */
};
/* sc: the link's score and meta (a focused crawl; NULL: none). */
crawl_err crawl_links_one(struct crawl *c, const char *url, uint32_t depth,
                          unsigned flags, unsigned level, const struct frontier_score *sc);
/* scores and follow: the scorer's, one per link (NULL without a scorer);
 * own: the page's, which its rel=canonical gets. */
void      crawl_links_page(struct crawl *c, const struct html_links *l,
                           const char *page_url, uint32_t depth,
                           const struct frontier_score *scores, const bool *follow,
                           const struct frontier_score *own);
void      crawl_links_on_new(void *arg, uint64_t fp, const void *rec, size_t len);
void      crawl_links_drop(struct crawl *c, const char *url, enum drop_reason r);
crawl_err crawl_links_ascend(struct crawl *c, const char *url, uint32_t depth);

/* crawl_page.c: one result, live or replayed; own: the link that chose it
 * (a focused crawl), or NULL. */
crawl_err crawl_page(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                     const struct frontier_score *own);
/* The scorer's view of a result without a page to read (errors, refusals,
 * replayed lines without a record); log gets its members. */
crawl_err crawl_page_scored(struct crawl *c, const char *url, const char *outcome, int status,
                            const struct frontier_score *own, struct buf *log);
/* cause: why there is no page (counted by cause), or NULL. */
void      crawl_page_count(struct crawl *c, const char *outcome, int status, const char *cause);

/* crawl_out.c: a finished URL's WARC records and crawl log line, written
 * by the disk thread; refers: the original of a revisit. */
enum crawl_out_record { CRAWL_OUT_NONE, CRAWL_OUT_RESPONSE, CRAWL_OUT_REVISIT };
crawl_err crawl_out_page(struct crawl *c, const struct crawllog_entry *le,
                         enum crawl_out_record record, const struct warc_page *wp,
                         const struct warc_refers *refers);
/* The disk thread's flush of the page jobs (wq_set_flush): arg the crawl. */
crawl_err crawl_out_flush(void *arg);

/* crawl_resume.c */
crawl_err crawl_resume(struct crawl *c);

#endif
