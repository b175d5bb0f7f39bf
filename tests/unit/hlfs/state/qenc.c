/* hlfs/state/qenc.c: queued-request encoding (score bits, URL folding). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlfs/state/qenc.c"
#include "hlfs/state/qenc.h"

/* The Lua scripts' decoder in C: the inverse of qenc_url_pack; 0 when out
 * is too small or m is malformed. */
static size_t qenc_url_unpack(const char *site, const char *m, size_t mlen,
                              char *out, size_t outlen)
{
  if(mlen < 1)
    return 0;
  const char *scheme = (m[0] == 'h' || m[0] == 'H') ? "http://"
                     : (m[0] == 's' || m[0] == 'S') ? "https://" : "";
  if(m[0] != 'u' && !*scheme)
    return 0;
  const char *rest = m + 1;
  int restlen = (int)(mlen - 1);
  int n;
  if(m[0] == 'H' || m[0] == 'S') {
    int sub = (int)strcspn(rest, "/:");
    if(sub > restlen)
      sub = restlen;
    n = snprintf(out, outlen, "%s%.*s.%s%.*s", scheme, sub, rest, site,
                 restlen - sub, rest + sub);
  }
  else if(m[0] == 'u')
    n = snprintf(out, outlen, "%.*s", restlen, rest);
  else
    n = snprintf(out, outlen, "%s%s%.*s", scheme, site, restlen, rest);
  return n < 0 || (size_t)n >= outlen ? 0 : (size_t)n;
}

static void roundtrip(const char *site, const char *url, const char *want)
{
  char m[512], back[512];
  size_t n = qenc_url_pack(site, url, m, sizeof m);
  assert_true(n > 0);
  assert_int_equal(n, strlen(m));
  if(want)
    assert_string_equal(m, want);
  size_t k = qenc_url_unpack(site, m, n, back, sizeof back);
  assert_int_equal(k, strlen(url));
  assert_string_equal(back, url);
}

static void test_url_folding(void **state)
{
  (void)state;
  roundtrip("example.com", "http://example.com/a?b=1", "h/a?b=1");
  roundtrip("example.com", "https://example.com/", "s/");
  roundtrip("example.com", "https://example.com:8443/x", "s:8443/x");
  roundtrip("example.com", "http://www.example.com/p", "Hwww/p");
  roundtrip("example.com", "https://a.b.example.com:81/p", "Sa.b:81/p");
  roundtrip("example.com", "http://badexample.com/p", "uhttp://badexample.com/p");
  roundtrip("example.com", "http://example.com.evil/p", "uhttp://example.com.evil/p");
  roundtrip("example.com", "http://u@example.com/p", "uhttp://u@example.com/p");
  roundtrip("example.com", "ftp://example.com/p", "uftp://example.com/p");
  roundtrip("127.0.0.9", "http://127.0.0.9:8080/robots.txt", "h:8080/robots.txt");
  roundtrip("[::1]", "http://[::1]:80/", NULL);
  roundtrip("example.com", "http://example.com", "uhttp://example.com");
}

/* The decoder inverts the encoder for arbitrary strings, not only URLs. */
static void test_url_bijection_random(void **state)
{
  (void)state;
  const char alpha[] = "hs:/.?#@wexamplcom";
  const char *pre[] = { "http://", "https://", "", "http://example.com", "https://x.example.com" };
  srand(7);
  for(int i = 0; i < 20000; i++) {
    char url[64];
    size_t n = (size_t)snprintf(url, sizeof url, "%s", pre[rand() % 5]);
    int extra = rand() % 16;
    for(int j = 0; j < extra && n + 1 < sizeof url; j++)
      url[n++] = alpha[rand() % (int)(sizeof alpha - 1)];
    url[n] = '\0';
    roundtrip("example.com", url, NULL);
  }
}

static void test_url_small_buffers(void **state)
{
  (void)state;
  char m[6], back[10];
  assert_int_equal(qenc_url_pack("example.com", "http://example.com/abcdef", m, sizeof m), 0);
  assert_int_equal(qenc_url_pack("example.com", "http://example.com/abc", m, sizeof m), 5);
  assert_int_equal(qenc_url_unpack("example.com", m, 5, back, sizeof back), 0);
  assert_int_equal(qenc_url_unpack("example.com", "x/a", 3, back, sizeof back), 0);
  assert_int_equal(qenc_url_unpack("example.com", "", 0, back, sizeof back), 0);
}

static void test_maxage_rounds_down(void **state)
{
  (void)state;
  assert_int_equal(qenc_maxage_secs(qenc_maxage_code(0)), 0);
  assert_int_equal(qenc_maxage_secs(qenc_maxage_code(15)), 15);
  assert_int_equal(qenc_maxage_secs(qenc_maxage_code(QENC_MAXAGE_ANY)), QENC_MAXAGE_ANY);
  uint64_t s = 1;
  for(int i = 0; i < 2000; i++) {
    uint64_t d = qenc_maxage_secs(qenc_maxage_code(s));
    assert_true(d <= s);
    if(s < (1ull << 34))
      assert_true(d * 16 >= s * 15);  /* within 1/16 */
    s = s + s / 7 + 1;
    if(s > (1ull << 40))
      s = 1;
  }
  assert_true(qenc_maxage_secs(qenc_maxage_code(UINT64_MAX - 1)) < QENC_MAXAGE_ANY);
  assert_int_equal(qenc_maxage_secs(qenc_maxage_code(86400)), 86016);
}

static void test_score_layout(void **state)
{
  (void)state;
  uint64_t hi = qenc_score_base(7, 3600), lo = qenc_score_base(0, 3600);
  assert_true(hi < lo);  /* ZPOPMIN takes priority 7 first */
  assert_true(lo < (1ull << 53));
  uint64_t seq = (1ull << 39) - 1;
  uint64_t sc = lo + (seq << 11) + (2u << 9);
  assert_true(sc < (1ull << 53));
  assert_int_equal((uint64_t)(double)sc, sc);  /* exact in a double */
  struct qenc_score q;
  qenc_score_unpack(sc, &q);
  assert_int_equal(q.prio, 0);
  assert_int_equal(q.seq, seq);
  assert_int_equal(q.attempts, 2);
  assert_int_equal(q.max_age_s, 3584);
  /* within a priority, a smaller sequence (older) comes first */
  assert_true(hi + (5ull << 11) < hi + (6ull << 11));
  assert_true(qenc_score_base(9, 0) == qenc_score_base(7, 0));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_url_folding),
    cmocka_unit_test(test_url_bijection_random),
    cmocka_unit_test(test_url_small_buffers),
    cmocka_unit_test(test_maxage_rounds_down),
    cmocka_unit_test(test_score_layout),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
