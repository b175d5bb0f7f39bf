/* llfs: the low-level fetcher service. Process concerns only: config, the
 * listening socket and its accepting loop (this thread's), the worker
 * threads (worker.c), signals and the graceful stop. */
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
#include "llfs/svc.h"
#include "llfs/worker.h"

struct llfs_cfg {
  long   head_timeout_ms;
  long   idle_timeout_ms;
  char  *listen_addr;
  long   listen_port;
  char  *log_level;
  size_t max_buffered_bytes;
  long   max_conns;
  long   max_conns_per_addr;
  long   max_conns_unauth;
  size_t max_request_bytes;
  long   max_url_len;
  char  *port_file;
  char  *secret;
  char  *secret_file;
  long   shutdown_grace_ms;
  bool   site_affinity;
  char  *tls_cert_file;
  char  *tls_key_file;
  long   unauth_idle_timeout_ms;
  long   workers;
  struct fetch_cfg fetch;
};

#define OFF(f) offsetof(struct llfs_cfg, f)
static const struct cfg_key llfs_keys[] = {
  FETCH_CFG_KEYS(OFF(fetch)),
  { "head_timeout_ms", CFG_MSEC, OFF(head_timeout_ms), "10s", 0, 600000, NULL,
    "a connection that has not shown the secret is closed unless each request head is "
    "complete this long after the connection opened or its previous answer (0: no deadline)" },
  { "idle_timeout_ms", CFG_MSEC, OFF(idle_timeout_ms), "120s", 1000, 86400000, NULL,
    "a connection that showed the secret is closed after this long without traffic" },
  { "listen_addr", CFG_STR, OFF(listen_addr), "127.0.0.1", 1, 0, NULL,
    "address to listen on (0.0.0.0 in a container)" },
  { "listen_port", CFG_INT, OFF(listen_port), "8081", 0, 65535, NULL,
    "TCP port to listen on (0: any free port, see port_file)" },
  { "log_level", CFG_STR, OFF(log_level), "info", 1, 0, NULL, "debug, info, warn or error" },
  { "max_buffered_bytes", CFG_SIZE, OFF(max_buffered_bytes), "64m", 0, 17179869184.0, NULL,
    "request body bytes held by all requests under way together: 503 with Retry-After "
    "beyond (0: no cap)" },
  { "max_conns", CFG_INT, OFF(max_conns), "4096", 1, 1000000, NULL,
    "client connections at once" },
  { "max_conns_per_addr", CFG_INT, OFF(max_conns_per_addr), "1024", 0, 1000000, NULL,
    "connections from one address that have not shown the secret yet; more are refused at "
    "once (0: no limit; a gateway opens up to 1024 at once)" },
  { "max_conns_unauth", CFG_INT, OFF(max_conns_unauth), "0", 0, 1000000, NULL,
    "connections without the secret yet, at once: beyond, the oldest is closed, so that "
    "the rest of max_conns stays for the gateways and probes (0: 3/4 of max_conns)" },
  { "max_request_bytes", CFG_SIZE, OFF(max_request_bytes), "64k", 1024, 16777216, NULL,
    "largest request body accepted (413 beyond)" },
  { "max_url_len", CFG_INT, OFF(max_url_len), "2048", 16, 65536, NULL,
    "longest URL accepted, in bytes" },
  { "port_file", CFG_STR, OFF(port_file), NULL, 1, 0, NULL,
    "write the bound port to this file once listening" },
  { "secret", CFG_STR, OFF(secret), NULL, 1, 0, "WPFS_FETCHER_SECRET",
    "shared secret the gateways send (Authorization: Bearer); without it every fetch and "
    "resolve gets 401. From a secret, by the environment" },
  { "secret_file", CFG_STR, OFF(secret_file), NULL, 1, 0, NULL,
    "file holding secret (a mounted secret; one line)" },
  { "shutdown_grace_ms", CFG_MSEC, OFF(shutdown_grace_ms), "10s", 0, 600000, NULL,
    "on SIGTERM, time given to fetches in flight before they are cut" },
  { "site_affinity", CFG_BOOL, OFF(site_affinity), "true", 0, 0, NULL,
    "run every fetch of one host on the same worker, where the host's kept-alive "
    "connection is (false: on the worker that took the request)" },
  { "tls_cert_file", CFG_STR, OFF(tls_cert_file), NULL, 1, 0, NULL,
    "serve HTTPS with this PEM certificate chain (with tls_key_file); unset: plain HTTP" },
  { "tls_key_file", CFG_STR, OFF(tls_key_file), NULL, 1, 0, NULL,
    "the PEM private key of tls_cert_file (from a secret)" },
  { "unauth_idle_timeout_ms", CFG_MSEC, OFF(unauth_idle_timeout_ms), "10s", 1000, 86400000,
    NULL, "a connection that has not shown the secret is closed after this long without "
    "traffic" },
  { "workers", CFG_INT, OFF(workers), "0", 0, 256, NULL,
    "threads, each with its own loop, HTTP server and fetcher (0: one per online CPU, at most 256)" },
};
static const struct cfg_prog llfs_prog = {
  "llfs", "wpfs low-level fetcher: fetches one URL per request, safely (see openapi.yaml).",
  llfs_keys, sizeof llfs_keys / sizeof llfs_keys[0], "WPFS_LLFS_",
};

