/* hlfs/state/store.c against a real redis-server: replies, the pending cap,
 * NOSCRIPT fallback, reconnection, deadlines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "tests/integ/fixture/redis.h"

static void test_basic_replies(void **state)
{
  (void)state;
  struct store *s = it_store_new(2000, 64);
  store_start(s);
  it_wait_up(s);
  assert_string_equal(it_cmd(s, "FLUSHALL"), "OK");
  assert_string_equal(it_cmd(s, "SET k v1"), "OK");
  assert_string_equal(it_cmd(s, "GET k"), "v1");
  assert_string_equal(it_cmd(s, "GET nokey"), "(nil)");
  assert_string_equal(it_cmd(s, "RPUSH l a b 7"), "3");
  assert_string_equal(it_cmd(s, "LRANGE l 0 -1"), "[a,b,7]");
  assert_string_equal(it_cmd(s, "HINCRBY h f 5"), "5");
  assert_int_equal(it_int(s, "INCRBY n 9"), 9);
  const char *e = it_cmd(s, "INCR k");
  assert_true(e[0] == '!');
  assert_true(store_stats(s)->reply_errors >= 1);
  it_store_close(&s);
}

static int cap_cb_calls;
static store_err cap_errs[3];
static void cap_on_reply(void *arg, store_err err, const struct store_val *v)
{
  (void)v;
  (void)arg;
  if(cap_cb_calls < 3)
    cap_errs[cap_cb_calls] = err;
  cap_cb_calls++;
}

static void test_pending_cap(void **state)
{
  (void)state;
  struct store *s = it_store_new(2000, 4);
  store_start(s);
  it_wait_up(s);
  it_cmd(s, "PING");  /* scripts of the connect are answered by now */
  const char *argv[] = { "PING" };
  size_t lens[] = { 4 };
  int ok = 0, busy = 0;
  cap_cb_calls = 0;
  for(int i = 0; i < 10; i++) {
    store_err e = store_cmd(s, 1, argv, lens, 0, cap_on_reply, NULL);
    ok += e == STORE_OK;
    busy += e == STORE_BUSY;
  }
  assert_int_equal(ok, 4);
  assert_int_equal(busy, 6);
  assert_int_equal(store_stats(s)->busy, 6);
  volatile int four = 0;
  for(int i = 0; i < 500 && cap_cb_calls < 4; i++)
    uv_run(it_loop, UV_RUN_ONCE);
  four = cap_cb_calls == 4;
  assert_true(four);
  assert_int_equal(cap_errs[0], STORE_OK);
  assert_int_equal(store_stats(s)->pending, 0);
  it_store_close(&s);
}

struct eval_res { int done; store_err err; long long n; };
static void eval_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct eval_res *r = arg;
  r->err = err;
  r->n = store_v_int(v, -1);
  r->done = 1;
}

static const char script_add[] = "return tonumber(ARGV[1]) + redis.call('INCR', KEYS[1])";

static long long eval_add(struct store *s, int id, const char *key, const char *num,
                          store_err *errp)
{
  struct eval_res r = { 0 };
  const char *argv[] = { key, num };
  size_t lens[] = { strlen(key), strlen(num) };
  store_err e = store_eval(s, id, 1, 2, argv, lens, eval_on_reply, &r);
  if(e) {
    *errp = e;
    return -1;
  }
  assert_true(it_run_until(&r.done, 5000));
  *errp = r.err;
  return r.n;
}

static void test_evalsha_and_noscript(void **state)
{
  (void)state;
  struct store *s = it_store_new(2000, 64);
  int id = store_script(s, "add", script_add);
  store_start(s);
  it_wait_up(s);
  it_cmd(s, "FLUSHALL");
  store_err e;
  assert_int_equal(eval_add(s, id, "ctr", "100", &e), 101);
  assert_int_equal(e, STORE_OK);
  assert_int_equal(store_stats(s)->noscript, 0);
  /* the server forgets the script (restart, failover): EVAL takes over */
  assert_string_equal(it_cmd(s, "SCRIPT FLUSH"), "OK");
  assert_int_equal(eval_add(s, id, "ctr", "100", &e), 102);
  assert_int_equal(e, STORE_OK);
  assert_int_equal(store_stats(s)->noscript, 1);
  /* EVAL cached it again: EVALSHA works without a fallback */
  assert_int_equal(eval_add(s, id, "ctr", "0", &e), 3);
  assert_int_equal(store_stats(s)->noscript, 1);
  it_store_close(&s);
}

static const char lib_add[] =
  "#!lua name=itest_add\n"
  "redis.register_function('itest_add', function(KEYS, ARGV)\n"
  "  return tonumber(ARGV[1]) + redis.call('INCR', KEYS[1]) end)\n";

