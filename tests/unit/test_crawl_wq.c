/* clients/out/wq.c, the crawler's disk thread: jobs run in push order and
 * their done functions run in the same order at reap; a push waits while
 * the jobs not yet run hold the byte cap, and goes on as soon as the disk
 * thread frees room; after a failed job no later job runs, and every done
 * function still runs (with the error); a done function cannot wait for
 * the queue it is reaped from; close runs what is left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "clients/out/wq.h"
#include "common/mem.h"

struct tjob {
  struct wq_job j;
  int           id;
  int          *ran, *nran;     /* order of runs (disk thread) */
  int          *done, *ndone;   /* order of dones (test thread) */
  crawl_err    *got;            /* the error each done saw, by id */
  int           gate;           /* read end: run blocks until a byte comes */
  crawl_err     fail;
};

static crawl_err t_run(struct wq_job *j)
{
  struct tjob *t = (struct tjob *)j;
  char c;
  if(t->gate >= 0 && read(t->gate, &c, 1) != 1)
    return CRAWL_ERR_IO;
  t->ran[(*t->nran)++] = t->id;
  return t->fail;
}

static void t_done(struct wq_job *j, crawl_err e)
{
  struct tjob *t = (struct tjob *)j;
  t->done[(*t->ndone)++] = t->id;
  t->got[t->id] = e;
  mem_free(t);
}

static int ran[64], nran, dn[64], ndn;
static crawl_err got[64];

static struct tjob *job(int id, size_t bytes, int gate, crawl_err fail)
{
  struct tjob *t = mem_calloc(1, sizeof *t);
  *t = (struct tjob){ { NULL, t_run, t_done, bytes, CRAWL_OK }, id, ran, &nran, dn, &ndn,
                      got, gate, fail };
  return t;
}

static void reset(void)
{
  nran = ndn = 0;
  memset(got, 0xff, sizeof got);
}

static void test_order(void **state)
{
  (void)state;
  struct wq *q;
  reset();
  assert_int_equal(wq_open(0, &q), CRAWL_OK);
  for(int i = 0; i < 50; i++)
    wq_push(q, &job(i, 10, -1, CRAWL_OK)->j);
  wq_drain(q);
  assert_int_equal(nran, 50);
  assert_int_equal(ndn, 50);
  for(int i = 0; i < 50; i++) {
    assert_int_equal(ran[i], i);
    assert_int_equal(dn[i], i);
    assert_int_equal(got[i], CRAWL_OK);
  }
  assert_int_equal(wq_pending(q), 0);
  assert_int_equal(wq_bytes(q), 0);
  assert_false(wq_wait(q));  /* nothing to wait for */
  wq_close(&q);
}

struct pusher {
  struct wq  *q;
  int         done;   /* set once the push returned */
};

static void *push_third(void *arg)
{
  struct pusher *p = arg;
  wq_push(p->q, &job(2, 600, -1, CRAWL_OK)->j);
  __atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

/* A disk that does not move: pushes go on while they fit under the cap,
 * the one that does not fit waits, and goes on once the disk frees room;
 * the loop's fd says when there is something to reap. */
static void test_cap(void **state)
{
  (void)state;
  int gate[2];
  struct wq *q;
  reset();
  assert_int_equal(pipe(gate), 0);
  assert_int_equal(wq_open(1000, &q), CRAWL_OK);
  wq_push(q, &job(0, 500, gate[0], CRAWL_OK)->j);  /* the disk is stuck on this one */
  wq_push(q, &job(1, 400, -1, CRAWL_OK)->j);
  assert_int_equal(wq_bytes(q), 900);
  struct pusher p = { q, 0 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, push_third, &p), 0);
  usleep(100000);
  assert_int_equal(__atomic_load_n(&p.done, __ATOMIC_SEQ_CST), 0);  /* 900 + 600 > 1000 */
  struct pollfd pf = { wq_fd(q), POLLIN, 0 };
  assert_int_equal(poll(&pf, 1, 0), 0);  /* nothing finished */
  assert_int_equal(write(gate[1], "x", 1), 1);  /* the disk moves */
  pthread_join(th, NULL);
  assert_int_equal(p.done, 1);
  wq_drain(q);
  assert_int_equal(ndn, 3);
  assert_int_equal(dn[2], 2);
  wq_push(q, &job(3, 1, -1, CRAWL_OK)->j);
  assert_int_equal(poll(&pf, 1, 5000), 1);  /* finished: the fd says so */
  assert_int_equal(wq_reap(q), 1);
  assert_int_equal(poll(&pf, 1, 0), 0);  /* reaped: quiet again */
  wq_close(&q);
  close(gate[0]);
  close(gate[1]);
}

