#ifndef WPFS_CLIENTS_HTML_H
#define WPFS_CLIENTS_HTML_H
/* An HTML page read as a stream of events: start tags with their
 * attributes, end tags and text, in document order. No tree is built:
 * libxml2's HTML parser runs in SAX mode, which costs about a tenth of
 * building gumbo's HTML5 DOM for the same page (tests/bench/bench_html.c,
 * docs/benchmarks.md "HTML parsing"), and everything a crawler takes from a
 * page (links, base, robots meta, visible text) is found in one pass.
 *
 * Bounds on hostile pages (docs/crawler.md, "Parsing"):
 *  - at most max_bytes of the body are parsed;
 *  - the parser keeps only the open elements, a token and its attributes,
 *    so its memory is a small multiple of the bytes parsed;
 *  - closing an element searches the open ones, which is O(depth) per end
 *    tag, so deeply nested input is quadratic: a scan before parsing
 *    estimates the nesting, and where it would pass max_depth the elements
 *    open are ended and the parser starts anew on the rest of the page
 *    (html_scan.restarts). No byte under max_bytes goes unread.
 * A page cut by the size bound is still parsed (the prefix) and says so.
 *
 * Events nest: every start has its end, unless a sink stopped the parse
 * (libxml2 closes implied and unclosed elements; html.c ends those it
 * leaves open where it gives up). Names are lower case. A NUL byte is read
 * as U+FFFD. The content of script and style is not
 * text and is not reported; whitespace between block elements is not
 * either. Character references are decoded; the page's encoding comes, as
 * HTML orders it, from a byte order mark, then the charset its transport
 * named (html_opts.charset: HTTP's Content-Type), then a meta charset,
 * else UTF-8; the events are in UTF-8. A charset that libxml2 (and iconv)
 * do not know is ignored. */
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/crawl_err.h"

struct html_opts {
  size_t      max_bytes;  /* body bytes parsed; 0 = HTML_MAX_BYTES_DEFAULT */
  unsigned    max_depth;  /* estimated nesting; 0 = HTML_MAX_DEPTH_DEFAULT */
  const char *charset;    /* the transport's, e.g. "windows-1251"; NULL: none */
};

/* The charset parameter of a Content-Type value into out (without quotes,
 * at most cap - 1 bytes), or NULL when there is none or it does not fit. */
const char *html_ct_charset(const char *content_type, char *out, size_t cap);
/* 8 MiB: real manuals have single pages over 2 MiB (Python 3.11's
 * contents.html, 2.5 MB), whose links past the bound were lost; the
 * gateway's body cap is 10 MiB. A nesting bound of 500 keeps the worst
 * page's cost what 2 MiB under 2,000 cost (docs/crawler.md, "Parsing"):
 * no page of five Debian manuals nests past 100, and a restart loses no
 * link. */
#define HTML_MAX_BYTES_DEFAULT (8u << 20)
#define HTML_MAX_DEPTH_DEFAULT 500u

enum html_cut { HTML_CUT_NONE, HTML_CUT_SIZE };

/* What a reader does with the events; any member may be NULL. attrs holds
 * name, value pairs and ends with NULL (a value may be NULL: an attribute
 * without one). A non-zero return stops the parse. */
struct html_sink {
  int (*start)(void *arg, const char *name, const char *const *attrs);
  int (*end)(void *arg, const char *name);
  int (*text)(void *arg, const char *t, size_t n);
  void *arg;
};

struct html_scan {
  size_t        parsed;  /* bytes of the input given to the parser */
  enum html_cut cut;     /* SIZE: the bytes past max_bytes were not read */
  unsigned      restarts; /* times the nesting bound restarted the parser */
  bool          stopped; /* a sink asked to stop */
};

/* Parse p[0..n) (need not be NUL-terminated); o and info may be NULL.
 * CRAWL_ERR_NOMEM when the parser ran out of memory (the events so far were
 * delivered). */
crawl_err html_scan(const char *p, size_t n, const struct html_opts *o,
                    const struct html_sink *sink, struct html_scan *info);

/* The prefix length of p[0..n) whose estimated element nesting stays at or
 * under max_depth (n when it never goes over); html_scan parses a page in
 * such segments. Exposed for tests. */
size_t html_depth_cut(const char *p, size_t n, unsigned max_depth);

/* The value of attribute name (lower case) in attrs, or NULL (also for an
 * attribute without a value). */
const char *html_attr(const char *const *attrs, const char *name);

#endif
