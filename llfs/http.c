/* The HTTP threads of llfs (http.h): start, drain, close. main.c talks to
 * a thread only through its command (an atomic word and a uv_async on the
 * thread's loop); a thread answers through the started semaphore, and the
 * drained count with main's wake async. */
#include "llfs/http.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"

#define LLFS_HTTP_MAGIC 0x3011f0e5u

/* Commands, in the order they come; a thread does each once. */
enum http_cmd { HTTP_RUN, HTTP_DRAIN, HTTP_CLOSE };

struct llfs_http {
  unsigned           magic;
  unsigned           idx;
  struct llfs_https *hs;
  pthread_t          tid;
  bool               thread_made;
  uv_loop_t          loop;
  uv_async_t         cmd;
  atomic_int         want;      /* the latest command asked */
  int                done;      /* the latest command done (the thread's own) */
  struct llfs_svc    svc;
  struct api_srv    *srv;
  uv_timer_t         drain;
  int                rc;        /* of the start, read once started is posted */
  char               err[256];
};

/* The answers of the last calls are queued: give MHD a moment to send
 * them, then report once nothing is pending. */
static void http_on_drain(uv_timer_t *t)
{
  struct llfs_http *h = t->data;
  if(h->srv && (api_srv_pending(h->srv) > 0 || h->svc.calls_live > 0))
    return;
  uv_timer_stop(t);
  atomic_fetch_add_explicit(&h->hs->ndrained, 1, memory_order_relaxed);
  uv_async_send(&h->hs->wake);
}

static void http_close(struct llfs_http *h)
{
  uv_timer_stop(&h->drain);
  api_srv_stop(&h->srv);   /* requests still pending are aborted: their calls abandoned */
  struct mbox_item *it = mbox_close(&h->svc.home);
  while(it) {              /* answers that came back too late: dropped by their done */
    struct llfs_xcall *x = (struct llfs_xcall *)it;
    it = it->next;
    x->done(x);
  }
  buf_free(&h->svc.meta);
  uv_close((uv_handle_t *)&h->cmd, NULL);
  uv_close((uv_handle_t *)&h->drain, NULL);
}

static void http_on_cmd(uv_async_t *a)
{
  struct llfs_http *h = a->data;
  int want = atomic_load_explicit(&h->want, memory_order_acquire);
  if(want >= HTTP_DRAIN && h->done < HTTP_DRAIN) {
    h->done = HTTP_DRAIN;
    uv_timer_start(&h->drain, http_on_drain, 100, 50);
  }
  if(want >= HTTP_CLOSE && h->done < HTTP_CLOSE) {
    h->done = HTTP_CLOSE;
    http_close(h);
  }
}

static int http_open(struct llfs_http *h)
{
  struct llfs_https *hs = h->hs;
  h->svc.magic = LLFS_SVC_MAGIC;
  h->svc.sh = &hs->sh;
  h->svc.engine = hs->engine;
  h->svc.guard = fetcher_guard(hs->engine->f);
  h->svc.lim = hs->lim;
  buf_init(&h->svc.meta, 0);  /* each answer sets its own cap (svc.c) */
  mbox_init(&h->svc.home, &h->loop, llfs_home_ready, &h->svc);
  struct api_srv_cfg sc = hs->srv;
  sc.arg = &h->svc;
  if(api_group_join(hs->group, h->idx, &h->loop, &sc, &h->srv)) {
    snprintf(h->err, sizeof h->err, "cannot start its HTTP server");
    return -1;
  }
  return 0;
}

static void *http_main(void *arg)
{
  struct llfs_http *h = arg;
  uv_loop_init(&h->loop);
  uv_async_init(&h->loop, &h->cmd, http_on_cmd);
  uv_timer_init(&h->loop, &h->drain);
  h->cmd.data = h->drain.data = h;
  h->rc = http_open(h);
  sem_post(&h->hs->started);
  uv_run(&h->loop, UV_RUN_DEFAULT);   /* until http_close's handles are closed */
  if(uv_loop_close(&h->loop))
    LOG(LOG_WARN, "HTTP thread %u: loop closed with handles open", h->idx);
  return NULL;
}

static void https_on_wake(uv_async_t *a)
{
  struct llfs_https *hs = a->data;
  if(hs->drained_called ||
     atomic_load_explicit(&hs->ndrained, memory_order_relaxed) < hs->n)
    return;
  hs->drained_called = true;
  hs->drained(hs->drained_arg);
}

static void https_send(struct llfs_https *hs, enum http_cmd c)
{
  for(unsigned i = 0; i < hs->n; i++) {
    struct llfs_http *h = &hs->t[i];
    if(!h->thread_made)
      continue;
    atomic_store_explicit(&h->want, c, memory_order_release);
    uv_async_send(&h->cmd);
  }
}

/* Threads made and started; 0, or -1 with the first failure logged. */
static int https_spawn(struct llfs_https *hs)
{
  unsigned made = 0;
  int rc = 0;
  for(unsigned i = 0; i < hs->n; i++) {
    struct llfs_http *h = &hs->t[i];
    h->magic = LLFS_HTTP_MAGIC;
    h->idx = i;
    h->hs = hs;
    if(pthread_create(&h->tid, NULL, http_main, h)) {
      LOG(LOG_ERROR, "HTTP thread %u: cannot start a thread", i);
      rc = -1;
      break;
    }
    h->thread_made = true;
    made++;
  }
  for(unsigned i = 0; i < made; i++)
    sem_wait(&hs->started);
  for(unsigned i = 0; i < made && rc == 0; i++)
    if(hs->t[i].rc) {
      LOG(LOG_ERROR, "HTTP thread %u: %s", i, hs->t[i].err);
      rc = -1;
    }
  return rc;
}

int https_start(struct llfs_https *hs, uv_loop_t *main_loop)
{
  atomic_init(&hs->sh.stopping, false);
  atomic_init(&hs->ndrained, 0);
  hs->sh.nthreads = hs->n;
  hs->t = xalloc(hs->n * sizeof *hs->t);
  sem_init(&hs->started, 0, 0);
  uv_async_init(main_loop, &hs->wake, https_on_wake);
  hs->wake.data = hs;
  if(https_spawn(hs)) {
    https_close(hs);
    return -1;
  }
  return 0;
}

void https_drain(struct llfs_https *hs)
{
  https_send(hs, HTTP_DRAIN);
}

void https_close(struct llfs_https *hs)
{
  if(!hs->t || hs->closed)
    return;
  hs->closed = true;
  https_send(hs, HTTP_CLOSE);
  for(unsigned i = 0; i < hs->n; i++)
    if(hs->t[i].thread_made)
      pthread_join(hs->t[i].tid, NULL);
  uv_close((uv_handle_t *)&hs->wake, NULL);
}

void https_free(struct llfs_https *hs)
{
  if(!hs->t)
    return;
  for(unsigned i = 0; i < hs->n; i++)
    if(hs->t[i].thread_made)
      mbox_fini(&hs->t[i].svc.home);
  sem_destroy(&hs->started);
  free(hs->t);
  hs->t = NULL;
}
