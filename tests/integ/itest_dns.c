/* llfs/dns against a real dnsmasq (tests/harness_dns.sh): answers, the
 * cache proven from the server's side (its query log), TTL floor and
 * ceiling, negative caching, one query for many waiters, timeouts,
 * cancellation, the LRU cap, one cache shared by resolvers on two threads.
 * Needs DNS_SERVER and DNS_LOG.
 * Run by tests/e2e/llfs_engine_dns.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"
#include "llfs/dns.h"

#include "tests/integ/fixture/dnsmasq.h"
#include "tests/integ/fixture/loop.h"

struct got {
  int               calls;
  bool              in_resolve;   /* set while dns_resolve runs */
  bool              reentered;
  struct dns_result r;
};

static bool resolving;

static void on_result(const struct dns_result *r, void *arg)
{
  struct got *g = arg;
  if(resolving)
    g->reentered = true;
  g->calls++;
  g->r = *r;
}

static struct dns_cfg cfg_default(void)
{
  struct dns_cfg c = {
    .servers = getenv("DNS_SERVER"),
    .ttl_floor_s = 0,
    .ttl_ceiling_s = 3600,
    .negative_ttl_s = 30,
    .timeout_ms = 1500,
    .cache_max = 1000,
  };
  return c;
}

static struct dns *dns_make(const struct dns_cfg *c)
{
  char err[256] = "";
  struct dns *d = dns_new(it_loop, c, err, sizeof err);
  if(!d)
    print_error("dns_new: %s\n", err);
  assert_non_null(d);
  return d;
}

static void dns_done(struct dns **d)
{
  dns_free(d);
  uv_run(it_loop, UV_RUN_DEFAULT);   /* returns once every handle is closed */
}

static void resolve(struct dns *d, const char *host, struct got *g)
{
  resolving = true;
  enum outcome o = dns_resolve(d, host, on_result, g, NULL);
  resolving = false;
  assert_int_equal(o, OUTCOME_OK);
  assert_int_equal(g->calls, 0);   /* never called back from inside */
}

static void resolve_wait(struct dns *d, const char *host, struct got *g)
{
  memset(g, 0, sizeof *g);
  resolve(d, host, g);
  it_run_count(&g->calls, 1, 5000);
  assert_int_equal(g->calls, 1);
  assert_false(g->reentered);
}

static void assert_addr(const struct dns_addr *a, const char *want)
{
  char txt[64];
  dns_addr_format(a, txt, sizeof txt);
  assert_string_equal(txt, want);
}

static void test_site_mapping(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g;
  static const struct { const char *name, *addr; } m[] = {
    { "site0.test", "127.10.0.1" }, { "site3.test", "127.10.0.4" },
    { "site249.test", "127.10.0.250" }, { "site250.test", "127.10.1.1" },
    { "SITE251.Test.", "127.10.1.2" },
  };
  for(size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    resolve_wait(d, m[i].name, &g);
    assert_int_equal(g.r.outcome, OUTCOME_OK);
    assert_int_equal(g.r.naddr, 1);
    assert_int_equal(g.r.addr[0].family, AF_INET);
    assert_addr(&g.r.addr[0], m[i].addr);
    assert_false(g.r.cached);
  }
  assert_int_equal(dns_queries("site3.test", "A"), 1);
  assert_int_equal(dns_queries("site3.test", "AAAA"), 1);
  dns_done(&d);
}

static void test_cache_hit_no_second_query(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "site5.test", &g);
  assert_false(g.r.cached);
  for(int i = 0; i < 5; i++) {
    resolve_wait(d, "site5.test", &g);
    assert_int_equal(g.r.outcome, OUTCOME_OK);
    assert_true(g.r.cached);
    assert_addr(&g.r.addr[0], "127.10.0.6");
  }
  assert_int_equal(dns_queries("site5.test", "A"), 1);
  struct dns_stats st;
  dns_stats(d, &st);
  assert_int_equal(st.misses, 1);
  assert_int_equal(st.hits, 5);
  assert_int_equal(st.queries, 1);
  assert_int_equal(st.entries, 1);
  dns_done(&d);
}

