#ifndef WPFS_CLIENTS_HTML_ROBOTS_H
#define WPFS_CLIENTS_HTML_ROBOTS_H
/* Meta robots of an HTML page (common/robots_tag.h): <meta name="robots">
 * for every crawler, <meta name="AGENT"> for the one whose product token
 * is AGENT; both carry the list X-Robots-Tag carries. */
#include <stddef.h>

#include "clients/web/html.h"

/* The ROBOTS_TAG_* bits one <meta name=name content=content> gives agent
 * (a product token, or NULL: only name=robots speaks to it); 0 for any
 * other meta. name and content may be NULL. */
unsigned html_robots_meta(const char *name, const char *content, const char *agent);

/* The bits of every such meta of a page p[0..n), for a reader that takes
 * nothing else from it (html_links.h reads them in its own walk): the
 * parse stops at <body>, where the head and its metas have ended. o may
 * be NULL (html.h's bounds). */
unsigned html_robots_page(const char *p, size_t n, const struct html_opts *o, const char *agent);

#endif
