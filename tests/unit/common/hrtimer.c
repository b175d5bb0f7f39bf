/* common/hrtimer.c: fires at the microsecond asked, never before it; a
 * new arming replaces the old one; a stopped timer stays quiet; a time
 * already past fires at the loop's next turn; closing hands the owner's
 * data back. Lateness is bounded loosely (the machine may be busy): the
 * point is that it is not early, and not a whole millisecond late as a
 * libuv timer armed in milliseconds from a stale loop time can be. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <uv.h>

#include "common/hrtimer.c"
#include "common/clock.h"
#include "common/hrtimer.h"

struct probe {
  unsigned fired;
  uint64_t at_us;
};

static void on_fire(struct hrtimer *t)
{
  struct probe *p = t->data;
  p->fired++;
  p->at_us = clock_mono_us();
}

static void run_until_fired(uv_loop_t *loop, const struct probe *p, unsigned n)
{
  uint64_t end = clock_mono_us() + 2000000;
  while(p->fired < n && clock_mono_us() < end)
    uv_run(loop, UV_RUN_ONCE);
}

/* A loop with one timer that counts into p. */
static void open_timer(uv_loop_t *loop, struct hrtimer *t, struct probe *p)
{
  uv_loop_init(loop);
  *p = (struct probe){ 0 };
  assert_int_equal(hrtimer_init(loop, t, on_fire, p), 0);
}

static void close_timer(uv_loop_t *loop, struct hrtimer *t)
{
  hrtimer_close(t, NULL);
  uv_run(loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(loop), 0);
}

static void test_fires_at_the_microsecond(void **st)
{
  (void)st;
  uv_loop_t loop;
  struct probe p;
  struct hrtimer t;
  open_timer(&loop, &t, &p);
  unsigned late_total = 0;
  for(int i = 0; i < 20; i++) {
    /* 2.3 ms plus a varying fraction: due times off the millisecond */
    uint64_t due = clock_mono_us() + 2300 + (uint64_t)i * 37;
    hrtimer_at(&t, due);
    assert_true(t.armed);
    run_until_fired(&loop, &p, (unsigned)i + 1);
    assert_int_equal(p.fired, i + 1);
    assert_false(t.armed);
    assert_true(p.at_us >= due);  /* never early */
    late_total += (unsigned)(p.at_us - due);
  }
  print_message("# 20 wake-ups, on average %u us after the microsecond asked\n", late_total / 20);
  assert_true(late_total / 20 < 5000);
  close_timer(&loop, &t);
}

static void test_rearm_stop_and_past(void **st)
{
  (void)st;
  uv_loop_t loop;
  struct probe p;
  struct hrtimer t;
  open_timer(&loop, &t, &p);
  /* re-armed later: only the later time counts */
  uint64_t now = clock_mono_us();
  hrtimer_at(&t, now + 1000);
  hrtimer_at(&t, now + 30000);
  run_until_fired(&loop, &p, 1);
  assert_int_equal(p.fired, 1);
  assert_true(p.at_us >= now + 30000);
  /* stopped: nothing comes */
  hrtimer_at(&t, clock_mono_us() + 1000);
  hrtimer_stop(&t);
  assert_false(t.armed);
  uint64_t end = clock_mono_us() + 20000;
  while(clock_mono_us() < end)
    uv_run(&loop, UV_RUN_NOWAIT);
  assert_int_equal(p.fired, 1);
  /* a time that has passed (and the clock's zero) fires at once */
  hrtimer_at(&t, clock_mono_us() - 5000);
  run_until_fired(&loop, &p, 2);
  assert_int_equal(p.fired, 2);
  hrtimer_at(&t, 0);
  run_until_fired(&loop, &p, 3);
  assert_int_equal(p.fired, 3);
  close_timer(&loop, &t);
}

/* A time further than HRTIMER_COARSE_US waits without the timerfd (no
 * system call for a wake-up that is replaced or stopped first), which is
 * armed only near the time: still never early, and at the microsecond. */
static bool fd_armed(const struct hrtimer *t)
{
  struct itimerspec cur;
  assert_int_equal(timerfd_gettime(t->fd, &cur), 0);
  return cur.it_value.tv_sec || cur.it_value.tv_nsec;
}

static void test_far_waits_without_the_timerfd(void **st)
{
  (void)st;
  uv_loop_t loop;
  struct probe p;
  struct hrtimer t;
  open_timer(&loop, &t, &p);
  unsigned late_total = 0;
  for(int i = 0; i < 5; i++) {
    uint64_t due = clock_mono_us() + 40000 + (uint64_t)i * 137;
    hrtimer_at(&t, due);
    assert_true(t.armed);
    assert_false(fd_armed(&t));
    /* replaced and stopped before it comes: the timerfd was never armed */
    if(i == 0) {
      hrtimer_at(&t, due + 1000);
      hrtimer_stop(&t);
      assert_false(fd_armed(&t));
      hrtimer_at(&t, due);
    }
    run_until_fired(&loop, &p, (unsigned)i + 1);
    assert_int_equal(p.fired, i + 1);
    assert_false(t.armed);
    assert_true(p.at_us >= due);  /* never early */
    late_total += (unsigned)(p.at_us - due);
  }
  print_message("# 5 far wake-ups, on average %u us after the microsecond asked\n", late_total / 5);
  assert_true(late_total / 5 < 5000);
  /* near after far: the timerfd takes it at once */
  hrtimer_at(&t, clock_mono_us() + 60000);
  hrtimer_at(&t, clock_mono_us() + 1000);
  assert_true(fd_armed(&t));
  run_until_fired(&loop, &p, 6);
  assert_int_equal(p.fired, 6);
  /* far after near: the timerfd is disarmed, nothing comes early */
  uint64_t due = clock_mono_us() + 30000;
  hrtimer_at(&t, clock_mono_us() + 1000);
  hrtimer_at(&t, due);
  assert_false(fd_armed(&t));
  run_until_fired(&loop, &p, 7);
  assert_int_equal(p.fired, 7);
  assert_true(p.at_us >= due);
  close_timer(&loop, &t);
}

static int closed_with;
static void on_closed(uv_handle_t *h)
{
  closed_with = *(int *)h->data;
}

static void test_close_hands_back_data(void **st)
{
  (void)st;
  uv_loop_t loop;
  uv_loop_init(&loop);
  int owner = 42;
  struct hrtimer t;
  assert_int_equal(hrtimer_init(&loop, &t, on_fire, &owner), 0);
  hrtimer_at(&t, clock_mono_us() + 1000000);  /* armed when closed */
  hrtimer_close(&t, on_closed);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(closed_with, 42);
  assert_int_equal(t.fd, -1);
  assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fires_at_the_microsecond),
    cmocka_unit_test(test_rearm_stop_and_past),
    cmocka_unit_test(test_far_waits_without_the_timerfd),
    cmocka_unit_test(test_close_hands_back_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
