/* tests/testweb/tw_rec.c: per-site records, overlap and gap arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "tests/testweb/tw_rec.c"
#include "common/mem.h"
#include "tests/testweb/tw_http.h"
#include "tests/testweb/tw_rec.h"

static uint64_t begin(struct tw_rec *r, const char *path, uint64_t t)
{
  struct tw_rec_in in = { TW_M_GET, { path, strlen(path) }, { "ua/1", 4 }, { NULL, 0 },
                          { NULL, 0 }, 7, t };
  return tw_rec_begin(r, &in);
}

static void test_overlap_counts(void **state)
{
  (void)state;
  struct tw_rec r;
  tw_rec_init(&r, 100);
  uint64_t a = begin(&r, "/a", 1000);
  uint64_t b = begin(&r, "/b", 1500);  /* while /a is in flight */
  assert_int_equal(r.in_flight, 2);
  assert_int_equal(r.max_in_flight, 2);
  assert_int_equal(r.overlaps, 1);
  assert_int_equal(r.min_gap_us, 0);
  assert_int_equal(r.min_arrive_gap_us, 500);
  tw_rec_end(&r, a, 200, 10, TW_OUT_DONE, 2000);
  tw_rec_end(&r, b, 200, 10, TW_OUT_DONE, 2100);
  assert_int_equal(r.in_flight, 0);
  tw_rec_free(&r);
}

static void test_sequential_gap(void **state)
{
  (void)state;
  struct tw_rec r;
  tw_rec_init(&r, 100);
  tw_rec_end(&r, begin(&r, "/a", 1000), 200, 10, TW_OUT_DONE, 2000);
  tw_rec_end(&r, begin(&r, "/b", 302000), 200, 10, TW_OUT_DONE, 303000);
  tw_rec_end(&r, begin(&r, "/c", 503000), 404, 10, TW_OUT_DONE, 504000);
  assert_int_equal(r.max_in_flight, 1);
  assert_int_equal(r.overlaps, 0);
  assert_int_equal(r.min_gap_us, 200000);          /* 303000 -> 503000 */
  assert_int_equal(r.min_arrive_gap_us, 201000);   /* 302000 -> 503000 */
  assert_int_equal(r.status_class[2], 2);
  assert_int_equal(r.status_class[4], 1);
  assert_int_equal(r.bytes, 30);
  tw_rec_free(&r);
}

static void test_ring_keeps_last_counters_exact(void **state)
{
  (void)state;
  struct tw_rec r;
  char path[16];
  tw_rec_init(&r, 5);
  uint64_t first = begin(&r, "/first", 1);  /* stays in flight, then forgotten */
  for(int i = 0; i < 40; i++) {
    snprintf(path, sizeof path, "/%d", i);
    tw_rec_end(&r, begin(&r, path, 10 + (uint64_t)i * 10), 200, 1, TW_OUT_DONE,
               15 + (uint64_t)i * 10);
  }
  assert_int_equal(r.requests, 41);
  assert_int_equal(r.n, 5);
  assert_string_equal(r.ring[r.head].text, "/35");
  tw_rec_end(&r, first, 0, 0, TW_OUT_ABORTED, 1000);  /* no entry left: counters only */
  assert_int_equal(r.in_flight, 0);
  assert_int_equal(r.aborted, 1);
  tw_rec_free(&r);
}

static void test_reset_keeps_in_flight(void **state)
{
  (void)state;
  struct tw_rec r;
  tw_rec_init(&r, 10);
  uint64_t a = begin(&r, "/a", 100);
  tw_rec_conn_open(&r);
  tw_rec_reset(&r);
  assert_int_equal(r.requests, 0);
  assert_int_equal(r.in_flight, 1);
  assert_int_equal(r.open_conns, 1);
  assert_int_equal(r.connections, 0);
  tw_rec_end(&r, a, 200, 5, TW_OUT_DONE, 200);  /* predates the reset */
  assert_int_equal(r.in_flight, 0);
  assert_int_equal(r.bytes, 0);
  assert_int_equal(r.status_class[2], 0);
  tw_rec_free(&r);
}

static void test_json(void **state)
{
  (void)state;
  struct tw_rec r;
  struct buf b;
  tw_rec_init(&r, 10);
  struct tw_rec_in in = { TW_M_HEAD, { "/q\"", 3 }, { "a\nb", 3 }, { "\"e\"", 3 },
                          { NULL, 0 }, 3, 50 };
  tw_rec_end(&r, tw_rec_begin(&r, &in), 304, 99, TW_OUT_DONE, 1050);
  buf_init(&b, 1u << 20);
  assert_int_equal(tw_rec_json(&r, &b, 10), TW_OK);
  assert_non_null(strstr(b.data, "\"method\":\"HEAD\",\"path\":\"/q\\\"\""));
  assert_non_null(strstr(b.data, "\"ua\":\"a\\nb\",\"inm\":\"\\\"e\\\"\",\"ims\":null"));
  assert_non_null(strstr(b.data, "\"duration_ms\":1.000,\"status\":304"));
  assert_non_null(strstr(b.data, "\"min_gap_us\":null"));
  buf_free(&b);
  buf_init(&b, 100);  /* too small: the error is reported, not a cut JSON */
  assert_int_equal(tw_rec_json(&r, &b, 10), TW_TOO_LARGE);
  buf_free(&b);
  tw_rec_free(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_overlap_counts),
    cmocka_unit_test(test_sequential_gap),
    cmocka_unit_test(test_ring_keeps_last_counters_exact),
    cmocka_unit_test(test_reset_keeps_in_flight),
    cmocka_unit_test(test_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
