/* Fetches held until a start their caller set (fetch_req.hold_us). The
 * gateway claims a site a little before its next request is allowed and
 * sends the fetch at once with the time left: the request then leaves from
 * here, one hop from the site, when the delay ends, instead of after the
 * gateway's own wake-up, its claim and the hop to us (docs/hlfs-state.md,
 * "Politeness"). The hold is relative to the request's arrival here,
 * which comes after the gateway measured it, so it can only end late.
 *
 * Held jobs wait on f->held in start order, each with a place in the
 * queue (the queue's bound covers them), under one timerfd
 * (common/hrtimer.h: libuv's timers are whole milliseconds). */
#include <stdio.h>

#include "common/clock.h"
#include "llfs/fetch_int.h"

/* Released with the queue's place it held: a slot, else the queue again
 * (another worker may have taken the place meanwhile: overloaded then). */
static void hold_release(struct fetch_job *j)
{
  uint64_t now = clock_mono_us();
  job_list_remove(j);
  j->res.t.hold_us = now - j->t_start;
  j->t_start = now;  /* the fetch's own time counts from here */
  if(!job_go(j))
    job_finish(j, OUTCOME_OVERLOADED, "no place left when the hold ended");
}

static void hold_arm(struct fetcher *f)
{
  if(f->held.first)
    hrtimer_at(&f->hold_timer, f->held.first->start_at);
  else
    hrtimer_stop(&f->hold_timer);
}

static void hold_on_timer(struct hrtimer *t)
{
  struct fetcher *f = t->data;
  CHECK(f && f->magic == FETCHER_MAGIC);
  uint64_t now = clock_mono_us();
  while(f->held.first && f->held.first->start_at <= now)
    hold_release(f->held.first);
  hold_arm(f);
}

/* Starts mostly come in order: the place is found from the tail. */
void fetch_hold(struct fetch_job *j)
{
  struct fetcher *f = j->f;
  struct fetch_job *after = f->held.last;
  while(after && after->start_at > j->start_at)
    after = after->prev;
  job_list_insert(&f->held, after, j);
  if(!after)
    hold_arm(f);
}

int fetch_hold_init(struct fetcher *f, char *err, size_t errlen)
{
  int rc = hrtimer_init(f->loop, &f->hold_timer, hold_on_timer, f);
  if(rc) {
    snprintf(err, errlen, "hold timer: %s", uv_strerror(rc));
    return -1;
  }
  f->open_handles++;
  return 0;
}

void fetch_hold_fini(struct fetcher *f)
{
  if(f->hold_timer.cb)
    hrtimer_close(&f->hold_timer, fetch_handle_closed);
}
