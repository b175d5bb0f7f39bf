#ifndef WPFS_CLIENTS_HTML_TEXT_H
#define WPFS_CLIENTS_HTML_TEXT_H
/* The visible text of a page, for near-duplicate detection and topic
 * scoring: its text in document order, a space at each element boundary,
 * without the content of script, style, noscript and template (code, not
 * prose). The title counts: it is text the page shows as its name. */
#include <stdbool.h>

#include "clients/base/crawl_err.h"
#include "clients/web/html.h"
#include "common/buf.h"

/* Append the text of p[0..n) to out (capped by its creator); text beyond
 * the cap is dropped and *cut (may be NULL) set. CRAWL_ERR_NOMEM leaves out
 * as it was. o may be NULL. */
crawl_err html_text(const char *p, size_t n, const struct html_opts *o, struct buf *out,
                    bool *cut);

/* The collector, for readers that take the text along with something
 * else in the same parse (html_links): feed it every event. Once cut is
 * set nothing more is added; err holds the first failure. */
struct html_textc {
  struct buf *out;
  unsigned    hidden;  /* hidden elements open */
  bool        run;     /* text added since the last boundary */
  bool        cut;
  crawl_err   err;
};
void html_textc_init(struct html_textc *t, struct buf *out);
void html_textc_start(struct html_textc *t, const char *name);
void html_textc_end(struct html_textc *t, const char *name);
void html_textc_text(struct html_textc *t, const char *s, size_t n);
/* The end of the page: the last boundary. */
void html_textc_done(struct html_textc *t);

#endif
