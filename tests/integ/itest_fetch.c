/* llfs/fetch against testweb, dnsmasq and (for TLS) openssl s_server:
 * every outcome, the guard, DNS caching seen from the DNS server, keep-
 * alive seen from testweb, limits under bombs and endless bodies, queue,
 * cancel and shutdown. Run by tests/e2e/llfs_engine_fetch.sh, which sets
 * TESTWEB_PORT, TESTWEB_CTL, DNS_SERVER, DNS_LOG, TLS_PORT, TLS_CA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/mem.h"
#include "llfs/fetch.h"
#include "tests/integ/fixture/dnsmasq.h"
#include "tests/integ/fixture/fetcher.h"
#include "tests/integ/fixture/testweb.h"

static long maxrss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* ---- plain fetches ---- */

static void test_get_ok(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  fx_wait(f, tw_url("site1.test", "/"), &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.status, 200);
  assert_int_equal(g.http_version, 11);
  assert_true(g.blen > 100);
  assert_non_null(strstr(g.body, "<html"));
  assert_string_equal(g.addr, "127.10.0.2");
  assert_non_null(strstr(g.headers, "Content-Type: text/html"));
  assert_null(strstr(g.headers, "HTTP/1.1"));
  assert_false(g.truncated);
  assert_true(g.t.total_us > 0 && g.t.connect_us > 0);
  assert_int_equal(g.t.tls_us, 0);
  char ua[64];
  assert_string_equal(tw_site_last_field("site1.test", "ua", ua, sizeof ua), "wpfs-itest/1");
  got_clear(&g);
}

static void test_head_and_headers(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  const char *h[] = { "If-None-Match: \"v1\"", "User-Agent: crawler-x/2" };
  struct fetch_req rq = { .url = tw_url("site2.test", "/"), .method = FETCH_HEAD, .headers = h,
                          .nheaders = 2 };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.status, 200);
  assert_int_equal(g.blen, 0);
  char v[64];
  assert_string_equal(tw_site_last_field("site2.test", "inm", v, sizeof v), "\"v1\"");
  assert_string_equal(tw_site_last_field("site2.test", "ua", v, sizeof v), "crawler-x/2");
  assert_string_equal(tw_site_last_field("site2.test", "method", v, sizeof v), "HEAD");
  got_clear(&g);
}

static void test_conditional_304(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  fx_wait(f, tw_url("site3.test", "/_b/change/doc?etag=1&every=0"), &g);
  fx_expect(&g, OUTCOME_OK);
  const char *et = strstr(g.headers, "ETag: ");
  assert_non_null(et);
  char hdr[128];
  snprintf(hdr, sizeof hdr, "If-None-Match: %.*s", (int)strcspn(et + 6, "\n"), et + 6);
  const char *h[] = { hdr };
  struct fetch_req rq = { .url = tw_url("site3.test", "/_b/change/doc?etag=1&every=0"),
                          .headers = h, .nheaders = 1 };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.status, 304);
  got_clear(&g);
}

static void test_redirect_not_followed(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  char want[256];
  fx_wait(f, tw_url("site4.test", "/_b/redirect/301?to=/target"), &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.status, 301);
  snprintf(want, sizeof want, "http://site4.test:%s/target", tw_port);
  assert_non_null(g.redirect);
  assert_string_equal(g.redirect, want);
  fx_wait(f, tw_url("site4.test", "/_b/redirect/302?to=../a/b%3Fq"), &g);
  assert_int_equal(g.status, 302);
  snprintf(want, sizeof want, "http://site4.test:%s/_b/a/b?q", tw_port);
  assert_string_equal(g.redirect, want);
  fx_wait(f, tw_url("site4.test", "/_b/redirect/307?to=http://other.test/x"), &g);
  assert_string_equal(g.redirect, "http://other.test/x");
  /* testweb saw the three redirects and nothing else */
  assert_int_equal(tw_site_field("site4.test", "request_count"), 3);
  fx_wait(f, tw_url("site4.test", "/"), &g);
  assert_null(g.redirect);
  got_clear(&g);
}

static void test_status_and_retry_after(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  fx_wait(f, tw_url("site5.test", "/_b/status/503?retry_after=120"), &g);
  fx_expect(&g, OUTCOME_OK);   /* any HTTP status is a response */
  assert_int_equal(g.status, 503);
  assert_string_equal(g.retry_after, "120");
  fx_wait(f, tw_url("site5.test", "/_b/status/404"), &g);
  assert_int_equal(g.status, 404);
  got_clear(&g);
}

/* ---- connections and DNS seen from the servers ---- */

static void test_connection_reuse(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  for(int i = 0; i < 20; i++) {
    fx_wait(f, tw_url("site40.test", i % 2 ? "/" : "/p/1.html"), &g);
    fx_expect(&g, OUTCOME_OK);
    assert_int_equal(g.reused, i > 0);
    assert_true(i == 0 || g.t.connect_us == 0);
  }
  assert_int_equal(tw_site_field("site40.test", "request_count"), 20);
  assert_int_equal(tw_site_field("site40.test", "connections"), 1);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.conn_opened, 1);
  assert_int_equal(st.conn_reused, 19);
  assert_int_equal(st.outcome[OUTCOME_OK], 20);
  assert_int_equal(st.phase[FETCH_PHASE_CONNECT].count[METRICS_LAT_BUCKETS] +
                   st.phase[FETCH_PHASE_CONNECT].count[0], 1);   /* one connect, a fast one */
  got_clear(&g);
}

/* A peer that keeps the connection alive after its answer, as HTTP/1.1
 * allows, then closes it 50 ms later without a word, as idle servers do. */
struct closer {
  uv_tcp_t   srv, cli;
  uv_timer_t later;
  char       buf[4096];
  int        conns, closes;
  bool       busy;
};

static void closer_alloc(uv_handle_t *h, size_t n, uv_buf_t *b)
{
  struct closer *k = h->data;
  (void)n;
  *b = uv_buf_init(k->buf, sizeof k->buf);
}

static void closer_cli_closed(uv_handle_t *h)
{
  struct closer *k = h->data;
  k->busy = false;
  k->closes++;
}

