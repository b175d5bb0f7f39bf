#include "api/metrics.h"

#include <stdio.h>

static const double metrics_lat_bounds_s[METRICS_LAT_BUCKETS] = {
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};

void metrics_family(struct buf *b, const char *name, const char *type, const char *help)
{
  buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_sample(struct buf *b, const char *name, const char *labels, double v)
{
  if(labels && *labels)
    buf_addf(b, "%s{%s} %.17g\n", name, labels, v);
  else
    buf_addf(b, "%s %.17g\n", name, v);
}

void metrics_sample_u(struct buf *b, const char *name, const char *labels, uint64_t v)
{
  if(labels && *labels)
    buf_addf(b, "%s{%s} %llu\n", name, labels, (unsigned long long)v);
  else
    buf_addf(b, "%s %llu\n", name, (unsigned long long)v);
}

/* bounds in the unit of the metric (seconds); counts[nb] is the +Inf bucket. */
static void metrics_histogram(struct buf *b, const char *name, const char *labels,
                              const double *bounds, const uint64_t *counts, size_t nb,
                              double sum)
{
  const char *sep = labels && *labels ? "," : "";
  const char *lb = labels ? labels : "";
  uint64_t cum = 0;
  for(size_t i = 0; i < nb; i++) {
    cum += counts[i];
    buf_addf(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, lb, sep, bounds[i],
             (unsigned long long)cum);
  }
  cum += counts[nb];
  buf_addf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, lb, sep, (unsigned long long)cum);
  if(*lb) {
    buf_addf(b, "%s_sum{%s} %.9g\n%s_count{%s} %llu\n", name, lb, sum, name, lb,
             (unsigned long long)cum);
  } else {
    buf_addf(b, "%s_sum %.9g\n%s_count %llu\n", name, sum, name, (unsigned long long)cum);
  }
}

void metrics_lat_add(struct metrics_lat *h, uint64_t us)
{
  double s = (double)us / 1e6;
  size_t i = 0;
  while(i < METRICS_LAT_BUCKETS && s > metrics_lat_bounds_s[i])
    i++;
  h->count[i]++;
  h->sum_s += s;
}

void metrics_lat_merge(struct metrics_lat *into, const struct metrics_lat *from)
{
  for(size_t i = 0; i <= METRICS_LAT_BUCKETS; i++)
    into->count[i] += from->count[i];
  into->sum_s += from->sum_s;
}

void metrics_lat_write(struct buf *b, const char *name, const char *labels,
                       const struct metrics_lat *h)
{
  metrics_histogram(b, name, labels, metrics_lat_bounds_s, h->count, METRICS_LAT_BUCKETS,
                    h->sum_s);
}
