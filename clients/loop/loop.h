#ifndef WPFS_CLIENTS_LOOP_LOOP_H
#define WPFS_CLIENTS_LOOP_LOOP_H
/* The frame every crawler's loop runs in: the crawl loop (crawl_loop.c,
 * wpfs-discover and wpfs-focus) and the refresh loop
 * (clients/refresh/refresh.c). One libuv loop, the gateway client on it,
 * a tick every LOOP_TICK_MS, SIGINT and SIGTERM, and the time of the
 * gateway's last useful answer, which says when a crawl has stalled.
 *
 *   loop_open(&l, &gateway_opts, &hooks, arg)
 *   loop_run(&l)     hooks.tick every LOOP_TICK_MS, hooks.signal on a
 *                    signal, the gateway client's callbacks, until
 *   loop_stop(&l)    (from any callback, the gateway client's too: the
 *                    loop returns once this turn's callbacks have run,
 *                    so nothing is freed under its caller)
 *   loop_close(&l)   the gateway's requests cancelled (no callback runs
 *                    after it), every handle closed, the loop freed.
 *
 * The owner may put handles of its own on l.uv; it closes them (uv_close)
 * before loop_close, which lets them go. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "clients/gwclient/gwclient.h"

#define LOOP_TICK_MS 50

struct loop_hooks {
  void (*tick)(void *arg);
  void (*signal)(void *arg, int signum);  /* SIGINT or SIGTERM */
};

struct loop {
  unsigned          magic;
  uv_loop_t         uv;
  struct gwclient  *gw;
  uv_timer_t        tick;
  uv_signal_t       sig_int, sig_term;
  struct loop_hooks hooks;
  void             *arg;
  uint64_t          last_useful;   /* clock_mono_ms */
  bool              uv_ready, handles;
};

/* On failure the loop is still closed with loop_close. */
crawl_err loop_open(struct loop *l, const struct gwclient_opts *o, const struct loop_hooks *h,
                    void *arg);
void      loop_run(struct loop *l);
void      loop_stop(struct loop *l);
void      loop_close(struct loop *l);
/* The gateway answered something useful now. */
void      loop_useful(struct loop *l);
/* Nothing useful for longer than stall_ms: said at the error level. */
bool      loop_stalled(struct loop *l, uint64_t stall_ms);

#endif