static void closer_on_later(uv_timer_t *t)
{
  struct closer *k = t->data;
  uv_close((uv_handle_t *)&k->cli, closer_cli_closed);
}

static void closer_on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
  static char ans[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  struct closer *k = st->data;
  static uv_write_t w;
  uv_buf_t out = uv_buf_init(ans, sizeof ans - 1);
  if(n <= 0 || !memmem(b->base, (size_t)n, "\r\n\r\n", 4))
    return;
  uv_write(&w, st, &out, 1, NULL);
  uv_timer_start(&k->later, closer_on_later, 50, 0);
}

static void closer_on_conn(uv_stream_t *srv, int status)
{
  struct closer *k = srv->data;
  assert_int_equal(status, 0);
  assert_false(k->busy);   /* one connection at a time is all this test needs */
  uv_tcp_init(it_loop, &k->cli);
  k->cli.data = k;
  assert_int_equal(uv_accept(srv, (uv_stream_t *)&k->cli), 0);
  k->busy = true;
  k->conns++;
  uv_read_start((uv_stream_t *)&k->cli, closer_alloc, closer_on_read);
}

static int closer_start(struct closer *k)
{
  struct sockaddr_in a;
  struct sockaddr_storage ss;
  int len = sizeof ss;
  memset(k, 0, sizeof *k);
  uv_ip4_addr("127.0.0.1", 0, &a);
  uv_tcp_init(it_loop, &k->srv);
  uv_timer_init(it_loop, &k->later);
  k->srv.data = k->later.data = k;
  assert_int_equal(uv_tcp_bind(&k->srv, (const struct sockaddr *)&a, 0), 0);
  assert_int_equal(uv_listen((uv_stream_t *)&k->srv, 8, closer_on_conn), 0);
  uv_tcp_getsockname(&k->srv, (struct sockaddr *)&ss, &len);
  return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static uint64_t cpu_ms(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
         (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

/* An idle kept-alive socket stays watched for reading (fetch_sock.c). When
 * the server closes it, the watcher must stop rather than wake the loop
 * for ever, and the next fetch must open a fresh connection. */
static void test_idle_connection_closed_by_server(void **state)
{
  (void)state;
  struct closer k;
  char u[64];
  snprintf(u, sizeof u, "http://127.0.0.1:%d/", closer_start(&k));
  struct fetch_cfg c = fx_cfg();
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  fx_wait(f, u, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.blen, 2);
  uint64_t cpu0 = cpu_ms();
  it_run_for(400);   /* the peer closes the idle connection meanwhile */
  uint64_t spent = cpu_ms() - cpu0;
  if(spent >= 100)
    print_error("the loop spent %llu ms of CPU in 400 ms idle\n", (unsigned long long)spent);
  assert_true(spent < 100);
  assert_int_equal(k.closes, 1);
  fx_wait(f, u, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_false(g.reused);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.conn_opened, 2);
  assert_int_equal(k.conns, 2);
  got_clear(&g);
  it_run_count(&k.closes, 2, 2000);
  assert_int_equal(k.closes, 2);
  uv_close((uv_handle_t *)&k.srv, NULL);
  uv_close((uv_handle_t *)&k.later, NULL);
  fx_free(&f);
}

static void test_dns_cache_seen_by_server(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.dns_ttl_floor_s = 0;
  c.dns_negative_ttl_s = 30;
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  fx_wait(f, tw_url("site50.test", "/"), &g);
  fx_wait(f, tw_url("site50.test", "/p/2.html"), &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(dns_queries("site50.test", "A"), 1);     /* within the TTL: no second query */
  fx_wait(f, tw_url("short.test", "/"), &g);           /* TTL 1 s */
  fx_expect(&g, OUTCOME_OK);
  it_run_for(1300);
  fx_wait(f, tw_url("short.test", "/"), &g);
  assert_int_equal(dns_queries("short.test", "A"), 2);      /* after the TTL: asked again */
  fx_wait(f, tw_url("nx3.test", "/"), &g);
  fx_expect(&g, OUTCOME_DNS_NXDOMAIN);
  fx_wait(f, tw_url("nx3.test", "/"), &g);
  fx_expect(&g, OUTCOME_DNS_NXDOMAIN);
  assert_int_equal(dns_queries("nx3.test", "A"), 1);        /* negative caching */
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.dns.hits, 1);
  assert_int_equal(st.dns.negative_hits, 1);
  assert_int_equal(st.dns.misses, 4);
  got_clear(&g);
  fx_free(&f);
}

static void test_one_query_many_fetches(void **state)
{
  struct fetcher *f = *state;
  enum { N = 20 };
  static struct got g[N];
  for(int i = 0; i < N; i++) {
    struct fetch_req rq = { .url = tw_url("site60.test", "/") };
    fx_start(f, &rq, &g[i]);
  }
  it_run_count(&fx_finished, fx_finished + N, 10000);
  for(int i = 0; i < N; i++) {
    fx_expect(&g[i], OUTCOME_OK);
    got_clear(&g[i]);
  }
  assert_int_equal(dns_queries("site60.test", "A"), 1);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.dns.coalesced, N - 1);
  /* the per-host cap held on testweb's side */
  assert_true(tw_site_field("site60.test", "max_open_connections") <= 4);
}

/* ---- the guard ---- */

static void test_blocked_addresses(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  static const struct { const char *host; enum guard_verdict v; const char *addr; } tab[] = {
    { "private.test", GUARD_PRIVATE, "10.0.0.1" },
    { "metadata.test", GUARD_METADATA, "169.254.169.254" },
    { "mapped.test", GUARD_PRIVATE, "::ffff:10.0.0.1" },
    { "10.0.0.1", GUARD_PRIVATE, "10.0.0.1" },
    { "0xa9.254.169.254", GUARD_METADATA, "169.254.169.254" },   /* odd spelling */
    { "2852039166", GUARD_METADATA, "169.254.169.254" },
    { "[fd00:ec2::254]", GUARD_METADATA, "fd00:ec2::254" },
    { "[::ffff:a9fe:a9fe]", GUARD_METADATA, "::ffff:169.254.169.254" },
  };
  for(size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    fx_wait(f, tw_url(tab[i].host, "/"), &g);
    fx_expect(&g, OUTCOME_BLOCKED_ADDRESS);
    assert_int_equal(g.blocked, tab[i].v);
    assert_string_equal(g.addr, tab[i].addr);
    assert_int_equal(g.status, 0);
  }
  /* one forbidden and one allowed address: the allowed one is used */
  fx_wait(f, tw_url("mixed.test", "/"), &g);
  fx_expect(&g, OUTCOME_OK);
  assert_string_equal(g.addr, "127.0.0.1");
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.outcome[OUTCOME_BLOCKED_ADDRESS], 8);
  /* every refused address counts; mixed.test's 10.0.0.1 only if it came first */
  assert_true(st.blocked[GUARD_PRIVATE] >= 3 && st.blocked[GUARD_PRIVATE] <= 4);
  assert_int_equal(st.blocked[GUARD_METADATA], 5);
  assert_int_equal(st.conn_opened, 1);              /* only mixed.test connected */
  got_clear(&g);
}

static void test_loopback_blocked_without_allow_list(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  fx_set_str(&c.allow_cidrs, NULL);
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  fx_wait(f, tw_url("site6.test", "/"), &g);
  fx_expect(&g, OUTCOME_BLOCKED_ADDRESS);
  assert_int_equal(g.blocked, GUARD_LOOPBACK);
  struct fetch_req rq = { .url = tw_url("site6.test", "/"), .pin_addr = "127.10.0.7" };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_BLOCKED_ADDRESS);   /* a pinned address is guarded too */
  assert_int_equal(tw_site_field("site6.test", "request_count"), 0);
  got_clear(&g);
  fx_free(&f);
}

