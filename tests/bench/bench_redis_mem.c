/* The gateway's Redis cost, measured on the redis-server at REDIS_PORT:
 *   bench_redis_mem mem SHAPE   bytes of Redis per queued URL (INFO memory,
 *                               used_memory) for BENCH_URLS URLs (100,000)
 *                               over BENCH_SITES sites (1,000); SHAPE is
 *                               "short" (~45-byte URLs), "web" (~85) or
 *                               "long" (~140)
 *   bench_redis_mem tput        claims + completions per second through the
 *                               real scheduler with an instant fake fetch,
 *                               the scripted calls per fetch, and a no-op
 *                               script's rate on the same connection as the
 *                               baseline
 * Output: "name value" lines for the shell script to format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "hlfs/sched/sched.h"
#include "hlfs/state/state.h"
#include "hlfs/state/store.h"

static uv_loop_t *loop;
static struct store *store;
static struct state *st;

static long envl(const char *name, long def)
{
  const char *v = getenv(name);
  return v ? strtol(v, NULL, 10) : def;
}

static void wake(uv_timer_t *t) { (void)t; }

static void run_until(volatile int *flag, uint64_t timeout_ms)
{
  uv_timer_t t;
  uv_timer_init(loop, &t);
  uv_timer_start(&t, wake, 5, 5);
  uint64_t end = clock_mono_ms() + timeout_ms;
  while(!*flag && clock_mono_ms() < end)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  if(!*flag) {
    fprintf(stderr, "bench: timed out\n");
    exit(1);
  }
}

/* ---- plain commands ---------------------------------------------------- */

struct reply { int done; store_err err; long long n; char text[8192]; };

static void on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct reply *r = arg;
  size_t len = 0;
  const char *s = store_v_str(v, &len);
  r->err = err;
  r->n = store_v_int(v, 0);
  snprintf(r->text, sizeof r->text, "%.*s", (int)len, s ? s : "");
  r->done = 1;
}

static struct reply *cmd(int argc, const char **argv)
{
  static struct reply r;
  size_t lens[8];
  for(int i = 0; i < argc; i++)
    lens[i] = strlen(argv[i]);
  memset(&r, 0, sizeof r);
  if(store_cmd(store, argc, argv, lens, 0, on_reply, &r)) {
    fprintf(stderr, "bench: redis down\n");
    exit(1);
  }
  run_until(&r.done, 30000);
  return &r;
}

static long long info_field(const char *section, const char *field)
{
  const char *argv[] = { "INFO", section };
  const char *t = strstr(cmd(2, argv)->text, field);
  return t ? strtoll(t + strlen(field) + 1, NULL, 10) : -1;
}

static double info_cpu(void)
{
  const char *argv[] = { "INFO", "cpu" };
  const char *t = cmd(2, argv)->text;
  const char *u = strstr(t, "used_cpu_user:"), *s = strstr(t, "used_cpu_sys:");
  return (u ? strtod(u + 14, NULL) : 0) + (s ? strtod(s + 13, NULL) : 0);
}

static void open_state(void)
{
  loop = uv_default_loop();
  struct store_cfg sc = { .host = "127.0.0.1", .port = (int)envl("REDIS_PORT", 6379),
                          .connect_timeout_ms = 2000, .cmd_timeout_ms = 30000,
                          .backoff_min_ms = 20, .backoff_max_ms = 500,
                          .max_pending = 100000 };
  store = store_new(loop, &sc);
  struct state_cfg c = { .nshards = 1, .site_mode = SITE_BY_HOST, .results_maxlen = 1000000,
                         .idle_keep_ms = 3600000, .robots_keep_ms = 86400000,
                         .queue_retry_ms = 5000 };
  st = state_new(&store, 1, &c);
  store_start(store);
  uint64_t end = clock_mono_ms() + 5000;
  while(!state_ready(st) && clock_mono_ms() < end)
    uv_run(loop, UV_RUN_ONCE);
  if(!store_is_up(store)) {
    fprintf(stderr, "bench: no redis on port %ld\n", envl("REDIS_PORT", 6379));
    exit(1);
  }
  const char *argv[] = { "FLUSHALL" };
  cmd(1, argv);
}

/* ---- memory ------------------------------------------------------------ */