/* libmicrohttpd clears a connection's memory for every request: 8 KiB
 * holds the gateway's request heads many times over (a head over 7-8 KiB
 * gets 431), while clearing 32 KiB was a fifth of the instructions per
 * fetch (callgrind under tests/bench/bench_llfs.sh) and flushed the L1
 * cache. */
#define LLFS_CONN_MEMORY (8 * 1024)
#define LLFS_MAX_WORKERS 256   /* the bound of --workers, and of a server group */

/* Read by every worker's server; set once before any starts. */
static char llfs_secret[SECRET_MAX_LEN + 1];

/* The fetches and resolves are the gateways' alone: whoever else reaches
 * this port gets 401 before a byte of the body is read (api/srv.h,
 * authorize). */
static bool llfs_authorize(struct api_req *rq, const struct api_route *route, void *arg)
{
  (void)route;
  (void)arg;
  if(secret_bearer_ok(llfs_secret, api_req_header(rq, "Authorization")))
    return true;
  api_reply_header(rq, "WWW-Authenticate", "Bearer realm=\"wpfs-fetcher\"");
  api_problem(rq, 401, "unauthorized", "Unauthorized", NULL,
              "send \"Authorization: Bearer <the fetchers' shared secret>\"");
  return false;
}

struct llfs_proc {
  uv_loop_t *loop;
  struct llfs_cfg cfg;
  struct fetch_shared *fsh;
  struct api_srv_group *group;
  struct llfs_workers ws;
  struct api_tls tls;
  bool workers_on, stopping;
  uv_signal_t sigterm, sigint;
};

static void proc_close_all(struct llfs_proc *p)
{
  if(p->workers_on)
    workers_close(&p->ws);   /* joins: every worker's fetcher and server are gone */
  p->workers_on = false;
  api_group_free(&p->group);
  uv_close((uv_handle_t *)&p->sigterm, NULL);
  uv_close((uv_handle_t *)&p->sigint, NULL);
}

/* Every worker's fetches are done and their answers sent. */
static void proc_drained(void *arg)
{
  struct llfs_proc *p = arg;
  LOG(LOG_INFO, "stopped");
  proc_close_all(p);
}

static void proc_on_signal(uv_signal_t *s, int signum)
{
  struct llfs_proc *p = s->data;
  if(p->stopping)
    return;
  p->stopping = true;
  LOG(LOG_INFO, "signal %d: stopping, %lu fetches in flight, grace %ld ms", signum,
      workers_calls_live(&p->ws), p->cfg.shutdown_grace_ms);
  api_group_quiesce(p->group);
  workers_stop(&p->ws);
}

static unsigned proc_nworkers(const struct llfs_cfg *c)
{
  long n = c->workers ? c->workers : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > LLFS_MAX_WORKERS ? LLFS_MAX_WORKERS : (unsigned)n;
}

static void proc_workers_cfg(struct llfs_proc *p, const struct api_srv_cfg *sc)
{
  struct llfs_workers *ws = &p->ws;
  ws->fetch = &p->cfg.fetch;
  ws->lim = (struct llfs_limits){
    .connect_timeout_ms = p->cfg.fetch.connect_timeout_ms, .timeout_ms = p->cfg.fetch.timeout_ms,
    .max_body = p->cfg.fetch.max_body_bytes, .max_decoded = p->cfg.fetch.max_decoded_bytes,
    .max_url_len = (size_t)p->cfg.max_url_len,
  };
  ws->srv = *sc;
  ws->grace_ms = p->cfg.shutdown_grace_ms;
  ws->fsh = p->fsh;
  ws->group = p->group;
  ws->n = proc_nworkers(&p->cfg);
  ws->drained = proc_drained;
  ws->drained_arg = p;
}

/* 3/4 of max_conns for connections without a key yet, the rest kept for
 * those with one and the probes; all of them when max_conns is tiny. */
