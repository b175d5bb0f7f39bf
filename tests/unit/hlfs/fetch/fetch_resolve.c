/* hlfs/fetch/fetch_resolve.c: a site_mode=ip batch's host names grouped
 * through a hash set, each distinct name asked once and its answer given
 * to every URL of that name; literals are their own address. The fetcher
 * is replaced here by a table of answers (llfs_client_resolve below, which
 * the included file calls). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hlfs/fetch/fetch_resolve.c"

/* The fetcher: answers are kept and given when the test says (as the
 * network would, later), or at once. */
#define ASKED_MAX 64
static struct {
  llfs_resolve_cb *cb;
  void            *arg;
  char             host[URL_HOST_MAX + 1];
} asked[ASKED_MAX];
static size_t nasked;
static bool fail_ask;

int llfs_client_resolve(struct llfs_client *c, const char *host, llfs_resolve_cb *cb, void *arg)
{
  (void)c;
  if(fail_ask || nasked == ASKED_MAX)
    return -1;
  asked[nasked].cb = cb;
  asked[nasked].arg = arg;
  snprintf(asked[nasked].host, sizeof asked[nasked].host, "%s", host);
  nasked++;
  return 0;
}

static int done;
static void on_done(void *arg)
{
  (void)arg;
  done++;
}

/* Answer every name asked: "10.0.0.<n>" for the n-th, none for "gone.test". */
static void answer_all(void)
{
  char addr[32];
  for(size_t i = 0; i < nasked; i++) {
    snprintf(addr, sizeof addr, "10.0.0.%zu", i + 1);
    asked[i].cb(asked[i].arg, strcmp(asked[i].host, "gone.test") ? addr : NULL);
  }
}

static void test_each_name_once(void **state)
{
  (void)state;
  enum { N = 3000 };
  static const char *urls[N];
  static char addr[N][FETCH_ADDR_MAX];
  static const char *const pool[] = { "http://a.test/1", "https://b.test/x", "http://a.test/2",
                                      "http://10.1.2.3/", "http://[::1]:8080/", "http://gone.test/",
                                      NULL, "http://c.test/?q" };
  struct fetch fx = { 0 };
  nasked = 0;
  done = 0;
  memset(addr, 0, sizeof addr);
  for(size_t i = 0; i < N; i++)
    urls[i] = pool[i % 8];
  assert_int_equal(fetch_resolve(&fx, urls, N, addr, on_done, NULL), 0);
  assert_int_equal(done, 0);
  assert_int_equal(nasked, 4);  /* a, b, gone, c: once each, in order of first sight */
  assert_string_equal(asked[0].host, "a.test");
  assert_string_equal(asked[1].host, "b.test");
  assert_string_equal(asked[2].host, "gone.test");
  assert_string_equal(asked[3].host, "c.test");
  answer_all();
  assert_int_equal(done, 1);
  for(size_t i = 0; i < N; i += 8) {
    assert_string_equal(addr[i], "10.0.0.1");
    assert_string_equal(addr[i + 1], "10.0.0.2");
    assert_string_equal(addr[i + 2], "10.0.0.1");
    assert_string_equal(addr[i + 3], "10.1.2.3");  /* a literal is its own site */
    assert_string_equal(addr[i + 4], "::1");
    assert_string_equal(addr[i + 5], "");  /* no address: the host is the site */
    assert_string_equal(addr[i + 6], "");  /* rejected: no URL */
    assert_string_equal(addr[i + 7], "10.0.0.4");
  }
}

/* Names the fetcher cannot be asked about keep their host as the site,
 * and the callback still comes, once, before fetch_resolve returns. */
static void test_not_asked(void **state)
{
  (void)state;
  const char *urls[] = { "http://a.test/", "http://b.test/" };
  char addr[2][FETCH_ADDR_MAX] = { "", "" };
  struct fetch fx = { 0 };
  nasked = 0;
  done = 0;
  fail_ask = true;
  assert_int_equal(fetch_resolve(&fx, urls, 2, addr, on_done, NULL), 0);
  fail_ask = false;
  assert_int_equal(done, 1);
  assert_string_equal(addr[0], "");
  /* and an empty batch ends at once */
  assert_int_equal(fetch_resolve(&fx, urls, 0, addr, on_done, NULL), 0);
  assert_int_equal(done, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_each_name_once),
    cmocka_unit_test(test_not_asked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
