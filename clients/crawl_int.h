#ifndef WPFS_CLIENTS_CRAWL_INT_H
#define WPFS_CLIENTS_CRAWL_INT_H
/* Inside the crawl engine: the struct its files share. */
#include "clients/crawl.h"
#include "clients/crawllog.h"
#include "clients/fpset.h"
#include "clients/html_links.h"
#include "clients/seen.h"
#include "common/buf.h"

struct crawl {
  struct crawl_opts  o;
  char              *dir, *warc_dir, *seen_dir, *log_path, *ckpt_path;
  struct linkfilter *lf;
  struct trap       *trap;
  struct seen       *seen;
  struct frontier   *fr;
  struct dedup      *dd;
  struct warc       *warc;
  struct crawllog   *log;
  struct crawl_stats st;
  struct buf         text;       /* visible text of the page at hand */
  /* The last WARC record the crawl log refers to: on resume, what follows
   * it in the files was written by a crash and is cut. */
  char               last_warc[WARC_NAME_MAX];
  uint64_t           last_warc_end;
  /* Resume: URLs whose lines were replayed are finished even if a replayed
   * page links to them again before the next checkpoint. */
  bool               replaying;
  struct fpset       replayed;
  struct fpset       sitemaps;   /* URL fingerprints queued as sitemaps */
  crawl_err          err;        /* from seen's callback: sticky */
  int                lock_fd;    /* flock on DIR/lock: one crawler per directory */
};

/* crawl_links.c: a link found on a page, a seed, a sitemap URL. */
enum {
  LINK_NOFOLLOW = 1,  /* rel=nofollow */
  LINK_SITEMAP = 2,   /* a sitemap: any file name (sitemap.xml.gz) */
};
crawl_err crawl_links_one(struct crawl *c, const char *url, uint32_t depth,
                          unsigned flags, unsigned level);
void      crawl_links_page(struct crawl *c, const struct html_links *l,
                           const char *page_url, uint32_t depth);
void      crawl_links_on_new(void *arg, uint64_t fp, const void *rec, size_t len);
void      crawl_links_drop(struct crawl *c, const char *url, enum drop_reason r);
crawl_err crawl_links_ascend(struct crawl *c, const char *url, uint32_t depth);

/* crawl_page.c: one result, live or replayed. */
crawl_err crawl_page(struct crawl *c, const struct crawl_result *r, uint32_t depth);
void      crawl_page_count(struct crawl *c, const char *outcome, int status);

/* crawl_resume.c */
crawl_err crawl_resume(struct crawl *c);

#endif
