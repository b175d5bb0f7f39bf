#include "clients/out/wq.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/mem.h"

struct wq_list {
  struct wq_job *head, *tail;
};

struct wq {
  pthread_t       th;
  pthread_mutex_t mu;
  pthread_cond_t  work;    /* the thread waits for jobs */
  pthread_cond_t  room;    /* pushers wait for bytes to go */
  pthread_cond_t  fin;     /* waiters wait for finished jobs */
  struct wq_list  todo, done;
  size_t          bytes, max_bytes, pending;
  crawl_err       err;
  bool            stop, started, reaping;
  unsigned        held;    /* wq_hold depth: pushes do not wake the thread */
  size_t          running; /* taken by the thread, not yet finished */
  wq_flush_fn    *flush;
  void           *flush_arg;
  int             efd;
};

static void list_add(struct wq_list *l, struct wq_job *j)
{
  j->next = NULL;
  if(l->tail)
    l->tail->next = j;
  else
    l->head = j;
  l->tail = j;
}

static struct wq_job *list_take(struct wq_list *l)
{
  struct wq_job *j = l->head;
  if(j) {
    l->head = j->next;
    if(!l->head)
      l->tail = NULL;
  }
  return j;
}

/* Tell a loop that something can be reaped. The counter is set and
 * cleared under the lock, with the done list: readable exactly when the
 * list has jobs, so a loop never wakes for nothing. */
static void wq_signal(struct wq *q)
{
  uint64_t one = 1;
  ssize_t n = write(q->efd, &one, sizeof one);
  (void)n;  /* EAGAIN: the counter is already non-zero, which is all we say */
}

/* Finish jobs that ran (or were skipped) at once: one lock, one signal. */
static void finish_list(struct wq *q, struct wq_list *l)
{
  pthread_mutex_lock(&q->mu);
  if(!q->done.head)  /* else the counter is set already: one write per reap, not per job */
    wq_signal(q);
  for(struct wq_job *j; (j = list_take(l)) != NULL;) {
    if(j->err && !q->err)
      q->err = j->err;
    q->bytes -= j->bytes;
    q->running--;
    list_add(&q->done, j);
  }
  pthread_cond_broadcast(&q->room);
  pthread_cond_broadcast(&q->fin);
  pthread_mutex_unlock(&q->mu);
}

/* The buffered jobs that ran (and did not fail) since the last flush are
 * finished by this one, with its error. Their output is written even
 * after a later job failed, as it was when each job wrote its own. */
static crawl_err flush_held(struct wq *q, struct wq_list *held, size_t *n, crawl_err e)
{
  if(!held->head)
    return e;
  crawl_err fe = q->flush ? q->flush(q->flush_arg) : CRAWL_OK;
  for(struct wq_job *j = held->head; j; j = j->next)
    j->err = fe;
  finish_list(q, held);
  *n = 0;
  return e ? e : fe;
}

/* Jobs in push order; a job that is not buffered runs after the flush of
 * those before it, so order holds across the buffers too. */
static void run_batch(struct wq *q, struct wq_list *batch, crawl_err e)
{
  struct wq_list held = { NULL, NULL };
  size_t n = 0;
  for(struct wq_job *j; (j = list_take(batch)) != NULL;) {
    if(!j->buffered || n == WQ_FLUSH_JOBS || e)
      e = flush_held(q, &held, &n, e);
    j->err = e;
    if(!e && j->run)
      e = j->err = j->run(j);
    if(j->buffered && !j->err) {
      list_add(&held, j);
      n++;
      continue;
    }
    e = flush_held(q, &held, &n, e);  /* a failed buffered job: those before it first */
    struct wq_list one = { NULL, NULL };
    list_add(&one, j);
    finish_list(q, &one);
  }
  flush_held(q, &held, &n, e);
}

/* Takes everything queued at once: the jobs pushed in one loop turn run
 * as one batch. */
static void *wq_main(void *arg)
{
  struct wq *q = arg;
  pthread_mutex_lock(&q->mu);
  for(;;) {
    while(!q->todo.head && !q->stop)
      pthread_cond_wait(&q->work, &q->mu);
    struct wq_list batch = q->todo;
    if(!batch.head)
      break;  /* stopped, and nothing left */
    q->todo.head = q->todo.tail = NULL;
    for(struct wq_job *j = batch.head; j; j = j->next)
      q->running++;
    crawl_err e = q->err;
    pthread_mutex_unlock(&q->mu);
    run_batch(q, &batch, e);
    pthread_mutex_lock(&q->mu);
  }
  pthread_mutex_unlock(&q->mu);
  return NULL;
}

