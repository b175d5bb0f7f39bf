/* tests/testweb/tw_bomb.c: the bombs really inflate to their size, and
 * the gzip stream built from repeated blocks passes the CRC check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <brotli/decode.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tests/testweb/tw_bomb.c"
#include "common/mem.h"
#include "tests/testweb/tw_bomb.h"
#include "tests/testweb/tw_fill.h"
#include "tests/testweb/tw_plan.h"

/* Flatten the plan's segments; the bombs are small. */
static uint8_t *flatten(const struct tw_plan *pl, size_t *len)
{
  uint64_t n = tw_plan_body_len(pl);
  uint8_t *p = malloc(n), *q = p;
  for(unsigned i = 0; i < pl->nseg; i++)
    for(uint64_t k = 0; k < pl->seg[i].reps; k++, q += pl->seg[i].len)
      memcpy(q, pl->seg[i].p, pl->seg[i].len);
  *len = n;
  return p;
}

static uint64_t gunzip_size(const uint8_t *p, size_t n, int *rc)
{
  static uint8_t out[1 << 16];
  z_stream z;
  uint64_t total = 0;
  memset(&z, 0, sizeof z);
  inflateInit2(&z, 31);
  z.next_in = (Bytef *)p;
  z.avail_in = (uInt)n;
  do {
    z.next_out = out;
    z.avail_out = sizeof out;
    *rc = inflate(&z, Z_NO_FLUSH);
    total += sizeof out - z.avail_out;
    for(size_t i = 0; i < sizeof out - z.avail_out; i++)
      if(out[i])
        *rc = -100;
  } while(*rc == Z_OK);
  inflateEnd(&z);
  return total;
}

static void test_gzip_sizes(void **state)
{
  (void)state;
  struct tw_bomb b;
  tw_fill_init();
  assert_int_equal(tw_bomb_init(&b, 1u << 20), TW_OK);
  static const uint64_t sizes[] = { 1u << 20, 3u << 20, 5u << 20, (5u << 20) - 7 };
  for(size_t i = 0; i < 4; i++) {
    struct tw_plan pl;
    size_t n;
    int rc;
    tw_plan_init(&pl);
    assert_int_equal(tw_bomb_gzip(&b, sizes[i], &pl), TW_OK);
    uint8_t *p = flatten(&pl, &n);
    uint64_t want = (sizes[i] + TW_BOMB_CHUNK - 1) / TW_BOMB_CHUNK * TW_BOMB_CHUNK;
    assert_int_equal(gunzip_size(p, n, &rc), want);
    assert_int_equal(rc, Z_STREAM_END);  /* CRC and ISIZE matched */
    assert_true(n * 500 < want);         /* a bomb: ratio over 500 */
    free(p);
    tw_plan_free(&pl);
  }
  tw_bomb_free(&b);
}

static void test_brotli_sizes(void **state)
{
  (void)state;
  struct tw_bomb b;
  tw_fill_init();
  assert_int_equal(tw_bomb_init(&b, 2u << 20), TW_OK);
  static const uint64_t sizes[] = { 2u << 20, 12345, 7u << 20, 1000, 999, 998 };
  for(size_t i = 0; i < 6; i++) {  /* past the cache, bytes live in the plan */
    struct tw_plan pl;
    size_t n, total = 0;
    static uint8_t out[1 << 20];
    tw_plan_init(&pl);
    assert_int_equal(tw_bomb_brotli(&b, sizes[i], &pl), TW_OK);
    uint8_t *p = flatten(&pl, &n);
    BrotliDecoderState *d = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    const uint8_t *in = p;
    size_t avail_in = n;
    BrotliDecoderResult res;
    do {
      uint8_t *o = out;
      size_t avail = sizeof out;
      res = BrotliDecoderDecompressStream(d, &avail_in, &in, &avail, &o, NULL);
      total += sizeof out - avail;
    } while(res == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT);
    assert_int_equal(res, BROTLI_DECODER_RESULT_SUCCESS);
    assert_int_equal(total, sizes[i]);
    BrotliDecoderDestroyInstance(d);
    free(p);
    tw_plan_free(&pl);
  }
  tw_bomb_free(&b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_gzip_sizes),
    cmocka_unit_test(test_brotli_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
