#ifndef WPFS_BENCH_REFRESH_REALIZED_H
#define WPFS_BENCH_REFRESH_REALIZED_H
/* What a refresh policy would have measured on one realized change
 * history (bench_refresh_model, docs/refresh.md): the crawler's measured
 * freshness is one realization, the analytic baselines are expectations;
 * judged on the same change times the baselines share its luck (common
 * random numbers). Header-only.
 *
 * A page visited every I seconds at a phase drawn uniformly: at instant s
 * its last visit lies uniformly in (s - I, s], and it is fresh iff no
 * change fell between that visit and s. With d = s - (the last change
 * at or before s), the chance over the phase is min(d, I) / I, so the
 * freshness averaged over the phase is exact: an integral of that over
 * the window, piece by piece between changes. Before the first change
 * known, the history is not observed: there the chance that no change
 * fell in the part of (s - I, s] before it is e^(-lambda t) for its
 * length t (the expectation given what is known), which makes a page
 * that never changes fresh all the time, as the analytic figure has it. */
#include <math.h>
#include <stddef.h>

/* The integral of min(x, I) / I over x in [0, d]. */
static inline double rr_ramp(double d, double I)
{
  return d <= I ? d * d / (2 * I) : d - I / 2;
}

/* The integral of (1 - e^(-lambda u)) / lambda over u in [0, y]. */
static inline double rr_unseen(double lambda, double y)
{
  double x = lambda * y;
  if(x < 1e-4)  /* series: the closed form cancels */
    return y * y / 2 - lambda * y * y * y / 6 + lambda * lambda * y * y * y * y / 24;
  return (x + expm1(-x)) / (lambda * lambda);
}

/* The integral over s in [s0, s1] (s relative to the first change known
 * being ahead, the known history starting at 0) of the chance that no
 * change fell in (s - u, s] for u uniform in [0, I): min(s, I) / I for
 * the part seen, plus, when I > s, the expectation over the part before
 * 0, (1 - e^(-lambda (I - s))) / (lambda I). */
static inline double rr_before(double lambda, double I, double s0, double s1)
{
  double sum = 0;
  if(s0 < I) {
    double e = s1 < I ? s1 : I;
    sum += (e * e - s0 * s0) / (2 * I) + (rr_unseen(lambda, I - s0) - rr_unseen(lambda, I - e)) / I;
    s0 = e;
  }
  return s1 > s0 ? sum + (s1 - s0) : sum;
}

/* The time-averaged freshness over [a, b] (0 <= a < b, seconds from the
 * start of the history) of a page of rate lambda visited every
 * interval_s seconds at a uniform phase, averaged over the phase, on the
 * change times c[0..n) (ascending; those before 0 are changes known from
 * before the start, those after b are ignored). interval_s <= 0 or not
 * finite: never visited, 0. */
static inline double rr_freshness(const double *c, size_t n, double lambda, double interval_s,
                                  double a, double b)
{
  if(!(interval_s > 0) || !isfinite(interval_s) || !(b > a))
    return 0;
  double I = interval_s, sum = 0;
  size_t k = 0;
  while(k < n && c[k] <= a)
    k++;
  /* [a, next change): after change k - 1, or before any change known. */
  double end = k < n && c[k] < b ? c[k] : b;
  if(k > 0)
    sum += rr_ramp(end - c[k - 1], I) - rr_ramp(a - c[k - 1], I);
  else
    sum += rr_before(lambda, I, a, end);
  for(; k < n && c[k] < b; k++) {
    end = k + 1 < n && c[k + 1] < b ? c[k + 1] : b;
    sum += rr_ramp(end - c[k], I);
  }
  return sum / (b - a);
}

#endif
