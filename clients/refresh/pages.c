#include "clients/refresh/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"

static const char *const seen_names[] = {
  [RF_SEEN_CHANGED] = "changed", [RF_SEEN_UNCHANGED] = "unchanged", [RF_SEEN_FIRST] = "first",
  [RF_SEEN_GONE] = "gone",       [RF_SEEN_MOVED] = "moved",         [RF_SEEN_FAILED] = "failed",
};

const char *rf_seen_name(enum rf_seen s)
{
  return (unsigned)s < sizeof seen_names / sizeof seen_names[0] ? seen_names[s] : "?";
}

bool rf_seen_parse(const char *s, enum rf_seen *out)
{
  for(size_t i = 0; i < sizeof seen_names / sizeof seen_names[0]; i++)
    if(s && !strcmp(s, seen_names[i])) {
      *out = (enum rf_seen)i;
      return true;
    }
  return false;
}

/* ---- The heap of pages by due time ---------------------------------------- */

static bool due_first(const struct heap_node *a, const struct heap_node *b)
{
  return HEAP_ENTRY(a, const struct rf_page, due)->due_ms <
         HEAP_ENTRY(b, const struct rf_page, due)->due_ms;
}

void rf_pages_set_due(struct rf_pages *ps, struct rf_page *p, uint64_t due_ms)
{
  p->due_ms = due_ms;
  if(!p->parked)
    heap_fix(&ps->heap, &p->due, due_first);
}

void rf_page_park(struct rf_pages *ps, struct rf_page *p, bool parked, uint64_t due_ms)
{
  if(p->parked == parked)
    return;
  p->parked = parked;
  if(parked && heap_node_in(&p->due))
    heap_remove(&ps->heap, &p->due, due_first);
  else if(!parked && !p->retired) {
    p->due_ms = due_ms;
    if(!heap_node_in(&p->due))
      heap_insert(&ps->heap, &p->due, due_first);  /* its room was kept (rf_pages_add) */
  }
}

struct rf_page *rf_pages_top(struct rf_pages *ps)
{
  struct heap_node *x = heap_min(&ps->heap);
  return x ? HEAP_ENTRY(x, struct rf_page, due) : NULL;
}

/* ---- The table ------------------------------------------------------------ */

void rf_pages_init(struct rf_pages *ps, size_t max, unsigned gone_after, double max_interval_s)
{
  memset(ps, 0, sizeof *ps);
  ps->max = max;
  ps->gone_after = gone_after;
  ps->max_interval_s = max_interval_s;
  fpmap_init(&ps->by_url, max * 32 + 4096);
  fpmap_init(&ps->by_site, max * 32 + 4096);
}

void rf_pages_free(struct rf_pages *ps)
{
  for(size_t i = 0; i < ps->n; i++)
    mem_free(ps->v[i].url);
  mem_free(ps->v);
  heap_free(&ps->heap);
  fpmap_free(&ps->by_url);
  fpmap_free(&ps->by_site);
  memset(ps, 0, sizeof *ps);
}

static crawl_err pages_grow(struct rf_pages *ps)
{
  if(ps->n < ps->cap)
    return CRAWL_OK;
  if(ps->n >= ps->max)
    return CRAWL_ERR_FULL;
  size_t cap = ps->cap ? ps->cap * 2 : 1024;
  cap = cap > ps->max ? ps->max : cap;
  if(heap_reserve(&ps->heap, cap))
    return CRAWL_ERR_NOMEM;
  struct rf_page *v = mem_realloc(ps->v, cap * sizeof *v);
  if(!v)
    return CRAWL_ERR_NOMEM;
  ps->v = v;
  for(size_t i = 0; i < ps->n; i++)  /* the heap points into v */
    heap_moved(&ps->heap, &v[i].due);
  ps->cap = cap;
  return CRAWL_OK;
}

struct rf_page *rf_pages_find(struct rf_pages *ps, const char *url)
{
  uint64_t *i = fpmap_get(&ps->by_url, hash_fp64(url, strlen(url)));
  return i ? &ps->v[*i] : NULL;
}

/* The site of a URL: its scheme and authority (the whole URL when it has
 * none), numbered in the order first seen. */
static crawl_err page_site(struct rf_pages *ps, const char *url, uint32_t *site)
{
  const char *host = strstr(url, "://");
  size_t n = host ? (size_t)(host + 3 - url) + strcspn(host + 3, "/?#") : strlen(url);
  uint64_t *v;
  bool added;
  crawl_err e = fpmap_put(&ps->by_site, hash_fp64(url, n), &v, &added);
  if(e)
    return e;
  if(added)
    *v = ps->nsites++;
  *site = (uint32_t)*v;
  return CRAWL_OK;
}

