#include "clients/refresh/model.h"

#include <math.h>
#include <string.h>

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

static double page_f(enum rf_policy p, double lambda, double w, double k, double fmin)
{
  double f = p == RF_OPTIMAL ? opt_f(lambda, w, k) : k * lambda;
  return f > fmin ? f : fmin;
}

/* The multiplier (mu, decreasing in the total; or the proportional
 * factor, increasing) that spends the budget, taken on the side that
 * spends no more than it. */
static double solve_k(enum rf_policy p, size_t n, const double *lambda, const double *w,
                      double budget, double fmin)
{
  double lo = log(1e-15), hi = log(1e15);
  for(int it = 0; it < BISECT_STEPS; it++) {
    double mid = 0.5 * (lo + hi), k = exp(mid), sum = 0;
    for(size_t i = 0; i < n; i++)
      sum += page_f(p, lambda[i], w[i], k, fmin);
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
 * the largest w / lambda; without one, every page gets its share. */
static void spend_rest(enum rf_policy p, size_t n, const double *lambda, const double *w,
                       double budget, double fmin, double *f)
{
  double sum = 0, best = -1;
  size_t at = n;
  for(size_t i = 0; i < n; i++) {
    sum += f[i];
    if(p == RF_OPTIMAL && f[i] <= fmin && lambda[i] > 0 && w[i] / lambda[i] > best) {
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
  if(n == 0)
    return 0;
  bool even = p == RF_UNIFORM || (double)n * fmin >= budget;
  double k = even ? 0 : solve_k(p, n, lambda, w, budget, fmin);
  for(size_t i = 0; i < n; i++)
    f[i] = even ? budget / (double)n : page_f(p, lambda[i], w[i], k, fmin);
  if(!even)
    spend_rest(p, n, lambda, w, budget, fmin, f);
  double wsum = 0, fresh = 0;
  for(size_t i = 0; i < n; i++) {
    wsum += w[i];
    fresh += w[i] * rf_freshness(lambda[i], f[i]);
  }
  return wsum > 0 ? fresh / wsum : 0;
}
