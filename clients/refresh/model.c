#include "clients/refresh/model.h"

#include <math.h>
#include <string.h>

#include "common/mem.h"

#define BISECT_STEPS 80

static const char *const policy_names[] = {
  [RF_OPTIMAL] = "optimal", [RF_UNIFORM] = "uniform", [RF_PROPORTIONAL] = "proportional",
};

bool rf_policy_parse(const char *s, enum rf_policy *out)
{
  for(size_t i = 0; i < sizeof policy_names / sizeof policy_names[0]; i++)
    if(s && !strcmp(s, policy_names[i])) {
      *out = (enum rf_policy)i;
      return true;
    }
  return false;
}

const char *rf_policy_name(enum rf_policy p)
{
  return (unsigned)p < sizeof policy_names / sizeof policy_names[0] ? policy_names[p] : "?";
}

/* ---- Estimation ---------------------------------------------------------- */

/* The likelihood equation's left side minus its right: decreasing in
 * lambda, so its root is found by bisection on log lambda. */
static double score(const struct rf_obs *o, size_t n, double lambda, double unchanged)
{
  double s = 0;
  for(size_t i = 0; i < n; i++)
    if(o[i].changed && o[i].interval_s > 0)
      s += o[i].interval_s / expm1(lambda * o[i].interval_s);
  return s - unchanged;
}

double rf_estimate(const struct rf_obs *o, size_t n, double prior)
{
  double total = 0, unchanged = 0;
  size_t changes = 0;
  for(size_t i = 0; i < n; i++) {
    double t = o[i].interval_s > 0 ? o[i].interval_s : 0;
    total += t;
    if(o[i].changed && t > 0)
      changes++;
    else
      unchanged += t;
  }
  if(total <= 0)
    return prior;
  if(changes == 0)
    return 0.5 / total;
  /* Half an unchanged observation of the mean interval: with equal
   * intervals I the root is -log((n - X + 0.5) / (n + 0.5)) / I, the
   * bias-reduced estimator; and it stays finite when every visit saw a
   * change. */
  unchanged += 0.5 * total / (double)n;
  double lo = log(1e-12), hi = log(1e6);
  for(int i = 0; i < BISECT_STEPS; i++) {
    double mid = 0.5 * (lo + hi);
    if(score(o, n, exp(mid), unchanged) > 0)
      lo = mid;
    else
      hi = mid;
  }
  return exp(0.5 * (lo + hi));
}

/* The log posterior's derivative in u = log(lambda), times nothing:
 * lambda d/dlambda of the log likelihood, less the prior's pull. It
 * decreases in u, so its root (the mode) is found by bisection. */
struct post {
  const struct rf_obs *o;
  size_t               n;
  double               lm_changes, exposure;  /* of the Last-Modified part */
  double               unchanged;             /* of the rest, with the correction */
  const struct rf_prior *prior;
};

static double post_slope(const struct post *q, double u)
{
  double lambda = exp(u), s = q->lm_changes - lambda * (q->exposure + q->unchanged);
  for(size_t i = 0; i < q->n; i++) {
    double x = lambda * q->o[i].interval_s;
    if(!q->o[i].lm && q->o[i].changed && x > 0)
      s += x / expm1(x);
  }
  if(q->prior && q->prior->var > 0)
    s -= (u - q->prior->log_rate) / q->prior->var;
  return s;
}

static void post_init(struct post *q, const struct rf_obs *o, size_t n,
                      const struct rf_prior *prior)
{
  double irr_total = 0;
  size_t irr = 0;
  *q = (struct post){ .o = o, .n = n, .prior = prior };
  for(size_t i = 0; i < n; i++) {
    double t = o[i].interval_s > 0 ? o[i].interval_s : 0;
    if(o[i].lm && o[i].changed) {
      q->lm_changes++;
      q->exposure += o[i].age_s > 0 ? o[i].age_s : 0;
    } else {
      q->exposure += o[i].changed ? 0 : t;
      irr += !o[i].lm && t > 0;
      irr_total += !o[i].lm ? t : 0;
    }
  }
  /* rf_estimate's half an unchanged observation of the mean interval of
   * the visits without a Last-Modified: with equal intervals the
   * bias-reduced estimator, finite when all of them saw a change. */
  if(irr)
    q->unchanged = 0.5 * irr_total / (double)irr;
}

