#include "clients/loop/loop.h"

#include <signal.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"

#define LOOP_MAGIC 0x10a9c0deu

/* Every handle's data is the loop, checked before use. */
static struct loop *loop_of(void *data)
{
  struct loop *l = data;
  CHECK(l && l->magic == LOOP_MAGIC);
  return l;
}

static void on_tick(uv_timer_t *t)
{
  struct loop *l = loop_of(t->data);
  l->hooks.tick(l->arg);
}

static void on_signal(uv_signal_t *s, int signum)
{
  struct loop *l = loop_of(s->data);
  l->hooks.signal(l->arg, signum);
}

crawl_err loop_open(struct loop *l, const struct gwclient_opts *o, const struct loop_hooks *h,
                    void *arg)
{
  memset(l, 0, sizeof *l);
  l->magic = LOOP_MAGIC;
  l->hooks = *h;
  l->arg = arg;
  l->last_useful = clock_mono_ms();
  if(uv_loop_init(&l->uv) != 0)
    return CRAWL_ERR_NOMEM;
  l->uv_ready = true;
  crawl_err e = gwclient_open(&l->uv, o, &l->gw);
  if(e)
    return e;
  uv_timer_init(&l->uv, &l->tick);
  uv_signal_init(&l->uv, &l->sig_int);
  uv_signal_init(&l->uv, &l->sig_term);
  l->handles = true;
  l->tick.data = l->sig_int.data = l->sig_term.data = l;
  uv_timer_start(&l->tick, on_tick, 0, LOOP_TICK_MS);
  uv_signal_start(&l->sig_int, on_signal, SIGINT);
  uv_signal_start(&l->sig_term, on_signal, SIGTERM);
  return CRAWL_OK;
}

void loop_run(struct loop *l)
{
  uv_run(&l->uv, UV_RUN_DEFAULT);
}

void loop_stop(struct loop *l)
{
  uv_stop(&l->uv);
}

void loop_close(struct loop *l)
{
  gwclient_close(&l->gw);  /* cancels requests under way: no callback after this */
  if(l->handles) {
    uv_close((uv_handle_t *)&l->tick, NULL);
    uv_close((uv_handle_t *)&l->sig_int, NULL);
    uv_close((uv_handle_t *)&l->sig_term, NULL);
    l->handles = false;
  }
  if(l->uv_ready) {
    uv_run(&l->uv, UV_RUN_DEFAULT);  /* let closed handles go */
    uv_loop_close(&l->uv);
    l->uv_ready = false;
  }
  l->magic = 0;
}

void loop_useful(struct loop *l)
{
  l->last_useful = clock_mono_ms();
}

bool loop_stalled(struct loop *l, uint64_t stall_ms)
{
  if(clock_mono_ms() - l->last_useful <= stall_ms)
    return false;
  LOG(LOG_ERROR, "no answer from the gateway for %llu ms: giving up",
      (unsigned long long)stall_ms);
  return true;
}
