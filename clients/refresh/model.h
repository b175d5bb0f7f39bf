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
#include <stdint.h>

enum rf_policy { RF_OPTIMAL, RF_UNIFORM, RF_PROPORTIONAL };

/* "optimal", "uniform", "proportional"; false for anything else. */
bool        rf_policy_parse(const char *s, enum rf_policy *out);
const char *rf_policy_name(enum rf_policy p);

/* One visit after the previous one: interval_s since it, and whether the
 * page had changed. With lm (the site's Last-Modified, trusted), age_s is
 * how long the copy fetched had been unchanged: the time since its last
 * modification when it changed, unused when it did not. A first visit
 * with a Last-Modified is an observation of interval 0, changed, lm. */
struct rf_obs {
  double interval_s;
  bool   changed;
  bool   lm;
  double age_s;
};

/* A normal prior on log(rate): mean and variance (var <= 0: none). */
struct rf_prior {
  double log_rate, var;
};

/* An estimate: the rate and the standard deviation of its log. */
struct rf_est {
  double rate, sd;
};

/* Changes per second from n observations (n >= 1; 0 gives prior). No
 * change seen: half a change over the whole time observed, so a page
 * never seen to change is visited more and more rarely, never never. */
double rf_estimate(const struct rf_obs *o, size_t n, double prior);

/* Changes per second from n observations of any kind (n >= 1): the
 * maximum of the likelihood times the prior (the posterior mode), where
 * an observation with a known last modification contributes
 * log(lambda) - lambda age (changed) or -lambda interval (unchanged), and
 * one without contributes as in rf_estimate (with its half-observation
 * correction when any observation has no Last-Modified). Without a prior
 * it is the maximum-likelihood estimate (X / exposure when every
 * observation has a Last-Modified), and 0.5 / time observed when no change
 * was seen. sd is from the curvature of the log posterior at its mode. */
struct rf_est rf_estimate_post(const struct rf_obs *o, size_t n, const struct rf_prior *prior);

/* Two-part prior: a share pi of pages never change, the others have
 * log-rates of prior (model.c: rf_static_prob, a page's chance). */
/* The share of pages that never change, from the n pages' priors and
 * their exposures (a negative exposure: the page was seen to change), by
 * expectation-maximisation with one pseudo-page of each kind. p[i] gets
 * each page's probability of never changing (may be NULL). */
double rf_static_share(size_t n, const double *exposure, const struct rf_prior *const *prior,
                       double *p);

/* The priors of pages grouped by site (hierarchical, empirical Bayes):
 * page log-rates scatter around their site's mean with one variance
 * pooled over all sites (less the mean sampling variance, each sd at
 * most sd_cap, at least var_min), the site means around the mean of all
 * with their own variance (less what the pages' scatter explains). A
 * page's prior is the mean of its site's other pages shrunk toward the
 * mean of all by how many they are, with the pooled variance plus the
 * uncertainty of that mean. e[i] (rate 0: left out) is of site site[i]
 * < nsites; out[n + 1]: each page's prior, then that of a page of a new
 * site. Fewer than three estimates in all: no priors (var 0). */
void rf_priors_pooled(const struct rf_est *e, const uint32_t *site, size_t n, size_t nsites,
                      double var_min, double sd_cap, struct rf_prior *out);

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
/* The marginal freshness of one more visit per second to a page of rate
 * lambda and weight w visited f times a second: the multiplier mu of an
 * optimal allocation, read off any page it did not give up on. */
double rf_marginal(double lambda, double w, double f);
/* Whether the optimal allocation of multiplier mu gives up on a page (its
 * first visit is worth less than mu: w / lambda <= mu). */
bool rf_given_up(double lambda, double w, double mu);
/* Visits per second the optimal allocation of multiplier mu gives a page
 * (0 when given up on). */
double rf_optimal_f(double lambda, double w, double mu);

/* The same with a floor per page (floors[i] >= fmin; NULL: fmin each):
 * the pages still being explored (pages.h) keep their floor, the rest of
 * the budget is allocated by policy. */
double rf_allocate_floors(enum rf_policy p, size_t n, const double *lambda, const double *w,
                          double budget, double fmin, const double *floors, double *f);

#endif