static void test_one_query_many_waiters(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  enum { N = 200 };
  static struct got g[N];
  memset(g, 0, sizeof g);
  int total = 0;
  for(int i = 0; i < N; i++)
    resolve(d, "site7.test", &g[i]);
  uint64_t end = clock_mono_ms() + 5000;
  while(clock_mono_ms() < end) {
    total = 0;
    for(int i = 0; i < N; i++)
      total += g[i].calls;
    if(total == N)
      break;
    uv_run(it_loop, UV_RUN_ONCE);
  }
  assert_int_equal(total, N);
  for(int i = 0; i < N; i++) {
    assert_int_equal(g[i].r.outcome, OUTCOME_OK);
    assert_addr(&g[i].r.addr[0], "127.10.0.8");
  }
  assert_int_equal(dns_queries("site7.test", "A"), 1);
  struct dns_stats st;
  dns_stats(d, &st);
  assert_int_equal(st.queries, 1);
  assert_int_equal(st.coalesced, N - 1);
  dns_done(&d);
}

static void test_ttl_expiry(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();   /* floor 0: the record's TTL (1 s) rules */
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "short.test", &g);
  resolve_wait(d, "short.test", &g);
  assert_true(g.r.cached);
  assert_int_equal(dns_queries("short.test", "A"), 1);
  it_run_for(1300);
  resolve_wait(d, "short.test", &g);
  assert_false(g.r.cached);
  assert_int_equal(g.r.outcome, OUTCOME_OK);
  assert_int_equal(dns_queries("short.test", "A"), 2);
  dns_done(&d);
}

static void test_ttl_floor(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  c.ttl_floor_s = 3;   /* short2.test says 2 s; we keep it 3 */
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "short2.test", &g);
  it_run_for(2300);
  resolve_wait(d, "short2.test", &g);
  assert_true(g.r.cached);
  assert_int_equal(dns_queries("short2.test", "A"), 1);
  it_run_for(900);
  resolve_wait(d, "short2.test", &g);
  assert_false(g.r.cached);
  assert_int_equal(dns_queries("short2.test", "A"), 2);
  dns_done(&d);
}

static void test_ttl_ceiling(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  c.ttl_ceiling_s = 1;   /* site9.test says 300 s */
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "site9.test", &g);
  resolve_wait(d, "site9.test", &g);
  assert_true(g.r.cached);
  it_run_for(1200);
  resolve_wait(d, "site9.test", &g);
  assert_false(g.r.cached);
  assert_int_equal(dns_queries("site9.test", "A"), 2);
  dns_done(&d);
}