static void test_pin_skips_dns(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  int before = dns_queries("private.test", "A");
  /* The name would resolve to 10.0.0.1; the caller's pin is what is used. */
  struct fetch_req rq = { .url = tw_url("private.test", "/"), .pin_addr = "127.10.0.8" };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_string_equal(g.addr, "127.10.0.8");
  assert_int_equal(dns_queries("private.test", "A"), before);
  /* a name no DNS server knows: libcurl never resolves by itself */
  rq.url = tw_url("unknown.invalid", "/");
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  rq.pin_addr = "10.0.0.1";
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_BLOCKED_ADDRESS);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.dns.queries, 0);
  got_clear(&g);
}

/* ---- failures before the response ---- */

static void test_dns_outcomes(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  fx_wait(f, tw_url("nx4.test", "/"), &g);
  fx_expect(&g, OUTCOME_DNS_NXDOMAIN);
  fx_wait(f, tw_url("c.servfail.test", "/"), &g);
  fx_expect(&g, OUTCOME_DNS_SERVFAIL);
  uint64_t took = fx_wait(f, tw_url("c.timeout.test", "/"), &g);
  fx_expect(&g, OUTCOME_DNS_TIMEOUT);
  print_message("# dns timeout after %llu ms (dns_timeout_ms 600)\n", (unsigned long long)took);
  assert_true(took >= 400 && took <= 1500);
  got_clear(&g);
}

static void test_connect_refused(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  fx_set_str(&c.allow_cidrs, "127.0.0.0/8,::1");
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  char u[64];
  snprintf(u, sizeof u, "http://127.0.0.1:%u/", ntohs(a.sin_port));
  fx_wait(f, u, &g);   /* bound, not listening: refused */
  close(fd);
  fx_expect(&g, OUTCOME_CONNECT_REFUSED);
  /* an IPv6 address is dialled as such (testweb listens on IPv4 only) */
  fx_wait(f, tw_url("v6.test", "/"), &g);
  fx_expect(&g, OUTCOME_CONNECT_REFUSED);
  assert_string_equal(g.addr, "::1");
  fx_wait(f, tw_url("dual.test", "/"), &g);   /* IPv4 first */
  fx_expect(&g, OUTCOME_OK);
  assert_string_equal(g.addr, "127.0.0.1");
  got_clear(&g);
  fx_free(&f);
}

static void test_connect_timeout(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  /* A listener whose queue is full: the kernel drops further SYNs. */
  int l = socket(AF_INET, SOCK_STREAM, 0), fill[3];
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(l, 0), 0);
  assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
  for(int i = 0; i < 3; i++) {
    fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(fill[i], (struct sockaddr *)&a, sizeof a);
  }
  usleep(50000);
  char u[64];
  snprintf(u, sizeof u, "http://127.0.0.1:%u/", ntohs(a.sin_port));
  struct fetch_req rq = { .url = u, .connect_timeout_ms = 400 };
  uint64_t took = fx_wait_req(f, &rq, &g);
  for(int i = 0; i < 3; i++)
    close(fill[i]);
  close(l);
  fx_expect(&g, OUTCOME_CONNECT_TIMEOUT);
  print_message("# connect timeout after %llu ms (limit 400)\n", (unsigned long long)took);
  assert_true(took >= 350 && took <= 1500);
  got_clear(&g);
}

/* ---- slow servers ---- */

static void test_hang_times_out(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  struct fetch_req rq = { .url = tw_url("site7.test", "/_b/hang"), .timeout_ms = 600 };
  uint64_t took = fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_TIMEOUT);
  print_message("# hang: timeout after %llu ms (limit 600)\n", (unsigned long long)took);
  assert_true(took >= 550 && took <= 1500);
  /* a request may not raise its timeout above the configured one */
  rq.timeout_ms = 600000;
  rq.url = tw_url("site8.test", "/_b/hang");
  struct fetch_cfg c2 = fx_cfg();
  c2.timeout_ms = 700;
  struct fetcher *f2 = fx_new(&c2);
  took = fx_wait_req(f2, &rq, &g);
  fx_expect(&g, OUTCOME_TIMEOUT);
  assert_true(took <= 1600);
  got_clear(&g);
  fx_free(&f2);
  fx_free(&f);
}

