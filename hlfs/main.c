/* hlfs: the gateway. Process concerns only: config, loop, Redis, the
 * scheduler, the HTTP server, signals and the graceful stop. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "api/tls.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/portfile.h"
#include "common/secret.h"
#include "hlfs/fetch/auth.h"
#include "hlfs/fetch/fetch.h"
#include "hlfs/fetch/fresh_pages.h"
#include "hlfs/fetch/llfs_client.h"
#include "hlfs/fetch/reqopt.h"
#include "hlfs/gw/gw.h"
#include "hlfs/gw/page_memo.h"
#include "hlfs/sched/sched.h"
#include "hlfs/sched/sched_follow.h"

struct hlfs_cfg {
  long   addr_max_conns, addr_min_gap_ms;
  double backoff_base_ms, backoff_max_ms, backoff_jitter;
  long   budget;
  char  *cache_redis;
  long   claim_ahead_us;
  long   claim_batch;
  char  *client_headers;
  double delay_factor;
  long   failover_hold_ms;
  long   failover_journal;
  long   submit_replicas;
  long   submit_wait_ms;
  char  *fetcher_secret;
  char  *fetcher_secret_file;
  long   fleet_budget;
  long   head_timeout_ms;
  long   idle_timeout_ms;
  char  *listen_addr;
  long   listen_port;
  char  *llfs;
  char  *llfs_ca_file;
  long   lease_ms;
  char  *log_level;
  long   max_attempts;
  long   max_batch;
  size_t max_buffered_bytes;
  long   max_conns;
  long   max_conns_per_addr;
  long   max_conns_unauth;
  long   max_delay_ms;
  size_t max_request_bytes;
  size_t max_result_bytes;
  long   max_redirects;
  long   max_url_len;
  long   max_wait_ms;
  bool   metrics_client_names;
  long   min_delay_ms;
  size_t page_memo_bytes;
  size_t fresh_pages_bytes;
  size_t page_hold_bytes;
  long   page_hold_ms;
  long   page_ttl_s;
  long   poll_ms;
  char  *port_file;
  char  *redis;
  char  *redis_master;
  char  *redis_password;
  char  *redis_sentinels;
  char  *replica;
  long   results_maxlen;
  long   retry_after_max_ms;
  long   robots_backoff_base_ms;
  long   robots_backoff_max_ms;
  long   robots_hop_wait_ms;
  long   robots_max_ttl_ms;
  long   robots_min_ttl_ms;
  long   robots_outage_ms;
  long   robots_rules_cache;
  size_t robots_rules_bytes;
  long   shutdown_grace_ms;
  char  *site_mode;
  long   unauth_idle_timeout_ms;
  char  *tls_cert_file;
  char  *tls_key_file;
  char  *token;
  char  *tokens_file;
  char  *user_agent;
  long   visibility_ms;
};

#define OFF(f) offsetof(struct hlfs_cfg, f)
static const struct cfg_key hlfs_keys[] = {
  { "addr_max_conns", CFG_INT, OFF(addr_max_conns), "0", 0, 10000, NULL,
    "fetches at once to one IP address, all its hosts together (shared hosting), on top of "
    "each site's delay and one connection; the fetch is pinned to that address (0: no limit)" },
  { "addr_min_gap_ms", CFG_MSEC, OFF(addr_min_gap_ms), "0", 0, 600000, NULL,
    "least time between two fetches' starts at one IP address, all its hosts together (0: none)" },
  { "backoff_base_ms", CFG_DOUBLE, OFF(backoff_base_ms), "2000", 0, 3.6e6, NULL,
    "first delay after a connection error or 5xx, doubled per error" },
  { "backoff_jitter", CFG_DOUBLE, OFF(backoff_jitter), "0.5", 0, 1, NULL,
    "an error backoff grows by up to this fraction, at random" },
  { "backoff_max_ms", CFG_DOUBLE, OFF(backoff_max_ms), "600000", 0, 8.64e7, NULL,
    "cap of the error backoff" },
  { "budget", CFG_INT, OFF(budget), "256", 1, 100000, NULL,
    "fetches in flight in this replica (without fleet_budget, the global cap is the sum "
    "over replicas)" },
  { "cache_redis", CFG_STR, OFF(cache_redis), NULL, 1, 0, NULL,
    "page cache Redis host:port (maxmemory, allkeys-lru); unset or empty: the state Redis, "
    "safe only with noeviction" },
  { "claim_ahead_us", CFG_INT, OFF(claim_ahead_us), "5000", 0, 1000000, NULL,
    "a site whose next request is allowed this soon is claimed now, and the fetcher holds the "
    "request until then (0: a site is claimed once due)" },
  { "claim_batch", CFG_INT, OFF(claim_batch), "64", 1, 256, NULL, "claims per Redis call" },
  { "client_headers", CFG_STR, OFF(client_headers), "Accept,Accept-Language", 0, 0, NULL,
    "request headers a client may set on its requests (comma-separated; never Host, "
    "hop-by-hop headers, User-Agent, If-*; Authorization and Cookie only when listed, their "
    "pages then the client's own)" },
  { "delay_factor", CFG_DOUBLE, OFF(delay_factor), "2", 0, 100, NULL,
    "next request to a site waits at least this times the last response time" },
  { "failover_hold_ms", CFG_MSEC, OFF(failover_hold_ms), "0", 0, 7200000, NULL,
    "no claim for this long after the state Redis changed under the gateway (a failover, "
    "a restart: its last writes may be lost); 0: lease_ms + max_delay_ms. Lifted sooner once "
    "every replica alive has written its recent politeness again (failover_journal)" },
  { "failover_journal", CFG_INT, OFF(failover_journal), "262144", 0, 16777216, NULL,
    "sites whose recent leases and next allowed times this replica keeps, to write them "
    "again after a failover (0: none; the fence then holds failover_hold_ms)" },
  { "fetcher_secret", CFG_STR, OFF(fetcher_secret), NULL, 1, 0, "WPFS_FETCHER_SECRET",
    "shared secret sent to the fetchers (Authorization: Bearer), the one they are given; "
    "from a secret, by the environment" },
  { "fetcher_secret_file", CFG_STR, OFF(fetcher_secret_file), NULL, 1, 0, NULL,
    "file holding fetcher_secret (a mounted secret; one line)" },
  { "fleet_budget", CFG_INT, OFF(fleet_budget), "0", 0, 10000000, NULL,
    "fetches in flight over all replicas, shared equally by those with a heartbeat (each "
    "at most budget); 0: each replica has budget" },
  { "fresh_pages_bytes", CFG_SIZE, OFF(fresh_pages_bytes), "32m", 0, 17179869184.0, NULL,
    "pages this replica just fetched, kept so that their results need no page cache read "
    "(0: none)" },
  { "listen_addr", CFG_STR, OFF(listen_addr), "127.0.0.1", 1, 0, NULL,
    "address to listen on (0.0.0.0 in a container)" },
  { "listen_port", CFG_INT, OFF(listen_port), "8080", 0, 65535, NULL,
    "gateway TCP port (0: any free port, see port_file)" },
  { "llfs", CFG_STR, OFF(llfs), "http://127.0.0.1:8081", 1, 0, NULL,
    "fetcher service base URL(s), comma-separated" },
  { "llfs_ca_file", CFG_STR, OFF(llfs_ca_file), NULL, 1, 0, NULL,
    "PEM CA that signed the fetchers' certificates, for https:// in llfs (default: the system's)" },
  { "head_timeout_ms", CFG_MSEC, OFF(head_timeout_ms), "10s", 0, 600000, NULL,
    "a connection that has not shown a valid API key is closed unless each request head is "
    "complete this long after the connection opened or its previous answer (0: no deadline)" },
  { "idle_timeout_ms", CFG_MSEC, OFF(idle_timeout_ms), "300s", 1000, 86400000, NULL,
    "a connection that showed a valid API key is closed after this long without traffic" },
  { "lease_ms", CFG_MSEC, OFF(lease_ms), "30s", 1000, 600000, NULL,
    "a site's lease; renewed while a fetch lasts, expires if this replica dies" },
  { "log_level", CFG_STR, OFF(log_level), "info", 1, 0, NULL, "debug, info, warn or error" },
  { "max_attempts", CFG_INT, OFF(max_attempts), "3", 1, 4, NULL,
    "attempts of a request at its site: a transient failure (timeout, reset, 5xx, 429, "
    "DNS SERVFAIL) or an expired lease is retried until this many (docs/retries.md); a "
    "client's own max_attempts (tokens file) or a request's overrides it" },
  { "max_batch", CFG_INT, OFF(max_batch), "5000", 1, STATE_SUBMIT_MAX, NULL,
    "URLs per POST /v1/batches" },
  { "max_buffered_bytes", CFG_SIZE, OFF(max_buffered_bytes), "256m", 0, 17179869184.0, NULL,
    "request body bytes held by all requests under way together: 503 with Retry-After "
    "beyond (0: no cap)" },
  { "max_conns", CFG_INT, OFF(max_conns), "8192", 1, 1000000, NULL, "client connections" },
  { "max_conns_per_addr", CFG_INT, OFF(max_conns_per_addr), "512", 0, 1000000, NULL,
    "connections from one client address that have not shown a valid API key yet; more are "
    "refused at once (0: no limit; behind a proxy every client has the proxy's address)" },
  { "max_conns_unauth", CFG_INT, OFF(max_conns_unauth), "0", 0, 1000000, NULL,
    "connections without a valid API key yet, at once: beyond, the oldest is closed, so "
    "that the rest of max_conns stays for keyed clients and probes (0: 3/4 of max_conns)" },
  { "max_delay_ms", CFG_MSEC, OFF(max_delay_ms), "120s", 0, 3600000, NULL,
    "cap on crawl-delay and response-time delays" },
  { "max_request_bytes", CFG_SIZE, OFF(max_request_bytes), "16m", 1024, 268435456, NULL,
    "largest request body (413 beyond)" },
  { "max_result_bytes", CFG_SIZE, OFF(max_result_bytes), "64m", 65536, 1073741824, NULL,
    "largest answer of GET /v1/results; further results come in the next read" },
  { "max_redirects", CFG_INT, OFF(max_redirects), "10", 0, FOLLOW_MAX, NULL,
    "most redirects a request may ask the gateway to follow (follow_redirects)" },
  { "max_url_len", CFG_INT, OFF(max_url_len), "2048", 16, 65536, NULL, "longest URL accepted" },
  { "max_wait_ms", CFG_MSEC, OFF(max_wait_ms), "120s", 0, 600000, NULL,
    "longest wait of a long-poll or synchronous fetch" },
  { "metrics_client_names", CFG_BOOL, OFF(metrics_client_names), "true", 0, 0, NULL,
    "/metrics carries the families labelled by client name (false: only GET "
    "/v1/metrics/clients, for an operator or metrics key)" },
  { "min_delay_ms", CFG_MSEC, OFF(min_delay_ms), "1000", 0, 3600000, NULL,
    "least time between two requests to one site" },
  { "page_hold_bytes", CFG_SIZE, OFF(page_hold_bytes), "64m", 0, 17179869184.0, NULL,
    "fetched pages held in memory while the page cache cannot take them, stored when it is "
    "back (0: none; a page not held goes back to its queue)" },
  { "page_hold_ms", CFG_MSEC, OFF(page_hold_ms), "20s", 0, 600000, NULL,
    "how long a page is held for the page cache before its request goes back to its queue" },
  { "page_memo_bytes", CFG_SIZE, OFF(page_memo_bytes), "64m", 0, 17179869184.0, NULL,
    "hot pages kept rendered in this replica; each use is confirmed by the page cache (0: none)" },
  { "page_ttl_s", CFG_INT, OFF(page_ttl_s), "604800", 1, 31536000, NULL,
    "how long fetched pages are kept" },
  { "poll_ms", CFG_MSEC, OFF(poll_ms), "500", 10, 60000, NULL,
    "longest sleep between claim attempts (work submitted via other replicas)" },
  { "port_file", CFG_STR, OFF(port_file), NULL, 1, 0, NULL,
    "write the bound port to this file once listening" },
  { "redis", CFG_STR, OFF(redis), "127.0.0.1:6379", 1, 0, NULL,
    "the state Redis, host:port; several, host:port,...: one shard group each, listed in "
    "the same order by every gateway (unused with redis_sentinels)" },
  { "redis_master", CFG_STR, OFF(redis_master), "wpfs", 1, 0, NULL,
    "the master name the sentinels monitor (with redis_sentinels); several, name,...: one "
    "shard group each, in the same order everywhere" },
  { "redis_password", CFG_STR, OFF(redis_password), NULL, 1, 0, NULL,
    "password (AUTH) of the state Redis and of the page cache's; give it by the "
    "environment, from a secret" },
  { "redis_sentinels", CFG_STR, OFF(redis_sentinels), NULL, 1, 0, NULL,
    "Redis Sentinels, host:port,...: the state Redis is the master they name, "
    "asked again at every reconnection" },
  { "replica", CFG_STR, OFF(replica), NULL, 1, 0, NULL,
    "unique name of this replica (default: host name and pid)" },
  { "results_maxlen", CFG_INT, OFF(results_maxlen), "1000000", 100, 100000000, NULL,
    "results kept per client stream (oldest trimmed)" },
  { "retry_after_max_ms", CFG_MSEC, OFF(retry_after_max_ms), "1h", 0, 86400000, NULL,
    "cap on a site's Retry-After" },
  { "robots_backoff_base_ms", CFG_MSEC, OFF(robots_backoff_base_ms), "1m", 1, 8.64e7, NULL,
    "robots.txt unreachable (5xx, 429, network): first retry after this, doubled per failure" },
  { "robots_backoff_max_ms", CFG_MSEC, OFF(robots_backoff_max_ms), "6h", 1, 8.64e7, NULL,
    "cap of the robots.txt retry interval" },
  { "robots_hop_wait_ms", CFG_MSEC, OFF(robots_hop_wait_ms), "30s", 1, 600000, NULL,
    "longest wait for the site a robots.txt redirect leads to (its lease and delay)" },
  { "robots_max_ttl_ms", CFG_MSEC, OFF(robots_max_ttl_ms), "24h", 1, 8.64e7, NULL,
    "robots.txt is cached at most this long, whatever the server says (RFC 9309: 24 h)" },
  { "robots_min_ttl_ms", CFG_MSEC, OFF(robots_min_ttl_ms), "10m", 0, 8.64e7, NULL,
    "robots.txt is cached at least this long, whatever the server says" },
  { "robots_outage_ms", CFG_MSEC, OFF(robots_outage_ms), "720h", 1, 3.1536e10, NULL,
    "robots.txt unreachable this long: use the last good copy, or allow (RFC 9309: 30 days)" },
  { "robots_rules_bytes", CFG_SIZE, OFF(robots_rules_bytes), "64m", 0, 1073741824, NULL,
    "heap bytes of parsed robots.txt rules kept in memory" },
  { "robots_rules_cache", CFG_INT, OFF(robots_rules_cache), "4096", 0, 1000000, NULL,
    "origins whose parsed robots.txt rules are kept in memory (0: parse on every check)" },
  { "shutdown_grace_ms", CFG_MSEC, OFF(shutdown_grace_ms), "10s", 0, 600000, NULL,
    "on SIGTERM, time given to requests under way" },
  { "site_mode", CFG_STR, OFF(site_mode), "host", 1, 0, NULL,
    "politeness unit: host, ip or domain (registrable domain)" },
  { "submit_replicas", CFG_INT, OFF(submit_replicas), "-1", -1, 16, NULL,
    "replicas of the state Redis that must have a submission before its URLs are answered "
    "accepted (WAIT): a failover to a replica that lacked it would lose them; -1: 1 with "
    "redis_sentinels, else 0 (a lone Redis: its AOF)" },
  { "submit_wait_ms", CFG_MSEC, OFF(submit_wait_ms), "1000", 1, 60000, NULL,
    "how long a submission waits for those replicas before its URLs are answered "
    "store_unavailable" },
  { "tls_cert_file", CFG_STR, OFF(tls_cert_file), NULL, 1, 0, NULL,
    "serve HTTPS with this PEM certificate chain (with tls_key_file); unset: plain HTTP" },
  { "tls_key_file", CFG_STR, OFF(tls_key_file), NULL, 1, 0, NULL,
    "the PEM private key of tls_cert_file (from a secret)" },
  { "token", CFG_STR, OFF(token), NULL, 1, 0, NULL,
    "API key of a development client named \"dev\"" },
  { "tokens_file", CFG_STR, OFF(tokens_file), NULL, 1, 0, NULL,
    "JSON file of clients: {\"clients\":[{\"name\",\"token\",\"weight\",\"rate\",...}]}" },
  { "unauth_idle_timeout_ms", CFG_MSEC, OFF(unauth_idle_timeout_ms), "10s", 1000, 86400000,
    NULL, "a connection that has not shown a valid API key is closed after this long "
    "without traffic" },
  { "user_agent", CFG_STR, OFF(user_agent), "wpfs/0.1", 1, 0, NULL,
    "User-Agent sent to sites; its product token is the robots.txt agent" },
  { "visibility_ms", CFG_MSEC, OFF(visibility_ms), "60s", 1000, 86400000, NULL,
    "a result read and not acknowledged is delivered again after this" },
};
static const struct cfg_prog hlfs_prog = {
  "hlfs", "wpfs gateway: robots, politeness, fairness, results (see openapi.yaml).",
  hlfs_keys, sizeof hlfs_keys / sizeof hlfs_keys[0], "WPFS_HLFS_",
};

static const struct api_route routes[] = {
  { "POST", "/v1/fetch", gw_h_fetch, "fetch" },
  { "POST", "/v1/batches", gw_h_batches, "batches" },
  { "GET", "/v1/results", gw_h_results, "results" },
  { "POST", "/v1/results/ack", gw_h_ack, "results_ack" },
  { "GET", "/v1/sites/{}", gw_h_site, "site" },
  { "GET", "/v1/robots", gw_h_robots, "robots" },
  { "GET", "/v1/stats", gw_h_stats, "stats" },
  { "GET", "/v1/metrics/clients", gw_h_client_metrics, "client_metrics" },
  { "GET", "/status", gw_h_status, "status" },
  { "GET", "/v1/pages", gw_h_page, "page" },
  { "DELETE", "/v1/pages", gw_h_page, "page_purge" },
};

struct hlfs_proc {
  uv_loop_t *loop;
  struct hlfs_cfg cfg;
  struct gw g;
  struct api_srv *srv;
  char replica[96];
  uv_signal_t sigterm, sigint;
  uv_timer_t ping, stop;
  struct api_tls tls;
  int exit_code;
  struct proc_group { struct hlfs_proc *p; unsigned k; } group[STATE_STORES_MAX];
  struct fetch        fetch;     /* the fetch layer the scheduler calls */
  struct sched_fetch_ops fops;
  struct llfs_client *llfs;
  struct fresh_pages *fresh;
  struct robots_policy_cfg robots;
  struct reqopt_allow client_headers;
  uint64_t stop_deadline;
  char fetcher_secret[SECRET_MAX_LEN + 1];
};

