#ifndef WPFS_CLIENTS_FEED_H
#define WPFS_CLIENTS_FEED_H
/* Links of a web feed: RSS 2.0 (and 0.9x, 1.0/RDF) <link>URL</link> of the
 * channel and of each item, Atom <link href="URL"> of the feed and of each
 * entry (rel absent or "alternate": not "self", "enclosure", "edit", ...).
 * Read with libxml2's XML reader, a stream: its memory does not grow with
 * the feed; no DTD is loaded, no entity expanded, nothing fetched from the
 * network. A feed cut short or broken is read up to its first error.
 *
 * A feed is known by its Content-Type (application/rss+xml,
 * application/atom+xml, application/rdf+xml) or, for a generic XML or
 * text type, by its root element (<rss>, <feed>, <rdf:RDF>). */
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/crawl_err.h"

#define FEED_MAX_BYTES_DEFAULT (8u << 20)
#define FEED_LINK_MAX          (64u << 10)  /* a longer link is no URL */

enum feed_kind { FEED_NONE, FEED_RSS, FEED_ATOM, FEED_RDF };

struct feed_info {
  enum feed_kind kind;   /* by the root element */
  size_t         links;  /* reported */
  bool           broken; /* the XML had an error (what came before was read) */
  bool           cut;    /* more than max_bytes: the rest not read */
};

/* Called for each link, trimmed, as written (not resolved); non-zero stops. */
typedef int feed_link_fn(void *arg, const char *url, size_t len);

/* Whether a response of this Content-Type (NULL: none) and body is a
 * feed: a feed type, or an XML or text type whose root is a feed's. */
bool feed_detect(const char *content_type, const void *body, size_t len);

/* max_bytes 0: FEED_MAX_BYTES_DEFAULT. CRAWL_ERR_NOMEM only; a broken
 * feed is info->broken. info may be NULL. */
crawl_err feed_read(const void *body, size_t len, size_t max_bytes, feed_link_fn *fn, void *arg,
                    struct feed_info *info);

#endif