static void test_slow_drip(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.low_speed_bytes = 1000;
  c.low_speed_time_ms = 1000;
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  /* 10 bytes every 200 ms: 50 bytes/s, under the 1000 bytes/s floor */
  uint64_t took = fx_wait(f, tw_url("site9.test", "/_b/body/x?size=100000&drip_bytes=10&drip_ms=200"), &g);
  fx_expect(&g, OUTCOME_TIMEOUT);
  print_message("# slow drip: timeout after %llu ms (low speed 1000 B/s for 1 s)\n",
                (unsigned long long)took);
  assert_true(took >= 900 && took <= 3000);
  assert_true(g.blen > 0 && g.blen < 1000);
  /* a fast enough drip finishes */
  fx_wait(f, tw_url("site9.test", "/_b/body/x?size=40000&drip_bytes=10000&drip_ms=100"), &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.blen, 40000);
  /* a slow first byte within the limits */
  fx_wait(f, tw_url("site9.test", "/_b/body/x?size=100&hold_ms=300"), &g);
  fx_expect(&g, OUTCOME_OK);
  assert_true(g.t.first_byte_us >= 250000);
  got_clear(&g);
  fx_free(&f);
}

/* ---- limits ---- */

static void test_bombs_and_endless_bodies(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  static const char *paths[] = {
    "/_b/bomb/gzip?size=1g", "/_b/bomb/br?size=1g", "/_b/endless", "/_b/endless?chunked=1",
    "/_b/bomb/gzip?size=1g", "/_b/bomb/br?size=1g",
  };
  /* warm up (the brotli decoder's window, libcurl's buffers, the
   * allocator's arenas), so that what is measured is the engine's */
  for(size_t i = 0; i < 4; i++) {
    fx_wait(f, tw_url("site11.test", paths[i]), &g);
    fx_expect(&g, OUTCOME_TOO_LARGE);
  }
  long before = maxrss_kb(), mid = 0;
  for(int round = 0; round < 3; round++) {
    for(size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
      uint64_t took = fx_wait(f, tw_url("site12.test", paths[i]), &g);
      fx_expect(&g, OUTCOME_TOO_LARGE);
      assert_true(g.truncated);
      assert_int_equal(g.status, 200);
      assert_int_equal(g.blen, 1 << 20);              /* cut exactly at max_decoded */
      assert_true(g.bytes_decoded >= 1 << 20);
      if(round == 0)
        print_message("# %s: %zu bytes kept, %llu raw, %llu decoded, %llu ms\n", paths[i],
                      g.blen, (unsigned long long)g.bytes_raw,
                      (unsigned long long)g.bytes_decoded, (unsigned long long)took);
    }
    if(round == 0)
      mid = maxrss_kb();
  }
  long after = maxrss_kb();
  print_message("# max RSS %ld KiB after warm-up, %ld KiB after 6 bodies of 1 GiB, "
                "%ld KiB after 12 more\n", before, mid, after);
  assert_true(mid - before < 32 * 1024);
  assert_true(after - mid < 4 * 1024);   /* flat: more bombs, no more memory */
  got_clear(&g);
}

static void test_raw_and_decoded_caps(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.max_body_bytes = 100000;
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  /* raw cap: an uncompressed body over max_body_bytes */
  fx_wait(f, tw_url("site13.test", "/_b/body/x?size=300000"), &g);
  fx_expect(&g, OUTCOME_TOO_LARGE);
  assert_true(g.truncated);
  print_message("# raw cap 100000: %zu bytes kept, %llu raw\n", g.blen,
                (unsigned long long)g.bytes_raw);
  assert_true(g.blen >= 80000 && g.blen <= 100000);
  /* a request may lower the decoded cap ... */
  struct fetch_req rq = { .url = tw_url("site13.test", "/_b/body/x?size=5000"), .max_decoded = 1000 };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_TOO_LARGE);
  assert_int_equal(g.blen, 1000);
  /* ... but not raise it above the configured one */
  rq.url = tw_url("site13.test", "/_b/bomb/gzip?size=100m");
  rq.max_decoded = (size_t)1 << 30;
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_TOO_LARGE);
  assert_int_equal(g.blen, 1 << 20);
  /* at the cap exactly is fine */
  rq.url = tw_url("site13.test", "/_b/body/x?size=5000");
  rq.max_decoded = 5000;
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.blen, 5000);
  got_clear(&g);
  fx_free(&f);
}

static void test_endless_and_huge_headers(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  fx_wait(f, tw_url("site14.test", "/_b/endless-headers"), &g);
  fx_expect(&g, OUTCOME_TOO_LARGE);
  assert_int_equal(g.blen, 0);
  fx_wait(f, tw_url("site14.test", "/_b/malformed/huge-header?size=50000"), &g);
  fx_expect(&g, OUTCOME_TOO_LARGE);   /* over max_header_bytes (16k) */
  fx_wait(f, tw_url("site14.test", "/_b/malformed/huge-header?size=1m"), &g);
  fx_expect(&g, OUTCOME_TOO_LARGE);   /* over libcurl's own line limit */
  got_clear(&g);
}

/* ---- broken responses ---- */

static void test_malformed_responses(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  static const struct { const char *variant; enum outcome o; } tab[] = {
    { "status-line", OUTCOME_PROTOCOL_ERROR },
    { "no-status", OUTCOME_PROTOCOL_ERROR },        /* HTTP/0.9 is refused */
    { "bad-version", OUTCOME_PROTOCOL_ERROR },
    { "no-colon", OUTCOME_PROTOCOL_ERROR },
    { "negative-length", OUTCOME_PROTOCOL_ERROR },
    { "bad-chunk", OUTCOME_PROTOCOL_ERROR },
    { "short-body", OUTCOME_RESET },                /* closed before Content-Length */
    { "bad-length", OUTCOME_RESET },                /* "12abc" is read as 12 */
    { "two-lengths", OUTCOME_RESET },               /* the last one (9) wins */
    { "long-body", OUTCOME_OK },                    /* extra bytes are ignored */
    { "lf-only", OUTCOME_OK },                      /* bare LF line ends are tolerated */
    { "space-before-colon", OUTCOME_OK },
  };
  char p[128];
  for(size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    snprintf(p, sizeof p, "/_b/malformed/%s", tab[i].variant);
    fx_wait(f, tw_url("site15.test", p), &g);
    if(g.o != tab[i].o)
      print_error("%s: %s (%s)\n", tab[i].variant, outcome_name(g.o), g.detail);
    assert_int_equal(g.o, tab[i].o);
  }
  got_clear(&g);
}