void wq_set_flush(struct wq *q, wq_flush_fn *fn, void *arg)
{
  pthread_mutex_lock(&q->mu);
  q->flush = fn;
  q->flush_arg = arg;
  pthread_mutex_unlock(&q->mu);
}

crawl_err wq_open(size_t max_bytes, struct wq **out)
{
  struct wq *q = mem_calloc(1, sizeof *q);
  *out = NULL;
  if(!q)
    return CRAWL_ERR_NOMEM;
  q->max_bytes = max_bytes ? max_bytes : SIZE_MAX;
  q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->room, NULL);
  pthread_cond_init(&q->fin, NULL);
  q->started = q->efd >= 0 && pthread_create(&q->th, NULL, wq_main, q) == 0;
  if(!q->started) {
    wq_close(&q);
    return CRAWL_ERR_NOMEM;
  }
  *out = q;
  return CRAWL_OK;
}

void wq_close(struct wq **qp)
{
  struct wq *q = *qp;
  if(!q)
    return;
  *qp = NULL;
  if(q->started) {
    pthread_mutex_lock(&q->mu);
    q->stop = true;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->th, NULL);
  }
  q->reaping = false;
  wq_reap(q);
  if(q->efd >= 0)
    close(q->efd);
  pthread_mutex_destroy(&q->mu);
  pthread_cond_destroy(&q->work);
  pthread_cond_destroy(&q->room);
  pthread_cond_destroy(&q->fin);
  mem_free(q);
}

void wq_push(struct wq *q, struct wq_job *j)
{
  j->err = CRAWL_OK;
  pthread_mutex_lock(&q->mu);
  while((q->todo.head || q->running) && q->bytes + j->bytes > q->max_bytes) {
    pthread_cond_signal(&q->work);  /* held: the thread must run for room to come */
    pthread_cond_wait(&q->room, &q->mu);
  }
  list_add(&q->todo, j);
  q->bytes += j->bytes;
  q->pending++;
  if(!q->held)
    pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->mu);
}

void wq_hold(struct wq *q)
{
  pthread_mutex_lock(&q->mu);
  q->held++;
  pthread_mutex_unlock(&q->mu);
}

void wq_release(struct wq *q)
{
  pthread_mutex_lock(&q->mu);
  if(q->held && --q->held == 0 && q->todo.head)
    pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->mu);
}

size_t wq_reap(struct wq *q)
{
  if(q->reaping)
    return 0;
  uint64_t v;
  pthread_mutex_lock(&q->mu);
  struct wq_list l = q->done;
  if(l.head) {  /* the counter is set exactly while the list has jobs: no read for nothing */
    ssize_t r = read(q->efd, &v, sizeof v);
    (void)r;
  }
  q->done.head = q->done.tail = NULL;
  pthread_mutex_unlock(&q->mu);
  size_t n = 0;
  q->reaping = true;
  for(struct wq_job *j; (j = list_take(&l)) != NULL; n++)
    j->done(j, j->err);
  q->reaping = false;
  pthread_mutex_lock(&q->mu);
  q->pending -= n;
  pthread_mutex_unlock(&q->mu);
  return n;
}

bool wq_wait(struct wq *q)
{
  if(q->reaping)
    return false;
  pthread_mutex_lock(&q->mu);
  if(q->todo.head)
    pthread_cond_signal(&q->work);  /* held or not, what is waited for must run */
  while(!q->done.head && q->pending > 0)
    pthread_cond_wait(&q->fin, &q->mu);
  bool any = q->done.head != NULL;
  pthread_mutex_unlock(&q->mu);
  return wq_reap(q) > 0 || any;
}

static size_t locked_size(struct wq *q, const size_t *field)
{
  pthread_mutex_lock(&q->mu);
  size_t v = *field;
  pthread_mutex_unlock(&q->mu);
  return v;
}

/* Jobs pushed, not yet reaped. */
static size_t wq_pending(struct wq *q)
{
  return locked_size(q, &q->pending);
}

void wq_drain(struct wq *q)
{
  while(wq_pending(q) > 0 && wq_wait(q))
    ;
}

int wq_fd(const struct wq *q)
{
  return q->efd;
}

size_t wq_bytes(struct wq *q)
{
  return locked_size(q, &q->bytes);
}

crawl_err wq_error(struct wq *q)
{
  pthread_mutex_lock(&q->mu);
  crawl_err e = q->err;
  pthread_mutex_unlock(&q->mu);
  return e;
}