/* ---- stopping ------------------------------------------------------------- */

static void proc_close(struct hlfs_proc *p)
{
  api_srv_stop(&p->srv);
  gw_sync_stop(&p->g);
  notify_free(&p->g.notify);
  for(unsigned k = 0; k < p->g.nstores; k++)
    store_close(&p->g.sub[k]);
  sched_free(&p->g.sched);
  fetch_fini(&p->fetch);
  llfs_client_free(&p->llfs);
  state_free(&p->g.st);
  if(p->g.pages == p->g.store[0])
    p->g.pages = NULL;
  store_close(&p->g.pages);
  for(unsigned k = 0; k < p->g.nstores; k++)
    store_close(&p->g.store[k]);
  auth_free(&p->g.auth);
  page_memo_free(&p->g.memo);
  fresh_pages_free(&p->fresh);
  uv_close((uv_handle_t *)&p->sigterm, NULL);
  uv_close((uv_handle_t *)&p->sigint, NULL);
  uv_close((uv_handle_t *)&p->ping, NULL);
  uv_close((uv_handle_t *)&p->stop, NULL);
}

static void proc_on_stop_tick(uv_timer_t *t)
{
  struct hlfs_proc *p = t->data;
  if(api_srv_pending(p->srv) > 0 && uv_now(p->loop) < p->stop_deadline)
    return;
  uv_timer_stop(t);
  LOG(LOG_INFO, "stopped");
  proc_close(p);
}