static void test_reset_mid_body(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  fx_wait(f, tw_url("site16.test", "/_b/body/x?size=200000&reset_after=50000"), &g);
  fx_expect(&g, OUTCOME_RESET);
  assert_int_equal(g.status, 200);
  assert_true(g.blen > 0 && g.blen <= 50000);
  fx_wait(f, tw_url("site16.test", "/_b/body/x?size=200000&close_after=50000"), &g);
  fx_expect(&g, OUTCOME_RESET);
  assert_int_equal(g.blen, 50000);
  fx_wait(f, tw_url("site16.test", "/_b/body/x?size=200000&close_after=50000&chunked=1"), &g);
  fx_expect(&g, OUTCOME_RESET);
  got_clear(&g);
}

/* ---- admission, cancel, shutdown ---- */

static void test_refused_at_once(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  static const struct { const char *u; enum outcome o; } tab[] = {
    { "ftp://site1.test/", OUTCOME_UNSUPPORTED_SCHEME },
    { "file:///etc/passwd", OUTCOME_UNSUPPORTED_SCHEME },
    { "http://", OUTCOME_BAD_URL },
    { "not a url", OUTCOME_BAD_URL },
    { "http://user:pw@site1.test/", OUTCOME_BAD_URL },
  };
  for(size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    struct fetch_req rq = { .url = tab[i].u };
    assert_int_equal(fetch_start(f, &rq, fx_on_fetch, &g, NULL), tab[i].o);
  }
  const char *bad_hdr[] = { "X-A: 1\r\nX-B: 2" };
  struct fetch_req rq = { .url = tw_url("site1.test", "/"), .headers = bad_hdr, .nheaders = 1 };
  assert_int_equal(fetch_start(f, &rq, fx_on_fetch, &g, NULL), OUTCOME_BAD_REQUEST);
  struct fetch_req rq2 = { .url = tw_url("site1.test", "/"), .pin_addr = "not-an-ip" };
  assert_int_equal(fetch_start(f, &rq2, fx_on_fetch, &g, NULL), OUTCOME_BAD_REQUEST);
  it_run_for(50);
  assert_int_equal(g.calls, 0);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.outcome[OUTCOME_UNSUPPORTED_SCHEME], 2);
  assert_int_equal(st.outcome[OUTCOME_BAD_URL], 3);
  assert_int_equal(st.outcome[OUTCOME_BAD_REQUEST], 2);
  assert_int_equal(st.accepted, 0);
}

static void test_queue_fifo_and_overloaded(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.max_in_flight = 1;
  c.max_queue = 2;
  struct fetcher *f = fx_new(&c);
  struct got g[4];
  memset(g, 0, sizeof g);
  const char *sites[3] = { "site20.test", "site21.test", "site22.test" };
  for(int i = 0; i < 3; i++) {
    struct fetch_req rq = { .url = tw_url(sites[i], "/_b/body/x?size=10&hold_ms=150") };
    fx_start(f, &rq, &g[i]);
  }
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.in_flight, 1);
  assert_int_equal(st.queued, 2);
  struct fetch_req rq = { .url = tw_url("site23.test", "/") };
  assert_int_equal(fetch_start(f, &rq, fx_on_fetch, &g[3], NULL), OUTCOME_OVERLOADED);
  int base = fx_finished;
  it_run_count(&fx_finished, base + 3, 5000);
  for(int i = 0; i < 3; i++) {
    fx_expect(&g[i], OUTCOME_OK);
    assert_int_equal(g[i].order, base + i + 1);    /* first in, first out */
  }
  assert_true(g[2].t.queue_us >= 250000);          /* waited for two holds */
  /* one at a time on the servers' side */
  assert_true(g[1].done_ms - g[0].done_ms >= 100);
  fetcher_stats(f, &st);
  assert_int_equal(st.outcome[OUTCOME_OVERLOADED], 1);
  assert_int_equal(st.in_flight + st.queued, 0);
  for(int i = 0; i < 4; i++)
    got_clear(&g[i]);
  fx_free(&f);
}

static void test_queue_deadline(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.max_in_flight = 1;
  struct fetcher *f = fx_new(&c);
  struct got a = { 0 }, b = { 0 };
  struct fetch_req ra = { .url = tw_url("site24.test", "/_b/hang"), .timeout_ms = 1000 };
  struct fetch_req rb = { .url = tw_url("site25.test", "/"), .timeout_ms = 300 };
  fx_start(f, &ra, &a);
  uint64_t t0 = clock_mono_ms();
  fx_start(f, &rb, &b);
  it_run_count(&b.calls, 1, 3000);
  /* Its time passed while it waited: the fetcher's fault, not the site's. */
  fx_expect(&b, OUTCOME_OVERLOADED);
  assert_true(b.done_ms - t0 >= 250 && b.done_ms - t0 <= 800);
  it_run_count(&a.calls, 1, 3000);
  fx_expect(&a, OUTCOME_TIMEOUT);
  assert_int_equal(tw_site_field("site25.test", "request_count"), 0);
  got_clear(&a);
  got_clear(&b);
  fx_free(&f);
}

/* A fetch that waited in the queue most of its timeout still gets the
 * whole timeout at its site: the wait is the fetcher's, not the site's. */
static void test_queue_wait_not_charged(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.max_in_flight = 1;
  struct fetcher *f = fx_new(&c);
  struct got a = { 0 }, b = { 0 };
  struct fetch_req ra = { .url = tw_url("site90.test", "/_b/body/x?size=10&hold_ms=500") };
  struct fetch_req rb = { .url = tw_url("site91.test", "/_b/body/x?size=10&hold_ms=400"),
                          .timeout_ms = 700 };
  fx_start(f, &ra, &a);
  fx_start(f, &rb, &b);
  it_run_count(&b.calls, 1, 5000);
  fx_expect(&b, OUTCOME_OK);        /* 500 ms queued + 400 ms at the site > 700 */
  assert_true(b.t.queue_us >= 400000);
  it_run_count(&a.calls, 1, 3000);
  fx_expect(&a, OUTCOME_OK);
  got_clear(&a);
  got_clear(&b);
  fx_free(&f);
}

