/* The worker threads of llfs (worker.h): start, graceful stop, close.
 * main.c talks to a worker only through its command (an atomic word and a
 * uv_async on the worker's loop); a worker answers through the started
 * semaphore and the drained count with main's wake async. */
#include "llfs/worker.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"

#define LLFS_WORKER_MAGIC 0x3011f0e5u

/* Commands, in the order they come; a worker does each once. */
enum worker_cmd { WORKER_RUN, WORKER_STOP, WORKER_CLOSE };

struct llfs_worker {
  unsigned             magic;
  unsigned             idx;
  struct llfs_workers *ws;
  pthread_t            tid;
  bool                 thread_made;
  uv_loop_t            loop;
  uv_async_t           cmd;
  atomic_int           want;      /* the latest command asked */
  int                  done;      /* the latest command done (worker's own) */
  struct llfs_svc      svc;
  struct api_srv      *srv;
  uv_timer_t           drain;
  int                  rc;        /* of the start, read once started posts */
  char                 err[256];
};

static void worker_report_drained(struct llfs_worker *w)
{
  atomic_fetch_add_explicit(&w->ws->ndrained, 1, memory_order_relaxed);
  uv_async_send(&w->ws->wake);
}

/* The answers of the last fetches are queued: give MHD a moment to send
 * them, then report once nothing is pending. */
static void worker_on_drain(uv_timer_t *t)
{
  struct llfs_worker *w = t->data;
  if(api_srv_pending(w->srv) > 0 ||
     atomic_load_explicit(&w->svc.calls_live, memory_order_relaxed) > 0)
    return;
  uv_timer_stop(t);
  worker_report_drained(w);
}

static void worker_fetches_done(void *arg)
{
  struct llfs_worker *w = arg;
  uv_timer_start(&w->drain, worker_on_drain, 100, 50);
}

static void worker_stop(struct llfs_worker *w)
{
  if(w->svc.f && w->srv)
    fetcher_shutdown(w->svc.f, w->ws->grace_ms, worker_fetches_done, w);
  else
    worker_report_drained(w);   /* it never started: nothing to drain */
}

/* Set or clear this worker's fetcher where /metrics of others reads it. */
static void worker_publish(struct llfs_worker *w, struct fetcher *f)
{
  pthread_rwlock_wrlock(&w->ws->sh.fetchers);
  w->svc.f = f;
  pthread_rwlock_unlock(&w->ws->sh.fetchers);
}

static void worker_close(struct llfs_worker *w)
{
  uv_timer_stop(&w->drain);
  api_srv_stop(&w->srv);      /* aborts what is pending: needs the fetcher */
  struct fetcher *f = w->svc.f;
  worker_publish(w, NULL);
  fetcher_free(&f);
  buf_free(&w->svc.meta);
  uv_close((uv_handle_t *)&w->cmd, NULL);
  uv_close((uv_handle_t *)&w->drain, NULL);
}

static void worker_on_cmd(uv_async_t *a)
{
  struct llfs_worker *w = a->data;
  int want = atomic_load_explicit(&w->want, memory_order_acquire);
  if(want >= WORKER_STOP && w->done < WORKER_STOP) {
    w->done = WORKER_STOP;
    worker_stop(w);
  }
  if(want >= WORKER_CLOSE && w->done < WORKER_CLOSE) {
    w->done = WORKER_CLOSE;
    worker_close(w);
  }
}

static int worker_open(struct llfs_worker *w)
{
  struct llfs_workers *ws = w->ws;
  w->svc.magic = LLFS_SVC_MAGIC;
  w->svc.sh = &ws->sh;
  w->svc.lim = ws->lim;
  buf_init(&w->svc.meta, 0);  /* each answer sets its own cap (svc.c) */
  struct fetcher *f = fetcher_new_shared(&w->loop, ws->fetch, ws->fsh, w->err, sizeof w->err);
  if(!f)
    return -1;
  worker_publish(w, f);
  struct api_srv_cfg sc = ws->srv;
  sc.arg = &w->svc;
  if(api_group_join(ws->group, w->idx, &w->loop, &sc, &w->srv)) {
    snprintf(w->err, sizeof w->err, "cannot start its HTTP server");
    return -1;
  }
  return 0;
}