static int proc_start(struct llfs_proc *p)
{
  char err[256];
  if(!(p->fsh = fetch_shared_new(&p->cfg.fetch, err, sizeof err))) {
    LOG(LOG_ERROR, "fetcher: %s", err);
    return -1;
  }
  if(p->cfg.site_affinity)
    fetch_shared_affinity(p->fsh, proc_nworkers(&p->cfg));
  if(api_tls_load(&p->tls, p->cfg.tls_cert_file, p->cfg.tls_key_file, err, sizeof err)) {
    LOG(LOG_ERROR, "tls: %s", err);
    return -1;
  }
  if(secret_load(p->cfg.secret, p->cfg.secret_file, llfs_secret, err, sizeof err)) {
    LOG(LOG_ERROR, "secret: %s", err);
    return -1;
  }
  if(!llfs_secret[0])
    LOG(LOG_WARN, "no secret (secret, WPFS_FETCHER_SECRET): every fetch and resolve gets 401");
  struct api_srv_cfg sc = {
    .service = "llfs", .listen_addr = p->cfg.listen_addr, .port = p->cfg.listen_port,
    .max_body = p->cfg.max_request_bytes, .max_conns = p->cfg.max_conns,
    .conn_timeout_s = (p->cfg.idle_timeout_ms + 999) / 1000,
    .idle_timeout_s = (p->cfg.unauth_idle_timeout_ms + 999) / 1000,
    .head_timeout_ms = p->cfg.head_timeout_ms, .body_budget = p->cfg.max_buffered_bytes,
    .max_conns_per_addr = p->cfg.max_conns_per_addr,
    .max_conns_unauth = p->cfg.max_conns_unauth ? p->cfg.max_conns_unauth
                                                : api_srv_unauth_default(p->cfg.max_conns),
    .conn_memory = LLFS_CONN_MEMORY,
    .routes = llfs_routes, .nroutes = llfs_nroutes, .authorize = llfs_authorize,
    .ready = llfs_ready, .metrics = llfs_metrics, .tls_cert = p->tls.cert, .tls_key = p->tls.key,
  };
  if(p->cfg.max_conns_unauth && p->cfg.max_conns_unauth >= p->cfg.max_conns) {
    LOG(LOG_ERROR, "max_conns_unauth (%ld) leaves no room for the gateways in max_conns (%ld)",
        sc.max_conns_unauth, sc.max_conns);
    return -1;
  }
  if(api_group_new(p->loop, &sc, proc_nworkers(&p->cfg), &p->group))
    return -1;
  proc_workers_cfg(p, &sc);
  if(workers_start(&p->ws, p->loop))
    return -1;
  p->workers_on = true;
  api_group_accept(p->group);
  if(p->cfg.port_file && portfile_write(p->cfg.port_file, api_group_port(p->group))) {
    LOG(LOG_ERROR, "cannot write %s", p->cfg.port_file);
    return -1;
  }
  LOG(LOG_INFO, "listening on %s:%d, %u workers", p->cfg.listen_addr, api_group_port(p->group),
      p->ws.n);
  return 0;
}

static void proc_signals(struct llfs_proc *p)
{
  uv_signal_init(p->loop, &p->sigterm);
  uv_signal_init(p->loop, &p->sigint);
  p->sigterm.data = p->sigint.data = p;
  uv_signal_start(&p->sigterm, proc_on_signal, SIGTERM);
  uv_signal_start(&p->sigint, proc_on_signal, SIGINT);
  signal(SIGPIPE, SIG_IGN);
}

/* Tables the contract and the docs are checked against (tests/e2e/
 * llfs_service_contract.sh): print one and exit. 1 = not such a flag. */
static int proc_print_table(int argc, char **argv)
{
  if(argc != 2)
    return 1;
  if(!strcmp(argv[1], "--print-outcomes")) {
    for(int o = 0; o < OUTCOME__COUNT; o++)
      printf("%s\n", outcome_name((enum outcome)o));
    return 0;
  }
  if(!strcmp(argv[1], "--help-markdown")) {
    cfg_markdown(&llfs_prog, stdout);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv)
{
  static struct llfs_proc p;
  enum log_level lvl;
  if(proc_print_table(argc, argv) == 0)
    return fflush(stdout) ? 1 : 0;
  enum cfg_rc rc = cfg_load(&llfs_prog, &p.cfg, argc, argv);
  if(rc != CFG_OK)
    return rc == CFG_EXIT_OK ? 0 : 2;
  if(log_level_parse(p.cfg.log_level, &lvl)) {
    fprintf(stderr, "llfs: log_level: not one of debug, info, warn, error\n");
    return 2;
  }
  log_init("llfs", lvl);
  json_object_seed(0);   /* before any thread: jansson's hash seed */
  p.loop = uv_default_loop();
  proc_signals(&p);
  int failed = proc_start(&p);
  if(failed)
    proc_close_all(&p);
  uv_run(p.loop, UV_RUN_DEFAULT);
  uv_loop_close(p.loop);
  fetch_shared_free(&p.fsh);   /* the workers' fetchers are gone */
  cfg_free(&llfs_prog, &p.cfg);
  api_tls_free(&p.tls);
  return failed ? 1 : 0;
}
