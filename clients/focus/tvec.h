#ifndef WPFS_CLIENTS_FOCUS_TVEC_H
#define WPFS_CLIENTS_FOCUS_TVEC_H
/* Term vectors and their TF-IDF cosine (docs/focus.md, "Similarity").
 * A vector holds each distinct term of a text with its count, sorted by
 * term once built (tvec_end). A term's weight is (1 + ln tf) * idf, the
 * sublinear term frequency of SMART's "ltc": a word said ten times is
 * not ten times the evidence. The cosine of two vectors is the dot product
 * of their weights over the product of their lengths, in [0, 1]. */
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "clients/focus/idf.h"
#include "clients/focus/text.h"

struct tvec_term {
  uint64_t term;
  uint32_t tf;
};

struct tvec {
  struct tvec_term *v;
  size_t            n, cap;
  size_t            max;     /* distinct terms at most (more are dropped) */
};

void      tvec_init(struct tvec *v, size_t max);
void      tvec_free(struct tvec *v);
void      tvec_reset(struct tvec *v);
/* Count the terms of s[0..n) (appended: tvec_end sorts and merges). */
crawl_err tvec_add_text(struct tvec *v, struct text *t, const char *s, size_t n);
/* Sort by term and merge repeats: the vector is ready. */
void      tvec_end(struct tvec *v);
/* Cosine of a and b (ended) under d's current IDF; 0 when one is empty. */
double    tvec_cosine(const struct idf *d, const struct tvec *a, const struct tvec *b);
void      tvec_save(const struct tvec *v, struct ckfile *c);
void      tvec_load(struct tvec *v, struct ckfile *c);

#endif
