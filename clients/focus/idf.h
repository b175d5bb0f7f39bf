#ifndef WPFS_CLIENTS_FOCUS_IDF_H
#define WPFS_CLIENTS_FOCUS_IDF_H
/* Inverse document frequencies, learned as the crawl goes: every page read
 * adds one to the count of documents and to the document frequency of
 * each of its terms. idf(t) = ln((1 + N) / (1 + df(t))) + 1, the smoothed
 * form: never zero (a term in every page still counts a little), defined
 * before the first page (all terms 1), and a term never seen weighs most.
 * The frequencies live in a map with a byte budget; past it, new terms
 * are not counted (they keep the weight of a rare term) and are counted
 * in `untracked`. */
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"

struct tvec;
struct idf;

crawl_err idf_open(size_t max_bytes, struct idf **out);
void      idf_close(struct idf **dp);
/* One more document, with the (distinct) terms of v (ended). */
crawl_err idf_learn(struct idf *d, const struct tvec *v);
double    idf_of(const struct idf *d, uint64_t term);
uint64_t  idf_docs(const struct idf *d);
uint64_t  idf_untracked(const struct idf *d);
size_t    idf_bytes(const struct idf *d);
void      idf_save(const struct idf *d, struct ckfile *c);
void      idf_load(struct idf *d, struct ckfile *c);

#endif
