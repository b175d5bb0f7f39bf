/* The store's guard against a TCP connection to itself: connecting to a
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

#include "hlfs/state/store.h"

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
    cmocka_unit_test(test_self_connected),
    cmocka_unit_test(test_connected_to_a_server),
    cmocka_unit_test(test_not_connected),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
