/* hlfs/policy/delay.c: the politeness arithmetic, term by term. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/policy/delay.c"
#include "hlfs/policy/delay.h"

static const struct delay_cfg cfg = {
  .min_delay_ms = 1000, .factor = 5.0, .max_delay_ms = 60000,
  .retry_after_max_ms = 3600000, .backoff_base_ms = 2000, .backoff_max_ms = 300000,
};

static struct delay_out run(enum delay_event ev, uint32_t resp, uint32_t crawl,
                            uint32_t streak, int64_t ra)
{
  struct delay_in in = { ev, resp, crawl, streak, ra, 0 };
  struct delay_out out;
  delay_next(&cfg, &in, &out);
  return out;
}

static void test_min_delay_wins_when_fast(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_OK, 100, 0, 0, -1);
  assert_int_equal(o.delay_ms, 1000);
  assert_int_equal(o.reason, DELAY_MIN_DELAY);
  assert_string_equal(delay_reason_name(o.reason), "min_delay");
  assert_false(o.backoff);
}

static void test_crawl_delay_and_cap(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_OK, 100, 7000, 0, -1);
  assert_int_equal(o.delay_ms, 7000);
  assert_int_equal(o.reason, DELAY_CRAWL_DELAY);
  o = run(DELAY_EV_OK, 100, 86400000, 0, -1);  /* Crawl-delay: 86400 */
  assert_int_equal(o.delay_ms, 60000);
}

static void test_response_time_factor(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_OK, 900, 2000, 0, -1);  /* 5 x 900 = 4500 */
  assert_int_equal(o.delay_ms, 4500);
  assert_int_equal(o.reason, DELAY_RESPONSE_TIME);
  o = run(DELAY_EV_OK, 4000000, 0, 0, -1);  /* capped */
  assert_int_equal(o.delay_ms, 60000);
}

static void test_success_resets_streak(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_OK, 10, 0, 6, -1);
  assert_int_equal(o.streak, 0);
  assert_int_equal(o.delay_ms, 1000);
}

static void test_backoff_doubles_to_cap(void **state)
{
  (void)state;
  uint64_t want[] = { 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000 };
  uint32_t streak = 0;
  for(size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    struct delay_out o = run(i % 2 ? DELAY_EV_CONN_ERR : DELAY_EV_SERVER_ERR, 10, 0, streak, -1);
    assert_int_equal(o.streak, streak + 1);
    assert_int_equal(o.delay_ms, want[i]);
    assert_int_equal(o.reason, DELAY_BACKOFF);
    assert_true(o.backoff);
    streak = o.streak;
  }
  /* a huge streak neither overflows nor exceeds the cap */
  struct delay_out o = run(DELAY_EV_CONN_ERR, 10, 0, 4000000000u, -1);
  assert_int_equal(o.delay_ms, 300000);
}

/* The jitter adds up to backoff_jitter of the backoff, never takes any off,
 * and leaves a server's Retry-After as it asked. */
static void test_backoff_jitter(void **state)
{
  (void)state;
  struct delay_cfg jc = cfg;
  jc.backoff_jitter = 0.5;
  struct delay_out o;
  struct delay_in in = { DELAY_EV_CONN_ERR, 10, 0, 1, -1, 0.0 };
  delay_next(&jc, &in, &o);
  assert_int_equal(o.delay_ms, 4000);  /* streak 2: 2000 << 1, no jitter drawn */
  in.jitter = 0.5;
  delay_next(&jc, &in, &o);
  assert_int_equal(o.delay_ms, 5000);  /* + 0.5 x 0.5 x 4000 */
  in.jitter = 0.999;
  delay_next(&jc, &in, &o);
  assert_true(o.delay_ms >= 5990 && o.delay_ms < 6000);
  assert_int_equal(o.reason, DELAY_BACKOFF);
  in = (struct delay_in){ DELAY_EV_THROTTLED, 10, 0, 0, 7000, 0.9 };
  delay_next(&jc, &in, &o);
  assert_int_equal(o.delay_ms, 7000);
  assert_int_equal(o.reason, DELAY_RETRY_AFTER);
}

static void test_backoff_never_below_crawl_delay(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_SERVER_ERR, 10, 30000, 0, -1);
  assert_int_equal(o.delay_ms, 30000);
  assert_int_equal(o.reason, DELAY_CRAWL_DELAY);
  assert_int_equal(o.streak, 1);
}

