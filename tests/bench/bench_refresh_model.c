/* The freshness the refresh crawler's policies promise on a known world:
 * reads testweb's /churn/urls ("URL<TAB>mean_s<TAB>gone_s"; gone pages
 * left out, weight 1 each) and prints, for a budget of RATE visits per
 * second, the analytic time-averaged freshness of the optimal, uniform
 * and proportional allocations computed with the true rates, as JSON
 * (every page visited at least once a day, as wpfs-refresh does).
 *   bench_refresh_model RATE < urls */
#include <stdio.h>
#include <stdlib.h>

#include "clients/refresh/model.h"
#include "common/mem.h"

#define PAGES_MAX 1000000

int main(int argc, char **argv)
{
  double rate = argc > 1 ? strtod(argv[1], NULL) : 0;
  double *lambda = mem_alloc(PAGES_MAX * sizeof *lambda), *w = mem_alloc(PAGES_MAX * sizeof *w),
         *f = mem_alloc(PAGES_MAX * sizeof *f), mean, gone;
  char url[8192];
  size_t n = 0;
  if(rate <= 0 || !lambda || !w || !f) {
    fprintf(stderr, "usage: bench_refresh_model RATE < urls\n");
    return 1;
  }
  while(n < PAGES_MAX && scanf("%8191s %lf %lf", url, &mean, &gone) == 3)
    if(gone == 0) {
      lambda[n] = mean > 0 ? 1 / mean : 0;
      w[n++] = 1;
    }
  printf("{\"pages\":%zu,\"rate\":%g", n, rate);
  static const enum rf_policy pol[] = { RF_OPTIMAL, RF_UNIFORM, RF_PROPORTIONAL };
  for(size_t i = 0; i < 3; i++)
    printf(",\"%s\":%.4f", rf_policy_name(pol[i]),
           rf_allocate(pol[i], n, lambda, w, rate, 1.0 / 86400, f));
  printf("}\n");
  mem_free(lambda);
  mem_free(w);
  mem_free(f);
  return 0;
}