static void proc_sched_stopped(void *arg)
{
  struct hlfs_proc *p = arg;
  uv_timer_start(&p->stop, proc_on_stop_tick, 50, 50);
}

static void proc_on_signal(uv_signal_t *s, int signum)
{
  struct hlfs_proc *p = s->data;
  if(p->g.stopping)
    return;
  LOG(LOG_INFO, "signal %d: stopping (grace %ld ms)", signum, p->cfg.shutdown_grace_ms);
  p->g.stopping = true;
  p->stop_deadline = uv_now(p->loop) + (uint64_t)p->cfg.shutdown_grace_ms;
  api_srv_quiesce(p->srv);
  uv_timer_stop(&p->ping);
  sched_stop(p->g.sched, proc_sched_stopped, p);
}

/* ---- readiness of the fetcher ------------------------------------------------ */

static void proc_pinged(void *arg, bool ok)
{
  struct hlfs_proc *p = arg;
  if(ok != p->g.llfs_ok)
    LOG(ok ? LOG_INFO : LOG_WARN, "fetcher service %s", ok ? "reachable" : "unreachable");
  p->g.llfs_ok = ok;
}

static void proc_on_ping(uv_timer_t *t)
{
  struct hlfs_proc *p = t->data;
  if(p->g.stopping)
    return;
  llfs_client_ping(p->llfs, proc_pinged, p);
  gw_fleet_tick(&p->g);
}