static void test_negative_cache(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  c.negative_ttl_s = 1;
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "nx1.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_DNS_NXDOMAIN);
  assert_int_equal(g.r.naddr, 0);
  resolve_wait(d, "nx1.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_DNS_NXDOMAIN);
  assert_true(g.r.cached);
  assert_int_equal(dns_queries("nx1.test", "A"), 1);
  struct dns_stats st;
  dns_stats(d, &st);
  assert_int_equal(st.negative_hits, 1);
  it_run_for(1200);
  resolve_wait(d, "nx1.test", &g);
  assert_false(g.r.cached);
  assert_int_equal(dns_queries("nx1.test", "A"), 2);
  dns_done(&d);
}

static void test_servfail_cached(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "a.servfail.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_DNS_SERVFAIL);
  resolve_wait(d, "a.servfail.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_DNS_SERVFAIL);
  assert_true(g.r.cached);
  assert_int_equal(dns_queries("a.servfail.test", "A"), 1);
  dns_done(&d);
}

static void test_timeout_not_cached(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  c.timeout_ms = 600;
  struct dns *d = dns_make(&c);
  struct got g;
  uint64_t t0 = clock_mono_ms();
  resolve_wait(d, "a.timeout.test", &g);
  uint64_t took = clock_mono_ms() - t0;
  assert_int_equal(g.r.outcome, OUTCOME_DNS_TIMEOUT);
  print_message("# dns timeout after %llu ms (limit 600)\n", (unsigned long long)took);
  assert_true(took >= 400 && took <= 1200);
  resolve_wait(d, "a.timeout.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_DNS_TIMEOUT);
  assert_false(g.r.cached);
  struct dns_stats st;
  dns_stats(d, &st);
  assert_int_equal(st.queries, 2);
  assert_int_equal(st.failures, 2);
  dns_done(&d);
}

static void test_ipv6_and_dual(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "v6.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_OK);
  assert_int_equal(g.r.naddr, 1);
  assert_int_equal(g.r.addr[0].family, AF_INET6);
  assert_addr(&g.r.addr[0], "::1");
  resolve_wait(d, "dual.test", &g);
  assert_int_equal(g.r.naddr, 2);
  assert_addr(&g.r.addr[0], "127.0.0.1");   /* IPv4 first */
  assert_addr(&g.r.addr[1], "::1");
  resolve_wait(d, "cname.test", &g);
  assert_int_equal(g.r.outcome, OUTCOME_OK);
  assert_addr(&g.r.addr[0], "127.10.0.2");
  dns_done(&d);
}

static void test_literals_without_query(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  c.servers = "127.0.0.1:9";   /* nobody there: a query would fail */
  struct dns *d = dns_make(&c);
  struct got g;
  resolve_wait(d, "127.0.0.1", &g);
  assert_int_equal(g.r.outcome, OUTCOME_OK);
  assert_true(g.r.literal);
  assert_addr(&g.r.addr[0], "127.0.0.1");
  resolve_wait(d, "[::1]", &g);
  assert_true(g.r.literal);
  assert_int_equal(g.r.addr[0].family, AF_INET6);
  resolve_wait(d, "::ffff:10.0.0.1", &g);
  assert_addr(&g.r.addr[0], "::ffff:10.0.0.1");
  struct dns_stats st;
  dns_stats(d, &st);
  assert_int_equal(st.queries, 0);
  assert_int_equal(st.literals, 3);
  dns_done(&d);
}

static void test_bad_names_refused(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g = { 0 };
  char longname[300];
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  const char *bad[] = { "", ".", "bad name", "a/b", "x%y", longname };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(dns_resolve(d, bad[i], on_result, &g, NULL), OUTCOME_BAD_URL);
  it_run_for(50);
  assert_int_equal(g.calls, 0);
  dns_done(&d);
}

static void test_cancel(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g1 = { 0 }, g2 = { 0 }, g3 = { 0 };
  struct dns_waiter *w1, *w2, *w3;
  assert_int_equal(dns_resolve(d, "site11.test", on_result, &g1, &w1), OUTCOME_OK);
  assert_int_equal(dns_resolve(d, "site11.test", on_result, &g2, &w2), OUTCOME_OK);
  assert_int_equal(dns_resolve(d, "10.1.1.1", on_result, &g3, &w3), OUTCOME_OK);
  dns_cancel(&w1);
  dns_cancel(&w3);   /* already answered, waiting on the ready list */
  assert_null(w1);
  it_run_count(&g2.calls, 1, 5000);
  it_run_for(50);
  assert_int_equal(g1.calls, 0);
  assert_int_equal(g3.calls, 0);
  assert_int_equal(g2.calls, 1);
  /* the answer was cached although its first waiter left */
  struct got g;
  resolve_wait(d, "site11.test", &g);
  assert_true(g.r.cached);
  assert_int_equal(dns_queries("site11.test", "A"), 1);
  dns_done(&d);
}

static void test_lru_cap(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  c.cache_max = 3;
  struct dns *d = dns_make(&c);
  struct got g;
  const char *names[] = { "site20.test", "site21.test", "site22.test", "site23.test" };
  for(int i = 0; i < 4; i++)
    resolve_wait(d, names[i], &g);
  struct dns_stats st;
  dns_stats(d, &st);
  assert_int_equal(st.entries, 3);
  assert_int_equal(st.evictions, 1);
  resolve_wait(d, "site23.test", &g);   /* newest stays */
  assert_true(g.r.cached);
  resolve_wait(d, "site20.test", &g);   /* oldest was dropped */
  assert_false(g.r.cached);
  assert_int_equal(dns_queries("site20.test", "A"), 2);
  assert_int_equal(dns_queries("site23.test", "A"), 1);
  dns_done(&d);
}

static void test_free_with_queries_in_flight(void **state)
{
  (void)state;
  struct dns_cfg c = cfg_default();
  struct dns *d = dns_make(&c);
  struct got g = { 0 };
  assert_int_equal(dns_resolve(d, "b.timeout.test", on_result, &g, NULL), OUTCOME_OK);
  assert_int_equal(dns_resolve(d, "site30.test", on_result, &g, NULL), OUTCOME_OK);
  it_run_for(20);
  long live = mem_live();
  assert_true(live > 0);
  dns_done(&d);
  assert_int_equal(g.calls == 0 || g.calls == 1, 1);   /* site30 may have answered */
  assert_int_equal(mem_live(), 0);
}

/* ---- one cache, two threads ---- */

/* A resolver on its own thread and loop, sharing the test's cache. It
 * cannot use cmocka's asserts (they jump): it records what happened, and
 * the test asserts once it has joined the thread. */
struct peer {
  struct dns_shared *sh;
  const char        *name;
  int                n;           /* resolves to make */
  sem_t              ready, go;   /* peer -> test, test -> peer */
  pthread_t          tid;
  /* results */
  int                calls, foreign_thread, start_errors, loop_close_rc;
  enum outcome       last;
};

static void peer_on_result(const struct dns_result *r, void *arg)
{
  struct peer *p = arg;
  p->calls++;
  p->foreign_thread += !pthread_equal(pthread_self(), p->tid);
  p->last = r->outcome;
}

static void *peer_main(void *arg)
{
  struct peer *p = arg;
  uv_loop_t l;
  char err[256];
  uv_loop_init(&l);
  struct dns *d = dns_new_shared(&l, p->sh, err, sizeof err);
  sem_post(&p->ready);
  sem_wait(&p->go);
  for(int i = 0; d && i < p->n; i++)
    p->start_errors += dns_resolve(d, p->name, peer_on_result, p, NULL) != OUTCOME_OK;
  uint64_t end = clock_mono_ms() + 5000;
  while(d && p->calls < p->n && clock_mono_ms() < end)
    uv_run(&l, UV_RUN_ONCE);
  dns_free(&d);
  uv_run(&l, UV_RUN_DEFAULT);
  p->loop_close_rc = uv_loop_close(&l);
  return NULL;
}

static void peer_start(struct peer *p, struct dns_shared *sh, const char *name, int n)
{
  memset(p, 0, sizeof *p);
  p->sh = sh;
  p->name = name;
  p->n = n;
  sem_init(&p->ready, 0, 0);
  sem_init(&p->go, 0, 0);
  assert_int_equal(pthread_create(&p->tid, NULL, peer_main, p), 0);
  sem_wait(&p->ready);
}

static void peer_join(struct peer *p)
{
  pthread_join(p->tid, NULL);
  sem_destroy(&p->ready);
  sem_destroy(&p->go);
  assert_int_equal(p->start_errors, 0);
  assert_int_equal(p->foreign_thread, 0);   /* called back on its own loop only */
  assert_int_equal(p->loop_close_rc, 0);
}

static struct dns_shared *shared_make(void)
{
  struct dns_cfg c = cfg_default();
  char err[256] = "";
  struct dns_shared *sh = dns_shared_new(&c, err, sizeof err);
  assert_non_null(sh);
  return sh;
}

static struct dns *shared_view(struct dns_shared *sh)
{
  char err[256] = "";
  struct dns *d = dns_new_shared(it_loop, sh, err, sizeof err);
  if(!d)
    print_error("dns_new_shared: %s\n", err);
  assert_non_null(d);
  return d;
}

/* Both threads ask one name at once: one query on the wire, every waiter
 * called back on its own thread, the counters those of one cache. */
static void test_shared_two_threads(void **state)
{
  (void)state;
  enum { N = 50 };
  long live0 = mem_live();
  struct dns_shared *sh = shared_make();
  struct dns *d = shared_view(sh);
  static struct peer p;
  peer_start(&p, sh, "site8.test", N);
  static struct got g[N];
  memset(g, 0, sizeof g);
  sem_post(&p.go);
  for(int i = 0; i < N; i++)
    resolve(d, "site8.test", &g[i]);
  int total = 0;
  for(uint64_t end = clock_mono_ms() + 5000; total < N && clock_mono_ms() < end;) {
    uv_run(it_loop, UV_RUN_ONCE);
    total = 0;
    for(int i = 0; i < N; i++)
      total += g[i].calls;
  }
  assert_int_equal(total, N);
  for(int i = 0; i < N; i++)
    assert_addr(&g[i].r.addr[0], "127.10.0.9");
  struct dns_stats st;
  pthread_join(p.tid, NULL);   /* the peer is done once it has its N answers */
  p.tid = pthread_self();      /* (peer_join joins nothing more) */
  dns_stats(d, &st);           /* after the peer: its resolves are counted too */
  assert_int_equal(p.calls, N);
  assert_int_equal(p.last, OUTCOME_OK);
  assert_int_equal(p.foreign_thread, 0);
  assert_int_equal(p.loop_close_rc, 0);
  assert_int_equal(st.queries, 1);
  assert_int_equal(st.misses, 1);
  assert_int_equal(st.coalesced + st.hits, 2 * N - 1);
  assert_int_equal(dns_queries("site8.test", "A"), 1);
  dns_done(&d);
  dns_shared_free(&sh);
  /* nothing leaked, either thread (the count is process-wide) */
  assert_int_equal(mem_live() - live0, 0);
}

/* A waiter of the peer joined a query of ours that never answers; we free
 * our resolver: the peer's waiter is called back (shutting_down), on the
 * peer's loop, instead of being lost. */
static void test_shared_free_with_foreign_waiter(void **state)
{
  (void)state;
  long live0 = mem_live();
  struct dns_shared *sh = shared_make();
  struct dns *d = shared_view(sh);
  struct got g = { 0 };
  static struct peer p;
  resolve(d, "c.timeout.test", &g);
  peer_start(&p, sh, "c.timeout.test", 1);
  sem_post(&p.go);
  struct dns_stats st = { 0 };
  for(uint64_t end = clock_mono_ms() + 2000; st.coalesced < 1 && clock_mono_ms() < end;) {
    it_run_for(5);
    dns_stats(d, &st);
  }
  assert_int_equal(st.coalesced, 1);   /* the peer waits on our query */
  dns_done(&d);
  peer_join(&p);
  assert_int_equal(g.calls, 0);        /* ours went with the resolver */
  assert_int_equal(p.calls, 1);
  assert_int_equal(p.last, OUTCOME_SHUTTING_DOWN);
  dns_shared_free(&sh);
  assert_int_equal(mem_live() - live0, 0);
}

int main(void)
{
  it_loop_init();
  if(!getenv("DNS_SERVER") || !getenv("DNS_LOG")) {
    fprintf(stderr, "itest_dns: DNS_SERVER and DNS_LOG must be set (tests/e2e/llfs_engine_dns.sh)\n");
    return 2;
  }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_site_mapping),
    cmocka_unit_test(test_cache_hit_no_second_query),
    cmocka_unit_test(test_one_query_many_waiters),
    cmocka_unit_test(test_ttl_expiry),
    cmocka_unit_test(test_ttl_floor),
    cmocka_unit_test(test_ttl_ceiling),
    cmocka_unit_test(test_negative_cache),
    cmocka_unit_test(test_servfail_cached),
    cmocka_unit_test(test_timeout_not_cached),
    cmocka_unit_test(test_ipv6_and_dual),
    cmocka_unit_test(test_literals_without_query),
    cmocka_unit_test(test_bad_names_refused),
    cmocka_unit_test(test_cancel),
    cmocka_unit_test(test_lru_cap),
    cmocka_unit_test(test_free_with_queries_in_flight),
    cmocka_unit_test(test_shared_two_threads),
    cmocka_unit_test(test_shared_free_with_foreign_waiter),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  it_loop_close();
  return rc;
}
