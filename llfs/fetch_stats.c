/* Counters and latency histograms of the engine, kept as plain structs
 * that the service exposes (Prometheus text) and tests assert on. */
#include <string.h>

#include "llfs/fetch_int.h"

static const char *const fetch_phase_names[] = {
#define X(e, n) #n,
  FETCH_PHASES(X)
#undef X
};

const char *fetch_phase_name(enum fetch_phase p)
{
  return (unsigned)p < FETCH_PHASE__COUNT ? fetch_phase_names[p] : "unknown";
}

void fetch_stats_refused(struct fetcher *f, enum outcome o)
{
  if((unsigned)o < OUTCOME__COUNT)
    f->st.outcome[o]++;
}

/* A finished (not cancelled) job: its outcome, bytes and phase times. */
void fetch_stats_finish(struct fetcher *f, const struct fetch_job *j)
{
  struct fetch_stats *s = &f->st;
  const struct fetch_res *r = &j->res;
  s->outcome[r->outcome]++;
  s->bytes_raw += r->bytes_raw;
  s->bytes_decoded += r->bytes_decoded;
  if(j->t_resolved)
    metrics_lat_add(&s->phase[FETCH_PHASE_DNS], r->t.dns_us);
  if(r->t.connect_us)
    metrics_lat_add(&s->phase[FETCH_PHASE_CONNECT], r->t.connect_us);
  if(r->t.tls_us)
    metrics_lat_add(&s->phase[FETCH_PHASE_TLS], r->t.tls_us);
  if(r->status)
    metrics_lat_add(&s->phase[FETCH_PHASE_FIRST_BYTE], r->t.first_byte_us);
  metrics_lat_add(&s->phase[FETCH_PHASE_TOTAL], r->t.total_us);
}

void fetcher_stats(const struct fetcher *f, struct fetch_stats *out)
{
  FETCH_CHECK(f && f->magic == FETCHER_MAGIC);
  *out = f->st;
  out->in_flight = f->active.n;
  out->queued = f->queue.n;
  if(f->dns)
    dns_stats(f->dns, &out->dns);
}