struct rf_est rf_estimate_post(const struct rf_obs *o, size_t n, const struct rf_prior *prior)
{
  struct post q;
  post_init(&q, o, n, prior);
  bool flat = !prior || prior->var <= 0;
  double seen = q.exposure + q.unchanged, changes = q.lm_changes;
  for(size_t i = 0; i < n; i++)
    changes += !o[i].lm && o[i].changed && o[i].interval_s > 0;
  if(flat && changes == 0) {  /* no change seen: rf_estimate's rule */
    double total = 0;
    for(size_t i = 0; i < n; i++)
      total += o[i].interval_s > 0 ? o[i].interval_s : o[i].lm ? o[i].age_s : 0;
    return (struct rf_est){ total > 0 ? 0.5 / total : 0, total > 0 ? M_SQRT2 : 10 };
  }
  if(flat && seen <= 0)
    return (struct rf_est){ 0, 10 };
  double lo = log(1e-12), hi = log(1e6);
  for(int i = 0; i < BISECT_STEPS; i++) {
    double mid = 0.5 * (lo + hi);
    if(post_slope(&q, mid) > 0)
      lo = mid;
    else
      hi = mid;
  }
  double u = 0.5 * (lo + hi), h = 1e-3;
  double info = (post_slope(&q, u - h) - post_slope(&q, u + h)) / (2 * h);
  return (struct rf_est){ exp(u), info > 1e-2 ? 1 / sqrt(info) : 10 };
}

/* The vague variance of log-rates (rates within a factor e^4 at two sd)
 * and how many observations it counts for in the pooled variances. */
#define PRIOR_VAGUE   4.0
#define PRIOR_VAGUE_N 1.0

/* Per site: the count and sum of the log rates (site nsites: all). */
struct site_sums {
  double k, s;
};

static struct rf_prior pooled_prior(double k, double sum, double vw, double vb, double mean)
{
  double prec = k / vw + 1 / vb;
  return (struct rf_prior){ (sum / vw + mean / vb) / prec, vw + 1 / prec };
}

void rf_priors_pooled(const struct rf_est *e, const uint32_t *site, size_t n, size_t nsites,
                      double var_min, double sd_cap, struct rf_prior *out)
{
  struct site_sums *g = mem_calloc(nsites + 1, sizeof *g);
  for(size_t i = 0; i <= n; i++)
    out[i] = (struct rf_prior){ 0, 0 };
  if(!g)
    return;
  double noise = 0;
  for(size_t i = 0; i < n; i++)
    if(e[i].rate > 0 && site[i] < nsites) {
      double sd = e[i].sd < sd_cap ? e[i].sd : sd_cap;
      g[site[i]].k++;
      g[site[i]].s += log(e[i].rate);
      g[nsites].k++;
      g[nsites].s += log(e[i].rate);
      noise += sd * sd;
    }
  double k = g[nsites].k;
  if(k < 3) {
    mem_free(g);
    return;
  }
  double mean = g[nsites].s / k, within = 0, between = 0, sites = 0, inv_k = 0;
  noise /= k;
  for(size_t i = 0; i < n; i++)
    if(e[i].rate > 0 && site[i] < nsites) {
      double d = log(e[i].rate) - g[site[i]].s / g[site[i]].k;
      within += d * d;
    }
  for(size_t s = 0; s < nsites; s++)
    if(g[s].k > 0) {
      double d = g[s].s / g[s].k - mean;
      between += d * d;
      inv_k += 1 / g[s].k;
      sites++;
    }
  /* Within: the scatter around each site's mean, on k - sites degrees of
   * freedom; between: the site means' scatter less what the within
   * variance puts in a mean of k pages. Each with PRIOR_VAGUE_N
   * observations of a vague variance: a few pages alike, or one site,
   * say little of how alike the next page will be. */
  double vw = (within + PRIOR_VAGUE_N * PRIOR_VAGUE) / (k - sites + PRIOR_VAGUE_N) - noise;
  vw = vw > var_min ? vw : var_min;
  double vb = (between + PRIOR_VAGUE_N * PRIOR_VAGUE) / (sites - 1 + PRIOR_VAGUE_N) -
              vw * inv_k / sites;
  vb = vb > var_min ? vb : var_min;
  /* Each page's prior is from its site's other pages: its own estimate
   * in it would count its visits twice (a site of one page would have a
   * prior as narrow as the pooled scatter, around that page). */
  for(size_t i = 0; i < n; i++) {
    if(site[i] >= nsites)
      continue;
    bool own = e[i].rate > 0;
    double ks = g[site[i]].k - own, ss = g[site[i]].s - (own ? log(e[i].rate) : 0);
    out[i] = pooled_prior(ks, ss, vw, vb, mean);
  }
  out[n] = (struct rf_prior){ mean, vw + vb };
  mem_free(g);
}

