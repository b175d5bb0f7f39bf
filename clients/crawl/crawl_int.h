#ifndef WPFS_CLIENTS_CRAWL_INT_H
#define WPFS_CLIENTS_CRAWL_INT_H
/* Inside the crawl engine: the struct its files share. */
#include "clients/crawl/crawl_types.h"
#include "clients/out/crawllog.h"
#include "clients/base/fpset.h"
#include "clients/crawl/hostconns.h"
#include "clients/web/html_links.h"
#include "clients/crawl/robots_wait.h"
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
  struct rwait      *rw;         /* URLs waiting for their host's robots.txt */
  struct hostconns   conns;      /* connections the gateway opened per host */
  crawl_err          err;        /* from seen's callback or a disk job: sticky */
  struct warc_ids    ids;        /* the WARC record ids of pages (crawl_page.c) */
  const unsigned char *replay_id;  /* a replayed page's record id (NULL: not read) */
  int                lock_fd;    /* flock on DIR/lock: one crawler per directory */
};

/* ---- What a result found, and the one place that queues it -------------
 *
 * Reading a page (crawl_page.c) and its links (crawl_links.c) change no
 * queue: they return the URLs they found, in the page's order, and
 * crawl_admit (crawl_admit.c) takes each through the filters, the trap
 * defences and the URL-seen test into the frontier. A list with a flush
 * hands its first FOUND_CHUNK URLs over whenever it is full, so a sitemap
 * of a million <loc>s holds no more than that at once. */
#define FOUND_CHUNK 1024
enum found_kind {
  FOUND_LINK,     /* a canonical URL */
  FOUND_URL,      /* canonicalized first; a URL that is none counts links_invalid */
  FOUND_SITEMAP,  /* the same, then queued as a sitemap (crawl_admit_sitemap) */
  FOUND_DROP,     /* not followed (drop says why): counted and said */
};
enum {
  LINK_NOFOLLOW = 1,  /* rel=nofollow */
  LINK_SITEMAP = 2,   /* a sitemap: any file name (sitemap.xml.gz) */
};
struct found_url {
  const char                  *url;
  char                        *own;    /* the heap copy url is, or NULL (borrowed: the
                                        * page's, alive until it is freed) */
  const struct frontier_score *sc;     /* a focused crawl: its score and meta; NULL: none */
  uint32_t                     depth;
  unsigned char                kind, flags, level, drop;
};
struct crawl_found;
typedef crawl_err crawl_found_fn(struct crawl *c, const struct crawl_found *f);
struct crawl_found {
  struct found_url *v;
  size_t            n, cap;
  crawl_found_fn   *flush;  /* takes the URLs when the list is full, or NULL */
  struct crawl     *c;
};
/* Appends u (taking u->own), first flushing a full list; an error (of
 * memory, or the flush's) frees u->own. */
crawl_err crawl_found_add(struct crawl_found *f, const struct found_url *u);
void      crawl_found_free(struct crawl_found *f);

/* crawl_links.c: what a page's links give (scores and follow: the
 * scorer's, one per link, or NULL; own: the page's, which its
 * rel=canonical gets), and the directories above a fetched URL
 * (path_ascend). */
crawl_err crawl_links_page(struct crawl *c, const struct html_links *l, const char *page_url,
                           uint32_t depth, const struct frontier_score *scores,
                           const bool *follow, const struct frontier_score *own,
                           struct crawl_found *f);
crawl_err crawl_links_ascend(struct crawl *c, const char *url, uint32_t depth,
                             struct crawl_found *f);

/* crawl_admit.c: every URL found, into the frontier or dropped; the
 * first local error is also kept in c->err. */
crawl_err crawl_admit(struct crawl *c, const struct crawl_found *f);
/* One canonical URL (seeds: the caller reads the counters it moved); a
 * sitemap. */
crawl_err crawl_admit_sitemap(struct crawl *c, const char *url);
crawl_err crawl_admit_one(struct crawl *c, const char *url, uint32_t depth, unsigned flags,
                          unsigned level, const struct frontier_score *sc);
