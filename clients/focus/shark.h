#ifndef WPFS_CLIENTS_FOCUS_SHARK_H
#define WPFS_CLIENTS_FOCUS_SHARK_H
/* The scores of SharkSearch (Hersovici et al., "The shark-search
 * algorithm", WWW7, 1998), as pure functions of the parent page and the
 * link (docs/focus.md, "SharkSearch"):
 *
 *   score(link)   = gamma * inherited(child) + (1 - gamma) * neighbourhood(link)
 *   inherited     = delta * sim(topic, parent)   when the parent is relevant
 *                 = delta * inherited(parent)    otherwise
 *   neighbourhood = beta * sim(topic, anchor) + (1 - beta) * context
 *   context       = 1                            when the anchor matches (sim > 0)
 *                 = sim(topic, text around the link)   otherwise
 *
 * and the depth bound d: a page's off-topic distance is 0 when it is
 * relevant, else its parent's plus one; the links of a page that is not
 * relevant and already d pages off the topic are not followed, so a path
 * may cross at most d irrelevant pages in a row. */
#include <stdbool.h>

struct shark_params {
  double   gamma, delta, beta;  /* each in [0, 1] */
  unsigned depth;               /* d */
};

/* What a fetched page hands to its links. */
struct shark_parent {
  double   sim;        /* sim(topic, parent) */
  bool     relevant;   /* sim at or over the relevance threshold */
  double   inherited;  /* the parent's own inherited score */
  unsigned off;        /* the parent's off-topic distance */
};

double   shark_inherited(const struct shark_params *p, const struct shark_parent *pp);
double   shark_neighbourhood(const struct shark_params *p, double anchor_sim, double around_sim);
double   shark_score(const struct shark_params *p, double inherited, double neighbourhood);
/* Are the parent's links followed at all? */
bool     shark_follows(const struct shark_params *p, const struct shark_parent *pp);
/* The off-topic distance of the parent's links' targets. */
unsigned shark_off(const struct shark_parent *pp);

#endif
