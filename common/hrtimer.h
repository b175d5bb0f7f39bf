#ifndef WPFS_COMMON_HRTIMER_H
#define WPFS_COMMON_HRTIMER_H
/* A one-shot timer due at a microsecond of clock_mono_us(), on a libuv
 * loop. libuv's own timers count whole milliseconds from a loop time read
 * at the start of the turn: one armed for a given instant fires up to a
 * millisecond either side of it. This one is a timerfd (CLOCK_MONOTONIC,
 * absolute) that the loop polls: it fires at the microsecond asked, plus
 * the kernel's timer slack (50 us by default) and the loop's own delay.
 * Used where a wake-up must come at a due time (the scheduler: a site's
 * next allowed request).
 *
 * Arming a timerfd is a system call that programs the kernel's timer
 * (on a virtual machine, an exit to the host): 3-4 % of the gateway's CPU
 * in a broad crawl, where the scheduler re-arms its wake-up at every
 * claim and nearly every one is replaced before it comes. A time more
 * than HRTIMER_COARSE_US away waits on a libuv timer first, which costs
 * no system call, and the timerfd is armed only when that fires, a few
 * milliseconds before the time: the same microsecond, one system call
 * for the wake-ups that come, none for those replaced or stopped. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

struct hrtimer;
typedef void hrtimer_cb(struct hrtimer *t);

/* Times further than this wait on the libuv timer first (see above). */
#define HRTIMER_COARSE_US 5000

struct hrtimer {
  uv_poll_t   poll;
  uv_timer_t  coarse;   /* the wait before the timerfd is armed */
  int         fd;
  bool        armed;    /* a wake-up is due (either way) */
  bool        fd_set;   /* the timerfd is armed and polled */
  uint64_t    due_us;   /* when, while armed */
  hrtimer_cb *cb;
  void       *data;     /* the owner's */
  uv_close_cb on_closed;
  unsigned    closing;  /* handles not closed yet */
};

/* 0, or a negative errno (no timerfd, or libuv refused to poll it). */
int  hrtimer_init(uv_loop_t *loop, struct hrtimer *t, hrtimer_cb *cb, void *data);
/* Due at mono_us (a time already past fires on the loop's next turn);
 * replaces any earlier arming. */
void hrtimer_at(struct hrtimer *t, uint64_t mono_us);
void hrtimer_stop(struct hrtimer *t);
/* Stops it; cb (may be NULL) runs once the loop has let go of it, with
 * the handle whose data is t->data. */
void hrtimer_close(struct hrtimer *t, uv_close_cb cb);

#endif