/* E[e^(-lambda t)] for log(lambda) normal (prior): the chance that a
 * page of the prior shows no change in t seconds, by the trapezoid rule
 * over +-7 sd (the integrand is smooth and its tails negligible). */
static double unchanged_chance(double t, const struct rf_prior *prior)
{
  enum { STEPS = 56 };
  double sd = sqrt(prior->var), h = 14.0 / STEPS, s = 0;
  for(int k = 0; k <= STEPS; k++) {
    double z = -7 + h * k, g = exp(-0.5 * z * z) * (k == 0 || k == STEPS ? 0.5 : 1);
    s += g * exp(-exp(prior->log_rate + sd * z) * t);
  }
  return s * h / sqrt(2 * M_PI);
}

/* The probability that a page seen unchanged for `exposure` seconds (its
 * intervals, and the age of its first copy's Last-Modified) is one of
 * the share pi that never change, the others having log-rates of prior:
 * pi / (pi + (1 - pi) E[e^(-lambda exposure)]), the expectation over the
 * prior. No prior (var <= 0): 0, nothing to tell the two apart by. */
static double rf_static_prob(double exposure, const struct rf_prior *prior, double pi)
{
  if(!prior || prior->var <= 0 || pi <= 0 || exposure < 0)
    return 0;
  if(pi >= 1)
    return 1;
  double m = unchanged_chance(exposure, prior);
  return pi / (pi + (1 - pi) * m);
}

#define STATIC_EM_STEPS 40

double rf_static_share(size_t n, const double *exposure, const struct rf_prior *const *prior,
                       double *p)
{
  double *m = mem_alloc(n * sizeof *m + 1), pi = 0.5;
  if(!m)
    return 0;
  /* The chance of no change under the prior does not depend on pi:
   * computed once, each step of EM is then a sum. */
  for(size_t i = 0; i < n; i++)
    m[i] = exposure[i] < 0 || !prior[i] || prior[i]->var <= 0
           ? -1 : unchanged_chance(exposure[i], prior[i]);
  for(int it = 0; it < STATIC_EM_STEPS; it++) {
    double s = 1;
    for(size_t i = 0; i < n; i++)
      s += m[i] < 0 ? 0 : pi / (pi + (1 - pi) * m[i]);
    pi = s / ((double)n + 2);
  }
  for(size_t i = 0; p && i < n; i++)
    p[i] = m[i] < 0 ? 0 : rf_static_prob(exposure[i], prior[i], pi);
  mem_free(m);
  return pi;
}

double rf_freshness(double lambda, double f)
{
  if(f <= 0)
    return 0;
  if(lambda <= 0)
    return 1;
  double x = lambda / f;
  return -expm1(-x) / x;
}

/* ---- Allocation ---------------------------------------------------------- */

/* x > 0 with 1 - (1 + x) e^-x = y, for 0 < y < 1: the interval (in units
 * of 1/lambda) at which one more visit per second is worth y / lambda. */
static double inv_gain(double y)
{
  double lo = 0, hi = 1;
  while(1 - (1 + hi) * exp(-hi) < y && hi < 1e3)
    hi *= 2;
  double x = y < 0.1 ? sqrt(2 * y) : 0.5 * (lo + hi);
  for(int i = 0; i < 40; i++) {
    double h = 1 - (1 + x) * exp(-x) - y, d = x * exp(-x);
    if(fabs(h) <= 1e-15 * y)
      break;
    if(h > 0)
      hi = x;
    else
      lo = x;
    double nx = d > 0 ? x - h / d : 0.5 * (lo + hi);
    x = nx >= lo && nx <= hi ? nx : 0.5 * (lo + hi);
  }
  return x;
}

/* The optimal frequency of one page for the multiplier mu: its marginal
 * freshness per visit, (w/lambda)(1 - (1 + x) e^-x), equal to mu; none
 * when even the first visit is worth less than mu. */
static double opt_f(double lambda, double w, double mu)
{
  if(lambda <= 0)
    return 0;
  double y = mu * lambda / w;
  return w <= 0 || y >= 1 ? 0 : lambda / inv_gain(y);
}