crawl_err rf_pages_add(struct rf_pages *ps, const char *url, double weight, uint64_t due_ms,
                       bool *added)
{
  *added = false;
  if(rf_pages_find(ps, url))
    return CRAWL_OK;
  uint32_t site = 0;
  crawl_err e = pages_grow(ps);
  e = e ? e : page_site(ps, url, &site);
  char *copy = e ? NULL : mem_strdup(url);
  if(!e && !copy)
    e = CRAWL_ERR_NOMEM;
  uint64_t *slot;
  if(!e && (e = fpmap_put(&ps->by_url, hash_fp64(url, strlen(url)), &slot, NULL)))
    mem_free(copy);
  if(e)
    return e;
  *slot = ps->n;
  struct rf_page *p = &ps->v[ps->n++];
  memset(p, 0, sizeof *p);
  p->url = copy;
  p->weight = weight;
  p->site = site;
  p->due_ms = due_ms;
  heap_node_init(&p->due);
  heap_insert(&ps->heap, &p->due, due_first);
  *added = true;
  return CRAWL_OK;
}

void rf_page_retire(struct rf_pages *ps, struct rf_page *p)
{
  if(p->retired)
    return;
  p->retired = true;
  if(heap_node_in(&p->due))
    heap_remove(&ps->heap, &p->due, due_first);
}

/* ---- What visits saw -------------------------------------------------------- */

static uint32_t tenths_of(uint64_t ms)
{
  uint64_t t = ms / 100;
  return (uint32_t)(t > 0x7ffffffeu ? 0x7ffffffeu : t);
}

/* age_code: 0 none, else 1 + tenths of a second (age[] in pages.h). */
static void page_push_obs(struct rf_page *p, uint64_t interval_ms, bool changed,
                          uint32_t age_code)
{
  p->obs[p->obs_next] = tenths_of(interval_ms) << 1 | changed;
  p->age[p->obs_next] = age_code;
  p->obs_next = (uint8_t)((p->obs_next + 1) % RF_OBS_MAX);
  if(p->nobs < RF_OBS_MAX)
    p->nobs++;
}

/* The observations of p. A first visit's Last-Modified (interval 0) is a
 * change at that date and none since (the known-modification-time
 * estimator's observation: for a page that changes as a Poisson process,
 * the age of its copy has density lambda e^(-lambda age)), when first_change
 * and the date is the page's own; a date its site's pages share (lm_epoch:
 * a deployment, the start of the world it lives in) is only time without
 * change, as is any first date for the never-changes question
 * (page_exposure). Counting only the time made every page look slower
 * than it is on a web whose copies have a past: below uniform on a 600 s
 * web (docs/refresh.md, "A web with a past"). Without a trusted
 * Last-Modified it says nothing and is left out. The Last-Modified has a
 * resolution of a second: the last change was half a second after it on
 * average. */
static size_t page_obs_as(const struct rf_page *p, struct rf_obs *o, bool first_change)
{
  size_t n = 0;
  for(unsigned i = 0; i < p->nobs; i++) {
    bool lm = p->age[i] && !p->lm_bad, changed = p->obs[i] & 1;
    double iv = (double)(p->obs[i] >> 1) / 10, age = (double)(p->age[i] - 1) / 10 - 0.5;
    age = age > 0.05 ? age : 0.05;
    if(iv <= 0 && lm)
      o[n++] = (struct rf_obs){ age, first_change && !p->lm_epoch, true, age };
    else if(iv > 0)
      o[n++] = (struct rf_obs){ iv, changed, lm, age };
  }
  return n;
}

static size_t page_obs(const struct rf_page *p, struct rf_obs *o)
{
  return page_obs_as(p, o, true);
}

void rf_page_reestimate(struct rf_page *p)
{
  struct rf_obs o[RF_OBS_MAX];
  size_t n = page_obs(p, o);
  struct rf_est e = n ? rf_estimate_post(o, n, NULL) : (struct rf_est){ 0, 10 };
  p->flat = e.rate;
  p->flat_sd = e.sd;
  e = n && p->prior.var > 0 ? rf_estimate_post(o, n, &p->prior) : e;
  p->lambda = e.rate;
  p->sd = e.sd;
}

/* The Last-Modified of a visit that saw s, checked against the content:
 * the age code of its observation (0: none or not trusted). */
