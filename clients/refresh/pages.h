#ifndef WPFS_CLIENTS_REFRESH_PAGES_H
#define WPFS_CLIENTS_REFRESH_PAGES_H
/* The pages a refresh crawl keeps fresh: what each visit saw (the last
 * RF_OBS_MAX intervals, so memory per page is fixed: about 160 bytes and
 * the URL), the rate estimated from it, the visits per second allocated
 * to it, and a heap of pages by the time of their next visit. No I/O but
 * reading the input list. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"
#include "clients/base/scope.h"
#include "clients/base/tally.h"
#include "clients/base/fpmap.h"
#include "clients/refresh/model.h"
#include "common/heap.h"

#define RF_OBS_MAX 16
#define RF_EXPLORE_Z 2.0    /* a given-up page is explored while its rate two sd (of its
                               log) below the estimate would be worth visits */
#define RF_PRIOR_VAR_MIN 0.04  /* the narrowest site prior: rates within e^0.2 */
#define RF_PRIOR_SD_MAX 1.0    /* estimates less certain than this inform no prior */

/* What one visit found. */
enum rf_seen {
  RF_SEEN_CHANGED,     /* a body other than the last one */
  RF_SEEN_UNCHANGED,   /* the same body (or 304) */
  RF_SEEN_FIRST,       /* the first body: no interval to judge */
  RF_SEEN_GONE,        /* 404 or 410 */
  RF_SEEN_MOVED,       /* a redirect */
  RF_SEEN_FAILED,      /* no answer from the site, or one that tells nothing */
};
const char *rf_seen_name(enum rf_seen s);
bool        rf_seen_parse(const char *s, enum rf_seen *out);

struct rf_page {
  char    *url;
  double   weight, lambda, f;   /* importance; changes/s; visits/s */
  double   sd;                  /* of log(lambda): how uncertain it is */
  double   flat, flat_sd;       /* the estimate from this page alone */
  double   p_static;            /* the probability it never changes (never seen to) */
  struct rf_prior prior;        /* its site's, as of the last plan */
  uint64_t last_ms;    /* wall time of the copy last seen (0: never) */
  uint64_t base_ms;    /* wall time the next interval counts from: the
                          copy's, or the failed attempt's */
  uint64_t due_ms;     /* the next visit */
  uint64_t digest;     /* of the last body (0: none yet) */
  uint64_t lm_ms;      /* the last Last-Modified seen (0: none) */
  uint64_t lm_first_ms;  /* the first visit's Last-Modified (0: none) */
  uint32_t obs[RF_OBS_MAX];  /* tenths of a second << 1 | changed */
  uint32_t age[RF_OBS_MAX];  /* with a Last-Modified: 1 + tenths of a second
                                since it (changed) or 1 (not); 0: none */
  uint32_t visits, changes, site;
  uint8_t  nobs, obs_next, gone;
  bool     retired, outstanding;
  bool     lm_bad;     /* its Last-Modified contradicted its content once */
  bool     lm_epoch;   /* that first date is its site's, shared by other pages
                          (a deployment, the start of its world): not a change */
  bool     explore;    /* its visit rate is an exploration floor */
  bool     parked;     /* another member of the crawl keeps it fresh (rpart.h): not
                          planned, not visited, its result still taken */
  struct heap_node due;  /* in the heap by due_ms (not when retired) */
};

struct rf_pages {
  struct rf_page *v;
  size_t          n, cap, max;
  struct fpmap    by_url;      /* hash of the URL -> index */
  struct fpmap    by_site;     /* hash of the URL's host -> site number */
  uint32_t        nsites;
  double          typical;     /* the typical rate of the estimated pages */
  double          static_share;  /* the share of pages estimated never to change */
  struct heap     heap;        /* pages not retired, by due_ms (rf_page.due) */
  unsigned        gone_after;  /* 404/410 in a row that retire a page */
  double          max_interval_s;  /* no page waits longer */
  struct scope   *rules;       /* --scope-rules (borrowed; NULL: none): the input's URLs
                                  and the targets of redirects they reject are not kept */
  uint64_t        ruled_out;   /* redirect targets the rules rejected */
};

void      rf_pages_init(struct rf_pages *ps, size_t max, unsigned gone_after,
                        double max_interval_s);
