#ifndef WPFS_CLIENTS_CRAWL_TYPES_H
#define WPFS_CLIENTS_CRAWL_TYPES_H
/* The crawl engine's vocabulary, which its API (crawl.h) and each of its
 * files speak: the options, the result it reads, the scorer it asks, the
 * counters it keeps. Apart from crawl.h so that the files under the API
 * need nothing of the file above them. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
  struct scope         *rules;        /* --scope-rules (the caller's, outlives the crawl); NULL: none */
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
  /* robots.txt unavailable for a cause that may pass (robots_wait.h): a
   * host's URLs are asked again after robots_wait_ms, doubled per round
   * up to robots_wait_max_ms, for at most robots_rounds rounds (0: the
   * first verdict is final). */
  unsigned              robots_rounds;
  uint64_t              robots_wait_ms, robots_wait_max_ms;
};

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
  X(sitemaps_unasked) /* hosts whose sitemaps were not asked or not answered */ \
  X(robots_retried) /* robots_unavailable results put back to wait (a cause that may pass) */ \
  X(robots_rounds)  /* waits begun, per host */                             \
  X(robots_gave_up) /* robots_unavailable after every round of the host: final */

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
  uint64_t                  robots_retry_at; /* robots_unavailable: the gateway asks
                                                robots.txt again then (wall ms), 0 */
  uint64_t                  site_connections; /* the gateway's count of connections opened
                                                 to the URL's site, after this fetch; 0:
                                                 not said (the site was not contacted) */
};

/* The disk thread's answer to a fence (crawl_fence): everything handed
 * over before it is written; e: the write error, if any. */
typedef void crawl_fence_fn(void *arg, crawl_err e);

/* Outcomes that carry an HTTP response: fetched now, served from the
 * gateway's cache, or revalidated (304 on the wire, the stored page). */
static inline bool crawl_outcome_http(const char *outcome)
{
  return outcome && (!strcmp(outcome, "ok") || !strcmp(outcome, "cached") ||
                     !strcmp(outcome, "not_modified"));
}

#endif
