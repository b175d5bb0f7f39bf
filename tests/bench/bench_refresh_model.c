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
 * with the uniform, proportional and optimal figures beside it.
 *
 *   bench_refresh_model --split CHANGES A_S B_S < table
 * the same, and what the uniform, proportional and optimal allocations
 * (true rates, the same fetches) would have measured over [A_S, B_S]
 * (seconds after the start) on the change times that happened, CHANGES
 * being testweb's /churn/changes (refresh_realized.h): realized_uniform,
 * realized_proportional, realized_optimal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/refresh/model.h"
#include "common/mem.h"
#include "tests/bench/refresh_realized.h"

#define PAGES_MAX 1000000
#define FLOOR     (1.0 / 86400)
#define CHANGES_MAX 4000000

/* Change times per page j, seconds: hist.c[hist.at[j] .. hist.at[j + 1]). */
struct history {
  double *c;
  size_t *at, pages;
};

/* Reads /churn/changes ("j<TAB>born t1 t2 ...", ms; born < 0 a change
 * before the start, 0 none known); pages in order 0, 1, ... */
static int history_read(const char *path, struct history *h)
{
  FILE *fp = fopen(path, "r");
  if(!fp) {
    fprintf(stderr, "bench_refresh_model: cannot open %s\n", path);
    return 1;
  }
  h->c = mem_alloc(CHANGES_MAX * sizeof *h->c);
  h->at = mem_alloc((PAGES_MAX + 1) * sizeof *h->at);
  h->pages = 0;
  size_t n = 0;
  long j;
  int rc = !h->c || !h->at;
  while(!rc && fscanf(fp, "%ld", &j) == 1) {
    if(j != (long)h->pages || h->pages >= PAGES_MAX) {
      rc = 1;
      break;
    }
    h->at[h->pages++] = n;
    double t;
    bool first = true;
    int ch;
    while((ch = fgetc(fp)) != EOF && ch != '\n') {
      if(ch == ' ' || ch == '\t')
        continue;
      ungetc(ch, fp);
      if(fscanf(fp, "%lf", &t) != 1 || n >= CHANGES_MAX ||
         (n > h->at[h->pages - 1] && t / 1000 <= h->c[n - 1])) {  /* ascending */
        rc = 1;
        break;
      }
      if(!first || t < 0)
        h->c[n++] = t / 1000;
      first = false;
    }
  }
  h->at[h->pages] = n;
  fclose(fp);
  if(rc)
    fprintf(stderr, "bench_refresh_model: %s: not a change history (or over %d changes)\n", path,
            CHANGES_MAX);
  return rc;
}

/* The mean over the table's pages of what visit rates f would have
 * measured over [a, b] on the history. */
static double realized(const struct history *h, size_t n, const long *jj, const double *lambda,
                       const double *f, double a, double b)
{
  double s = 0;
  for(size_t i = 0; i < n; i++) {
    size_t j = (size_t)jj[i], lo = j < h->pages ? h->at[j] : 0, hi = j < h->pages ? h->at[j + 1] : 0;
    s += rr_freshness(h->c + lo, hi - lo, lambda[i], f[i] > 0 ? 1 / f[i] : 0, a, b);
  }
  return n ? s / (double)n : 0;
}

static double mean_fresh(size_t n, const double *lambda, const double *f)
{
  double s = 0;
  for(size_t i = 0; i < n; i++)
    s += rf_freshness(lambda[i], f[i]);
  return n ? s / (double)n : 0;
}

static int split(double *lambda, double *w, double *f, const struct history *h, double wa,
                 double wb)
{
  double *est = mem_alloc(PAGES_MAX * sizeof *est), *pf = mem_alloc(PAGES_MAX * sizeof *pf),
         *af = mem_alloc(PAGES_MAX * sizeof *af), *ew = mem_alloc(PAGES_MAX * sizeof *ew), mean,
         e, p, a, m, ps, budget = 0, meas = 0, esum = 0;
  long j, *jj = mem_alloc(PAGES_MAX * sizeof *jj);
  size_t n = 0, ne = 0;
  double ru = 0, rp = 0, ro = 0;
  if(!est || !pf || !af || !ew || !jj)
    return 1;
  while(n < PAGES_MAX &&
        scanf("%ld %lf %lf %lf %lf %lf %lf", &j, &mean, &e, &p, &a, &m, &ps) == 7) {
    jj[n] = j;
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
  size_t missing = 0;
  while(h && missing < n && jj[missing] >= 0 && (size_t)jj[missing] < h->pages)
    missing++;
  if(h && missing < n) {
    fprintf(stderr, "bench_refresh_model: page %ld of the table is not in the change history\n",
            jj[missing]);
    mem_free(jj);
    mem_free(est);
    mem_free(pf);
    mem_free(af);
    mem_free(ew);
    return 1;
  }
  double opt = rf_allocate(RF_OPTIMAL, n, lambda, w, budget, FLOOR, f);
  if(h)
    ro = realized(h, n, jj, lambda, f, wa, wb);
  double uni = rf_allocate(RF_UNIFORM, n, lambda, w, budget, FLOOR, f);
  if(h)
    ru = realized(h, n, jj, lambda, f, wa, wb);
  double prop = rf_allocate(RF_PROPORTIONAL, n, lambda, w, budget, FLOOR, f);
  if(h)
    rp = realized(h, n, jj, lambda, f, wa, wb);
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
         "\"loss_allocation\":%.4f,\"loss_rate\":%.4f,\"loss_spacing\":%.4f", n, budget, psum,
         opt, uni, prop, eopt, plan, ach, meas, opt - eopt, eopt - plan, plan - ach, ach - meas);
  if(h)
    printf(",\"realized_uniform\":%.4f,\"realized_proportional\":%.4f,\"realized_optimal\":%.4f",
           ru, rp, ro);
  printf("}\n");
  mem_free(jj);
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
    fprintf(stderr, "usage: bench_refresh_model RATE < urls | --split [CHANGES A_S B_S] < table\n");
    return 1;
  }
  int rc = 0;
  if(by_split && argc == 5) {
    struct history h = { 0 };
    double a = strtod(argv[3], NULL), b = strtod(argv[4], NULL);
    if(!(a >= 0 && b > a))
      fprintf(stderr, "usage: bench_refresh_model --split CHANGES A_S B_S < table (0 <= A_S < B_S)\n");
    rc = a >= 0 && b > a ? history_read(argv[2], &h) : 1;
    if(!rc)
      rc = split(lambda, w, f, &h, a, b);
    mem_free(h.c);
    mem_free(h.at);
  } else if(by_split) {
    rc = split(lambda, w, f, NULL, 0, 0);
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