/* ---- starting -------------------------------------------------------------------- */

/* A store for the Redis at addr ("host:port"), or for the master the
 * sentinels name master (a state shard group: addr is then unused, the
 * sentinels give the address at each connection); NULL after logging why. */
static struct store *proc_redis(struct hlfs_proc *p, const char *what, const char *addr,
                                const char *master)
{
  char host[256];
  if(master)
    addr = "127.0.0.1:6379";
  const char *colon = strrchr(addr, ':');
  long port = colon ? strtol(colon + 1, NULL, 10) : 6379;
  size_t hn = colon ? (size_t)(colon - addr) : strlen(addr);
  if(hn == 0 || hn >= sizeof host || port < 1 || port > 65535) {
    LOG(LOG_ERROR, "%s: \"%s\" is not host:port", what, addr);
    return NULL;
  }
  memcpy(host, addr, hn);
  host[hn] = '\0';
  struct store_cfg sc = { .host = host, .port = (int)port, .connect_timeout_ms = 2000,
                          .cmd_timeout_ms = 10000, .backoff_min_ms = 100,
                          .backoff_max_ms = 5000, .max_pending = 100000,
                          .password = p->cfg.redis_password };
  if(master) {
    sc.sentinels = p->cfg.redis_sentinels;
    sc.master_name = master;
  }
  struct store *s = store_new(p->loop, &sc);
  if(sc.sentinels && !store_uses_sentinel(s)) {
    store_close(&s);
    return NULL;
  }
  return s;
}