/* seen_new_fn: a URL waiting for the seen set's runs turned out new. */
void      crawl_admit_on_new(void *arg, uint64_t fp, const void *rec, size_t len);

/* The WARC record a finished URL gets (crawl_out.c); refers: the
 * original of a revisit. */
enum crawl_out_record { CRAWL_OUT_NONE, CRAWL_OUT_RESPONSE, CRAWL_OUT_REVISIT };

/* crawl_page.c: reading one result, live or replayed; own: the link that
 * chose it (a focused crawl), or NULL. What it found goes to crawl_admit,
 * what it is to crawl_page_write. */
struct crawl_page {
  bool                  sitemap;
  bool                  feed;
  struct dedup_hit      hit;
  enum crawl_out_record record;     /* what goes into the WARC file */
  char                 *redirect;   /* canonical target of a 3xx */
  /* A focused crawl: the link that chose the page, whether the scorer saw
   * it yet, its members for the log line, and its scores of the links. */
  const struct frontier_score *own;
  bool                  scored;
  struct buf            extra;
  struct frontier_score *scores;
  bool                 *follow;
  /* The page's WARC record: its id and date (what the content-seen index
   * keeps of an original, for revisits of it) and its outlinks, for the
   * metadata record. */
  struct dedup_rec      rec;
  char                  id[WARC_ID_LEN];
  struct html_links     links;
  unsigned              robots;     /* ROBOTS_TAG_*: X-Robots-Tag and meta robots */
  struct crawl_found    found;
};
/* flush: takes what was found whenever the list is full (crawl_admit). */
crawl_err crawl_page_read(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                          const struct frontier_score *own, crawl_found_fn *flush,
                          struct crawl_page *pg);
/* Its WARC records and crawl log line; links: the URLs it queued. */
crawl_err crawl_page_write(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                           const struct crawl_page *pg, uint64_t links);
void      crawl_page_free(struct crawl_page *pg);
/* The scorer's view of a result without a page to read (errors, refusals,
 * replayed lines without a record); log gets its members. */
crawl_err crawl_page_scored(struct crawl *c, const char *url, const char *outcome, int status,
                            const struct frontier_score *own, struct buf *log);
/* cause: why there is no page (counted by cause), or NULL. */
void      crawl_page_count(struct crawl *c, const char *outcome, int status, const char *cause);

/* crawl_visit.c: one result, live or replayed: read, what it found
 * queued, then (live) written. */
crawl_err crawl_visit(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                      const struct frontier_score *own);

/* crawl_out.c: a finished URL's WARC records and crawl log line, written
 * by the disk thread. */
crawl_err crawl_out_page(struct crawl *c, const struct crawllog_entry *le,
                         enum crawl_out_record record, const struct warc_page *wp,
                         const struct warc_refers *refers);
/* The disk thread's flush of the page jobs (wq_set_flush): arg the crawl. */
crawl_err crawl_out_flush(void *arg);
/* Run what finished writes have to do; a write error becomes c->err. */
size_t    crawl_out_poll(struct crawl *c);
crawl_err crawl_out_fence(struct crawl *c, crawl_fence_fn *fn, void *arg);
/* dir/name, on the heap (mem_free). */
char     *crawl_path(const char *dir, const char *name);

/* crawl_robots.c: a robots_unavailable result whose cause may pass: true
 * when the URL waits for its host's round to end (nothing is written; it
 * stays outstanding), false when it is final (recorded as any other).
 * wake: the URLs whose round ended go back to the head of their queues. */
bool      crawl_robots_hold(struct crawl *c, const struct crawl_result *r, uint64_t fp);
void      crawl_robots_wake(struct crawl *c);
size_t    crawl_robots_waiting(const struct crawl *c);

/* crawl_resume.c: a checkpoint taken now (written by the disk thread);
 * at open, the last one loaded and the crawl log after it replayed. */
crawl_err crawl_ckpt_take(struct crawl *c);
crawl_err crawl_resume(struct crawl *c);

#endif
