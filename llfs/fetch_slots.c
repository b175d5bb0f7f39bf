/* Admission: at most max_in_flight fetches running and max_queue waiting,
 * counted over every fetcher of a fetch_shared (the worker threads of one
 * llfs), or over the fetcher alone when it shares nothing. A fetch takes
 * a slot (or a place in the queue) before it joins the fetcher's active
 * (or queue) list and gives it back when it leaves the list
 * (job_list_remove), so the counts never pass the limits, whatever the
 * threads do. Each fetcher keeps its own FIFO queue; a slot freed on one
 * thread wakes the fetchers of the others that have fetches waiting (their
 * pump async), and the first to take it admits its oldest. */
#include "llfs/fetch_int.h"

static bool slots_take(atomic_long *n, long max)
{
  long v = atomic_load_explicit(n, memory_order_relaxed);
  while(v < max)
    if(atomic_compare_exchange_weak_explicit(n, &v, v + 1, memory_order_relaxed,
                                             memory_order_relaxed))
      return true;
  return false;
}

bool fetch_slot_take(struct fetcher *f)
{
  return slots_take(&f->slots->active, f->slots->max_active);
}

bool fetch_queue_take(struct fetcher *f)
{
  return slots_take(&f->slots->queued, f->slots->max_queued);
}

bool fetch_slots_full(const struct fetcher *f)
{
  const struct fetch_slots *s = f->slots;
  return atomic_load_explicit(&s->active, memory_order_relaxed) >= s->max_active &&
         atomic_load_explicit(&s->queued, memory_order_relaxed) >= s->max_queued;
}

void fetch_queue_give(struct fetcher *f)
{
  atomic_fetch_sub_explicit(&f->slots->queued, 1, memory_order_relaxed);
}

/* Others wait for the slot just freed: wake those with a queue. */
static void slots_wake_others(struct fetcher *f)
{
  struct fetch_shared *sh = f->shared;
  pthread_mutex_lock(&sh->fetchers_mu);
  for(struct fetcher *g = sh->fetchers; g; g = g->snext)
    if(g != f && atomic_load_explicit(&g->n_queued, memory_order_relaxed) > 0)
      uv_async_send(&g->pump);   /* under the mutex: leaving closes it after */
  pthread_mutex_unlock(&sh->fetchers_mu);
}

void fetch_slot_give(struct fetcher *f)
{
  long queued = atomic_load_explicit(&f->slots->queued, memory_order_relaxed);
  atomic_fetch_sub_explicit(&f->slots->active, 1, memory_order_relaxed);
  if(f->shared && queued > (long)(f->queue.n + f->held.n))
    slots_wake_others(f);
}

static void slots_on_pump(uv_async_t *a)
{
  struct fetcher *f = a->data;
  CHECK(f && f->magic == FETCHER_MAGIC);
  fetch_pump(f);
}

void fetch_slots_join(struct fetcher *f)
{
  struct fetch_shared *sh = f->shared;
  if(!sh) {
    f->slots = &f->own_slots;
    f->own_slots.max_active = f->cfg.max_in_flight;
    f->own_slots.max_queued = f->cfg.max_queue;
    return;
  }
  f->slots = &sh->slots;
  uv_async_init(f->loop, &f->pump, slots_on_pump);
  f->pump.data = f;
  f->open_handles++;
  pthread_mutex_lock(&sh->fetchers_mu);
  f->sprev = NULL;
  f->snext = sh->fetchers;
  if(sh->fetchers)
    sh->fetchers->sprev = f;
  sh->fetchers = f;
  pthread_mutex_unlock(&sh->fetchers_mu);
}

void fetch_slots_leave(struct fetcher *f)
{
  struct fetch_shared *sh = f->shared;
  if(!sh || !f->pump.data)
    return;
  pthread_mutex_lock(&sh->fetchers_mu);
  if(f->sprev)
    f->sprev->snext = f->snext;
  else
    sh->fetchers = f->snext;
  if(f->snext)
    f->snext->sprev = f->sprev;
  pthread_mutex_unlock(&sh->fetchers_mu);
  uv_close((uv_handle_t *)&f->pump, fetch_handle_closed);
}