static void proc_reapplied(void *arg, store_err err, long long left)
{
  struct proc_group *pg = arg;
  if(err)
    LOG(LOG_ERROR, "state redis %u: this replica's politeness could not be written again: %s",
        pg->k, store_err_text(err));
  else if(left == 0)
    LOG(LOG_INFO, "state redis %u: every replica called wrote its politeness again: the fence "
        "is lifted", pg->k);
  else if(left > 0)
    LOG(LOG_INFO, "state redis %u: politeness written again; %lld replica(s) still to answer",
        pg->k, left);
}

/* A state Redis is another server: hold claims on its shards until every
 * lease and next allowed time its last moments may have lost is past, or,
 * sooner, until every replica alive before (the roll call) has written
 * its own again (docs/hlfs-state.md, "Failover"). */
static void proc_redis_changed(void *arg)
{
  struct proc_group *pg = arg;
  struct hlfs_proc *p = pg->p;
  long hold = p->cfg.failover_hold_ms ? p->cfg.failover_hold_ms
                                      : p->cfg.lease_ms + p->cfg.max_delay_ms;
  const char *names[GW_FLEET_ROLL + 1];
  const char *run = store_run_id(p->g.store[pg->k]);
  struct state_roll roll = { run, names, gw_fleet_roll(&p->g, names, GW_FLEET_ROLL + 1) };
  LOG(LOG_WARN, "state redis %u changed: no claim on its shards for %ld ms (failover_hold_ms)%s",
      pg->k, hold, roll.n ? ", or until the replicas alive have written their politeness again" : "");
  if(state_fence(p->g.st, pg->k, (uint32_t)hold, roll.n ? &roll : NULL, NULL, NULL) ||
     state_reapply(p->g.st, pg->k, p->replica, run, (uint32_t)p->cfg.max_delay_ms,
                   proc_reapplied, pg))
    LOG(LOG_ERROR, "state redis %u changed, and the fence could not be sent", pg->k);
}

