/* tests/bench/refresh_realized.h: a policy's freshness on one realized
 * change history, averaged over the phase of its visits, against sums
 * done by hand, against a brute-force average over many phases on a fine
 * time grid, and, over a long Poisson history, against the analytic
 * (1 - e^-x) / x. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tests/bench/refresh_realized.h"

static uint64_t rng = 0x853c49e6748fea9bull;
static double urand(void)  /* (0, 1] */
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return ((double)(rng >> 11) + 1) / 9007199254740992.0;
}

/* Changes at 10 and 30 s, a visit every 15 s. Over [20, 40]: from 20 to
 * 30 the age d runs 10 .. 20, fresh with chance min(d, 15) / 15, which
 * integrates to (20 - 7.5) - 10^2 / 30 = 12.5 - 3.3333 = 9.1667; from 30
 * to 40, d 0 .. 10: 10^2 / 30 = 3.3333; 12.5 / 20 = 0.625. */
static void test_by_hand(void **st)
{
  (void)st;
  const double c[] = { 10, 30 };
  assert_float_equal(rr_freshness(c, 2, 0.1, 15, 20, 40), 0.625, 1e-9);
  /* Over [0, 40], a page that never changed before the start (lambda
   * 0): fresh all of [0, 10], then d 0 .. 20 (12.5) and 0 .. 10
   * (3.3333): 25.8333 / 40. */
  assert_float_equal(rr_freshness(c, 2, 0, 15, 0, 40), 25.8333333333 / 40, 1e-9);
  /* lambda 0.1: over [0, 10] a visit before the start (u > s) keeps the
   * copy with chance e^(-0.1 (u - s)): the integral of
   * (s + 10 (1 - e^(-0.1 (15 - s)))) / 15 over [0, 10] is
   * 3.3333 + (100 - 100 (e^-0.5 - e^-1.5)) / 15 = 7.44399. */
  assert_float_equal(rr_freshness(c, 2, 0.1, 15, 0, 40),
                     (100.0 / 30 + (100 - 100 * (exp(-0.5) - exp(-1.5))) / 15 + 12.5 + 100.0 / 30) /
                         40,
                     1e-9);
  assert_float_equal(rr_freshness(c, 2, 0.1, 15, 0, 40), 0.581933, 1e-6);
  /* A change known from before the start (history), none in the window:
   * the age at s is s + 5, fresh with chance min(s + 5, 15) / 15: over
   * s 0 .. 10, (15^2 - 5^2) / 30, then 10. */
  const double h[] = { -5 };
  assert_float_equal(rr_freshness(h, 1, 0.1, 15, 0, 20), (200.0 / 30 + 10) / 20, 1e-9);
  /* Never visited; an empty window. */
  assert_float_equal(rr_freshness(c, 2, 0.1, 0, 0, 40), 0, 0);
  assert_float_equal(rr_freshness(c, 2, 0.1, INFINITY, 0, 40), 0, 0);
  assert_float_equal(rr_freshness(c, 2, 0.1, 15, 40, 40), 0, 0);
}

/* The chance over phases that a page visited every I at phase phi is
 * fresh at s, counted directly: its last visit v, no change known in
 * (v, s], and, when v is before the start and no change is known before
 * it, none in the unseen part (e^(lambda v)). */
static double brute_at(const double *c, size_t n, double lambda, double I, double phi, double s)
{
  double v = s - fmod(s - phi + 1000 * I, I);
  bool known_before = false;
  for(size_t k = 0; k < n; k++) {
    if(c[k] > v && c[k] <= s)
      return 0;
    known_before |= c[k] <= 0;
  }
  return v < 0 && !known_before ? exp(lambda * v) : 1;
}

static double brute(const double *c, size_t n, double lambda, double I, double a, double b)
{
  enum { PHASES = 400, STEPS = 4000 };
  double sum = 0;
  for(int p = 0; p < PHASES; p++)
    for(int t = 0; t < STEPS; t++)
      sum += brute_at(c, n, lambda, I, (p + 0.5) * I / PHASES, a + (t + 0.5) * (b - a) / STEPS);
  return sum / (PHASES * STEPS);
}

static void test_brute_force(void **st)
{
  (void)st;
  for(int trial = 0; trial < 12; trial++) {
    double lambda = 0.005 + 0.2 * urand(), I = 1 + 60 * urand(), a = 80 * urand(),
           b = a + 5 + 100 * urand(), c[64];
    size_t n = 0;
    for(double t = trial % 3 ? 0 : -20 * urand(); n < 64;) {
      c[n++] = t;
      t += -log(urand()) / lambda;
      if(t > b + 10)
        break;
    }
    /* Two of three histories start with no change known (the first
     * entry dropped when it is 0): the unseen part counts. */
    const double *h = trial % 3 ? c + 1 : c;
    size_t hn = trial % 3 ? n - 1 : n;
    double exact = rr_freshness(h, hn, lambda, I, a, b), bf = brute(h, hn, lambda, I, a, b);
    assert_float_equal(exact, bf, 0.004);
  }
}

/* Over a long Poisson history the realized freshness converges to the
 * expectation (1 - e^-x) / x, x = lambda I. */
static void test_poisson_long(void **st)
{
  (void)st;
  enum { CAP = 40000 };
  double *c = malloc(CAP * sizeof *c);
  assert_non_null(c);
  const double lambda = 0.02, T = 1e6, Is[] = { 5, 30, 100, 400 };
  size_t n = 0;
  for(double t = -log(urand()) / lambda; t < T && n < CAP; t += -log(urand()) / lambda)
    c[n++] = t;
  assert_true(n < CAP);
  for(size_t i = 0; i < sizeof Is / sizeof *Is; i++) {
    double x = lambda * Is[i];
    assert_float_equal(rr_freshness(c, n, lambda, Is[i], 1000, T), -expm1(-x) / x, 0.01);
  }
  free(c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_by_hand),
    cmocka_unit_test(test_brute_force),
    cmocka_unit_test(test_poisson_long),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