static void test_cancel(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.max_in_flight = 1;
  struct fetcher *f = fx_new(&c);
  struct got a = { 0 }, b = { 0 }, d = { 0 };
  struct fetch_job *ja, *jb, *jd;
  struct fetch_req ra = { .url = tw_url("site26.test", "/_b/hang") };
  struct fetch_req rb = { .url = tw_url("site27.test", "/") };
  struct fetch_req rd = { .url = tw_url("nx5.test", "/") };
  assert_int_equal(fetch_start(f, &ra, fx_on_fetch, &a, &ja), OUTCOME_OK);
  assert_int_equal(fetch_start(f, &rb, fx_on_fetch, &b, &jb), OUTCOME_OK);   /* queued */
  it_run_for(200);
  assert_int_equal(tw_site_field("site26.test", "in_flight"), 1);
  fetch_cancel(&ja);   /* transferring */
  fetch_cancel(&jb);   /* queued */
  assert_null(ja);
  assert_int_equal(fetch_start(f, &rd, fx_on_fetch, &d, &jd), OUTCOME_OK);
  fetch_cancel(&jd);   /* resolving */
  it_run_for(300);
  assert_int_equal(a.calls + b.calls + d.calls, 0);
  assert_int_equal(tw_site_field("site26.test", "open_connections"), 0);  /* we hung up */
  assert_int_equal(tw_site_field("site27.test", "request_count"), 0);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.cancelled, 3);
  assert_int_equal(st.in_flight + st.queued, 0);
  fx_free(&f);
}

/* The request's first arrival at a site, testweb's clock (wall, us). */
static uint64_t site_first_arrive(const char *site)
{
  char p[256];
  snprintf(p, sizeof p, "/sites/%s?requests=10", site);
  json_t *j = tw_get(p);
  json_t *r = json_array_get(json_object_get(j, "requests"), 0);
  uint64_t v = (uint64_t)json_integer_value(json_object_get(r, "arrive_us"));
  json_decref(j);
  return v;
}

static uint64_t wall_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* hold_us: each site is contacted no sooner than asked, in the order of
 * the holds whatever the order of the calls; a cancelled held fetch never
 * reaches its site; the timeout counts from the end of the hold. */
static void test_hold(void **state)
{
  struct fetcher *f = *state;
  static const uint64_t hold[3] = { 300000, 100000, 200000 };
  static const char *const site[3] = { "site80.test", "site81.test", "site82.test" };
  struct got g[3] = { 0 }, x = { 0 };
  struct fetch_job *jx;
  uint64_t t0 = wall_us();
  for(int i = 0; i < 3; i++) {
    struct fetch_req rq = { .url = tw_url(site[i], "/"), .hold_us = hold[i], .timeout_ms = 250 };
    fx_start(f, &rq, &g[i]);
  }
  struct fetch_req rx = { .url = tw_url("site83.test", "/"), .hold_us = 150000 };
  assert_int_equal(fetch_start(f, &rx, fx_on_fetch, &x, &jx), OUTCOME_OK);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.held, 4);
  it_run_for(50);
  fetch_cancel(&jx);
  it_run_count(&g[0].calls, 1, 3000);
  it_run_count(&g[2].calls, 1, 3000);
  for(int i = 0; i < 3; i++) {
    fx_expect(&g[i], OUTCOME_OK);
    uint64_t arr = site_first_arrive(site[i]);
    print_message("# %s: held %llu us, reached the site %lld us after the call\n", site[i],
                  (unsigned long long)g[i].t.hold_us, (long long)(arr - t0));
    assert_true(arr >= t0 + hold[i]);
    assert_true(g[i].t.hold_us >= hold[i]);
    assert_true(g[i].t.total_us < 250000);
  }
  assert_true(g[1].order < g[2].order && g[2].order < g[0].order);
  assert_int_equal(x.calls, 0);
  assert_int_equal(tw_site_field("site83.test", "request_count"), 0);
  fetcher_stats(f, &st);
  assert_int_equal(st.held, 0);
  assert_int_equal(st.cancelled, 1);
  for(int i = 0; i < 3; i++)
    got_clear(&g[i]);
}

static int stops;
static void on_stopped(void *arg)
{
  (void)arg;
  stops++;
}

static void test_graceful_shutdown(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  struct fetcher *f = fx_new(&c);
  struct got h1 = { 0 }, h2 = { 0 }, q = { 0 }, late = { 0 };
  struct fetch_req r1 = { .url = tw_url("site28.test", "/_b/hang") };
  struct fetch_req r2 = { .url = tw_url("site29.test", "/_b/hang") };
  struct fetch_req rq = { .url = tw_url("site30.test", "/_b/body/x?size=100&hold_ms=100") };
  fx_start(f, &r1, &h1);
  fx_start(f, &r2, &h2);
  fx_start(f, &rq, &q);
  stops = 0;
  uint64_t t0 = clock_mono_ms();
  fetcher_shutdown(f, 400, on_stopped, NULL);
  assert_int_equal(fetch_start(f, &rq, fx_on_fetch, &late, NULL), OUTCOME_SHUTTING_DOWN);
  it_run_count(&stops, 1, 3000);
  assert_int_equal(stops, 1);
  fx_expect(&q, OUTCOME_OK);                   /* finished in time */
  fx_expect(&h1, OUTCOME_SHUTTING_DOWN);       /* cut at the deadline */
  fx_expect(&h2, OUTCOME_SHUTTING_DOWN);
  assert_true(h1.done_ms - t0 >= 380 && h1.done_ms - t0 <= 1000);
  assert_true(q.done_ms < h1.done_ms);
  assert_int_equal(late.calls, 0);
  it_run_for(50);
  assert_int_equal(stops, 1);
  got_clear(&h1);
  got_clear(&h2);
  got_clear(&q);
  fx_free(&f);
  /* a shutdown with nothing left to wait for ends at once */
  c = fx_cfg();
  f = fx_new(&c);
  stops = 0;
  t0 = clock_mono_ms();
  fetcher_shutdown(f, 5000, on_stopped, NULL);
  it_run_count(&stops, 1, 3000);
  assert_true(clock_mono_ms() - t0 < 500);
  fx_free(&f);
}

struct freer {
  struct fetcher **f;
  int calls;
};

