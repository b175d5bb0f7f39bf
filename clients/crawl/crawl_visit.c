/* One result, live or replayed at resume: read (crawl_page.c), what it
 * found queued (crawl_admit.c: at the end, and whenever the list is full
 * while reading), then written (live only): its crawl log line counts
 * the links it queued. */
#include "clients/crawl/crawl_int.h"

crawl_err crawl_visit(struct crawl *c, const struct crawl_result *r, uint32_t depth,
                      const struct frontier_score *own)
{
  struct crawl_page pg;
  uint64_t before = c->st.links_new;
  crawl_err e = crawl_page_read(c, r, depth, own, crawl_admit, &pg);
  if(!e)
    e = crawl_admit(c, &pg.found);
  if(!e && !c->replaying)
    e = crawl_page_write(c, r, depth, &pg, c->st.links_new - before);
  crawl_page_free(&pg);
  return e;
}
