#ifndef WPFS_CLIENTS_SITEMAP_H
#define WPFS_CLIENTS_SITEMAP_H
/* URLs of a sitemap (sitemaps.org 0.9): the <loc> of each <url> of a
 * urlset, and of each <sitemap> of a sitemap index, with the entry's
 * <lastmod>, <changefreq> and <priority> when given. Read with the same
 * bounded HTML parser as pages (html.h): it reads these flat XML files fine
 * (unknown elements, text) and forgives the broken ones an XML parser
 * would stop at.
 *
 * A sitemap may be gzip data (sitemap.xml.gz, or a body that starts with
 * the gzip magic whatever its name): it is decompressed as a stream
 * (gunzip.h). Either way the XML text is read at most max_text bytes (the
 * protocol's limit is 50 MB uncompressed; a gzip bomb stops there), and
 * parsed in pieces of about SITEMAP_PIECE bytes cut after a </url> or
 * </sitemap>, so the buffered text does not grow with the sitemap. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"
#include "clients/web/gunzip.h"
#include "clients/web/html.h"

#define SITEMAP_PIECE (1u << 20)
#define SITEMAP_MAX_TEXT_DEFAULT (50u << 20)

struct sitemap_opts {
  struct html_opts html;      /* per piece */
  size_t           max_text;  /* XML bytes read (decompressed); 0 = the default */
};

/* How a sitemap was read. */
struct sitemap_info {
  bool            gzip;       /* it was gzip data */
  enum gunzip_end end;        /* GUNZIP_WHOLE, or why the rest was not read */
  size_t          text;       /* XML bytes read */
  size_t          pieces;     /* parser runs */
};

#define SITEMAP_FREQS(X) X(always) X(hourly) X(daily) X(weekly) X(monthly) X(yearly) X(never)
enum sitemap_freq {
  SITEMAP_FREQ_NONE,  /* absent or not one of the protocol's words */
#define X(w) SITEMAP_FREQ_##w,
  SITEMAP_FREQS(X)
#undef X
};

/* One entry: its <loc> text, trimmed (not yet canonicalized); index tells
 * it names another sitemap. The hints, each when given and valid:
 * lastmod (W3C Datetime: YYYY, YYYY-MM, YYYY-MM-DD, with a time and zone
 * or not; seconds since the epoch, else -1), changefreq (a word of the
 * protocol, case-insensitive), priority (0.0 to 1.0, else -1). */
struct sitemap_entry {
  const char       *loc;
  size_t            len;
  bool              index;
  int64_t           lastmod;
  enum sitemap_freq changefreq;
  double            priority;
};

/* Called for each entry, once its element (or a stray <loc>) ends.
 * Returns non-zero to stop. */
typedef int sitemap_loc_fn(void *arg, const struct sitemap_entry *e);

/* o may be NULL (defaults). A cut or damaged sitemap is not an error: what
 * was read is reported, and info->end says why the rest was not. */
crawl_err sitemap_read(const void *body, size_t len, const struct sitemap_opts *o,
                       sitemap_loc_fn *fn, void *arg, struct sitemap_info *info);

#endif
