#ifndef WPFS_CLIENTS_CRAWLLOG_H
#define WPFS_CLIENTS_CRAWLLOG_H
/* The crawl log: one JSON object per finished URL, one line each, appended
 * with a single write(2), so a line is the unit that survives a crash.
 *   {"time":"2024-01-01T00:00:00Z","url":"http://...","status":200,
 *    "outcome":"ok","bytes":1234,"ms":12,"depth":2,"links":8,
 *    "duplicate_of":null,"warc":"wpfs-...warc.gz","warc_offset":0,
 *    "warc_length":512,"digest":"sha1:..."}
 * A URL is finished once its line is in the log: resuming skips it.
 * Optional members: "dup" ("exact"/"near") and "distance" with
 * duplicate_of; "warc*" and "digest" when a record was written;
 * "redirect" with the target of a 3xx; "reason" for a URL the gateway
 * refused; "cause" (and "cause_status") for a URL that ended without a
 * page, after "outcome"; "sitemap":true for a sitemap; "feed":true for a feed; "robots" (["noindex","nofollow",
 * ...], the page-level robots directives obeyed, from X-Robots-Tag and
 * meta robots) when there were any; a focused crawl's scorer adds
 * its own members (extra) at the end. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"

struct crawllog_entry {
  const char *url;
  int         status;        /* HTTP status, 0 when none */
  const char *outcome;       /* the gateway's outcome ("ok", "robots_disallowed", ...) */
  const char *cause;         /* why there is no page (gwproto_cause), or NULL */
  int         cause_status;  /* robots.txt's status for robots_5xx/robots_429, else 0 */
  uint64_t    bytes;         /* body bytes */
  uint64_t    ms;            /* fetch time */
  uint64_t    time_ms;       /* when it was fetched, wall clock */
  uint32_t    depth;
  uint64_t    links;         /* new URLs found on the page */
  const char *duplicate_of;  /* NULL unless a duplicate */
  const char *dup;           /* "exact" or "near" */
  unsigned    distance;      /* SimHash bits, for near */
  const char *warc;          /* WARC file, NULL when no record */
  uint64_t    warc_offset, warc_length;
  const char *digest;
  const char *redirect;
  const char *reason;        /* why, for outcomes without a response */
  bool        sitemap;       /* the URL was read as a sitemap */
  bool        feed;          /* the URL was read as a feed (RSS, Atom) */
  unsigned    robots;        /* ROBOTS_TAG_* obeyed for the page (X-Robots-Tag, meta) */
  const char *extra;         /* more members, JSON: ,"k":v,... (or NULL) */
};
#define CRAWLLOG_EXTRA_MAX (16u << 10)

/* What resuming needs back from a line (strings valid during the call). */
struct crawllog_rec {
  const char *url, *outcome, *warc, *duplicate_of, *dup, *redirect, *cause;
  int         status;
  uint32_t    depth;
  uint64_t    warc_offset, warc_length;
  bool        sitemap;
  unsigned    robots;        /* ROBOTS_TAG_* */
  const char *line;          /* the whole line (no newline), for what extra held */
  size_t      line_len;
};

struct crawllog;

/* Open for appending; a partial last line (a crash in the middle of a
 * write) is cut off first. */
crawl_err crawllog_open(const char *path, struct crawllog **out);
void      crawllog_close(struct crawllog **lp);
/* Write one line now: crawllog_add then crawllog_flush. */
crawl_err crawllog_write(struct crawllog *l, const struct crawllog_entry *e);
/* Add a line to those written at the next flush: one write for many
 * lines. The owner flushes (it knows what must be written first); up to
 * 32 MiB may wait, then a line is CRAWL_ERR_TOO_LARGE. */
crawl_err crawllog_add(struct crawllog *l, const struct crawllog_entry *e);
crawl_err crawllog_flush(struct crawllog *l);
size_t    crawllog_pending(const struct crawllog *l);  /* bytes added, not written */
/* Bytes in the file (lines flushed): the offset a checkpoint keeps. */
uint64_t  crawllog_size(const struct crawllog *l);

typedef crawl_err crawllog_line_fn(void *arg, const struct crawllog_rec *rec);
/* Every complete line from byte offset from; a line that does not parse
 * is CRAWL_ERR_CORRUPT. Stops at the first error of fn. */
crawl_err crawllog_scan(const char *path, uint64_t from, crawllog_line_fn *fn, void *arg);

#endif
