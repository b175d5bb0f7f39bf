#ifndef WPFS_CLIENTS_SITEMAP_H
#define WPFS_CLIENTS_SITEMAP_H
/* URLs of a sitemap (sitemaps.org 0.9): the <loc> of each <url> of a
 * urlset, and of each <sitemap> of a sitemap index. Parsed with the same
 * bounded HTML5 parser as pages (html.h): an HTML parser reads these flat
 * XML files fine (unknown elements, text), so no XML library is needed.
 * Compressed sitemaps (.xml.gz served as a file) are not read. */
#include <stdbool.h>
#include <stddef.h>

#include "clients/crawl_err.h"
#include "clients/html.h"

/* Called for each <loc> text, trimmed (not yet canonicalized); index tells
 * it names another sitemap. Returns non-zero to stop. */
typedef int sitemap_loc_fn(void *arg, const char *loc, size_t len, bool index);

crawl_err sitemap_parse(const char *body, size_t len, const struct html_opts *o,
                        sitemap_loc_fn *fn, void *arg);

#endif