static void test_sticky_error(void **state)
{
  (void)state;
  struct wq *q;
  reset();
  assert_int_equal(wq_open(0, &q), CRAWL_OK);
  wq_push(q, &job(0, 1, -1, CRAWL_OK)->j);
  wq_push(q, &job(1, 1, -1, CRAWL_ERR_IO)->j);
  wq_push(q, &job(2, 1, -1, CRAWL_OK)->j);
  wq_drain(q);
  assert_int_equal(nran, 2);  /* job 2 never ran */
  assert_int_equal(ndn, 3);   /* but its done did, to free it */
  assert_int_equal(got[0], CRAWL_OK);
  assert_int_equal(got[1], CRAWL_ERR_IO);
  assert_int_equal(got[2], CRAWL_ERR_IO);
  assert_int_equal(wq_error(q), CRAWL_ERR_IO);
  wq_close(&q);
}

/* Held, pushes do not wake the thread: nothing runs until the release (the
 * last of nested holds), then everything in order; whatever waits for the
 * thread wakes it anyway: a push at the cap, wq_wait. */
static void test_hold(void **state)
{
  (void)state;
  struct wq *q;
  reset();
  assert_int_equal(wq_open(1000, &q), CRAWL_OK);
  wq_push(q, &job(0, 1, -1, CRAWL_OK)->j);
  wq_drain(q);
  usleep(50000);  /* the thread is asleep now (a thread still awake takes what it finds) */
  wq_hold(q);
  wq_hold(q);
  for(int i = 1; i <= 3; i++)
    wq_push(q, &job(i, 10, -1, CRAWL_OK)->j);
  usleep(100000);
  assert_int_equal(__atomic_load_n(&nran, __ATOMIC_SEQ_CST), 1);
  wq_release(q);
  usleep(100000);
  assert_int_equal(__atomic_load_n(&nran, __ATOMIC_SEQ_CST), 1);  /* still held once */
  wq_release(q);
  wq_drain(q);
  assert_int_equal(nran, 4);
  for(int i = 0; i < 4; i++)
    assert_int_equal(ran[i], i);
  wq_hold(q);
  wq_push(q, &job(4, 600, -1, CRAWL_OK)->j);
  wq_push(q, &job(5, 600, -1, CRAWL_OK)->j);  /* over the cap: wakes the thread, no deadlock */
  assert_true(wq_wait(q));                    /* and a wait is answered while held */
  wq_drain(q);
  wq_release(q);
  assert_int_equal(nran, 6);
  assert_int_equal(ndn, 6);
  wq_close(&q);
}

static struct wq *reentrant_q;
static int reentrant_waited;

static void waiting_done(struct wq_job *j, crawl_err e)
{
  (void)e;
  reentrant_waited = wq_wait(reentrant_q) ? 1 : 0;
  wq_drain(reentrant_q);  /* must return, not spin */
  mem_free(j);
}

/* A done function cannot wait for its own queue; close runs what is left. */
static void test_reentry_and_close(void **state)
{
  (void)state;
  reset();
  assert_int_equal(wq_open(0, &reentrant_q), CRAWL_OK);
  struct wq_job *w = mem_calloc(1, sizeof *w);
  w->done = waiting_done;
  wq_push(reentrant_q, w);
  wq_push(reentrant_q, &job(1, 1, -1, CRAWL_OK)->j);
  reentrant_waited = -1;
  wq_drain(reentrant_q);
  assert_int_equal(reentrant_waited, 0);
  for(int i = 0; i < 10; i++)
    wq_push(reentrant_q, &job(i, 1, -1, CRAWL_OK)->j);
  wq_close(&reentrant_q);  /* runs and reaps the ten */
  assert_int_equal(ndn, 11);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_order),
    cmocka_unit_test(test_cap),
    cmocka_unit_test(test_sticky_error),
    cmocka_unit_test(test_hold),
    cmocka_unit_test(test_reentry_and_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