static uint32_t page_lm(struct rf_page *p, enum rf_seen s, uint64_t at_ms, uint64_t lm_ms)
{
  bool changed = s == RF_SEEN_CHANGED, first = s == RF_SEEN_FIRST;
  if(!lm_ms || p->lm_bad)
    return changed || first || !p->lm_ms || p->lm_bad ? 0 : 1;
  if(lm_ms > at_ms + 1000 || (changed && p->lm_ms && lm_ms <= p->lm_ms) ||
     (changed && p->last_ms && lm_ms + 1000 < p->last_ms) ||
     (!changed && !first && p->lm_ms && lm_ms != p->lm_ms)) {
    p->lm_bad = true;
    return 0;
  }
  p->lm_ms = lm_ms;
  return changed || first ? 1 + tenths_of(at_ms > lm_ms ? at_ms - lm_ms : 0) : 1;
}

void rf_page_observe(struct rf_pages *ps, struct rf_page *p, enum rf_seen s, uint64_t at_ms,
                     uint64_t digest)
{
  rf_page_observe_lm(ps, p, s, at_ms, digest, 0);
}

void rf_page_observe_lm(struct rf_pages *ps, struct rf_page *p, enum rf_seen s, uint64_t at_ms,
                        uint64_t digest, uint64_t lm_ms)
{
  p->visits++;
  bool fresh_copy = s <= RF_SEEN_FIRST && (!p->last_ms || at_ms > p->last_ms);
  uint32_t age = fresh_copy ? page_lm(p, s, at_ms, lm_ms) : 0;
  switch(s) {
  case RF_SEEN_CHANGED:
  case RF_SEEN_UNCHANGED:
    if(p->last_ms && at_ms > p->last_ms)
      page_push_obs(p, at_ms - p->last_ms, s == RF_SEEN_CHANGED, age);
    p->changes += s == RF_SEEN_CHANGED;
    /* fall through */
  case RF_SEEN_FIRST:
    if(s == RF_SEEN_FIRST && age > 1 && !p->last_ms) {  /* its first date */
      p->lm_first_ms = lm_ms;
      page_push_obs(p, 0, true, age);
    }
    p->last_ms = at_ms > p->last_ms ? at_ms : p->last_ms;
    p->digest = digest ? digest : p->digest;
    p->gone = 0;
    break;
  case RF_SEEN_GONE:
  case RF_SEEN_MOVED:
    if(++p->gone >= ps->gone_after)
      rf_page_retire(ps, p);
    break;
  case RF_SEEN_FAILED:
    break;
  }
  p->base_ms = at_ms > p->base_ms ? at_ms : p->base_ms;
  if(p->nobs)
    rf_page_reestimate(p);
}

/* Seconds between visits of p: 1/f, doubled for each 404 or redirect in a
 * row, at most max_interval_s. */
static double page_interval(const struct rf_pages *ps, const struct rf_page *p)
{
  double iv = p->f > 0 ? 1 / p->f : ps->max_interval_s;
  iv *= (double)(1u << (p->gone < 16 ? p->gone : 16));
  return iv < ps->max_interval_s ? iv : ps->max_interval_s;
}

/* From the base; a copy older than its interval (the gateway's cache
 * served it) is looked at again after a quarter of one, not at once. */
static uint64_t page_due(const struct rf_pages *ps, const struct rf_page *p, uint64_t now_ms)
{
  double iv = page_interval(ps, p) * 1000;
  uint64_t due = p->base_ms + (uint64_t)iv;
  return due > now_ms ? due : now_ms + (uint64_t)(iv / 4);
}

/* A plan moves a page's next visit to its new interval from its base, but
 * never later for being overdue: a page already due keeps its time (it is
 * sent in its turn), one planned soon by page_due keeps that. Pushing an
 * overdue page a quarter interval ahead at every plan starved it for good
 * behind pages of shorter intervals (8-10 % of the pages never visited
 * again in the benchmark's last 450 s). */
static uint64_t plan_due(const struct rf_pages *ps, const struct rf_page *p, uint64_t now_ms)
{
  uint64_t due = page_due(ps, p, now_ms);
  return due > p->base_ms + (uint64_t)(page_interval(ps, p) * 1000) && p->due_ms < due
         ? p->due_ms : due;
}

void rf_page_replan(struct rf_pages *ps, struct rf_page *p, uint64_t now_ms)
{
  if(!p->retired)
    rf_pages_set_due(ps, p, page_due(ps, p, now_ms));
}

/* How long p was watched without a change (its intervals, its first
 * copy's age): -1 once it was seen to change, or when it is not watched. */
static double page_exposure(const struct rf_page *p)
{
  struct rf_obs o[RF_OBS_MAX];
  size_t n = p->retired || p->changes ? 0 : page_obs_as(p, o, false);
  double t = n ? 0 : -1;
  for(size_t i = 0; i < n; i++)
    t = o[i].changed ? -1 : t < 0 ? t : t + o[i].interval_s;
  return t;
}

