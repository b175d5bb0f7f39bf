#ifndef WPFS_CLIENTS_TRAP_H
#define WPFS_CLIENTS_TRAP_H
/* Spider-trap defences (docs/crawler.md, "Traps"). Two kinds:
 *  - from the URL alone (trap_check_path): too many path segments, or a
 *    segment repeated (/a/b/a/b/a/b, /x/x/x): the shapes of relative-link
 *    loops and of servers that answer any path;
 *  - from what was admitted before (trap_admit, for URLs the seen test
 *    found new): a per-host page budget, a bound on distinct query strings
 *    of one path (session ids, sort orders, calendars by query), and a
 *    bound on host names per registrable domain (wildcard DNS).
 * Counters live in maps with a byte budget; past it, new keys are not
 * tracked and their URLs are admitted (stats.untracked): a defence that
 * fails open costs pages, one that fails closed would lose the crawl. */
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "clients/crawl/drop.h"
#include "common/url.h"

struct trap_opts {
  unsigned max_path_depth;       /* segments; 0 = no limit */
  unsigned max_segment_repeats;  /* occurrences of one segment; 0 = no limit */
  uint64_t site_budget;          /* URLs admitted per host; 0 = no limit */
  unsigned max_query_variants;   /* distinct queries per host + path; 0 = no limit */
  unsigned max_domain_hosts;     /* host names per registrable domain; 0 = no limit */
  size_t   mem_max;              /* bytes for the counters */
};
struct trap_opts trap_opts_default(void);

struct trap;

crawl_err trap_open(const struct trap_opts *o, struct trap **out);
void      trap_close(struct trap **tp);
enum drop_reason trap_check_path(const struct trap *t, const struct url_parts *p);
/* Decide and, when admitted (DROP_NONE), count the URL. */
enum drop_reason trap_admit(struct trap *t, const struct url_parts *p);
void      trap_save(const struct trap *t, struct ckfile *c);
void      trap_load(struct trap *t, struct ckfile *c);

#endif