void      rf_pages_free(struct rf_pages *ps);
/* Add url with weight (a known URL keeps its page: *added false). Its
 * first visit is due at due_ms. */
crawl_err rf_pages_add(struct rf_pages *ps, const char *url, double weight, uint64_t due_ms,
                       bool *added);
struct rf_page *rf_pages_find(struct rf_pages *ps, const char *url);
/* Read the input list into ps: "URL[<TAB>weight]" lines, a crawl log
 * (crawl.jsonl, or an output directory holding one: its 200 pages) or a
 * WARC file (its 200 responses). First visits are spread from now at
 * the given rate. A URL not kept is counted in refused by reason
 * ("malformed": not an http(s) URL; "duplicate": listed before; "rule":
 * rejected by ps->rules, counted on the rule too) and the
 * first few are said on stderr after prog's name (none when NULL), with
 * their line. */
/* Whether the rules keep url, a redirect's target (counted in ruled_out
 * and said in the log when not). */
bool      rf_pages_keep_target(struct rf_pages *ps, const char *url);
crawl_err rf_pages_load(struct rf_pages *ps, const char *path, double rate, uint64_t now_ms,
                        struct tally *refused, const char *prog, char *err, size_t errlen);

/* Record a visit that saw s at wall time at_ms (the copy's fetch time) with
 * body digest (0 when none): the estimate and the failure counts change;
 * the next visit is planned by rf_pages_plan. */
void rf_page_observe(struct rf_pages *ps, struct rf_page *p, enum rf_seen s, uint64_t at_ms,
                     uint64_t digest);
/* The same with the copy's Last-Modified (lm_ms, 0: none). It is trusted
 * while it agrees with the content: not after the fetch, newer when the
 * body changed and not older than the copy before, the same when it did
 * not; once it disagrees the page is estimated without it for good. */
void rf_page_observe_lm(struct rf_pages *ps, struct rf_page *p, enum rf_seen s, uint64_t at_ms,
                        uint64_t digest, uint64_t lm_ms);
/* Estimate p again from its observations (after they were restored). */
void rf_page_reestimate(struct rf_page *p);
/* Never visit p again (gone for good, or refused by the gateway). */
void rf_page_retire(struct rf_pages *ps, struct rf_page *p);
/* Re-estimate every page (each shrunk toward its site's rates, below),
 * allocate budget (visits/s) by policy with a floor of one visit per
 * max_interval_s, and plan each page's next visit from its last (an
 * outstanding page keeps its time). Returns the expected weighted
 * freshness. Unvisited pages keep their due time and count with the
 * typical rate of the visited ones (prior when none is).
 *  - priors: the rates of the pages seen to change (their own estimates
 *    with sd at most RF_PRIOR_SD_MAX) give each page a normal prior on
 *    log(rate) from its site's other pages and all sites
 *    (rf_priors_pooled); without three such pages anywhere there is none;
 *  - two-part prior: a page never seen to change may never change; its
 *    chance of that (rf_static_prob, the share of such pages by
 *    rf_static_share) is p_static, and its weight in the allocation is
 *    weight (1 - p_static): the freshness it expects is
 *    p_static + (1 - p_static) F(rate, f);
 *  - exploration (optimal policy): a page given up on (its first visit
 *    worth less than the multiplier mu) whose rate RF_EXPLORE_Z sd of its
 *    log lower would not be, is visited as it would be at that rate (at
 *    most the uniform share) until it is certain either way; the others
 *    share the rest optimally. */
double rf_pages_plan(struct rf_pages *ps, enum rf_policy policy, double budget,
                     double prior, uint64_t now_ms);
/* The next visit of p alone, after a visit (its f unchanged). The
 * pointers into ps->v are valid until the next rf_pages_add. */
void rf_page_replan(struct rf_pages *ps, struct rf_page *p, uint64_t now_ms);
/* The page due first (not retired, not outstanding), or NULL. */
struct rf_page *rf_pages_top(struct rf_pages *ps);
void rf_pages_set_due(struct rf_pages *ps, struct rf_page *p, uint64_t due_ms);
/* Park p (out of the heap: this member does not visit it) or take it
 * back (due at due_ms). */
void rf_page_park(struct rf_pages *ps, struct rf_page *p, bool parked, uint64_t due_ms);

#endif