static double floor_of(const double *floors, size_t i, double fmin)
{
  return floors && floors[i] > fmin ? floors[i] : fmin;
}

double rf_marginal(double lambda, double w, double f)
{
  if(lambda <= 0 || f <= 0)
    return 0;
  double x = lambda / f;
  return (w / lambda) * -expm1(-x) - w / f * exp(-x);
}

bool rf_given_up(double lambda, double w, double mu)
{
  return lambda > 0 && w / lambda <= mu;
}

double rf_optimal_f(double lambda, double w, double mu)
{
  return opt_f(lambda, w, mu);
}

static double page_f(enum rf_policy p, double lambda, double w, double k, double fmin)
{
  double f = p == RF_OPTIMAL ? opt_f(lambda, w, k) : k * lambda;
  return f > fmin ? f : fmin;
}

/* The multiplier (mu, decreasing in the total; or the proportional
 * factor, increasing) that spends the budget, taken on the side that
 * spends no more than it. */
static double solve_k(enum rf_policy p, size_t n, const double *lambda, const double *w,
                      double budget, double fmin, const double *floors)
{
  double lo = log(1e-15), hi = log(1e15);
  for(int it = 0; it < BISECT_STEPS; it++) {
    double mid = 0.5 * (lo + hi), k = exp(mid), sum = 0;
    for(size_t i = 0; i < n; i++)
      sum += page_f(p, lambda[i], w[i], k, floor_of(floors, i, fmin));
    bool over = sum > budget;
    if(over == (p == RF_OPTIMAL))
      lo = mid;
    else
      hi = mid;
  }
  return exp(p == RF_OPTIMAL ? hi : lo);
}

/* What the bisection left unspent. The optimal frequency of a page whose
 * first visit is worth just mu rises from 0 ever more steeply (as
 * 1 / log(1 / (1 - mu lambda / w))): too steeply for mu in a double. The
 * true optimum gives the remainder to that page, the one left out with
 * the largest w / lambda; without one (or when no page is worth
 * anything: every one taken for static), every page gets its share. */
static void spend_rest(enum rf_policy p, size_t n, const double *lambda, const double *w,
                       double budget, double fmin, const double *floors, double *f)
{
  double sum = 0, best = -1;
  size_t at = n;
  for(size_t i = 0; i < n; i++) {
    sum += f[i];
    if(p == RF_OPTIMAL && f[i] <= floor_of(floors, i, fmin) && lambda[i] > 0 && w[i] > 0 &&
       w[i] / lambda[i] > best) {
      best = w[i] / lambda[i];
      at = i;
    }
  }
  if(at < n && budget > sum) {
    f[at] += budget - sum;
    return;
  }
  for(size_t i = 0; i < n; i++)
    f[i] = sum > 0 ? f[i] * budget / sum : budget / (double)n;
}

double rf_allocate(enum rf_policy p, size_t n, const double *lambda, const double *w,
                   double budget, double fmin, double *f)
{
  return rf_allocate_floors(p, n, lambda, w, budget, fmin, NULL, f);
}

double rf_allocate_floors(enum rf_policy p, size_t n, const double *lambda, const double *w,
                          double budget, double fmin, const double *floors, double *f)
{
  if(n == 0)
    return 0;
  double floor_sum = 0;
  for(size_t i = 0; i < n; i++)
    floor_sum += floor_of(floors, i, fmin);
  /* Floors above the budget: the explored pages' floors give way first. */
  if(floors && floor_sum >= budget && (double)n * fmin < budget)
    return rf_allocate_floors(p, n, lambda, w, budget, fmin, NULL, f);
  bool even = p == RF_UNIFORM || floor_sum >= budget;
  double k = even ? 0 : solve_k(p, n, lambda, w, budget, fmin, floors);
  for(size_t i = 0; i < n; i++)
    f[i] = even ? budget / (double)n : page_f(p, lambda[i], w[i], k, floor_of(floors, i, fmin));
  if(!even)
    spend_rest(p, n, lambda, w, budget, fmin, floors, f);
  double wsum = 0, fresh = 0;
  for(size_t i = 0; i < n; i++) {
    wsum += w[i];
    fresh += w[i] * rf_freshness(lambda[i], f[i]);
  }
  return wsum > 0 ? fresh / wsum : 0;
}