/* The shard groups: the comma-separated items of redis, or of redis_master
 * with sentinels. Each gets a store and a subscribed one. */
static int proc_groups(struct hlfs_proc *p)
{
  bool sen = p->cfg.redis_sentinels && *p->cfg.redis_sentinels;
  const char *list = sen ? p->cfg.redis_master : p->cfg.redis;
  char item[256];
  for(const char *c = list; c; c = strchr(c, ','), c = c ? c + 1 : NULL) {
    size_t n = strcspn(c, ",");
    if(p->g.nstores == STATE_STORES_MAX || n == 0 || n >= sizeof item) {
      LOG(LOG_ERROR, "%s: \"%s\" is not a list of 1 to %d items", sen ? "redis_master" : "redis",
          list, STATE_STORES_MAX);
      return -1;
    }
    memcpy(item, c, n);
    item[n] = '\0';
    unsigned k = p->g.nstores;
    if(!(p->g.store[k] = proc_redis(p, "redis", item, sen ? item : NULL))
       || !(p->g.sub[k] = proc_redis(p, "redis", item, sen ? item : NULL)))
      return -1;
    p->g.nstores++;
    p->group[k] = (struct proc_group){ p, k };
    store_on_change(p->g.store[k], proc_redis_changed, &p->group[k]);
  }
  return 0;
}

/* The state Redis, and the page cache's own when cache_redis names one. */
static int proc_store(struct hlfs_proc *p)
{
  if(proc_groups(p))
    return -1;
  p->g.notify = notify_new(p->loop, p->g.sub, p->g.nstores);
  if(!p->cfg.cache_redis || !*p->cfg.cache_redis)
    p->g.pages = p->g.store[0];
  else
    p->g.pages = proc_redis(p, "cache_redis", p->cfg.cache_redis, NULL);
  if(p->g.pages)
    pages_scripts(p->g.pages);
  return p->g.pages ? 0 : -1;
}

static int proc_gw_cfg(struct hlfs_proc *p)
{
  struct gw_cfg *c = &p->g.cfg;
  enum site_mode mode;
  if(site_mode_parse(p->cfg.site_mode, &mode)) {
    LOG(LOG_ERROR, "site_mode: \"%s\" is not host, ip or domain", p->cfg.site_mode);
    return -1;
  }
  if(p->cfg.replica)
    snprintf(p->replica, sizeof p->replica, "%s", p->cfg.replica);
  else {
    char hn[64] = "hlfs";
    gethostname(hn, sizeof hn - 1);
    snprintf(p->replica, sizeof p->replica, "%s-%d", hn, (int)getpid());
  }
  *c = (struct gw_cfg){
    .replica = p->replica, .agent = p->cfg.user_agent, .max_batch = (unsigned)p->cfg.max_batch,
    .page_ttl_s = (uint32_t)p->cfg.page_ttl_s, .visibility_ms = (uint32_t)p->cfg.visibility_ms,
    .max_wait_ms = (uint32_t)p->cfg.max_wait_ms, .max_url_len = (size_t)p->cfg.max_url_len,
    .max_redirects = (unsigned)p->cfg.max_redirects,
    .max_result_bytes = p->cfg.max_result_bytes, .site_mode = mode,
    .page_memo_bytes = p->cfg.page_memo_bytes,
    .fleet_budget = (unsigned)p->cfg.fleet_budget, .budget = (unsigned)p->cfg.budget,
    .metrics_client_names = p->cfg.metrics_client_names,
    .client_headers = &p->client_headers,
  };
  char herr[160];
  if(reqopt_allow_parse(p->cfg.client_headers, &p->client_headers, herr, sizeof herr)) {
    LOG(LOG_ERROR, "%s", herr);
    return -1;
  }
  p->robots = robots_policy_defaults();
  p->robots.backoff_base_ms = (uint64_t)p->cfg.robots_backoff_base_ms;
  p->robots.backoff_max_ms = (uint64_t)p->cfg.robots_backoff_max_ms;
  p->robots.max_ttl_ms = (uint64_t)p->cfg.robots_max_ttl_ms;
  p->robots.min_ttl_ms = (uint64_t)p->cfg.robots_min_ttl_ms;
  p->robots.outage_ms = (uint64_t)p->cfg.robots_outage_ms;
  if(p->robots.min_ttl_ms > p->robots.max_ttl_ms) {
    LOG(LOG_ERROR, "robots_min_ttl_ms is larger than robots_max_ttl_ms");
    return -1;
  }
  p->g.memo = page_memo_new(c->page_memo_bytes);
  p->fresh = fresh_pages_new(p->cfg.fresh_pages_bytes);
  return 0;
}