static const char *slugs[] = { "local-council-approves-new-budget", "how-to-repair-a-bike",
                               "review", "weather-tomorrow", "q-and-a" };

static int make_url(char *out, size_t outlen, const char *shape, long site, long i)
{
  if(!strcmp(shape, "short"))
    return snprintf(out, outlen, "http://site%04ld.test/page/%06ld", site, i);
  if(!strcmp(shape, "long"))
    return snprintf(out, outlen, "https://www.site%04ld.example/catalog/category-%ld/"
                    "subcategory/product-name-with-many-words-%06ld?ref=listing&sort=price"
                    "&page=%ld", site, i % 37, i, i % 9);
  return snprintf(out, outlen, "https://www.site%04ld.example/articles/2024/%02ld/%s-%06ld.html",
                  site, 1 + i % 12, slugs[i % 5], i);
}

struct sub { int done; store_err err; };
static void on_submit(void *arg, store_err err, struct state_item *it, size_t n)
{
  struct sub *s = arg;
  s->err = err;
  for(size_t i = 0; i < n; i++)
    if(it[i].code != STATE_SUB_ACCEPTED)
      s->err = STORE_PROTO;
  s->done = 1;
}

/* Submit n URLs over sites, in batches; returns the summed URL lengths. */
static long long submit_all(const char *shape, long n, long sites, const char *client)
{
  enum { BATCH = 2000 };
  static char urls[BATCH][256];
  static struct state_item it[BATCH];
  struct state_client c = { .name = client, .weight = 1 };
  long long bytes = 0;
  for(long b = 0; b < n; b += BATCH) {
    long k = n - b < BATCH ? n - b : BATCH;
    for(long i = 0; i < k; i++) {
      bytes += make_url(urls[i], sizeof urls[i], shape, (b + i) % sites, b + i);
      it[i] = (struct state_item){ .url = urls[i], .prio = (unsigned)((b + i) % 3),
                                   .max_age_s = 86400 };
    }
    struct sub s = { 0 };
    if(state_submit(st, &c, it, (size_t)k, on_submit, &s) || (run_until(&s.done, 60000), s.err)) {
      fprintf(stderr, "bench: submit failed\n");
      exit(1);
    }
  }
  return bytes;
}

static int bench_mem(const char *shape)
{
  long n = envl("BENCH_URLS", 100000), sites = envl("BENCH_SITES", 1000);
  long long before = info_field("memory", "used_memory");
  uint64_t t0 = clock_mono_us();
  long long url_bytes = submit_all(shape, n, sites, "crawler");
  uint64_t us = clock_mono_us() - t0;
  long long after = info_field("memory", "used_memory");
  const char *argv[] = { "OBJECT", "ENCODING", "q:{0}www.site0001.example|crawler" };
  if(!strcmp(shape, "short"))
    argv[2] = "q:{0}site0001.test|crawler";
  printf("urls %ld\nsites %ld\nurl_bytes_avg %.1f\n", n, sites, (double)url_bytes / (double)n);
  printf("redis_bytes_per_url %.1f\n", (double)(after - before) / (double)n);
  printf("queue_encoding %s\n", cmd(3, argv)->text);
  printf("submit_urls_per_s %.0f\n", (double)n * 1e6 / (double)us);
  return 0;
}

/* ---- throughput ---------------------------------------------------------- */

/* Instant fetches, answered on the next loop turn (after the poll phase)
 * so the scheduler sees them complete like real ones. */
static struct sched_job **ready;
static size_t nready, cap_ready;
static uint64_t fetched;
static uv_check_t check;

static int fake_start(void *arg, struct sched_job *job)
{
  (void)arg;
  if(nready == cap_ready)
    return -1;
  ready[nready++] = job;
  return 0;
}

static void fake_cancel(void *arg, struct sched_job *job)
{
  (void)arg;
  for(size_t i = 0; i < nready; i++)
    if(ready[i] == job)
      ready[i] = ready[--nready];
}

static void on_check(uv_check_t *h)
{
  (void)h;
  size_t n = nready;
  nready = 0;
  for(size_t i = 0; i < n; i++) {
    struct sched_outcome o = { .contacted = true, .http_status = 200, .response_ms = 1,
                               .bytes = 1000 };
    fetched++;
    sched_job_done(ready[i], &o);
  }
}

