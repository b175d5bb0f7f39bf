#ifndef WPFS_CLIENTS_HTML_TEXT_H
#define WPFS_CLIENTS_HTML_TEXT_H
/* The visible text of a parsed page, for near-duplicate detection: the
 * text nodes in document order, each followed by a space, without the
 * content of script, style, noscript and template (code, not prose). The
 * title counts: it is text the page shows as its name. */
#include <stdbool.h>

#include "clients/base/crawl_err.h"
#include "clients/web/html.h"
#include "common/buf.h"

/* Append to out (capped by its creator); text beyond the cap is dropped
 * and *cut (may be NULL) set. CRAWL_ERR_NOMEM leaves out as it was. */
crawl_err html_text(const struct html_doc *doc, struct buf *out, bool *cut);

/* The rules, for walks that collect the text along with something else
 * (html_links with text): a node whose content is not text (script,
 * style, noscript, template), and one text node appended to out. Once
 * *cut is set nothing more is added; CRAWL_ERR_NOMEM on failure. */
bool      html_text_hidden(const GumboNode *n);
crawl_err html_text_add(struct buf *out, const char *t, bool *cut);

#endif
