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
  fetch_stats_lock(f);
  if((unsigned)o < OUTCOME__COUNT)
    f->st.outcome[o]++;
  fetch_stats_unlock(f);
}

/* A finished (not cancelled) job: its outcome, bytes and phase times. */
void fetch_stats_finish(struct fetcher *f, const struct fetch_job *j)
{
  struct fetch_stats *s = &f->st;
  const struct fetch_res *r = &j->res;
  fetch_stats_lock(f);
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
  fetch_stats_unlock(f);
}

/* From any thread (the service's /metrics runs on one worker and reads
 * every worker's fetcher). */
void fetcher_stats(struct fetcher *f, struct fetch_stats *out)
{
  CHECK(f && f->magic == FETCHER_MAGIC);
  fetch_stats_lock(f);
  *out = f->st;
  fetch_stats_unlock(f);
  out->in_flight = atomic_load_explicit(&f->n_active, memory_order_relaxed);
  out->queued = atomic_load_explicit(&f->n_queued, memory_order_relaxed);
  out->held = atomic_load_explicit(&f->n_held, memory_order_relaxed);
  memset(&out->dns, 0, sizeof out->dns);
  if(f->dns)
    dns_stats(f->dns, &out->dns);
}

static void lat_add(struct metrics_lat *into, const struct metrics_lat *from)
{
  for(size_t i = 0; i <= METRICS_LAT_BUCKETS; i++)
    into->count[i] += from->count[i];
  into->sum_s += from->sum_s;
}

void fetch_stats_merge(struct fetch_stats *into, const struct fetch_stats *from)
{
  for(size_t o = 0; o < OUTCOME__COUNT; o++)
    into->outcome[o] += from->outcome[o];
  for(size_t v = 0; v < GUARD__COUNT; v++)
    into->blocked[v] += from->blocked[v];
  into->accepted += from->accepted;
  into->cancelled += from->cancelled;
  into->in_flight += from->in_flight;
  into->queued += from->queued;
  into->held += from->held;
  into->conn_opened += from->conn_opened;
  into->conn_reused += from->conn_reused;
  into->conn_hosts += from->conn_hosts;
  into->tls_full += from->tls_full;
  into->tls_resumed += from->tls_resumed;
  into->bytes_raw += from->bytes_raw;
  into->bytes_decoded += from->bytes_decoded;
  into->bytes_header += from->bytes_header;
  for(size_t p = 0; p < FETCH_PHASE__COUNT; p++)
    lat_add(&into->phase[p], &from->phase[p]);
}
