/* clients/web/simhash.c: the features a text makes, case and punctuation
 * aside, the same fed whole or in pieces, and the fingerprints pinned
 * (they are kept in checkpoints). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "clients/web/simhash.c"
#include "clients/web/simhash.h"
#include "common/mem.h"

static void test_simhash_basics(void **state)
{
  (void)state;
  size_t sh;
  assert_true(simhash_text("", 0, &sh) == 0);
  assert_int_equal(sh, 0);
  simhash_text("one two", 7, &sh);
  assert_int_equal(sh, 1);  /* shorter than a shingle: one feature */
  uint64_t a = simhash_text("The Quick, brown fox!", 21, &sh);
  assert_int_equal(sh, 2);
  /* Case and punctuation do not matter; the words do. */
  assert_true(a == simhash_text("the quick brown   fox", 21, NULL));
  assert_true(a != simhash_text("the quick brown cat", 19, NULL));
  /* Fed in pieces at word boundaries: the same. */
  struct simhash s;
  simhash_init(&s);
  simhash_feed(&s, "The Quick,", 10);
  simhash_feed(&s, " brown fox!", 11);
  assert_true(simhash_final(&s, NULL) == a);
  /* Pinned: fingerprints are kept in checkpoints and compared across
   * versions, so a faster simhash_add must give the same bits. */
  const char *fox = "The quick brown fox jumps over the lazy dog, and then the dog sleeps "
                    "while the fox runs far away into the green forest.";
  assert_true(simhash_text(fox, strlen(fox), &sh) == 0xf588391010406544ull);
  assert_int_equal(sh, 22);
  assert_int_equal(simhash_distance(0, ~0ull), 64);
  assert_int_equal(simhash_distance(5, 6), 2);
}

/* Words drawn by an LCG: a text of any length, the same every run. */
static size_t lcg_text(char *t, size_t cap, uint64_t seed)
{
  static const char *const greek[] = { "alpha", "beta", "gamma", "delta", "eps", "zeta",
                                       "eta", "theta", "iota", "kappa", "lambda", "mu",
                                       "nu", "xi", "omicron", "pi" };
  size_t i = 0;
  for(uint64_t x = seed;;) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const char *w = greek[(x >> 33) % 16];
    size_t l = strlen(w);
    if(i + l + 1 > cap)
      return i;
    memcpy(t + i, w, l);
    i += l;
    t[i++] = ' ';
  }
}

/* A text of 209,599 shingles: the bit-sliced counters are flushed three
 * times on the way, and the fingerprint is still the one of 64 plain
 * counters (pinned from that implementation). */
static void test_simhash_long_text(void **state)
{
  (void)state;
  size_t cap = 1u << 20, sh;
  char *t = mem_alloc(cap);
  assert_non_null(t);
  size_t n = lcg_text(t, cap, 7);
  assert_true(simhash_text(t, n, &sh) == 0x49c47226312e12efull);
  assert_int_equal(sh, 209599);
  struct simhash s;  /* fed in pieces: the same */
  simhash_init(&s);
  for(size_t at = 0; at < n;) {
    size_t k = at + 4096 < n ? 4096 : n - at;
    while(at + k < n && t[at + k - 1] != ' ')
      k++;
    simhash_feed(&s, t + at, k);
    at += k;
  }
  assert_true(simhash_final(&s, NULL) == 0x49c47226312e12efull);
  mem_free(t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_simhash_basics),
    cmocka_unit_test(test_simhash_long_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
