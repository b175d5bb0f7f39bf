/* llfs/fetch*.c without servers: header-block parsing,
 * requests refused at once, and out-of-memory at every allocation of
 * fetch_start (a fetch to a closed loopback port: refused at once). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "llfs/fetch.c"
#include "common/mem.h"
#include "llfs/fetch_int.h"

static uv_loop_t *loop;

static void test_header_block(void **state)
{
  (void)state;
  struct fetch_res r;
  fetch_res_init(&r, 200, 10);
  const char *lines[] = {
    "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "Content-Type: text/html\r\n",
    "X-Folded: one\r\n", "  two\r\n", "ETag:   \"abc\"  \r\n", "\r\n",
  };
  for(size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
    assert_int_equal(fetch_res_header_line(&r, lines[i], strlen(lines[i])), 0);
  assert_string_equal(r.headers.data, "Content-Type: text/html\nX-Folded: one two\n"
                                      "ETag:   \"abc\"  \n");
  size_t n;
  const char *v = fetch_res_header(&r, "etag", &n);
  assert_non_null(v);
  assert_int_equal(n, 5);
  assert_memory_equal(v, "\"abc\"", 5);
  v = fetch_res_header(&r, "x-folded", &n);
  assert_int_equal(n, 7);
  assert_null(fetch_res_header(&r, "content", &n));
  assert_null(fetch_res_header(&r, "Missing", &n));
  /* over the cap: refused, the block stays as it was */
  char big[300];
  memset(big, 'a', sizeof big - 3);
  memcpy(big + sizeof big - 3, "\r\n", 3);
  assert_int_not_equal(fetch_res_header_line(&r, big, strlen(big)), 0);
  assert_non_null(fetch_res_header(&r, "etag", &n));
  fetch_res_clear(&r);
}

struct got {
  int calls;
  enum outcome o;
};

static void on_fetch(struct fetch_res *r, void *arg)
{
  struct got *g = arg;
  g->calls++;
  g->o = r->outcome;
}

static struct fetcher *make(long in_flight, long queue)
{
  struct fetch_cfg c;
  fetch_cfg_defaults(&c);
  free(c.allow_cidrs);
  c.allow_cidrs = strdup("127.0.0.0/8");
  c.dns_servers = strdup("127.0.0.1:9");
  c.max_in_flight = in_flight;
  c.max_queue = queue;
  c.dns_timeout_ms = 300;   /* a query whose socket watcher was lost times out fast */
  c.timeout_ms = 2000;
  char err[128];
  struct fetcher *f = fetcher_new_shared(loop, &c, NULL, err, sizeof err);
  fetch_cfg_clear(&c);
  assert_non_null(f);
  return f;
}

static void drain(struct fetcher **f)
{
  fetcher_free(f);
  uv_run(loop, UV_RUN_DEFAULT);
}

static void test_refused_at_once(void **state)
{
  (void)state;
  struct fetcher *f = make(1, 0);
  struct got g = { 0 };
  struct fetch_req rq = { .url = "gopher://h/" };
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_UNSUPPORTED_SCHEME);
  rq.url = "http://[::1/";
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_BAD_URL);
  rq.url = "http://127.0.0.1:9/";
  rq.pin_addr = "1.2.3";
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_BAD_REQUEST);
  rq.pin_addr = NULL;
  const char *h[] = { "NoColon" };
  rq.headers = h;
  rq.nheaders = 1;
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_BAD_REQUEST);
  rq.nheaders = 0;
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_OK);
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_OVERLOADED);  /* queue 0 */
  while(!g.calls)
    uv_run(loop, UV_RUN_ONCE);
  assert_int_equal(g.o, OUTCOME_CONNECT_REFUSED);
  fetcher_shutdown(f, 0, NULL, NULL);
  assert_int_equal(fetch_start(f, &rq, on_fetch, &g, NULL), OUTCOME_SHUTTING_DOWN);
  struct fetch_stats st;
  fetcher_stats(f, &st);
  assert_int_equal(st.accepted, 1);
  assert_int_equal(st.outcome[OUTCOME_CONNECT_REFUSED], 1);
  assert_int_equal(st.outcome[OUTCOME_OVERLOADED], 1);
  assert_int_equal(st.outcome[OUTCOME_SHUTTING_DOWN], 1);
  drain(&f);
  assert_int_equal(g.calls, 1);
  assert_int_equal(mem_live(), 0);
}

/* Each allocation of fetch_start and of the fetch's life fails in turn
 * (the last rounds fail none): a refused start never calls back, an
 * accepted one calls back once; nothing leaks. */
static void test_nomem_each_allocation(void **state)
{
  (void)state;
  int all = 0;
  for(unsigned long k = 1; k <= 60; k++) {
    struct fetcher *f = make(4, 4);
    struct got g[3] = { { 0 } };
    const char *urls[3] = { "http://127.0.0.1:9/a", "http://localhost.test:9/", "http://[::1]:9/" };
    int accepted[3];
    mem_fail_at(k);
    for(int i = 0; i < 3; i++) {
      struct fetch_req rq = { .url = urls[i] };
      enum outcome o = fetch_start(f, &rq, on_fetch, &g[i], NULL);
      assert_true(o == OUTCOME_OK || o == OUTCOME_NOMEM);
      accepted[i] = o == OUTCOME_OK;
    }
    all = accepted[0] && accepted[1] && accepted[2];
    for(int spins = 0; spins < 10000; spins++) {
      int pending = 0;
      for(int i = 0; i < 3; i++)
        pending += accepted[i] && !g[i].calls;
      if(!pending)
        break;
      uv_run(loop, UV_RUN_ONCE);
    }
    mem_fail_at(0);
    for(int i = 0; i < 3; i++) {
      assert_int_equal(g[i].calls, accepted[i]);
      all &= g[i].o != OUTCOME_NOMEM;
    }
    drain(&f);
    assert_int_equal(mem_live(), 0);
  }
  assert_true(all);   /* 60 is past the last allocation */
}

int main(void)
{
  loop = uv_default_loop();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_header_block),
    cmocka_unit_test(test_refused_at_once),
    cmocka_unit_test(test_nomem_each_allocation),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  uv_loop_close(loop);
  return rc;
}