static void test_retry_after_honoured_and_capped(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_THROTTLED, 10, 0, 0, 120000);
  assert_int_equal(o.delay_ms, 120000);
  assert_int_equal(o.reason, DELAY_RETRY_AFTER);
  assert_true(o.backoff);
  o = run(DELAY_EV_THROTTLED, 10, 0, 0, 10LL * 24 * 3600 * 1000);
  assert_int_equal(o.delay_ms, 3600000);
  /* 429 without Retry-After: plain backoff */
  o = run(DELAY_EV_THROTTLED, 10, 0, 2, -1);
  assert_int_equal(o.delay_ms, 8000);
  assert_int_equal(o.reason, DELAY_BACKOFF);
  /* Retry-After: 0 leaves the ordinary floor */
  o = run(DELAY_EV_THROTTLED, 10, 0, 0, 0);
  assert_int_equal(o.delay_ms, 1000);
  assert_int_equal(o.reason, DELAY_MIN_DELAY);
}

static void test_no_contact_no_delay(void **state)
{
  (void)state;
  struct delay_out o = run(DELAY_EV_NONE, 5000, 9000, 3, 1000);
  assert_int_equal(o.delay_ms, 0);
  assert_int_equal(o.reason, DELAY_NONE);
  assert_int_equal(o.streak, 3);
}

static void test_classify(void **state)
{
  (void)state;
  assert_int_equal(delay_classify(false, false, 200), DELAY_EV_NONE);
  assert_int_equal(delay_classify(true, true, 0), DELAY_EV_CONN_ERR);
  assert_int_equal(delay_classify(true, false, 0), DELAY_EV_CONN_ERR);
  assert_int_equal(delay_classify(true, false, 200), DELAY_EV_OK);
  assert_int_equal(delay_classify(true, false, 404), DELAY_EV_OK);
  assert_int_equal(delay_classify(true, false, 429), DELAY_EV_THROTTLED);
  assert_int_equal(delay_classify(true, false, 503), DELAY_EV_THROTTLED);
  assert_int_equal(delay_classify(true, false, 500), DELAY_EV_SERVER_ERR);
  assert_int_equal(delay_classify(true, false, 502), DELAY_EV_SERVER_ERR);
}

static void test_retry_after_parse(void **state)
{
  (void)state;
  int64_t ms = -1;
  assert_int_equal(delay_retry_after("120", NULL, 0, &ms), 0);
  assert_int_equal(ms, 120000);
  assert_int_equal(delay_retry_after(" 7 ", NULL, 0, &ms), 0);
  assert_int_equal(ms, 7000);
  assert_int_equal(delay_retry_after("99999999999999999999", NULL, 0, &ms), -1);
  assert_int_equal(delay_retry_after("999999999", NULL, 0, &ms), 0);
  assert_true(ms > 0);
  assert_int_equal(delay_retry_after("-5", NULL, 0, &ms), -1);
  assert_int_equal(delay_retry_after("soon", NULL, 0, &ms), -1);
  assert_int_equal(delay_retry_after("12abc", NULL, 0, &ms), -1);
  assert_int_equal(delay_retry_after(NULL, NULL, 0, &ms), -1);
  /* Wed, 21 Oct 2015 07:28:00 GMT = 1445412480 */
  const char *d = "Wed, 21 Oct 2015 07:28:00 GMT";
  assert_int_equal(delay_retry_after(d, NULL, 1445412480000ULL - 90000, &ms), 0);
  assert_int_equal(ms, 90000);
  /* the response's Date header wins over our clock */
  assert_int_equal(delay_retry_after(d, "Wed, 21 Oct 2015 07:27:00 GMT", 1, &ms), 0);
  assert_int_equal(ms, 60000);
  /* a date in the past means now */
  assert_int_equal(delay_retry_after(d, NULL, 1445412480000ULL + 5000, &ms), 0);
  assert_int_equal(ms, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_min_delay_wins_when_fast),
    cmocka_unit_test(test_crawl_delay_and_cap),
    cmocka_unit_test(test_response_time_factor),
    cmocka_unit_test(test_success_resets_streak),
    cmocka_unit_test(test_backoff_doubles_to_cap),
    cmocka_unit_test(test_backoff_never_below_crawl_delay),
    cmocka_unit_test(test_backoff_jitter),
    cmocka_unit_test(test_retry_after_honoured_and_capped),
    cmocka_unit_test(test_no_contact_no_delay),
    cmocka_unit_test(test_classify),
    cmocka_unit_test(test_retry_after_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
