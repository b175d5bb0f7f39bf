#include "common/hrtimer.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <unistd.h>

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
  t->poll.data = t;
  t->armed = false;
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

void hrtimer_at(struct hrtimer *t, uint64_t mono_us)
{
  hrtimer_set(t, mono_us);
  if(!t->armed)
    uv_poll_start(&t->poll, UV_READABLE, hrtimer_on_poll);
  t->armed = true;
}

void hrtimer_stop(struct hrtimer *t)
{
  if(!t->armed)
    return;
  struct itimerspec off = { { 0, 0 }, { 0, 0 } };
  timerfd_settime(t->fd, 0, &off, NULL);
  uv_poll_stop(&t->poll);
  t->armed = false;
}

static void hrtimer_on_closed(uv_handle_t *h)
{
  struct hrtimer *t = h->data;
  close(t->fd);
  t->fd = -1;
  if(t->on_closed) {
    h->data = t->data;
    t->on_closed(h);
  }
}

void hrtimer_close(struct hrtimer *t, uv_close_cb cb)
{
  hrtimer_stop(t);
  t->on_closed = cb;
  uv_close((uv_handle_t *)&t->poll, hrtimer_on_closed);
}
