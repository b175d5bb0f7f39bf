/* hlfs/state/store.c, two things about its connection made on purpose.
 * A connection reset by its peer is seen at once. A reset (a Redis
 * killed with commands unread in its socket, SIGKILL under load) raises
 * POLLERR, which libuv reports as an error status with no events: dropped,
 * the store counted as up until a command's deadline (10 s in the
 * gateway), and a refused connect waited for the connect timeout. Made on
 * purpose here: a loopback listener accepts the store's connection and
 * closes it with SO_LINGER 0 (an RST).
 * And its guard against a TCP connection to itself: connecting to a
 * local port of the ephemeral range where nothing listens can hand the
 * socket that very port as its source, and the kernel then connects it to
 * itself. Made on purpose here: bind a socket, connect it to its own
 * address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "hlfs/state/store.c"
#include "common/clock.h"
#include "hlfs/state/store.h"

#define DEADLINE_MS 20000  /* far beyond what the test waits */

static int listener(int *port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
  *port = ntohs(sa.sin_port);
  return fd;
}

static struct store *store_at(uv_loop_t *loop, int port)
{
  struct store_cfg c = { .host = "127.0.0.1", .port = port, .connect_timeout_ms = DEADLINE_MS,
                         .cmd_timeout_ms = DEADLINE_MS, .backoff_min_ms = 10,
                         .backoff_max_ms = 10, .max_pending = 16 };
  return store_new(loop, &c);
}

static void on_tick(uv_timer_t *t) { (void)t; }

static int answered;
static store_err last_err;
static void on_reply(void *arg, store_err err, const struct store_val *v)
{
  (void)arg;
  (void)v;
  answered++;
  last_err = err;
}

/* Run the loop until up(s) is want or ms passed; the time it took. */
static uint64_t run_until_up(uv_loop_t *loop, struct store *s, bool want, uint64_t ms)
{
  uint64_t t0 = clock_mono_ms();
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(&tick, on_tick, 5, 5);
  while(store_is_up(s) != want && clock_mono_ms() - t0 < ms)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&tick, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  return clock_mono_ms() - t0;
}

static void reset_by_peer(int fd)
{
  struct linger lg = { .l_onoff = 1, .l_linger = 0 };
  assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
  close(fd);
}

static void test_reset_is_seen_at_once(void **state)
{
  (void)state;
  uv_loop_t loop;
  uv_loop_init(&loop);
  int port, l = listener(&port);
  assert_int_equal(listen(l, 4), 0);
  struct store *s = store_at(&loop, port);
  store_start(s);
  run_until_up(&loop, s, true, 3000);
  assert_true(store_is_up(s));
  int a = accept(l, NULL, NULL);
  assert_true(a >= 0);
  /* commands the peer never reads: the reset follows them */
  const char *argv[] = { "PING" };
  size_t lens[] = { 4 };
  for(int i = 0; i < 3; i++)
    assert_int_equal(store_cmd(s, 1, argv, lens, 0, on_reply, NULL), STORE_OK);
  run_until_up(&loop, s, false, 100);  /* written */
  reset_by_peer(a);
  uint64_t took = run_until_up(&loop, s, false, 3000);
  assert_false(store_is_up(s));
  assert_true(took < 3000);
  assert_int_equal(store_stats(s)->disconnects, 1);
  assert_int_equal(store_stats(s)->timeouts, 0);
  assert_true(answered >= 3);  /* the commands of the connect, and these */
  assert_int_equal(last_err, STORE_DOWN);
  close(l);
  store_close(&s);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
}

static int bound_socket(struct sockaddr_in *sa)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof *sa;
  assert_int_equal(bind(fd, (struct sockaddr *)sa, sizeof *sa), 0);
  assert_int_equal(getsockname(fd, (struct sockaddr *)sa, &len), 0);
  return fd;
}

static void test_self_connected(void **state)
{
  (void)state;
  struct sockaddr_in sa;
  int fd = bound_socket(&sa);
  assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);  /* to itself */
  assert_true(store_fd_self_connected(fd));
  close(fd);
}

static void test_connected_to_a_server(void **state)
{
  (void)state;
  struct sockaddr_in sa, ca;
  int l = bound_socket(&sa);
  assert_int_equal(listen(l, 1), 0);
  int c = bound_socket(&ca);
  assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof sa), 0);
  assert_false(store_fd_self_connected(c));
  int a = accept(l, NULL, NULL);
  assert_true(a >= 0);
  assert_false(store_fd_self_connected(a));
  close(a);
  close(c);
  close(l);
}

static void test_not_connected(void **state)
{
  (void)state;
  struct sockaddr_in sa;
  int fd = bound_socket(&sa);
  assert_false(store_fd_self_connected(fd));  /* no peer */
  close(fd);
  assert_false(store_fd_self_connected(fd));  /* closed */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reset_is_seen_at_once),
    cmocka_unit_test(test_self_connected),
    cmocka_unit_test(test_connected_to_a_server),
    cmocka_unit_test(test_not_connected),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