static void test_function_and_lost_library(void **state)
{
  (void)state;
  struct store *s = it_store_new(2000, 64);
  int id = store_function(s, "itest_add", lib_add, "itest_add");
  store_start(s);
  it_wait_up(s);
  it_cmd(s, "FLUSHALL");
  store_err e;
  /* loaded on connect, then called by name */
  assert_int_equal(eval_add(s, id, "ctr", "100", &e), 101);
  assert_int_equal(e, STORE_OK);
  assert_int_equal(store_stats(s)->noscript, 0);
  assert_non_null(strstr(it_cmd(s, "FUNCTION LIST LIBRARYNAME itest_add"), "itest_add"));
  /* the server forgets the library (a restart without persistence):
   * loaded again, and the call sent again after it */
  assert_string_equal(it_cmd(s, "FUNCTION FLUSH"), "OK");
  assert_int_equal(eval_add(s, id, "ctr", "100", &e), 102);
  assert_int_equal(e, STORE_OK);
  assert_int_equal(store_stats(s)->noscript, 1);
  assert_int_equal(eval_add(s, id, "ctr", "0", &e), 3);
  assert_int_equal(store_stats(s)->noscript, 1);
  /* many calls in flight when it is lost: the library goes once */
  it_cmd(s, "FUNCTION FLUSH");
  it_cmd(s, "CONFIG RESETSTAT");
  struct eval_res rs[5] = { { 0 } };
  const char *argv[] = { "ctr", "0" };
  size_t lens[] = { 3, 1 };
  for(int i = 0; i < 5; i++)
    assert_int_equal(store_eval(s, id, 1, 2, argv, lens, eval_on_reply, &rs[i]), STORE_OK);
  for(int i = 0; i < 5; i++) {
    assert_true(it_run_until(&rs[i].done, 5000));
    assert_int_equal(rs[i].err, STORE_OK);
    assert_int_equal(rs[i].n, 4 + i);
  }
  assert_int_equal(store_stats(s)->noscript, 6);
  assert_non_null(strstr(it_cmd(s, "INFO commandstats"), "cmdstat_function|load:calls=1,"));
  /* an error of the function itself is the caller's, not sent again */
  assert_int_equal(eval_add(s, id, "ctr", "x", &e), -1);
  assert_int_equal(e, STORE_REPLY);
  assert_int_equal(store_stats(s)->noscript, 6);
  it_cmd(s, "FUNCTION FLUSH");
  it_store_close(&s);
}

static void test_reconnect_after_kill(void **state)
{
  (void)state;
  struct store *s = it_store_new(2000, 64);
  int id = store_script(s, "add", script_add);
  store_start(s);
  it_wait_up(s);
  it_cmd(s, "FLUSHALL");
  uint64_t c0 = store_stats(s)->connects;
  /* the server drops every client, this one included, mid-command */
  const char *r = it_cmd(s, "CLIENT KILL TYPE normal SKIPME no");
  assert_true(!strcmp(r, "(nil)") || !strcmp(r, "1") || r[0] == '#' || r[0] == '!');
  /* up again means connected again: the drop may not have been seen yet
   * when the kill's answer came (a loaded machine), so wait for the count */
  uint64_t end = clock_mono_ms() + 5000;
  while(store_stats(s)->connects <= c0 && clock_mono_ms() < end)
    uv_run(it_loop, UV_RUN_ONCE);
  it_wait_up(s);
  assert_true(store_stats(s)->connects > c0);
  assert_true(store_stats(s)->disconnects >= 1);
  store_err e;
  assert_int_equal(eval_add(s, id, "k2", "1", &e), 2);
  assert_int_equal(e, STORE_OK);
  assert_int_equal(store_stats(s)->noscript, 0);  /* reloaded on connect */
  it_store_close(&s);
}

static void test_deadline_resets_connection(void **state)
{
  (void)state;
  struct store *s = it_store_new(200, 64);
  store_start(s);
  it_wait_up(s);
  struct store *ctl = it_store_new(5000, 8);
  store_start(ctl);
  it_wait_up(ctl);
  /* the server stops answering ordinary clients for 1.2 s */
  assert_string_equal(it_cmd(ctl, "CLIENT PAUSE 1200 ALL"), "OK");
  uint64_t t0 = clock_mono_ms();
  const char *r = it_cmd(s, "GET x");
  uint64_t took = clock_mono_ms() - t0;
  assert_string_equal(r, "#redis did not answer in time");
  assert_true(took < 1000);
  assert_true(store_stats(s)->timeouts >= 1);
  /* after the pause the store is back on its own */
  uint64_t end = clock_mono_ms() + 5000;
  do
    it_wait_up(s);
  while(strcmp(it_cmd(s, "PING"), "PONG") && clock_mono_ms() < end);
  assert_string_equal(it_cmd(s, "PING"), "PONG");
  assert_true(clock_mono_ms() - t0 >= 1000);  /* not before the pause ended */
  it_store_close(&s);
  it_store_close(&ctl);
}

static void test_down_fails_fast(void **state)
{
  (void)state;
  struct store_cfg c = it_cfg(200, 8);
  c.port = 1;  /* nothing listens there */
  struct store *s = store_new(it_loop, &c);
  store_start(s);
  for(int i = 0; i < 20; i++)
    uv_run(it_loop, UV_RUN_NOWAIT);
  const char *argv[] = { "PING" };
  size_t lens[] = { 4 };
  assert_int_equal(store_cmd(s, 1, argv, lens, 0, cap_on_reply, NULL), STORE_DOWN);
  assert_false(store_is_up(s));
  it_store_close(&s);
}

int main(void)
{
  it_loop_init();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_basic_replies),
    cmocka_unit_test(test_pending_cap),
    cmocka_unit_test(test_evalsha_and_noscript),
    cmocka_unit_test(test_function_and_lost_library),
    cmocka_unit_test(test_reconnect_after_kill),
    cmocka_unit_test(test_deadline_resets_connection),
    cmocka_unit_test(test_down_fails_fast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
