#ifndef WPFS_API_METRICS_H
#define WPFS_API_METRICS_H
/* Prometheus text exposition (version 0.0.4), written straight into a
 * capped buffer: a family header, then its samples. Histograms take
 * cumulative-free bucket counts and do the summing themselves. */
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

void metrics_family(struct buf *b, const char *name, const char *type, const char *help);
/* labels: "" or 'outcome="ok",client="a"' (values already escaped). */
void metrics_sample(struct buf *b, const char *name, const char *labels, double v);
void metrics_sample_u(struct buf *b, const char *name, const char *labels, uint64_t v);

/* A latency histogram with fixed millisecond bounds, cheap to update. */
#define METRICS_LAT_BUCKETS 14
struct metrics_lat {
  uint64_t count[METRICS_LAT_BUCKETS + 1];
  double   sum_s;
};
void metrics_lat_add(struct metrics_lat *h, uint64_t us);
/* into += from (histograms of several servers or threads). */
void metrics_lat_merge(struct metrics_lat *into, const struct metrics_lat *from);
void metrics_lat_write(struct buf *b, const char *name, const char *labels,
                       const struct metrics_lat *h);

#endif
