#ifndef WPFS_CLIENTS_HTML_LINKS_H
#define WPFS_CLIENTS_HTML_LINKS_H
/* Links of a page, resolved against the page's base and in canonical form
 * (common/url.h), each URL once per page:
 *   a href, area href, frame src, iframe src, link rel=alternate href,
 *   meta http-equiv=refresh url; link rel=canonical apart, in .canonical.
 * <base href> (the first one) changes the base, as in a browser. Only
 * http and https URLs come out; the rest are counted. */
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/crawl_err.h"
#include "clients/web/html.h"
#include "common/buf.h"
#include "common/url.h"

#define HTML_LINK_KINDS(X)          \
  X(A,         a)                   \
  X(AREA,      area)                \
  X(FRAME,     frame)               \
  X(IFRAME,    iframe)              \
  X(ALTERNATE, alternate)           \
  X(REFRESH,   refresh)             \
  X(CANONICAL, canonical)

enum html_link_kind {
#define X(e, name) HTML_LINK_##e,
  HTML_LINK_KINDS(X)
#undef X
  HTML_LINK__LAST
};

struct html_link {
  char               *url;       /* canonical; owned by the list */
  enum html_link_kind kind;
  bool                nofollow;  /* rel="nofollow" on the element */
  /* With text_max: where the element is in the page's text, and the length
   * of its anchor text there (the text inside an <a>; 0 for the others). */
  size_t              text_at, anchor_len;
};

struct html_links {
  struct html_link *v;
  size_t            n, cap;
  char             *base;       /* effective base: <base href> or the page */
  char             *canonical;  /* rel=canonical, or NULL */
  unsigned          robots;     /* ROBOTS_TAG_* of meta robots (html_robots.h) */
  size_t            invalid;    /* references that do not resolve to a URL */
  size_t            not_http;   /* other schemes: mailto:, javascript:, ... */
  size_t            repeated;   /* same URL again on the page */
  size_t            over_cap;   /* links beyond max_links */
  struct buf        text;       /* with text_max: the visible text, as html_text */
  bool              text_cut;   /* more text than text_max */
};

struct html_links_opts {
  size_t          max_links;  /* 0 = HTML_LINKS_MAX_DEFAULT */
  struct url_opts url;        /* canonicalization (max_len, session ids) */
  /* > 0: also collect the page's visible text (html_text.h's rules) up to
   * this many bytes, in the same walk, and where each link sits in it:
   * what a crawler that judges a link by its anchor and the words around
   * it needs. */
  size_t          text_max;
  /* The product token <meta name="TOKEN"> must name to speak to this
   * crawler as <meta name="robots"> does (NULL: only the latter). */
  const char     *robots_agent;
};
#define HTML_LINKS_MAX_DEFAULT 10000u
/* References read per link the list may hold: repeats are only found at
 * resolution, so more are read than kept; past them, over_cap. */
#define HTML_LINKS_REFS_PER_LINK 4u

struct html_links_opts html_links_opts_default(void);

/* Parse p[0..n), a page whose URL is page_url, under the parser's bounds
 * ho, and extract its links (and text, with o->text_max). o, ho and scan
 * (how the parse went) may be NULL. On success the caller frees out with
 * html_links_free; on error (CRAWL_ERR_NOMEM, CRAWL_ERR_INVALID when
 * page_url is not an absolute http(s) URL) out is left empty. */
crawl_err html_links_extract(const char *p, size_t n, const struct html_opts *ho,
                             const char *page_url, const struct html_links_opts *o,
                             struct html_links *out, struct html_scan *scan);
void      html_links_free(struct html_links *l);

#endif
