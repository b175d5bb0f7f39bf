/* clients/refresh/model.c: freshness against its closed form; the rate
 * estimator on known Poisson rates with irregular visit intervals (and
 * the naive changes-over-time estimator it must beat); the allocation
 * against a brute-force search on small cases, and the classic ordering
 * optimal >= uniform >= proportional on a skewed mix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "clients/refresh/model.c"
#include "clients/refresh/model.h"

static uint64_t rng = 88172645463325252ull, rng_lm = 0x2545f4914f6cdd1dull;
static double urand_of(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) / 9007199254740992.0;
}

static double urand(void)
{
  return urand_of(&rng);
}

/* The tests of Last-Modified draw from their own sequence, so the other
 * tests' cases stay what they were. */
static double urand_lm(void)
{
  return urand_of(&rng_lm);
}

static void test_freshness(void **st)
{
  (void)st;
  assert_true(fabs(rf_freshness(1, 1) - (1 - exp(-1))) < 1e-12);
  assert_true(fabs(rf_freshness(0.1, 1) - 10 * (1 - exp(-0.1))) < 1e-12);
  assert_true(rf_freshness(0, 0.5) == 1);
  assert_true(rf_freshness(1, 0) == 0);
  /* more visits, fresher */
  assert_true(rf_freshness(1, 2) > rf_freshness(1, 1));
}

static void test_policy_names(void **st)
{
  (void)st;
  enum rf_policy p;
  assert_true(rf_policy_parse("uniform", &p) && p == RF_UNIFORM);
  assert_true(rf_policy_parse("optimal", &p) && p == RF_OPTIMAL);
  assert_true(rf_policy_parse("proportional", &p) && p == RF_PROPORTIONAL);
  assert_false(rf_policy_parse("greedy", &p));
  assert_false(rf_policy_parse(NULL, &p));
  assert_string_equal(rf_policy_name(RF_PROPORTIONAL), "proportional");
}

/* Equal intervals: the bias-reduced estimator's closed form. */
static void test_estimate_regular(void **st)
{
  (void)st;
  struct rf_obs o[10];
  for(int i = 0; i < 10; i++)
    o[i] = (struct rf_obs){ 20, i % 3 == 0, false, 0 };  /* 4 changes in 10 */
  double want = -log((10 - 4 + 0.5) / (10 + 0.5)) / 20;
  assert_true(fabs(rf_estimate(o, 10, 1) - want) < 1e-9 * want);
  for(int i = 0; i < 10; i++)
    o[i].changed = true;  /* all changed: finite */
  double all = rf_estimate(o, 10, 1);
  assert_true(isfinite(all) && fabs(all - log(21) / 20) < 1e-9);
  assert_true(rf_estimate(o, 0, 0.25) == 0.25);
}

/* Never seen to change: a positive rate that falls as the page is watched
 * longer. */
