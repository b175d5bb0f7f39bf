/* The freshness the refresh crawler's policies promise on a known world.
 *
 *   bench_refresh_model RATE < urls
 * reads testweb's /churn/urls ("URL<TAB>mean_s<TAB>gone_s"; gone pages
 * left out, weight 1 each) and prints, for a budget of RATE visits per
 * second, the analytic time-averaged freshness of the optimal, uniform
 * and proportional allocations computed with the true rates, as JSON
 * (every page visited at least once a day, as wpfs-refresh does).
 *
 *   bench_refresh_model --split < table
 * reads one line per page, "j true_mean_s estimated_rate planned_f
 * achieved_f measured p_static" (true_mean_s 0: never changes;
 * estimated_rate 0: none yet, the mean of the others is used, as the
 * crawler does; p_static the crawler's chance that the page never
 * changes, which weighs its visits as it does in the crawler), and
 * splits the loss of the measured freshness against the optimum for the
 * fetches achieved (docs/refresh.md, "Where the freshness goes"):
 *   estimation  optimum(true) - true freshness of optimum(estimated)
 *   allocation  that - true freshness of the planned visit rates
 *   rate        that - true freshness of the achieved visit rates
 *   spacing     that - measured (uneven intervals, cached copies)
 * with the uniform, proportional and optimal figures beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/refresh/model.h"
#include "common/mem.h"

#define PAGES_MAX 1000000
#define FLOOR     (1.0 / 86400)

static double mean_fresh(size_t n, const double *lambda, const double *f)
{
  double s = 0;
  for(size_t i = 0; i < n; i++)
    s += rf_freshness(lambda[i], f[i]);
  return n ? s / (double)n : 0;
}

static int split(double *lambda, double *w, double *f)
{
  double *est = mem_alloc(PAGES_MAX * sizeof *est), *pf = mem_alloc(PAGES_MAX * sizeof *pf),
         *af = mem_alloc(PAGES_MAX * sizeof *af), *ew = mem_alloc(PAGES_MAX * sizeof *ew), mean,
         e, p, a, m, ps, budget = 0, meas = 0, esum = 0;
  long j;
  size_t n = 0, ne = 0;
  if(!est || !pf || !af || !ew)
    return 1;
  while(n < PAGES_MAX &&
        scanf("%ld %lf %lf %lf %lf %lf %lf", &j, &mean, &e, &p, &a, &m, &ps) == 7) {
    ew[n] = ps >= 0 && ps <= 1 ? 1 - ps : 1;
    lambda[n] = mean > 0 ? 1 / mean : 0;
    w[n] = 1;
    est[n] = e;
    pf[n] = p;
    af[n] = a;
    budget += a;
    meas += m;
    esum += e;
    ne += e > 0;
    n++;
  }
  for(size_t i = 0; i < n; i++)
    est[i] = est[i] > 0 ? est[i] : ne ? esum / (double)ne : 1;
  double opt = rf_allocate(RF_OPTIMAL, n, lambda, w, budget, FLOOR, f);
  double uni = rf_allocate(RF_UNIFORM, n, lambda, w, budget, FLOOR, f);
  double prop = rf_allocate(RF_PROPORTIONAL, n, lambda, w, budget, FLOOR, f);
  rf_allocate(RF_OPTIMAL, n, est, ew, budget, FLOOR, f);
  double eopt = mean_fresh(n, lambda, f), plan = mean_fresh(n, lambda, pf),
         ach = mean_fresh(n, lambda, af);
  meas = n ? meas / (double)n : 0;
  double psum = 0;
  for(size_t i = 0; i < n; i++)
    psum += pf[i];
  printf("{\"pages\":%zu,\"fetches_per_s\":%.4f,\"planned_per_s\":%.4f,\"optimal\":%.4f,"
         "\"uniform\":%.4f,\"proportional\":%.4f,\"estimated_optimal\":%.4f,\"planned\":%.4f,"
         "\"achieved\":%.4f,\"measured\":%.4f,\"loss_estimation\":%.4f,"
         "\"loss_allocation\":%.4f,\"loss_rate\":%.4f,\"loss_spacing\":%.4f}\n", n, budget, psum,
         opt, uni, prop, eopt, plan, ach, meas, opt - eopt, eopt - plan, plan - ach, ach - meas);
  mem_free(est);
  mem_free(pf);
  mem_free(af);
  mem_free(ew);
  return 0;
}

int main(int argc, char **argv)
{
  bool by_split = argc > 1 && !strcmp(argv[1], "--split");
  double rate = argc > 1 && !by_split ? strtod(argv[1], NULL) : 0;
  double *lambda = mem_alloc(PAGES_MAX * sizeof *lambda), *w = mem_alloc(PAGES_MAX * sizeof *w),
         *f = mem_alloc(PAGES_MAX * sizeof *f), mean, gone;
  char url[8192];
  size_t n = 0;
  if((rate <= 0 && !by_split) || !lambda || !w || !f) {
    fprintf(stderr, "usage: bench_refresh_model RATE < urls | --split < table\n");
    return 1;
  }
  int rc = 0;
  if(by_split) {
    rc = split(lambda, w, f);
  } else {
    while(n < PAGES_MAX && scanf("%8191s %lf %lf", url, &mean, &gone) == 3)
      if(gone == 0) {
        lambda[n] = mean > 0 ? 1 / mean : 0;
        w[n++] = 1;
      }
    printf("{\"pages\":%zu,\"rate\":%g", n, rate);
    static const enum rf_policy pol[] = { RF_OPTIMAL, RF_UNIFORM, RF_PROPORTIONAL };
    for(size_t i = 0; i < 3; i++)
      printf(",\"%s\":%.4f", rf_policy_name(pol[i]),
             rf_allocate(pol[i], n, lambda, w, rate, FLOOR, f));
    printf("}\n");
  }
  mem_free(lambda);
  mem_free(w);
  mem_free(f);
  return rc;
}
