#ifndef WPFS_TESTWEB_TW_TOPIC_H
#define WPFS_TESTWEB_TW_TOPIC_H
/* The topical web (docs/testweb.md, "The topical web"): testweb's
 * generated sites, each about one topic, whose pages are written from
 * their topic's vocabulary, for the focused crawler. Every page has a
 * known topic (its label); topic 0 is the target, rare by design:
 *
 *  - a site's topic: a `share` of the sites are about topic 0, the others
 *    about topics 1 .. topics-1 in turn; a `hidden` fraction of the
 *    topic-0 sites get no link from anywhere but their own pages and the
 *    pages of topic 1 (the bridge): to reach them a crawler must go
 *    through pages that are not on the topic (tunnelling);
 *  - a page's topic: its site's, or with 1 - `purity` another, drawn with
 *    the same shares (so topic-0 pages are scattered on other sites too);
 *    the home page is always its site's;
 *  - its text: `words` words, 30 % from its topic's vocabulary,
 *    `overlap` from each of the two neighbouring topics (topics form a
 *    ring), the rest general English (stop words among them): pages of
 *    neighbouring topics share words, so similarity is not trivial;
 *  - its links: the generator's `links`, each to a page of the same topic
 *    with probability `local` (on the same site when it can), else of a
 *    topic drawn by the shares; a page of topic 1 links into a hidden
 *    site with probability `bridge`; plus a link to the next page of its
 *    site;
 *  - anchors: with probability `named` two or three words of the target
 *    page's topic, else a generic phrase ("read more") or words of the
 *    linking page's own topic; with probability `context` the words
 *    around a link are drawn from the target's topic too.
 * Everything is drawn from the world's seed: the same seed, the same web.
 * The link graph (tw_topic_links) is what the pages link, so a crawl
 * simulated on it (tw_topic_ctl.c: breadth first, and an oracle that
 * knows every label) walks the graph the crawlers walk. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "tests/testweb/tw_err.h"

#define TW_TOPIC_MAX 16  /* vocabularies written */

struct tw_world;
struct tw_site;

struct tw_topic_opts {
  long   topics;
  double share, purity, local, named, hidden, bridge, context, overlap;
  long   words;
};

/* One topical world, built over the generated sites of w. */
struct tw_topics {
  struct tw_topic_opts o;
  long      sites, pages;       /* the generated sites, pages each */
  long      links;              /* links per page, besides the next page */
  uint64_t  seed;
  uint8_t  *site_topic;         /* per site */
  bool     *site_hidden;        /* per site */
  uint8_t  *page_topic;         /* per page: site * pages + page */
  uint32_t *by_topic[TW_TOPIC_MAX];  /* pages of each topic on sites that are not hidden */
  size_t    n_by_topic[TW_TOPIC_MAX];
  uint32_t *hidden_pages;       /* every page of the hidden sites */
  size_t    n_hidden;
};

struct tw_topic_link {
  uint32_t site;
  uint32_t page;
};

/* "topics=12,share=0.04,..." over the defaults; builds w->topics from w's
 * generated sites (w->gen). TW_CONFIG with a message in err. */
tw_err tw_topic_build(struct tw_world *w, const char *spec, char *err, size_t errlen);
void   tw_topic_free(struct tw_topics **tp);
/* Markdown table of the options, for docs/testweb.md. */
void   tw_topic_markdown(FILE *out);

/* The label of page j of generated site s (-1 outside the topical web). */
int    tw_topic_of(const struct tw_topics *t, size_t s, long j);
/* The pages page j of site s links to, in page order (the link to the
 * next page last). At most max; returns how many. */
size_t tw_topic_links(const struct tw_topics *t, size_t s, long j, struct tw_topic_link *out,
                      size_t max);
/* The page's HTML. */
tw_err tw_topic_page(const struct tw_world *w, const struct tw_site *s, long j,
                     struct buf *out);

/* Vocabularies (tw_topic_words.c). */
struct tw_words {
  const char *const *v;
  size_t             n;
};
void        tw_topic_words(size_t topic, struct tw_words *out);
void        tw_topic_general(struct tw_words *out);
void        tw_topic_generic(struct tw_words *out);
const char *tw_topic_name(size_t topic);

#endif