static void on_fetch_free(struct fetch_res *r, void *arg)
{
  struct freer *fr = arg;
  (void)r;
  fr->calls++;
  fetcher_free(fr->f);   /* from inside the engine's own callback */
}

static void test_free_inside_callback(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  struct fetcher *f = fx_new(&c);
  struct freer fr = { &f, 0 };
  struct got other = { 0 };
  struct fetch_req r1 = { .url = tw_url("site31.test", "/") };
  struct fetch_req r2 = { .url = tw_url("site32.test", "/_b/hang") };
  assert_int_equal(fetch_start(f, &r2, fx_on_fetch, &other, NULL), OUTCOME_OK);
  assert_int_equal(fetch_start(f, &r1, on_fetch_free, &fr, NULL), OUTCOME_OK);
  it_run_count(&fr.calls, 1, 3000);
  assert_int_equal(fr.calls, 1);
  assert_null(f);
  uv_run(it_loop, UV_RUN_DEFAULT);
  assert_int_equal(other.calls, 0);
}

static void test_pinned_block_not_synchronous(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  struct fetch_req rq = { .url = tw_url("site33.test", "/"), .pin_addr = "169.254.169.254" };
  fx_wait_req(f, &rq, &g);   /* asserts the callback came from the loop */
  fx_expect(&g, OUTCOME_BLOCKED_ADDRESS);
  assert_int_equal(g.blocked, GUARD_METADATA);
  got_clear(&g);
}

/* ---- TLS (openssl s_server -www on TLS_PORT, certificate for tls.test) ---- */

static void tls_url(char *out, size_t n, const char *host)
{
  snprintf(out, n, "https://%s:%s/", host, getenv("TLS_PORT"));
}

static void test_tls(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  fx_set_str(&c.tls_ca_file, getenv("TLS_CA"));
  struct fetcher *f = fx_new(&c);
  struct got g = { 0 };
  char u[128];
  tls_url(u, sizeof u, "tls.test");
  struct fetch_req rq = { .url = u, .pin_addr = "127.0.0.1" };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_int_equal(g.status, 200);
  assert_true(g.t.tls_us > 0);
  assert_non_null(strstr(g.body, "New, "));     /* s_server: a full handshake */
  fx_wait_req(f, &rq, &g);                    /* s_server closes: new connection */
  fx_expect(&g, OUTCOME_OK);
  assert_non_null(strstr(g.body, "Reused, "));  /* TLS session resumed */
  /* the certificate does not name other.test */
  tls_url(u, sizeof u, "other.test");
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_TLS_ERROR);
  got_clear(&g);
  fx_free(&f);
  /* without the test CA the chain does not verify */
  c = fx_cfg();
  f = fx_new(&c);
  tls_url(u, sizeof u, "tls.test");
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_TLS_ERROR);
  got_clear(&g);
  fx_free(&f);
}

/* Fetchers on two threads share the TLS session cache (fetch_shared): a
 * session made by the first is resumed by the second, on its own loop. */
struct tls_peer {
  struct fetch_shared *sh;
  const char *url;
  enum outcome o;
  bool reused_session, started;
  int calls, loop_close_rc;
};

static void *tls_peer_main(void *arg)
{
  struct tls_peer *p = arg;
  uv_loop_t l;
  char err[256];
  struct got g = { 0 };
  struct fetch_cfg c = fx_cfg();
  fx_set_str(&c.tls_ca_file, getenv("TLS_CA"));
  uv_loop_init(&l);
  struct fetcher *f = fetcher_new_shared(&l, &c, p->sh, err, sizeof err);
  fetch_cfg_clear(&c);
  struct fetch_req rq = { .url = p->url, .pin_addr = "127.0.0.1" };
  p->started = f && fetch_start(f, &rq, fx_on_fetch, &g, NULL) == OUTCOME_OK;
  for(uint64_t end = clock_mono_ms() + 10000; p->started && !g.calls && clock_mono_ms() < end;)
    uv_run(&l, UV_RUN_ONCE);
  p->calls = g.calls;
  p->o = g.o;
  p->reused_session = g.body && strstr(g.body, "Reused, ");
  got_clear(&g);
  fetcher_free(&f);
  uv_run(&l, UV_RUN_DEFAULT);
  p->loop_close_rc = uv_loop_close(&l);
  return NULL;
}

static void test_tls_sessions_shared(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  fx_set_str(&c.tls_ca_file, getenv("TLS_CA"));
  char err[256] = "", u[128];
  struct fetch_shared *sh = fetch_shared_new(&c, err, sizeof err);
  assert_non_null(sh);
  struct fetcher *f = fetcher_new_shared(it_loop, &c, sh, err, sizeof err);
  fetch_cfg_clear(&c);
  assert_non_null(f);
  struct got g = { 0 };
  tls_url(u, sizeof u, "tls.test");
  struct fetch_req rq = { .url = u, .pin_addr = "127.0.0.1" };
  fx_wait_req(f, &rq, &g);
  fx_expect(&g, OUTCOME_OK);
  assert_non_null(strstr(g.body, "New, "));
  struct tls_peer p = { .sh = sh, .url = u };
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, tls_peer_main, &p), 0);
  pthread_join(t, NULL);
  assert_true(p.started);
  assert_int_equal(p.calls, 1);
  assert_int_equal(p.o, OUTCOME_OK);
  assert_true(p.reused_session);   /* the other thread's session, resumed */
  assert_int_equal(p.loop_close_rc, 0);
  got_clear(&g);
  fx_free(&f);
  fetch_shared_free(&sh);
}

/* The admission limits hold over every fetcher of a fetch_shared, and a
 * slot freed on one thread admits a fetch queued on another. */
struct adm_peer {
  struct fetch_shared *sh;
  const char *url_x, *url_y;
  enum outcome start_x, start_y;
  struct got x;
  int loop_close_rc;
};

