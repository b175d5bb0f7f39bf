/* /metrics of LLFS: the engine's counters in Prometheus form. Names follow
 * the conventions: llfs_ prefix, _total for counters, base units. */
#include <stdio.h>
#include <string.h>

#include "api/metrics.h"
#include "llfs/svc.h"

static void m_counter(struct buf *b, const char *name, const char *help, uint64_t v)
{
  metrics_family(b, name, "counter", help);
  metrics_sample_u(b, name, "", v);
}

static void m_gauge(struct buf *b, const char *name, const char *help, uint64_t v)
{
  metrics_family(b, name, "gauge", help);
  metrics_sample_u(b, name, "", v);
}

static void m_outcomes(struct buf *b, const struct fetch_stats *st)
{
  char lb[64];
  metrics_family(b, "llfs_fetches_total", "counter", "Fetches finished or refused, by outcome.");
  for(int o = 0; o < OUTCOME__COUNT; o++) {
    snprintf(lb, sizeof lb, "outcome=\"%s\"", outcome_name((enum outcome)o));
    metrics_sample_u(b, "llfs_fetches_total", lb, st->outcome[o]);
  }
  metrics_family(b, "llfs_blocked_addresses_total", "counter",
                 "Resolved addresses refused by the address guard, by range.");
  for(int v = 1; v < GUARD__COUNT; v++) {
    snprintf(lb, sizeof lb, "range=\"%s\"", guard_verdict_name((enum guard_verdict)v));
    metrics_sample_u(b, "llfs_blocked_addresses_total", lb, st->blocked[v]);
  }
}

static void m_phases(struct buf *b, const struct fetch_stats *st)
{
  char lb[64];
  metrics_family(b, "llfs_fetch_phase_seconds", "histogram",
                 "Duration of each fetch phase (dns, connect, tls, first_byte, total).");
  for(int p = 0; p < FETCH_PHASE__COUNT; p++) {
    snprintf(lb, sizeof lb, "phase=\"%s\"", fetch_phase_name((enum fetch_phase)p));
    metrics_lat_write(b, "llfs_fetch_phase_seconds", lb, &st->phase[p]);
  }
}

static void m_dns(struct buf *b, const struct dns_stats *d)
{
  m_counter(b, "llfs_dns_cache_hits_total", "Resolutions answered from the cache.", d->hits);
  m_counter(b, "llfs_dns_cache_negative_hits_total",
            "Resolutions answered from a cached NXDOMAIN/SERVFAIL.", d->negative_hits);
  m_counter(b, "llfs_dns_cache_misses_total", "Resolutions that needed a query.", d->misses);
  m_counter(b, "llfs_dns_coalesced_total", "Resolutions that joined a query in flight.",
            d->coalesced);
  m_counter(b, "llfs_dns_failures_total", "Queries that ended without addresses.", d->failures);
  m_counter(b, "llfs_dns_queries_total", "A+AAAA lookups sent to the DNS servers.", d->queries);
  m_counter(b, "llfs_dns_literals_total", "IP literals answered without a query.", d->literals);
  m_counter(b, "llfs_dns_cache_evictions_total", "Names dropped by the dns_cache_max cap.",
            d->evictions);
  m_gauge(b, "llfs_dns_cache_entries", "Names in the DNS cache.", d->entries);
  m_gauge(b, "llfs_dns_queries_in_flight", "DNS queries waiting for an answer.", d->in_flight);
}

/* Every worker's fetcher, whichever worker the scrape landed on. */
static void m_collect(struct llfs_shared *sh, struct fetch_stats *st)
{
  struct fetch_stats one;
  bool dns = false;
  memset(st, 0, sizeof *st);
  pthread_rwlock_rdlock(&sh->fetchers);
  for(unsigned i = 0; i < sh->nsvcs; i++) {
    if(!sh->svcs[i]->f)
      continue;   /* that worker is closing */
    fetcher_stats(sh->svcs[i]->f, &one);
    fetch_stats_merge(st, &one);
    if(!dns)
      st->dns = one.dns;   /* one cache for all: counted once */
    dns = true;
  }
  pthread_rwlock_unlock(&sh->fetchers);
}

void llfs_metrics(struct buf *b, void *arg)
{
  struct llfs_svc *svc = arg;
  struct fetch_stats st;
  m_collect(svc->sh, &st);
  m_outcomes(b, &st);
  m_counter(b, "llfs_fetches_accepted_total", "Fetches the engine took on (not refused at once).",
            st.accepted);
  m_counter(b, "llfs_fetches_cancelled_total", "Fetches whose client went away first.",
            st.cancelled);
  m_counter(b, "llfs_connections_opened_total", "New TCP connections.", st.conn_opened);
  m_counter(b, "llfs_connections_reused_total", "Fetches carried by a kept-alive connection.",
            st.conn_reused);
  m_counter(b, "llfs_connection_hosts_total",
            "Hosts (host:port) given their first connection: connections per host is "
            "llfs_connections_opened_total over this.", st.conn_hosts);
  m_counter(b, "llfs_tls_handshakes_total", "TLS handshakes, full or resumed.",
            st.tls_full + st.tls_resumed);
  m_counter(b, "llfs_tls_resumed_total", "TLS handshakes that resumed a session of the host.",
            st.tls_resumed);
  m_counter(b, "llfs_received_bytes_total", "Body bytes received on the wire.", st.bytes_raw);
  m_counter(b, "llfs_decoded_bytes_total", "Body bytes after content decoding.",
            st.bytes_decoded);
  m_counter(b, "llfs_header_bytes_total", "Response header bytes received.", st.bytes_header);
  m_gauge(b, "llfs_stopping", "1 once SIGTERM started the graceful stop.", llfs_stopping(svc));
  m_gauge(b, "llfs_workers", "Worker threads, each with its own loop, HTTP server and fetcher.",
          svc->sh->nsvcs);
  m_gauge(b, "llfs_fetches_in_flight", "Fetches resolving or transferring.", st.in_flight);
  m_gauge(b, "llfs_fetches_queued", "Fetches waiting for a slot.", st.queued);
  m_gauge(b, "llfs_fetches_held", "Fetches waiting for the start their caller set (hold_us).",
          st.held);
  m_phases(b, &st);
  m_dns(b, &st.dns);
}