struct noop { long outstanding, done_calls; };
static uint64_t noop_calls;
static void on_noop(void *arg, store_err err, const struct store_val *v)
{
  (void)err;
  (void)v;
  struct noop *n = arg;
  n->outstanding--;
  n->done_calls++;
  noop_calls++;
}

/* The baseline: a script that does nothing, kept `depth` deep. */
static double noop_rate(int id, long depth, double seconds)
{
  struct noop n = { 0 };
  const char *argv[] = { "h:{0}", "{0}" };
  size_t lens[] = { 5, 3 };
  uint64_t t0 = clock_mono_us(), end = t0 + (uint64_t)(seconds * 1e6);
  while(clock_mono_us() < end) {
    while(n.outstanding < depth && store_eval(store, id, 1, 2, argv, lens, on_noop, &n) == 0)
      n.outstanding++;
    uv_run(loop, UV_RUN_ONCE);
  }
  while(n.outstanding)
    uv_run(loop, UV_RUN_ONCE);
  return (double)n.done_calls * 1e6 / (double)(clock_mono_us() - t0);
}

static int bench_tput(void)
{
  long n = envl("BENCH_URLS", 100000), sites = envl("BENCH_SITES", 1000);
  long budget = envl("BENCH_BUDGET", 256);
  double seconds = (double)envl("BENCH_SECONDS", 5);
  int noop = store_script(store, "noop", "return 1");
  /* the script was registered after connecting: load it once */
  const char *argv[] = { "SCRIPT", "LOAD", "return 1" };
  cmd(3, argv);
  submit_all("web", n, sites, "crawler");
  cap_ready = (size_t)budget;
  ready = calloc(cap_ready, sizeof *ready);
  uv_check_init(loop, &check);
  uv_check_start(&check, on_check);
  static const struct sched_fetch_ops ops = { .start = fake_start, .cancel = fake_cancel };
  struct sched_cfg c = { .budget = (unsigned)budget, .claim_batch = 64, .lease_ms = 30000,
                         .poll_ms = 50, .max_attempts = 3,
                         .delay = { .max_delay_ms = 60000, .retry_after_max_ms = 60000,
                                    .backoff_base_ms = 1000, .backoff_max_ms = 60000 } };
  struct sched *s = sched_new(loop, st, &c, &ops);
  const struct store_stats *ss = store_stats(store);
  uint64_t evals0 = ss->evals;
  double cpu0 = info_cpu();
  uint64_t t0 = clock_mono_us(), end = t0 + (uint64_t)(seconds * 1e6);
  sched_start(s);
  while(clock_mono_us() < end && fetched < (uint64_t)n)
    uv_run(loop, UV_RUN_ONCE);
  double secs = (double)(clock_mono_us() - t0) / 1e6;
  uint64_t done = state_stats(st)->completed, evals = ss->evals - evals0;
  double cpu = info_cpu() - cpu0;
  printf("fetches %llu\nseconds %.2f\n", (unsigned long long)done, secs);
  printf("fetches_per_s %.0f\n", (double)done / secs);
  printf("claim_calls %llu\n", (unsigned long long)state_stats(st)->claim_calls);
  printf("evals_per_fetch %.3f\n", (double)evals / (double)done);
  printf("redis_cpu_us_per_fetch %.1f\n", cpu * 1e6 / (double)done);
  uv_check_stop(&check);
  sched_stop(s, NULL, NULL);  /* claims no more; pending fetches are given back */
  cpu0 = info_cpu();
  uint64_t calls0 = noop_calls;
  printf("noop_evals_per_s %.0f\n", noop_rate(noop, 64, 2.0));
  printf("redis_cpu_us_per_noop %.2f\n",
         (info_cpu() - cpu0) * 1e6 / (double)(noop_calls - calls0));
  return 0;
}

int main(int argc, char **argv)
{
  log_init("bench", LOG_ERROR);
  open_state();
  if(argc >= 3 && !strcmp(argv[1], "mem"))
    return bench_mem(argv[2]);
  if(argc >= 2 && !strcmp(argv[1], "tput"))
    return bench_tput();
  fprintf(stderr, "usage: bench_redis_mem mem short|web|long | tput\n");
  return 2;
}