static void *worker_main(void *arg)
{
  struct llfs_worker *w = arg;
  uv_loop_init(&w->loop);
  uv_async_init(&w->loop, &w->cmd, worker_on_cmd);
  uv_timer_init(&w->loop, &w->drain);
  w->cmd.data = w->drain.data = w;
  w->rc = worker_open(w);
  sem_post(&w->ws->started);
  uv_run(&w->loop, UV_RUN_DEFAULT);   /* until worker_close's handles are closed */
  if(uv_loop_close(&w->loop))
    LOG(LOG_WARN, "worker %u: loop closed with handles open", w->idx);
  return NULL;
}

static void workers_on_wake(uv_async_t *a)
{
  struct llfs_workers *ws = a->data;
  if(ws->drained_called ||
     atomic_load_explicit(&ws->ndrained, memory_order_relaxed) < ws->n)
    return;
  ws->drained_called = true;
  ws->drained(ws->drained_arg);
}

static void workers_send(struct llfs_workers *ws, enum worker_cmd c)
{
  for(unsigned i = 0; i < ws->n; i++) {
    struct llfs_worker *w = &ws->w[i];
    if(!w->thread_made)
      continue;
    atomic_store_explicit(&w->want, c, memory_order_release);
    uv_async_send(&w->cmd);
  }
}

/* Threads made; 0, or -1 with the first failure logged. */
static int workers_spawn(struct llfs_workers *ws)
{
  unsigned made = 0;
  int rc = 0;
  for(unsigned i = 0; i < ws->n; i++) {
    struct llfs_worker *w = &ws->w[i];
    *w = (struct llfs_worker){ .magic = LLFS_WORKER_MAGIC, .idx = i, .ws = ws };
    ws->sh.svcs[i] = &w->svc;
    if(pthread_create(&w->tid, NULL, worker_main, w)) {
      LOG(LOG_ERROR, "worker %u: cannot start a thread", i);
      rc = -1;
      break;
    }
    w->thread_made = true;
    made++;
  }
  for(unsigned i = 0; i < made; i++)
    sem_wait(&ws->started);
  for(unsigned i = 0; i < made && rc == 0; i++)
    if(ws->w[i].rc) {
      LOG(LOG_ERROR, "worker %u: %s", i, ws->w[i].err);
      rc = -1;
    }
  return rc;
}

int workers_start(struct llfs_workers *ws, uv_loop_t *main_loop)
{
  atomic_init(&ws->sh.stopping, false);
  atomic_init(&ws->ndrained, 0);
  ws->drained_called = false;
  ws->sh.nsvcs = ws->n;
  ws->sh.svcs = xalloc(ws->n * sizeof *ws->sh.svcs);
  pthread_rwlock_init(&ws->sh.fetchers, NULL);
  ws->w = xalloc(ws->n * sizeof *ws->w);
  sem_init(&ws->started, 0, 0);
  uv_async_init(main_loop, &ws->wake, workers_on_wake);
  ws->wake.data = ws;
  if(workers_spawn(ws)) {
    workers_close(ws);
    return -1;
  }
  return 0;
}

void workers_stop(struct llfs_workers *ws)
{
  atomic_store_explicit(&ws->sh.stopping, true, memory_order_relaxed);
  workers_send(ws, WORKER_STOP);
}

unsigned long workers_calls_live(const struct llfs_workers *ws)
{
  unsigned long n = 0;
  for(unsigned i = 0; i < ws->n; i++)
    n += atomic_load_explicit(&ws->w[i].svc.calls_live, memory_order_relaxed);
  return n;
}

void workers_close(struct llfs_workers *ws)
{
  if(!ws->w)
    return;
  workers_send(ws, WORKER_CLOSE);
  for(unsigned i = 0; i < ws->n; i++)
    if(ws->w[i].thread_made)
      pthread_join(ws->w[i].tid, NULL);
  uv_close((uv_handle_t *)&ws->wake, NULL);
  sem_destroy(&ws->started);
  pthread_rwlock_destroy(&ws->sh.fetchers);
  free(ws->sh.svcs);
  free(ws->w);
  ws->sh.svcs = NULL;
  ws->w = NULL;
}
