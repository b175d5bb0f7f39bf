#ifndef WPFS_CLIENTS_FOCUS_TEXT_H
#define WPFS_CLIENTS_FOCUS_TEXT_H
/* From text to terms, for topical similarity (docs/focus.md, "Text"):
 *  - tokens: runs of ASCII letters and digits, with any non-ASCII byte
 *    (UTF-8 letters) and an apostrophe between two letters ("don't");
 *    a token with no letter (a number) or longer than TEXT_WORD_MAX bytes
 *    (a hash, base64) is no word;
 *  - lower-cased (ASCII; other scripts are kept as written);
 *  - English stop words dropped (the Snowball project's list: words so
 *    common they say nothing of a topic);
 *  - stemmed by Snowball's English (Porter2) stemmer from libstemmer, so
 *    "sailing", "sails" and "sailed" are one term, "sail".
 * A term is the XXH3-64 of its stem: no string is kept per term. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"

#define TEXT_WORD_MAX 48

struct text_opts {
  bool stop;  /* drop stop words (on by default) */
  bool stem;  /* stem (on by default) */
};
struct text_opts text_opts_default(void);

struct text;

/* CRAWL_ERR_NOMEM when the stemmer cannot be made. */
crawl_err text_open(const struct text_opts *o, struct text **out);
void      text_close(struct text **tp);

/* Each term of s[0..n), in order: fn(arg, term, stem, stem_len); a
 * non-zero return stops the walk and is returned. */
typedef crawl_err text_term_fn(void *arg, uint64_t term, const char *stem, size_t len);
crawl_err text_terms(struct text *t, const char *s, size_t n, text_term_fn *fn, void *arg);

/* Is word (lower case, n bytes) on the stop list? */
bool      text_is_stop(const char *word, size_t n);
/* The term of a stem, as text_terms makes it. */
uint64_t  text_term(const char *stem, size_t n);

#endif