static void *adm_peer_main(void *arg)
{
  struct adm_peer *p = arg;
  uv_loop_t l;
  char err[256];
  struct got y = { 0 };
  struct fetch_cfg c = fx_cfg();
  uv_loop_init(&l);
  struct fetcher *f = fetcher_new_shared(&l, &c, p->sh, err, sizeof err);
  fetch_cfg_clear(&c);
  struct fetch_req rx = { .url = p->url_x }, ry = { .url = p->url_y };
  p->start_x = f ? fetch_start(f, &rx, fx_on_fetch, &p->x, NULL) : OUTCOME_INTERNAL;
  p->start_y = f ? fetch_start(f, &ry, fx_on_fetch, &y, NULL) : OUTCOME_INTERNAL;
  for(uint64_t end = clock_mono_ms() + 10000; f && !p->x.calls && clock_mono_ms() < end;)
    uv_run(&l, UV_RUN_ONCE);
  fetcher_free(&f);
  uv_run(&l, UV_RUN_DEFAULT);
  p->loop_close_rc = uv_loop_close(&l);
  return NULL;
}

static void test_shared_admission(void **state)
{
  (void)state;
  struct fetch_cfg c = fx_cfg();
  c.max_in_flight = 1;
  c.max_queue = 1;
  char err[256] = "";
  struct fetch_shared *sh = fetch_shared_new(&c, err, sizeof err);
  assert_non_null(sh);
  struct fetcher *f = fetcher_new_shared(it_loop, &c, sh, err, sizeof err);
  fetch_cfg_clear(&c);
  assert_non_null(f);
  struct got a = { 0 };
  struct fetch_req ra = { .url = tw_url("site70.test", "/_b/hang"), .timeout_ms = 1200 };
  fx_start(f, &ra, &a);   /* the one slot, here */
  struct adm_peer p = { .sh = sh, .url_x = tw_url("site71.test", "/p/1.html"),
                        .url_y = tw_url("site72.test", "/p/1.html") };
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, adm_peer_main, &p), 0);
  it_run_count(&a.calls, 1, 5000);
  fx_expect(&a, OUTCOME_TIMEOUT);
  pthread_join(t, NULL);
  assert_int_equal(p.start_x, OUTCOME_OK);           /* the one place in the queue */
  assert_int_equal(p.start_y, OUTCOME_OVERLOADED);   /* no slot, queue full: over both */
  assert_int_equal(p.x.calls, 1);
  assert_int_equal(p.x.o, OUTCOME_OK);               /* admitted once our slot was freed */
  assert_true(p.x.t.queue_us >= 800000);             /* ... and not before */
  assert_int_equal(p.loop_close_rc, 0);
  assert_int_equal(tw_site_field("site71.test", "request_count"), 1);
  assert_int_equal(tw_site_field("site72.test", "request_count"), 0);
  got_clear(&a);
  got_clear(&p.x);
  fx_free(&f);
  fetch_shared_free(&sh);
}

static void test_stats_phases(void **state)
{
  struct fetcher *f = *state;
  struct got g = { 0 };
  for(int i = 0; i < 3; i++)
    fx_wait(f, tw_url("site34.test", "/"), &g);
  fx_wait(f, tw_url("nx6.test", "/"), &g);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  uint64_t n[FETCH_PHASE__COUNT] = { 0 };
  for(int p = 0; p < FETCH_PHASE__COUNT; p++)
    for(int b = 0; b <= METRICS_LAT_BUCKETS; b++)
      n[p] += st.phase[p].count[b];
  assert_int_equal(n[FETCH_PHASE_TOTAL], 4);
  assert_int_equal(n[FETCH_PHASE_DNS], 4);
  assert_int_equal(n[FETCH_PHASE_CONNECT], 1);
  assert_int_equal(n[FETCH_PHASE_FIRST_BYTE], 3);
  assert_int_equal(n[FETCH_PHASE_TLS], 0);
  assert_true(st.bytes_raw > 0 && st.bytes_decoded == st.bytes_raw && st.bytes_header > 0);
  assert_string_equal(fetch_phase_name(FETCH_PHASE_FIRST_BYTE), "first_byte");
  got_clear(&g);
}

int main(void)
{
  if(!tw_env() || !getenv("DNS_SERVER") || !getenv("DNS_LOG") || !getenv("TLS_PORT") ||
     !getenv("TLS_CA")) {
    fprintf(stderr, "itest_fetch: run through tests/e2e/llfs_engine_fetch.sh\n");
    return 2;
  }
  it_loop_init();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_get_ok, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_head_and_headers, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_conditional_304, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_redirect_not_followed, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_status_and_retry_after, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_connection_reuse, fx_setup, fx_teardown),
    cmocka_unit_test(test_idle_connection_closed_by_server),
    cmocka_unit_test(test_dns_cache_seen_by_server),
    cmocka_unit_test_setup_teardown(test_one_query_many_fetches, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_blocked_addresses, fx_setup, fx_teardown),
    cmocka_unit_test(test_loopback_blocked_without_allow_list),
    cmocka_unit_test_setup_teardown(test_pin_skips_dns, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_dns_outcomes, fx_setup, fx_teardown),
    cmocka_unit_test(test_connect_refused),
    cmocka_unit_test_setup_teardown(test_connect_timeout, fx_setup, fx_teardown),
    cmocka_unit_test(test_hang_times_out),
    cmocka_unit_test(test_slow_drip),
    cmocka_unit_test_setup_teardown(test_bombs_and_endless_bodies, fx_setup, fx_teardown),
    cmocka_unit_test(test_raw_and_decoded_caps),
    cmocka_unit_test_setup_teardown(test_endless_and_huge_headers, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_malformed_responses, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_reset_mid_body, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_refused_at_once, fx_setup, fx_teardown),
    cmocka_unit_test(test_queue_fifo_and_overloaded),
    cmocka_unit_test(test_queue_deadline),
    cmocka_unit_test(test_queue_wait_not_charged),
    cmocka_unit_test(test_cancel),
    cmocka_unit_test_setup_teardown(test_hold, fx_setup, fx_teardown),
    cmocka_unit_test(test_graceful_shutdown),
    cmocka_unit_test(test_free_inside_callback),
    cmocka_unit_test_setup_teardown(test_pinned_block_not_synchronous, fx_setup, fx_teardown),
    cmocka_unit_test(test_tls),
    cmocka_unit_test(test_tls_sessions_shared),
    cmocka_unit_test(test_shared_admission),
    cmocka_unit_test_setup_teardown(test_stats_phases, fx_setup, fx_teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  it_loop_close();
  curl_global_cleanup();
  return rc;
}
