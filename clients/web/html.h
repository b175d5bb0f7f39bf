#ifndef WPFS_CLIENTS_HTML_H
#define WPFS_CLIENTS_HTML_H
/* An HTML5 document parsed by gumbo, with the bounds a crawler needs on
 * hostile pages (docs/crawler.md, "Parsing"):
 *  - at most max_bytes of the body are parsed;
 *  - the parser's memory comes from an arena with a hard budget (mem_max);
 *    freeing the document frees the arena at once, so no recursion over
 *    the tree is ever needed (gumbo's own destructor recurses);
 *  - gumbo's tree construction costs O(depth) per tag, so deeply nested
 *    input is quadratic: a scan before parsing estimates the nesting and
 *    parses only the prefix that stays under max_depth.
 * Pages cut by a bound are still parsed (the prefix) and say so. */
#include <gumbo.h>
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/crawl_err.h"

struct html_opts {
  size_t   max_bytes;  /* body bytes parsed; 0 = HTML_MAX_BYTES_DEFAULT */
  size_t   mem_max;    /* parser memory; 0 = HTML_MEM_MAX_DEFAULT */
  unsigned max_depth;  /* estimated nesting; 0 = HTML_MAX_DEPTH_DEFAULT */
};
#define HTML_MAX_BYTES_DEFAULT (2u << 20)
#define HTML_MEM_MAX_DEFAULT   (64u << 20)
#define HTML_MAX_DEPTH_DEFAULT 2000u

enum html_cut { HTML_CUT_NONE, HTML_CUT_SIZE, HTML_CUT_DEPTH };

struct html_arena;

struct html_doc {
  GumboOutput       *out;
  struct html_arena *arena;   /* owns every byte of out */
  size_t             parsed;  /* bytes of the input given to the parser */
  enum html_cut      cut;
  size_t             mem;     /* arena bytes used */
};

/* Parse p[0..n) (need not be NUL-terminated). o may be NULL. On success
 * the caller frees doc with html_free; on error (CRAWL_ERR_TOO_LARGE: the
 * memory budget; CRAWL_ERR_NOMEM) nothing is left allocated. */
crawl_err html_parse(const char *p, size_t n, const struct html_opts *o,
                     struct html_doc *doc);
void      html_free(struct html_doc *doc);

/* The prefix length of p[0..n) whose estimated element nesting stays at or
 * under max_depth (n when it never goes over). Exposed for tests. */
size_t html_depth_cut(const char *p, size_t n, unsigned max_depth);

/* Value of attribute name (lower case) of an element node, or NULL. */
const char *html_attr(const GumboNode *node, const char *name);

/* Visit every node in document order without recursion. visit returns
 * false to skip the node's children. The walk's stack is capped (subtrees
 * deeper than HTML_WALK_MAX_DEPTH are skipped and counted in *skipped if
 * not NULL). */
#define HTML_WALK_MAX_DEPTH 100000u
typedef bool html_visit_fn(const GumboNode *node, void *arg);
crawl_err html_walk(const struct html_doc *doc, html_visit_fn *visit, void *arg,
                    size_t *skipped);
/* The same, and leave(node) once the walk is past a node it entered
 * (visit returned true): after its children, or at once when it has none
 * or they are skipped. Enter and leave nest as the tags do. */
typedef void html_leave_fn(const GumboNode *node, void *arg);
crawl_err html_walk_ex(const struct html_doc *doc, html_visit_fn *visit, html_leave_fn *leave,
                       void *arg, size_t *skipped);

#endif