/* The two-part prior: a page either changes as its site's pages do, or
 * never. The share of pages that never change is estimated from all of
 * them (rf_static_share), and each page never seen to change gets its
 * probability of being one of those: a page watched unchanged far longer
 * than its site's pages take to change is taken for static, one on a
 * site of slow pages is not. */
static crawl_err plan_static(struct rf_pages *ps)
{
  double *t = mem_alloc(ps->n * sizeof *t + 1), *p = mem_alloc(ps->n * sizeof *p + 1);
  const struct rf_prior **pr = mem_alloc(ps->n * sizeof *pr + 1);
  size_t *at = mem_alloc(ps->n * sizeof *at + 1), k = 0;
  crawl_err err = t && p && pr && at ? CRAWL_OK : CRAWL_ERR_NOMEM;
  for(size_t i = 0; !err && i < ps->n; i++) {
    struct rf_page *q = &ps->v[i];
    q->p_static = 0;
    if(q->retired || !q->nobs)
      continue;
    t[k] = page_exposure(q);
    pr[k] = &q->prior;
    at[k++] = i;
  }
  if(!err && k) {
    ps->static_share = rf_static_share(k, t, pr, p);
    for(size_t i = 0; i < k; i++)
      ps->v[at[i]].p_static = p[i];
  }
  mem_free(t);
  mem_free(p);
  mem_free(pr);
  mem_free(at);
  return err;
}

/* A first Last-Modified shared (to the second) by this many pages of a
 * site is the site's date, not each page's change: a site generated or
 * deployed at once, or a world started at once. */
#define RF_EPOCH_PAGES 2

struct lm_key {
  uint32_t site, i;
  uint64_t s;
};

static int lm_key_cmp(const void *a, const void *b)
{
  const struct lm_key *x = a, *y = b;
  if(x->site != y->site)
    return x->site < y->site ? -1 : 1;
  return x->s < y->s ? -1 : x->s > y->s;
}

/* Mark the pages whose first date their site shares (lm_epoch), and
 * estimate again those whose mark changed. */
static crawl_err plan_epochs(struct rf_pages *ps)
{
  struct lm_key *k = mem_alloc(ps->n * sizeof *k + 1);
  size_t m = 0;
  if(!k)
    return CRAWL_ERR_NOMEM;
  for(size_t i = 0; i < ps->n; i++)
    if(ps->v[i].lm_first_ms && !ps->v[i].retired)
      k[m++] = (struct lm_key){ ps->v[i].site, (uint32_t)i, ps->v[i].lm_first_ms / 1000 };
  qsort(k, m, sizeof *k, lm_key_cmp);
  for(size_t a = 0, b; a < m; a = b) {
    for(b = a + 1; b < m && !lm_key_cmp(&k[a], &k[b]); b++)
      ;
    for(size_t j = a; j < b; j++) {
      struct rf_page *p = &ps->v[k[j].i];
      bool epoch = b - a >= RF_EPOCH_PAGES;
      if(p->lm_epoch != epoch) {
        p->lm_epoch = epoch;
        rf_page_reestimate(p);
      }
    }
  }
  mem_free(k);
  return CRAWL_OK;
}

/* Each page's prior from its site's other pages and all sites
 * (rf_priors_pooled), and every estimated page's rate under it. */
static crawl_err plan_estimate(struct rf_pages *ps)
{
  if(plan_epochs(ps))
    return CRAWL_ERR_NOMEM;
  struct rf_est *e = mem_alloc(ps->n * sizeof *e + 1);
  uint32_t *site = mem_alloc(ps->n * sizeof *site + 1);
  struct rf_prior *pr = mem_alloc((ps->n + 1) * sizeof *pr);
  crawl_err err = e && site && pr ? CRAWL_OK : CRAWL_ERR_NOMEM;
  for(size_t i = 0; !err && i < ps->n; i++) {
    const struct rf_page *p = &ps->v[i];
    /* Only pages seen to change inform a prior: a page seen once, or
     * never changing yet, has a rate that says how long it was watched,
     * and a site of such pages would look alike (a narrow prior around
     * nothing). */
    bool informative = !p->retired && p->flat > 0 && p->flat_sd <= RF_PRIOR_SD_MAX;
    e[i] = informative ? (struct rf_est){ p->flat, p->flat_sd } : (struct rf_est){ 0, 0 };
    site[i] = p->site;
  }
  if(!err)
    rf_priors_pooled(e, site, ps->n, ps->nsites, RF_PRIOR_VAR_MIN, 2, pr);
  for(size_t i = 0; !err && i < ps->n; i++) {
    struct rf_page *p = &ps->v[i];
    struct rf_obs o[RF_OBS_MAX];
    size_t n = p->retired ? 0 : page_obs(p, o);
    p->prior = pr[i];
    struct rf_est x = n ? rf_estimate_post(o, n, &p->prior) : (struct rf_est){ 0, 10 };
    p->lambda = x.rate;
    p->sd = x.sd;
  }
  if(!err)
    ps->typical = pr[ps->n].var > 0 ? exp(pr[ps->n].log_rate) : 0;
  if(!err)
    err = plan_static(ps);
  mem_free(e);
  mem_free(site);
  mem_free(pr);
  return err;
}

