#ifndef WPFS_TESTWEB_TW_PAGE_H
#define WPFS_TESTWEB_TW_PAGE_H
/* Generated content: a site's pages (deterministic for a seed), its
 * sitemap, and the spider traps. Page j of a site lives at /p/<j>.html
 * (page 0 at /); the same page also answers at /p/<j>, /index.html (page
 * 0) and with any query string: the duplicates a crawler must recognise. */
#include <stdint.h>

#include "common/buf.h"
#include "tests/testweb/tw_err.h"
#include "tests/testweb/tw_world.h"

/* Page j of site s; version changes the text (pages that change). */
tw_err tw_page_html(const struct tw_world *w, const struct tw_site *s, long j,
                    uint64_t version, struct buf *out);
/* The page number a path names, or -1: "/", "/index.html", "/p/<j>.html",
 * "/p/<j>" (query already removed). */
long   tw_page_number(const struct tw_site *s, const char *path, size_t n);
tw_err tw_page_sitemap(const struct tw_world *w, const struct tw_site *s, struct buf *out);
/* A page under /_b/trap/ linking to three deeper relative paths. */
tw_err tw_page_trap(const char *path, size_t n, struct buf *out);
/* /_b/calendar/<y>/<m>[/<d>] with prev/next links; TW_NOT_FOUND if the
 * rest of the path is no date. */
tw_err tw_page_calendar(const char *rest, struct buf *out);
/* Absolute URL base of site s: "http://host:port". */
void   tw_page_base(const struct tw_world *w, const struct tw_site *s, char *out, size_t len);

#endif
