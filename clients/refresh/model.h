#ifndef WPFS_CLIENTS_REFRESH_MODEL_H
#define WPFS_CLIENTS_REFRESH_MODEL_H
/* The refresh crawler's model, pure arithmetic (docs/refresh.md):
 *  - change rates estimated from what each visit saw, for irregular visit
 *    intervals (Cho and Garcia-Molina's maximum-likelihood estimator for
 *    Poisson change under irregular access, with the half-observation
 *    correction that makes it their bias-reduced estimator when the
 *    intervals are equal);
 *  - the time-averaged freshness of a page of rate lambda visited f times
 *    per second at even intervals;
 *  - revisit frequencies for a fetch budget: optimal (the Lagrange
 *    solution that maximises the weighted freshness), uniform,
 *    proportional to the rate. */
#include <stdbool.h>
#include <stddef.h>

enum rf_policy { RF_OPTIMAL, RF_UNIFORM, RF_PROPORTIONAL };

/* "optimal", "uniform", "proportional"; false for anything else. */
bool        rf_policy_parse(const char *s, enum rf_policy *out);
const char *rf_policy_name(enum rf_policy p);

/* One visit after the previous one: interval_s since it, and whether the
 * page had changed. */
struct rf_obs {
  double interval_s;
  bool   changed;
};

/* Changes per second from n observations (n >= 1; 0 gives prior). No
 * change seen: half a change over the whole time observed, so a page
 * never seen to change is visited more and more rarely, never never. */
double rf_estimate(const struct rf_obs *o, size_t n, double prior);

/* Time-averaged freshness of a Poisson page of rate lambda (1/s) visited
 * every 1/f seconds: (f/lambda)(1 - e^(-lambda/f)); 1 when lambda is 0,
 * 0 when f is 0. */
double rf_freshness(double lambda, double f);

/* Visits per second for each of n pages, summing to budget (visits per
 * second in all): f[i] for rate lambda[i] > 0 and weight w[i] >= 0.
 * Every page gets at least fmin (a floor that keeps given-up pages
 * observed; the budget left after the floors is what is allocated).
 * Returns the expected weighted freshness (sum w F / sum w). */
double rf_allocate(enum rf_policy p, size_t n, const double *lambda, const double *w,
                   double budget, double fmin, double *f);

#endif