/* The optimal allocation's multiplier: the marginal value of a visit to
 * the page it gives the most visits (every page neither given up on nor
 * explored has it). */
static double plan_mu(const struct rf_pages *ps, size_t n, const double *lambda, const double *w,
                      const size_t *idx, const double *f)
{
  size_t best = n;
  for(size_t i = 0; i < n; i++)
    if(lambda[i] > 0 && f[i] > 2 / ps->max_interval_s && !ps->v[idx[i]].explore &&
       (best == n || f[i] > f[best]))
      best = i;
  return best < n ? rf_marginal(lambda[best], w[best], f[best]) : 0;
}

/* Optimal policy, exploration: a page given up on whose rate is plausibly
 * (two sd of its log below the estimate) low enough to be worth visits
 * gets, as a floor, the visits it would get at that rate (at most the
 * uniform share); the budget is allocated again around the floors. */
static double plan_explore(struct rf_pages *ps, double budget, size_t n, const double *lambda,
                           const double *w, const size_t *idx, double *f, double fresh)
{
  double fmin = 1 / ps->max_interval_s, share = budget / (double)n;
  double *floors = mem_calloc(n + 1, sizeof *floors);
  /* Floors take budget from the others, which may give up on more pages:
   * a few rounds until no page is added. */
  for(int round = 0; floors && round < 4; round++) {
    double mu = plan_mu(ps, n, lambda, w, idx, f);
    size_t added = 0;
    for(size_t i = 0; mu > 0 && i < n; i++) {
      struct rf_page *p = &ps->v[idx[i]];
      double lo = lambda[i] * exp(-RF_EXPLORE_Z * p->sd);
      if(p->explore || !p->nobs || !rf_given_up(lambda[i], w[i], mu) || rf_given_up(lo, w[i], mu))
        continue;
      double fx = rf_optimal_f(lo, w[i], mu);
      p->explore = true;
      floors[i] = fx < share ? fx : share;
      added++;
    }
    if(!added)
      break;
    fresh = rf_allocate_floors(RF_OPTIMAL, n, lambda, w, budget, fmin, floors, f);
  }
  mem_free(floors);
  return fresh;
}

double rf_pages_plan(struct rf_pages *ps, enum rf_policy policy, double budget, double prior,
                     uint64_t now_ms)
{
  size_t n = 0, *idx = mem_alloc(ps->n * sizeof *idx + 1);
  double *lambda = mem_alloc(ps->n * sizeof *lambda + 1), *w = mem_alloc(ps->n * sizeof *w + 1),
         *f = mem_alloc(ps->n * sizeof *f + 1), fresh = 0;
  if(lambda && w && f && idx && !plan_estimate(ps)) {
    double typical = ps->typical > 0 ? ps->typical : prior;
    for(size_t i = 0; i < ps->n; i++) {
      struct rf_page *p = &ps->v[i];
      p->explore = false;
      if(p->retired || p->parked)
        continue;
      lambda[n] = p->lambda > 0 ? p->lambda : typical;
      idx[n] = i;
      /* Freshness expected: p_static + (1 - p_static) F(lambda, f), so
       * the chance that the page changes at all weighs its visits. */
      w[n++] = p->weight * (1 - p->p_static);
    }
    fresh = rf_allocate(policy, n, lambda, w, budget, 1 / ps->max_interval_s, f);
    if(policy == RF_OPTIMAL)
      fresh = plan_explore(ps, budget, n, lambda, w, idx, f, fresh);
    for(size_t i = 0; i < n; i++) {
      struct rf_page *p = &ps->v[idx[i]];
      p->f = f[i];
      if(p->base_ms && !p->outstanding)  /* unvisited: its place in the first round */
        rf_pages_set_due(ps, p, plan_due(ps, p, now_ms));
    }
  }
  mem_free(lambda);
  mem_free(w);
  mem_free(f);
  mem_free(idx);
  return fresh;
}
