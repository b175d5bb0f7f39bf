/* api/door.c and common/secret.c: the per-address counts (IPv4 and IPv6
 * apart, the limit, release), eviction of the oldest idle unauthenticated
 * connection and none of an authenticated or busy one, the head deadline
 * measured from the last answer; the fetchers' secret: loading (value or
 * file, not both, length, bytes, final newline) and its comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/door.c"
#include "api/door.h"
#include "common/secret.h"

static struct sockaddr_storage v4(const char *a)
{
  struct sockaddr_storage ss = { 0 };
  struct sockaddr_in *s = (struct sockaddr_in *)&ss;
  s->sin_family = AF_INET;
  inet_pton(AF_INET, a, &s->sin_addr);
  return ss;
}

static void test_addrs(void **st)
{
  (void)st;
  struct door_addrs *t = door_addrs_new();
  struct sockaddr_storage a = v4("127.0.0.2"), b = v4("127.0.0.3");
  struct sockaddr_storage c = { 0 };
  struct sockaddr_in6 *c6 = (struct sockaddr_in6 *)&c;
  c6->sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:127.0.0.2", &c6->sin6_addr);
  assert_true(door_addrs_take(t, (struct sockaddr *)&a, 2));
  assert_true(door_addrs_take(t, (struct sockaddr *)&a, 2));
  assert_false(door_addrs_take(t, (struct sockaddr *)&a, 2));
  /* an IPv4-mapped IPv6 address is the same client */
  assert_false(door_addrs_take(t, (struct sockaddr *)&c, 2));
  assert_true(door_addrs_take(t, (struct sockaddr *)&b, 2));
  assert_int_equal(door_addrs_count(t, (struct sockaddr *)&a), 2);
  door_addrs_put(t, (struct sockaddr *)&a);
  assert_true(door_addrs_take(t, (struct sockaddr *)&a, 2));
  assert_true(door_addrs_take(t, (struct sockaddr *)&a, 0));   /* 0: no limit */
  assert_int_equal(door_addrs_count(t, (struct sockaddr *)&a), 3);
  for(int i = 0; i < 3; i++)
    door_addrs_put(t, (struct sockaddr *)&a);
  assert_int_equal(door_addrs_count(t, (struct sockaddr *)&a), 0);
  assert_int_equal(door_addrs_count(t, (struct sockaddr *)&b), 1);
  door_addrs_free(&t);
  assert_null(t);
}

/* Sockets that shutdown(2) accepts, so a forced close can be seen. */
static void conn_pair(struct door_conn *c, int *peer)
{
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  memset(c, 0, sizeof *c);
  c->fd = sv[0];
  *peer = sv[1];
}

static bool shut(int peer)
{
  char ch;
  return read(peer, &ch, 1) == 0;   /* the other end was shut down */
}

static void test_evict_and_deadline(void **st)
{
  (void)st;
  struct door d = { .max_unauth = 2, .head_timeout_ms = 1000 };
  struct door_conn c[4];
  int peer[4];
  for(int i = 0; i < 4; i++)
    conn_pair(&c[i], &peer[i]);
  assert_null(door_open(&d, &c[0], 0));
  assert_null(door_open(&d, &c[1], 10));
  door_busy(&c[0], true, 20);    /* being answered: not the one to go */
  assert_ptr_equal(door_open(&d, &c[2], 30), &c[1]);
  assert_true(c[1].forced && shut(peer[1]));
  assert_int_equal(d.closed[DOOR_EVICTED], 1);
  assert_int_equal(d.unauth.n, 2);
  door_closed(&d, &c[1]);
  assert_int_equal(d.unauth.n, 2);
  /* keyed: off the list, never evicted nor cut */
  door_authed(&d, &c[2]);
  assert_int_equal(d.unauth.n, 1);
  assert_null(door_open(&d, &c[3], 40));
  door_busy(&c[0], false, 900);  /* answered at 900: its next head by 1900 */
  assert_int_equal(door_sweep(&d, 1500), 1);   /* c[3], waiting since 40 */
  assert_true(c[3].forced && shut(peer[3]));
  assert_false(c[0].forced);
  assert_int_equal(door_sweep(&d, 1900), 1);
  assert_true(c[0].forced);
  assert_false(c[2].forced);
  assert_int_equal(d.closed[DOOR_HEAD_TIMEOUT], 2);
  for(int i = 0; i < 4; i++) {
    door_closed(&d, &c[i]);
    close(c[i].fd);
    close(peer[i]);
  }
  assert_int_equal(d.unauth.n, 0);
  assert_null(d.unauth.first);
}

static void test_secret(void **st)
{
  (void)st;
  char out[SECRET_MAX_LEN + 1], err[128];
  char path[] = "/tmp/test_door.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "0123456789abcdefXY\n", 19), 19);
  close(fd);
  assert_int_equal(secret_load(NULL, NULL, out, err, sizeof err), 0);
  assert_string_equal(out, "");
  assert_int_equal(secret_load(NULL, path, out, err, sizeof err), 0);
  assert_string_equal(out, "0123456789abcdefXY");
  assert_int_equal(secret_load("0123456789abcdef\n", NULL, out, err, sizeof err), 0);
  assert_string_equal(out, "0123456789abcdef");
  assert_int_equal(secret_load("0123456789abcdef", path, out, err, sizeof err), -1);
  assert_int_equal(secret_load("short", NULL, out, err, sizeof err), -1);
  assert_int_equal(secret_load("0123456789 abcdef", NULL, out, err, sizeof err), -1);
  assert_int_equal(secret_load(NULL, "/nonexistent/x", out, err, sizeof err), -1);
  unlink(path);
  assert_true(secret_bearer_ok("0123456789abcdef", "Bearer 0123456789abcdef"));
  assert_true(secret_bearer_ok("0123456789abcdef", "bearer 0123456789abcdef"));
  assert_false(secret_bearer_ok("0123456789abcdef", "Bearer 0123456789abcdeX"));
  assert_false(secret_bearer_ok("0123456789abcdef", "Bearer 0123456789abcde"));
  assert_false(secret_bearer_ok("0123456789abcdef", "Bearer 0123456789abcdef0"));
  assert_false(secret_bearer_ok("0123456789abcdef", "Basic 0123456789abcdef"));
  assert_false(secret_bearer_ok("0123456789abcdef", NULL));
  assert_false(secret_bearer_ok("", "Bearer "));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_addrs),
    cmocka_unit_test(test_evict_and_deadline),
    cmocka_unit_test(test_secret),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
