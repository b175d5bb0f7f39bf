#include "common/hrtimer.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/clock.h"

static void hrtimer_on_poll(uv_poll_t *p, int status, int events)
{
  struct hrtimer *t = p->data;
  uint64_t expirations;
  (void)events;
  /* A timerfd reads as the count of expirations; EAGAIN when it was
   * re-armed after it became readable in this turn: not due yet. A poll
   * error fires it (a wake-up too early costs its owner a look, one that
   * never comes would stall it). */
  if(status >= 0 && read(t->fd, &expirations, sizeof expirations) != sizeof expirations)
    return;
  t->armed = false;
  t->fd_set = false;
  uv_poll_stop(&t->poll);
  t->cb(t);
}

int hrtimer_init(uv_loop_t *loop, struct hrtimer *t, hrtimer_cb *cb, void *data)
{
  t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if(t->fd < 0)
    return -errno;
  int rc = uv_poll_init(loop, &t->poll, t->fd);
  if(rc) {
    close(t->fd);
    t->fd = -1;
    return rc;
  }
  rc = uv_timer_init(loop, &t->coarse);
  if(rc) {
    /* the poll handle is the loop's until closed: close it, then the fd */
    uv_close((uv_handle_t *)&t->poll, NULL);
    close(t->fd);
    t->fd = -1;
    return rc;
  }
  t->poll.data = t;
  t->coarse.data = t;
  t->armed = false;
  t->fd_set = false;
  t->due_us = 0;
  t->closing = 0;
  t->cb = cb;
  t->data = data;
  t->on_closed = NULL;
  return 0;
}

static void hrtimer_set(struct hrtimer *t, uint64_t mono_us)
{
  /* An all-zero value disarms: a time at or before the clock's start is
   * the nanosecond after it, already past. */
  struct itimerspec its = { { 0, 0 }, { (time_t)(mono_us / 1000000u),
                                        (long)(mono_us % 1000000u) * 1000 } };
  if(!its.it_value.tv_sec && !its.it_value.tv_nsec)
    its.it_value.tv_nsec = 1;
  timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void hrtimer_fd_arm(struct hrtimer *t)
{
  hrtimer_set(t, t->due_us);
  if(!t->fd_set)
    uv_poll_start(&t->poll, UV_READABLE, hrtimer_on_poll);
  t->fd_set = true;
}

static void hrtimer_fd_disarm(struct hrtimer *t)
{
  if(!t->fd_set)
    return;
  struct itimerspec off = { { 0, 0 }, { 0, 0 } };
  timerfd_settime(t->fd, 0, &off, NULL);
  uv_poll_stop(&t->poll);
  t->fd_set = false;
}

/* The coarse wait is over, a little before the time: the timerfd takes
 * the rest to the microsecond. */
static void hrtimer_on_coarse(uv_timer_t *c)
{
  struct hrtimer *t = c->data;
  hrtimer_fd_arm(t);
}

void hrtimer_at(struct hrtimer *t, uint64_t mono_us)
{
  uint64_t now = clock_mono_us();
  t->due_us = mono_us;
  t->armed = true;
  if(mono_us > now + HRTIMER_COARSE_US) {
    /* libuv counts from its loop time, which may be behind the clock:
     * then it fires earlier, never later than asked; two milliseconds
     * short covers its rounding to the millisecond */
    uint64_t ms = (mono_us - now) / 1000 - 2;
    hrtimer_fd_disarm(t);
    uv_timer_start(&t->coarse, hrtimer_on_coarse, ms, 0);
    return;
  }
  uv_timer_stop(&t->coarse);
  hrtimer_fd_arm(t);
}

void hrtimer_stop(struct hrtimer *t)
{
  if(!t->armed)
    return;
  uv_timer_stop(&t->coarse);
  hrtimer_fd_disarm(t);
  t->armed = false;
}

/* Both handles closed: the descriptor goes, the owner is told (with the
 * poll handle, its data the owner's, as before the coarse timer was). */
static void hrtimer_on_closed(uv_handle_t *h)
{
  struct hrtimer *t = h->data;
  if(--t->closing)
    return;
  close(t->fd);
  t->fd = -1;
  if(t->on_closed) {
    uv_handle_t *p = (uv_handle_t *)&t->poll;
    p->data = t->data;
    t->on_closed(p);
  }
}

void hrtimer_close(struct hrtimer *t, uv_close_cb cb)
{
  hrtimer_stop(t);
  t->on_closed = cb;
  t->closing = 2;
  uv_close((uv_handle_t *)&t->coarse, hrtimer_on_closed);
  uv_close((uv_handle_t *)&t->poll, hrtimer_on_closed);
}