static int proc_auth(struct hlfs_proc *p)
{
  char err[256];
  struct state_client dev = { .name = "dev", .weight = 1 };
  p->g.auth = auth_load(p->cfg.tokens_file, p->cfg.token, &dev, err, sizeof err);
  if(!p->g.auth) {
    LOG(LOG_ERROR, "API keys: %s", err);
    return -1;
  }
  if(auth_count(p->g.auth) == 0)
    LOG(LOG_WARN, "no API keys configured (tokens_file, WPFS_TOKEN): every request gets 401");
  snprintf(p->g.sync_name, sizeof p->g.sync_name, "sync.%.50s", p->replica);
  for(char *c = p->g.sync_name; *c; c++)
    if(!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *c))
      *c = '-';
  p->g.sync_client = (struct state_client){ .name = p->g.sync_name, .weight = 1 };
  return 0;
}

/* The fetchers answer 401 to a gateway without their secret. */
static int proc_secret(struct hlfs_proc *p)
{
  char err[256];
  if(secret_load(p->cfg.fetcher_secret, p->cfg.fetcher_secret_file, p->fetcher_secret, err,
                 sizeof err)) {
    LOG(LOG_ERROR, "fetcher_secret: %s", err);
    return -1;
  }
  if(!p->fetcher_secret[0])
    LOG(LOG_WARN, "no fetcher secret (fetcher_secret, WPFS_FETCHER_SECRET): the fetchers "
                  "will answer 401");
  return 0;
}

/* A Redis is another shard group than this gateway takes it for: the
 * fleet's gateways list them differently. Claiming on would keep two
 * politeness states for some sites, so this gateway stops, with an error. */
static void proc_mismatch(void *arg)
{
  struct hlfs_proc *p = arg;
  p->exit_code = 1;
  proc_on_signal(&p->sigterm, SIGTERM);
}

/* With sentinels the state Redis has replicas, and a failover may lose a
 * submission none of them had: one must have it (submit_replicas -1). */
static long proc_submit_replicas(const struct hlfs_proc *p)
{
  if(p->cfg.submit_replicas >= 0)
    return p->cfg.submit_replicas;
  return p->cfg.redis_sentinels && *p->cfg.redis_sentinels ? 1 : 0;
}

static void proc_sched(struct hlfs_proc *p)
{
  struct state_cfg stc = { .nshards = p->g.nstores, .site_mode = p->g.cfg.site_mode,
                           .results_maxlen = (uint32_t)p->cfg.results_maxlen,
                           .idle_keep_ms = 3600000, .robots_keep_ms = 86400000,
                           .queue_retry_ms = 5000,
                           .journal_max = (uint32_t)p->cfg.failover_journal,
                           .submit_replicas = (uint32_t)proc_submit_replicas(p),
                           .submit_wait_ms = (uint32_t)p->cfg.submit_wait_ms };
  p->g.st = state_new(p->g.store, p->g.nstores, &stc);
  p->fetch.st = p->g.st;  /* slots per address; made here, after fetch_init */
  state_on_mismatch(p->g.st, proc_mismatch, p);
  struct sched_cfg sc = {
    .replica = p->replica,
    /* with a fleet budget, one fetch until the first heartbeat tells the share */
    .budget = p->cfg.fleet_budget ? 1 : (unsigned)p->cfg.budget,
    .claim_batch = (unsigned)p->cfg.claim_batch, .lease_ms = (uint32_t)p->cfg.lease_ms,
    .claim_ahead_us = (uint32_t)p->cfg.claim_ahead_us,
    .poll_ms = (uint32_t)p->cfg.poll_ms, .max_attempts = (unsigned)p->cfg.max_attempts,
    .reap_max = 64, .scan_clients = 1000, .robots = true, .robots_cache = 10000,
    .robots_cache_bytes = 64u << 20,
    .robots_rules_max = (unsigned)p->cfg.robots_rules_cache,
    .robots_rules_bytes = p->cfg.robots_rules_bytes,
    .robots_policy = p->robots, .robots_limits = robots_limits_default(),
    .robots_hop_wait_ms = (uint32_t)p->cfg.robots_hop_wait_ms,
    .delay = { .min_delay_ms = (uint32_t)p->cfg.min_delay_ms, .factor = p->cfg.delay_factor,
               .max_delay_ms = (uint32_t)p->cfg.max_delay_ms,
               .retry_after_max_ms = (uint32_t)p->cfg.retry_after_max_ms,
               .backoff_base_ms = (uint32_t)p->cfg.backoff_base_ms,
               .backoff_max_ms = (uint32_t)p->cfg.backoff_max_ms,
               .backoff_jitter = p->cfg.backoff_jitter },
  };
  p->fops = fetch_ops(&p->fetch);
  p->g.sched = sched_new(p->loop, p->g.st, &sc, &p->fops);
}

/* 3/4 of max_conns for connections without a key yet, the rest kept for
 * those with one and the probes; all of them when max_conns is tiny. */
