/* The level a sitemap's hints give its URL (frontier.h). The hints only
 * order what is queued: a sitemap cannot put its URLs above the seeds or
 * the sitemaps themselves, and in-links raise a URL as they do any. The
 * priority is the site's own relative word, so it moves a URL by one
 * level at most either way; freshness is what a crawl that means to find
 * new pages first wants, so it counts as much. */
#include "clients/crawl/frontier.h"

static unsigned hint_base(double p)
{
  if(p < 0)
    return FRONTIER_HINT_LEVEL;
  return p >= 0.75 ? FRONTIER_HINT_LEVEL + 1 : p >= 0.25 ? FRONTIER_HINT_LEVEL
                                                          : FRONTIER_HINT_LEVEL - 1;
}

unsigned frontier_hint_level(const struct frontier_hint *h)
{
  unsigned level = hint_base(h->priority);
  bool fresh = (h->age_s >= 0 && h->age_s <= FRONTIER_FRESH_S) || h->freq == FRONTIER_FREQ_OFTEN;
  bool stale = h->age_s > FRONTIER_STALE_S || h->freq == FRONTIER_FREQ_RARELY;
  if(fresh)
    level++;
  else if(stale && level > 0)
    level--;
  return level > FRONTIER_HINT_MAX ? FRONTIER_HINT_MAX : level;
}
