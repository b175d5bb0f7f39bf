#ifndef WPFS_CLIENTS_FOCUS_FOCUS_H
#define WPFS_CLIENTS_FOCUS_FOCUS_H
/* The focused crawler's scorer (docs/focus.md): the crawl engine's
 * crawl_scorer for wpfs-focus. It holds the topic (a term vector from a
 * query text and example pages), learns IDF from every page it reads,
 * scores each fetched page (the cosine of its TF-IDF vector with the
 * topic's; relevant at or over the threshold), scores each link by the
 * strategy, and counts the harvest rate (relevant pages over pages) at
 * 100, 200, 500, 1000, ... pages.
 *
 * Strategies:
 *   shark       SharkSearch (shark.h): inherited score and the link's
 *               neighbourhood (anchor text, text around it), depth bound;
 *   best-first  a link scores its page's similarity;
 *   bfs         every link scores the same: breadth first.
 *
 * Each URL carries, from the link that chose it to its result: its
 * inherited score, its off-topic distance and its parent's URL (the
 * scorer's meta bytes in the frontier); each crawl log line gets
 * "score" (the page's similarity), "relevant", "link_score", "parent",
 * "inherited" and "off_topic", from which a resume learns them back. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/crawl/crawl.h"
#include "clients/focus/shark.h"
#include "clients/focus/text.h"

enum focus_strategy { FOCUS_SHARK, FOCUS_BEST_FIRST, FOCUS_BFS };
bool        focus_strategy_parse(const char *s, enum focus_strategy *out);
const char *focus_strategy_name(enum focus_strategy s);

struct focus_opts {
  enum focus_strategy strategy;
  struct shark_params shark;
  double              threshold;      /* relevant: similarity at or over it */
  size_t              context_bytes;  /* text around a link, on each side */
  size_t              idf_bytes;      /* memory of the document frequencies */
  size_t              max_terms;      /* distinct terms of one vector */
  struct text_opts    text;
};
struct focus_opts focus_opts_default(void);

#define FOCUS_AT_MAX 32  /* harvest points: 100, 200, 500, ... */

struct focus_stats {
  uint64_t pages, relevant, links_scored;
  size_t   topic_terms;
  uint64_t idf_docs;
  size_t   nat;
  uint64_t at[FOCUS_AT_MAX];           /* pages: 100, 200, 500, ... */
  uint64_t relevant_at[FOCUS_AT_MAX];  /* relevant among the first at[i] */
};

struct focus;

crawl_err focus_open(const struct focus_opts *o, struct focus **out);
void      focus_close(struct focus **fp);
/* The topic: query words, and example pages (HTML, or text: parsed as
 * HTML either way), each adding its terms. */
crawl_err focus_topic_words(struct focus *f, const char *s, size_t n);
crawl_err focus_topic_page(struct focus *f, const char *body, size_t n);
const struct crawl_scorer *focus_scorer(struct focus *f);
void      focus_stats(const struct focus *f, struct focus_stats *st);

#endif