static int proc_http(struct hlfs_proc *p)
{
  char err[256];
  if(api_tls_load(&p->tls, p->cfg.tls_cert_file, p->cfg.tls_key_file, err, sizeof err)) {
    LOG(LOG_ERROR, "tls: %s", err);
    return -1;
  }
  struct api_srv_cfg sc = {
    .service = "hlfs", .listen_addr = p->cfg.listen_addr, .port = p->cfg.listen_port,
    .max_body = p->cfg.max_request_bytes, .max_conns = p->cfg.max_conns,
    .conn_timeout_s = (p->cfg.idle_timeout_ms + 999) / 1000,
    .idle_timeout_s = (p->cfg.unauth_idle_timeout_ms + 999) / 1000,
    .head_timeout_ms = p->cfg.head_timeout_ms, .body_budget = p->cfg.max_buffered_bytes,
    .max_conns_per_addr = p->cfg.max_conns_per_addr,
    .max_conns_unauth = p->cfg.max_conns_unauth ? p->cfg.max_conns_unauth
                                                : api_srv_unauth_default(p->cfg.max_conns),
    .routes = routes, .nroutes = sizeof routes / sizeof routes[0], .arg = &p->g,
    .ready = gw_ready, .metrics = gw_metrics, .authorize = gw_authorize,
    .tls_cert = p->tls.cert, .tls_key = p->tls.key,
  };
  if(p->cfg.max_conns_unauth && p->cfg.max_conns_unauth >= p->cfg.max_conns) {
    LOG(LOG_ERROR, "max_conns_unauth (%ld) leaves no room for keyed clients in max_conns (%ld)",
        sc.max_conns_unauth, sc.max_conns);
    return -1;
  }
  if(api_srv_start(p->loop, &sc, &p->srv)) {
    if(p->tls.cert)
      LOG(LOG_ERROR, "tls: the server did not start (a key that does not match the certificate?)");
    return -1;
  }
  if(p->cfg.port_file && portfile_write(p->cfg.port_file, api_srv_port(p->srv)))
    return -1;
  LOG(LOG_INFO, "gateway %s listening on %s:%d (%s)", p->replica, p->cfg.listen_addr,
      api_srv_port(p->srv), p->tls.cert ? "https" : "http");
  return 0;
}

static int proc_start(struct hlfs_proc *p)
{
  p->g.magic = GW_MAGIC;
  p->g.loop = p->loop;
  if(proc_gw_cfg(p) || proc_auth(p) || proc_secret(p) || proc_store(p))
    return -1;
  struct llfs_client_cfg lc = { .base_urls = p->cfg.llfs, .ca_file = p->cfg.llfs_ca_file,
                                .secret = p->fetcher_secret, .slack_ms = 5000,
                                .max_answer = (64u << 20), .max_conns = 1024 };
  p->llfs = llfs_client_new(p->loop, &lc);
  if(!p->llfs) {
    LOG(LOG_ERROR, "llfs: no usable base URL in \"%s\"", p->cfg.llfs);
    return -1;
  }
  struct fetch_cfg fc = {
    .agent = p->cfg.user_agent, .page_ttl_s = (uint32_t)p->cfg.page_ttl_s,
    .max_url_len = (size_t)p->cfg.max_url_len, .page_hold_bytes = p->cfg.page_hold_bytes,
    .page_hold_ms = (uint32_t)p->cfg.page_hold_ms,
    .addr_max_conns = (unsigned)p->cfg.addr_max_conns,
    .addr_min_gap_ms = (uint32_t)p->cfg.addr_min_gap_ms,
    .addr_lease_ms = (uint32_t)p->cfg.lease_ms,
  };
  fetch_init(&p->fetch, p->loop, &fc, p->g.pages, p->llfs, p->g.auth, p->fresh);
  p->g.fetch = &p->fetch;
  proc_sched(p);
  gw_sync_start(&p->g);
  for(unsigned k = 0; k < p->g.nstores; k++) {
    store_start(p->g.store[k]);
    store_start(p->g.sub[k]);
  }
  if(p->g.pages != p->g.store[0])
    store_start(p->g.pages);
  sched_start(p->g.sched);
  uv_timer_start(&p->ping, proc_on_ping, 0, 2000);
  return proc_http(p);
}

static void proc_handles(struct hlfs_proc *p)
{
  uv_signal_init(p->loop, &p->sigterm);
  uv_signal_init(p->loop, &p->sigint);
  uv_timer_init(p->loop, &p->ping);
  uv_timer_init(p->loop, &p->stop);
  p->sigterm.data = p->sigint.data = p->ping.data = p->stop.data = p;
  uv_signal_start(&p->sigterm, proc_on_signal, SIGTERM);
  uv_signal_start(&p->sigint, proc_on_signal, SIGINT);
  signal(SIGPIPE, SIG_IGN);
}

int main(int argc, char **argv)
{
  static struct hlfs_proc p;
  enum log_level lvl;
  enum cfg_rc rc = cfg_load(&hlfs_prog, &p.cfg, argc, argv);
  if(rc != CFG_OK)
    return rc == CFG_EXIT_OK ? 0 : 2;
  if(log_level_parse(p.cfg.log_level, &lvl)) {
    fprintf(stderr, "hlfs: log_level: not one of debug, info, warn, error\n");
    return 2;
  }
  log_init("hlfs", lvl);
  p.loop = uv_default_loop();
  proc_handles(&p);
  if(proc_start(&p)) {
    LOG(LOG_ERROR, "could not start");
    return 1;
  }
  uv_run(p.loop, UV_RUN_DEFAULT);
  cfg_free(&hlfs_prog, &p.cfg);
  api_tls_free(&p.tls);
  return p.exit_code;
}