static void test_estimate_no_change(void **st)
{
  (void)st;
  struct rf_obs o[8];
  for(int i = 0; i < 8; i++)
    o[i] = (struct rf_obs){ 60, false, false, 0 };
  double r4 = rf_estimate(o, 4, 1), r8 = rf_estimate(o, 8, 1);
  assert_true(r4 > 0 && r8 > 0 && r8 < r4);
  assert_true(fabs(r8 - 0.5 / 480) < 1e-12);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Known rates, 16 visits at irregular intervals (0.2 to 3 times the mean
 * change interval, uniformly): the median ratio of estimate to truth is
 * near 1, where changes-over-time underestimates (it cannot see two
 * changes between visits). */
static void test_estimate_accuracy(void **st)
{
  (void)st;
  enum { TRIALS = 2000, VISITS = 16 };
  static double est[TRIALS], naive[TRIALS];
  const double rates[] = { 1.0 / 5, 1.0 / 30, 1.0 / 200 };
  for(size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
    double lambda = rates[r];
    for(int t = 0; t < TRIALS; t++) {
      struct rf_obs o[VISITS];
      double total = 0;
      int x = 0;
      for(int i = 0; i < VISITS; i++) {
        double iv = (0.2 + 2.8 * urand()) / lambda;
        bool changed = urand() < -expm1(-lambda * iv);
        o[i] = (struct rf_obs){ iv, changed, false, 0 };
        total += iv;
        x += changed;
      }
      est[t] = rf_estimate(o, VISITS, 1) / lambda;
      naive[t] = (x ? x : 0.5) / total / lambda;
    }
    qsort(est, TRIALS, sizeof est[0], cmp_double);
    qsort(naive, TRIALS, sizeof naive[0], cmp_double);
    double med = est[TRIALS / 2], nmed = naive[TRIALS / 2];
    print_message("rate 1/%.0f s: median estimate/truth %.3f (naive %.3f), "
                  "quartiles %.3f..%.3f\n", 1 / lambda, med, nmed, est[TRIALS / 4],
                  est[3 * TRIALS / 4]);
    assert_true(med > 0.9 && med < 1.1);
    assert_true(est[TRIALS / 4] > 0.6 && est[3 * TRIALS / 4] < 1.5);
    assert_true(nmed < 0.8);
  }
}

/* One visit interval iv of a Poisson page of rate lambda: whether it
 * changed, and the time from its last change to the visit. */
static struct rf_obs simulate(double lambda, double iv)
{
  double t = -log(1 - urand_lm()) / lambda, last = -1;
  while(t < iv) {
    last = t;
    t += -log(1 - urand_lm()) / lambda;
  }
  return (struct rf_obs){ iv, last >= 0, true, last >= 0 ? iv - last : 0 };
}

/* Known last modifications (the estimator of Cho and Garcia-Molina for
 * that case): on the same visits, the median is near the truth and the
 * typical error (the median of |log(estimate / truth)|) smaller than
 * without them, much smaller for pages changing faster than they are
 * visited, where a visit without Last-Modified only says "changed". */
static void test_estimate_lm(void **st)
{
  (void)st;
  enum { TRIALS = 2000, VISITS = 8 };
  static double lm[TRIALS], irr[TRIALS], elm[TRIALS], eirr[TRIALS];
  const double rates[] = { 1.0 / 3, 1.0 / 30, 1.0 / 600 };
  for(size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
    double lambda = rates[r];
    for(int t = 0; t < TRIALS; t++) {
      struct rf_obs o[VISITS], no[VISITS];
      for(int i = 0; i < VISITS; i++) {
        o[i] = simulate(lambda, 10 + 50 * urand_lm());  /* visits every 10..60 s */
        no[i] = o[i];
        no[i].lm = false;
      }
      lm[t] = rf_estimate_post(o, VISITS, NULL).rate / lambda;
      irr[t] = rf_estimate_post(no, VISITS, NULL).rate / lambda;
      elm[t] = fabs(log(lm[t]));
      eirr[t] = fabs(log(irr[t]));
      /* without Last-Modified it is the irregular estimator */
      assert_true(fabs(irr[t] * lambda - rf_estimate(no, VISITS, 1)) < 1e-6 * irr[t] * lambda);
    }
    qsort(lm, TRIALS, sizeof lm[0], cmp_double);
    qsort(irr, TRIALS, sizeof irr[0], cmp_double);
    qsort(elm, TRIALS, sizeof elm[0], cmp_double);
    qsort(eirr, TRIALS, sizeof eirr[0], cmp_double);
    print_message("rate 1/%.0f s: median estimate/truth with Last-Modified %.3f (without "
                  "%.3f), median |log error| %.3f (without %.3f)\n", 1 / lambda,
                  lm[TRIALS / 2], irr[TRIALS / 2], elm[TRIALS / 2], eirr[TRIALS / 2]);
    if(r < 2)  /* changes seen */
      assert_true(lm[TRIALS / 2] > 0.85 && lm[TRIALS / 2] < 1.2);
    assert_true(elm[TRIALS / 2] <= eirr[TRIALS / 2] * 1.05);
    if(r == 0)  /* a 3 s page seen every 10..60 s: only the dates tell */
      assert_true(elm[TRIALS / 2] < 0.3 * eirr[TRIALS / 2]);
  }
}

/* The site prior: one change seen shortly after a Last-Modified (a rate
 * of 1/2 s taken alone) under a narrow prior at 1/100 s stays near the
 * prior; under a wide one near the data; sixteen visits' data outweigh a
 * moderate prior. The uncertainty falls as visits come. */
static void test_estimate_prior(void **st)
{
  (void)st;
  struct rf_obs one = { 30, true, true, 2 }, many[16];
  struct rf_prior narrow = { log(0.01), 0.04 }, wide = { log(0.01), 100 }, mid = { log(0.01), 1 };
  double alone = rf_estimate_post(&one, 1, NULL).rate;
  assert_true(fabs(alone - 0.5) < 1e-6);
  double shrunk = rf_estimate_post(&one, 1, &narrow).rate;
  assert_true(shrunk > 0.005 && shrunk < 0.02);
  assert_true(rf_estimate_post(&one, 1, &wide).rate > 0.3);
  for(int i = 0; i < 16; i++)
    many[i] = (struct rf_obs){ 30, true, true, 2 };
  struct rf_est m = rf_estimate_post(many, 16, &mid);
  assert_true(m.rate > 0.2 && m.rate < 0.5);
  assert_true(m.sd < rf_estimate_post(&one, 1, &mid).sd);
  assert_true(fabs(rf_estimate_post(many, 16, NULL).sd - 0.25) < 0.01);  /* 1/sqrt(16) */
  /* no change seen and no prior: half a change over the time observed */
  struct rf_obs none[4];
  for(int i = 0; i < 4; i++)
    none[i] = (struct rf_obs){ 60, false, true, 0 };
  assert_true(fabs(rf_estimate_post(none, 4, NULL).rate - 0.5 / 240) < 1e-12);
  /* with a prior: finite, below the prior, and falling with time */
  double r4 = rf_estimate_post(none, 4, &mid).rate, r2 = rf_estimate_post(none, 2, &mid).rate;
  assert_true(r4 > 0 && r4 < r2 && r2 < 0.01);
}

/* Site priors, hierarchical: ten sites of six pages each, alike within
 * a site (log-rates +-0.3 around the site's), the sites far apart. A
 * page's prior is its site's other pages' mean, narrow (the pooled
 * scatter and one observation of a vague variance); a page of a site
 * with no other estimate gets the mean of all, wide (the sites' spread);
 * its own estimate is not in its prior. */
static void test_priors_pooled(void **st)
{
  (void)st;
  enum { SITES = 10, PER = 6, N = SITES * PER + 1 };
  static const double off[PER] = { -0.3, -0.1, 0.1, 0.3, -0.2, 0.2 };
  struct rf_est e[N];
  uint32_t site[N];
  struct rf_prior pr[N + 1];
  for(int s = 0; s < SITES; s++)
    for(int k = 0; k < PER; k++) {
      e[s * PER + k] = (struct rf_est){ exp(-2 - 0.5 * s + off[k]), 0.05 };
      site[s * PER + k] = (uint32_t)s;
    }
  e[N - 1] = (struct rf_est){ exp(-9.0), 0.05 };  /* alone on its site */
  site[N - 1] = SITES;
  rf_priors_pooled(e, site, N, SITES + 1, 0.04, 2, pr);
  for(int s = 0; s < SITES; s++) {
    const struct rf_prior *q = &pr[s * PER];  /* off -0.3: the others' mean is +0.06 */
    assert_true(fabs(q->log_rate - (-2 - 0.5 * s + 0.06)) < 0.05);
    assert_true(q->var > 0.04 && q->var < 0.2);  /* the sites spread over 2 */
  }
  print_message("alone: prior %.2f var %.2f; of all %.2f var %.2f\n", pr[N - 1].log_rate,
                pr[N - 1].var, pr[N].log_rate, pr[N].var);
  assert_true(pr[N - 1].var > 1);  /* the spread of the sites */
  assert_true(fabs(pr[N - 1].log_rate - pr[N].log_rate) < 1e-9);
  assert_true(pr[N - 1].log_rate > -5);  /* not around its own -9 */
  /* Sites whose pages scatter widely (+-1.5), and one site of three
   * alike: a page there gets a wide prior, the scatter of pages within
   * sites, not the 0.04 that three alike pages alone would say. */
  for(int s = 0; s < SITES; s++)
    for(int k = 0; k < PER; k++)
      e[s * PER + k].rate = exp(-4 + (s < SITES - 1 ? 5 * off[k] : 0.01 * k));
  for(int k = 3; k < PER; k++)
    e[(SITES - 1) * PER + k].rate = 0;
  rf_priors_pooled(e, site, N, SITES + 1, 0.04, 2, pr);
  print_message("three alike among wide sites: prior var %.2f\n", pr[(SITES - 1) * PER + 4].var);
  assert_true(pr[(SITES - 1) * PER + 4].var > 1);
  /* fewer than three estimates in all: no prior */
  rf_priors_pooled(e, site, 2, SITES + 1, 0.04, 2, pr);
  assert_true(pr[0].var == 0 && pr[2].var == 0);
}

/* The two-part prior: the chance that a page seen unchanged is one that
 * never changes. Against its closed form for a prior of one rate, and
 * against a Monte Carlo average over a wide prior; a narrow prior of
 * fast pages makes a long-unchanged page static, a wide one cannot tell. */
static void test_static_prob(void **st)
{
  (void)st;
  struct rf_prior one = { log(0.1), 1e-10 }, wide = { log(0.01), 3.4 };
  for(double t = 1; t < 100; t *= 3) {
    double want = 0.1 / (0.1 + 0.9 * exp(-0.1 * t));
    assert_true(fabs(rf_static_prob(t, &one, 0.1) - want) < 1e-6);
  }
  double m = 0, t = 300;
  for(int i = 0; i < 200000; i++) {  /* normal by Box-Muller */
    double z = sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
    m += exp(-exp(wide.log_rate + sqrt(wide.var) * z) * t) / 200000;
  }
  double want = 0.1 / (0.1 + 0.9 * m), got = rf_static_prob(t, &wide, 0.1);
  print_message("wide prior, 300 s unchanged: %.4f (Monte Carlo %.4f)\n", got, want);
  assert_true(fabs(got - want) < 0.005);
  assert_true(got > 0.15 && got < 0.6);
  struct rf_prior narrow = { log(0.1), 0.04 };
  assert_true(rf_static_prob(300, &narrow, 0.1) > 0.999);
  assert_true(rf_static_prob(1, &narrow, 0.1) < 0.12);
  assert_true(rf_static_prob(300, NULL, 0.1) == 0);
  assert_true(rf_static_prob(-1, &narrow, 0.1) == 0);
}

/* The share of pages that never change, by EM: 2,000 pages, a share of
 * them static, the others of log-rates N(log 1/200, 1) watched 600 s. */
static void test_static_share(void **st)
{
  (void)st;
  enum { N = 2000 };
  static double t[N], p[N];
  static const struct rf_prior *pp[N];
  static const struct rf_prior prior = { -5.3, 1 };
  for(double share = 0; share < 0.5; share += 0.2) {
    double stat_p = 0, moving_p = 0;
    int nstat = 0;
    for(int i = 0; i < N; i++) {
      bool never = urand() < share;
      double z = sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
      double lambda = exp(prior.log_rate + z);
      bool changed = !never && urand() > exp(-lambda * 600);
      t[i] = changed ? -1 : 600;
      pp[i] = &prior;
      nstat += never;
    }
    double got = rf_static_share(N, t, pp, p);
    for(int i = 0; i < N; i++)
      if(t[i] >= 0)
        stat_p += p[i];
      else
        moving_p += p[i];
    print_message("share %.1f: estimated %.3f\n", share, got);
    assert_true(fabs(got - (double)nstat / N) < 0.04);
    assert_true(moving_p == 0);  /* seen to change: not static */
    assert_true(fabs(stat_p - got * N) < 2);  /* EM's fixed point: pi is the mean p */
  }
}

/* Per-page floors: kept, the budget spent, the rest allocated as without
 * them among the other pages; floors above the budget give way. */
static void test_allocate_floors(void **st)
{
  (void)st;
  enum { N = 50 };
  double lambda[N], w[N], f[N], g[N], floors[N] = { 0 };
  for(int i = 0; i < N; i++) {
    lambda[i] = i < 5 ? 1.0 : 1.0 / (5 + 10 * i);
    w[i] = 1;
  }
  rf_allocate(RF_OPTIMAL, N, lambda, w, 1.0, 1e-5, f);
  assert_true(f[0] < 2e-5);  /* given up */
  floors[0] = 0.02;
  rf_allocate_floors(RF_OPTIMAL, N, lambda, w, 1.0, 1e-5, floors, g);
  double sum = 0;
  for(int i = 0; i < N; i++)
    sum += g[i];
  assert_true(fabs(sum - 1.0) < 1e-9);
  assert_true(g[0] >= 0.02 - 1e-12);
  assert_true(g[10] < f[10] && g[10] > 0.9 * f[10]);  /* the others pay for it */
  for(int i = 0; i < N; i++)
    floors[i] = 0.1;  /* 5 visits/s of floors for 1 */
  rf_allocate_floors(RF_OPTIMAL, N, lambda, w, 1.0, 1e-5, floors, g);
  assert_true(fabs(g[10] - f[10]) < 1e-9);
  /* no page worth a visit (every weight 0: all taken for static): even */
  double zero[N] = { 0 };
  rf_allocate(RF_OPTIMAL, N, lambda, zero, 1.0, 1e-5, g);
  for(int i = 0; i < N; i++)
    assert_true(fabs(g[i] - 1.0 / N) < 1e-12);
}

static double objective(size_t n, const double *lambda, const double *w, const double *f)
{
  double s = 0, ws = 0;
  for(size_t i = 0; i < n; i++) {
    s += w[i] * rf_freshness(lambda[i], f[i]);
    ws += w[i];
  }
  return s / ws;
}

/* Three pages: every split of the budget on a grid, against the optimal
 * allocation. */
static void test_allocate_bruteforce(void **st)
{
  (void)st;
  for(int c = 0; c < 20; c++) {
    double lambda[3], w[3], f[3], g[3], best = -1, budget = 0.05 + urand();
    for(int i = 0; i < 3; i++) {
      lambda[i] = exp(log(1e-3) + urand() * log(1e4));  /* 1e-3 .. 10 per second */
      w[i] = 0.2 + 2 * urand();
    }
    double got = rf_allocate(RF_OPTIMAL, 3, lambda, w, budget, 0, f);
    assert_true(fabs(f[0] + f[1] + f[2] - budget) < 1e-9 * budget);
    assert_true(fabs(got - objective(3, lambda, w, f)) < 1e-12);
    enum { STEPS = 400 };
    for(int a = 0; a <= STEPS; a++)
      for(int b = 0; a + b <= STEPS; b++) {
        g[0] = budget * a / STEPS;
        g[1] = budget * b / STEPS;
        g[2] = budget - g[0] - g[1];
        double v = objective(3, lambda, w, g);
        best = v > best ? v : best;
      }
    if(got < best - 1e-9)
      print_message("case %d: got %.9f best %.9f l %g %g %g w %g %g %g f %g %g %g B %g\n", c, got, best, lambda[0], lambda[1], lambda[2], w[0], w[1], w[2], f[0], f[1], f[2], budget);
    assert_true(got >= best - 1e-9);
    assert_true(got <= best + 2e-3);  /* the grid is coarse, not better */
    assert_true(got >= rf_allocate(RF_UNIFORM, 3, lambda, w, budget, 0, g) - 1e-12);
  }
}

/* A skewed mix: pages that change far faster than the budget allows are
 * given up on (the floor only), and uniform beats proportional. */
static void test_allocate_skewed(void **st)
{
  (void)st;
  enum { N = 100 };
  double lambda[N], w[N], f[N];
  for(int i = 0; i < N; i++) {
    lambda[i] = i < 10 ? 1.0 : 1.0 / (10 + 10 * i);  /* ten change every second */
    w[i] = 1;
  }
  double budget = 2.0, fmin = 1e-4;  /* a visit per 50 s per page on average */
  double opt = rf_allocate(RF_OPTIMAL, N, lambda, w, budget, fmin, f);
  for(int i = 0; i < 10; i++)
    assert_true(fabs(f[i] - fmin) < 1e-9);
  double sum = 0;
  for(int i = 0; i < N; i++) {
    assert_true(f[i] >= fmin - 1e-12);
    sum += f[i];
  }
  assert_true(fabs(sum - budget) < 1e-9);
  double uni = rf_allocate(RF_UNIFORM, N, lambda, w, budget, fmin, f);
  double prop = rf_allocate(RF_PROPORTIONAL, N, lambda, w, budget, fmin, f);
  print_message("optimal %.4f uniform %.4f proportional %.4f\n", opt, uni, prop);
  assert_true(opt > uni && uni > prop);
  /* weights move visits: the same page weighted ten times more gets more */
  w[50] = 10;
  rf_allocate(RF_OPTIMAL, N, lambda, w, budget, fmin, f);
  double heavy = f[50];
  w[50] = 1;
  rf_allocate(RF_OPTIMAL, N, lambda, w, budget, fmin, f);
  assert_true(heavy > 1.5 * f[50]);
  /* a budget below the floors: spread evenly */
  rf_allocate(RF_OPTIMAL, N, lambda, w, N * fmin / 2, fmin, f);
  assert_true(fabs(f[3] - fmin / 2) < 1e-12);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_freshness),
    cmocka_unit_test(test_policy_names),
    cmocka_unit_test(test_estimate_regular),
    cmocka_unit_test(test_estimate_no_change),
    cmocka_unit_test(test_estimate_accuracy),
    cmocka_unit_test(test_estimate_lm),
    cmocka_unit_test(test_estimate_prior),
    cmocka_unit_test(test_priors_pooled),
    cmocka_unit_test(test_static_prob),
    cmocka_unit_test(test_static_share),
    cmocka_unit_test(test_allocate_floors),
    cmocka_unit_test(test_allocate_bruteforce),
    cmocka_unit_test(test_allocate_skewed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
