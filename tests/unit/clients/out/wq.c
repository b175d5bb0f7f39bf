/* clients/out/wq.c, the crawler's disk thread: jobs run in push order and
 * their done functions run in the same order at reap; a push waits while
 * the jobs not yet finished hold the byte cap (also while the thread runs
 * them with nothing queued), and goes on as soon as the disk thread frees
 * room; after a failed job no later job runs, and every done function
 * still runs (with the error); buffered jobs finish only after the flush,
 * which comes once per run of them (at most WQ_FLUSH_JOBS), before any
 * other job, and hands them its error; a done function cannot wait for
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

#include "clients/out/wq.c"
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
  *t = (struct tjob){ { NULL, t_run, t_done, bytes, CRAWL_OK, false }, id, ran, &nran, dn,
                      &ndn, got, gate, fail };
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

/* Nothing queued while the thread runs a job: a push beyond the cap still
 * waits for it (the bytes are those of jobs not yet finished). */
static void test_cap_running(void **state)
{
  (void)state;
  int gate[2];
  struct wq *q;
  reset();
  assert_int_equal(pipe(gate), 0);
  assert_int_equal(wq_open(1000, &q), CRAWL_OK);
  wq_push(q, &job(0, 900, gate[0], CRAWL_OK)->j);
  usleep(100000);  /* the thread has taken it: the queue is empty */
  struct pusher p = { q, 0 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, push_third, &p), 0);
  usleep(100000);
  assert_int_equal(__atomic_load_n(&p.done, __ATOMIC_SEQ_CST), 0);  /* 900 + 600 > 1000 */
  assert_int_equal(write(gate[1], "x", 1), 1);
  pthread_join(th, NULL);
  wq_drain(q);
  assert_int_equal(ndn, 2);
  wq_close(&q);
  close(gate[0]);
  close(gate[1]);
}

/* A flush that counts, remembers how many jobs had run at each call, and
 * fails at call number fail_at (0: never). */
static int flushes, flushed_at[16], fail_at;
static int plain_saw = -1;  /* flushes when the plain job ran */

static crawl_err t_flush(void *arg)
{
  (void)arg;
  int n = __atomic_add_fetch(&flushes, 1, __ATOMIC_SEQ_CST);
  if(n <= 16)
    flushed_at[n - 1] = __atomic_load_n(&nran, __ATOMIC_SEQ_CST);
  return n == fail_at ? CRAWL_ERR_IO : CRAWL_OK;
}

static crawl_err plain_run(struct wq_job *j)
{
  plain_saw = __atomic_load_n(&flushes, __ATOMIC_SEQ_CST);
  return t_run(j);
}

/* The done of a buffered job comes after a flush that followed its run. */
static int done_before_flush;

static void buf_done(struct wq_job *j, crawl_err e)
{
  struct tjob *t = (struct tjob *)j;
  int pos = -1;
  for(int i = 0; i < nran; i++)
    if(ran[i] == t->id)
      pos = i;
  int nf = __atomic_load_n(&flushes, __ATOMIC_SEQ_CST);
  if(pos >= 0 && (nf == 0 || flushed_at[nf > 16 ? 15 : nf - 1] <= pos))
    done_before_flush++;
  t_done(j, e);
}

static struct wq_job *bjob(int id)
{
  struct tjob *t = job(id, 10, -1, CRAWL_OK);
  t->j.buffered = true;
  t->j.done = buf_done;
  return &t->j;
}

static void flush_reset(struct wq **q)
{
  reset();
  flushes = fail_at = done_before_flush = 0;
  plain_saw = -1;
  memset(flushed_at, 0, sizeof flushed_at);
  assert_int_equal(wq_open(0, q), CRAWL_OK);
  wq_set_flush(*q, t_flush, NULL);
  usleep(50000);  /* the thread sleeps: the held pushes below are one batch */
}

static void test_buffered(void **state)
{
  (void)state;
  struct wq *q;
  flush_reset(&q);
  wq_hold(q);
  for(int i = 0; i < 10; i++)
    wq_push(q, bjob(i));
  struct tjob *plain = job(10, 10, -1, CRAWL_OK);
  plain->j.run = plain_run;
  wq_push(q, &plain->j);
  for(int i = 11; i < 16; i++)
    wq_push(q, bjob(i));
  wq_release(q);
  wq_drain(q);
  assert_int_equal(nran, 16);
  assert_int_equal(ndn, 16);
  for(int i = 0; i < 16; i++) {
    assert_int_equal(ran[i], i);
    assert_int_equal(dn[i], i);
    assert_int_equal(got[i], CRAWL_OK);
  }
  assert_int_equal(flushes, 2);     /* before the plain job, and at the end */
  assert_int_equal(plain_saw, 1);   /* the ten before it were flushed first */
  assert_int_equal(flushed_at[0], 10);
  assert_int_equal(flushed_at[1], 16);
  assert_int_equal(done_before_flush, 0);
  /* a long run of them is flushed every WQ_FLUSH_JOBS jobs */
  reset();
  flushes = 0;
  int many = WQ_FLUSH_JOBS + 20;
  static int ran2[WQ_FLUSH_JOBS + 20], dn2[WQ_FLUSH_JOBS + 20];
  static crawl_err got2[WQ_FLUSH_JOBS + 20];
  usleep(50000);
  wq_hold(q);
  for(int i = 0; i < many; i++) {
    struct tjob *t = job(i, 1, -1, CRAWL_OK);
    t->ran = ran2;
    t->done = dn2;
    t->got = got2;
    t->j.buffered = true;
    wq_push(q, &t->j);
  }
  wq_release(q);
  wq_drain(q);
  assert_int_equal(nran, many);
  assert_int_equal(flushes, 2);
  assert_int_equal(flushed_at[0], WQ_FLUSH_JOBS);
  wq_close(&q);
}

/* A failed flush is the error of the jobs it was for, and sticks: the
 * jobs after it do not run. */
static void test_buffered_flush_error(void **state)
{
  (void)state;
  struct wq *q;
  flush_reset(&q);
  fail_at = 1;
  wq_hold(q);
  for(int i = 0; i < 3; i++)
    wq_push(q, bjob(i));
  wq_push(q, &job(3, 10, -1, CRAWL_OK)->j);
  wq_push(q, bjob(4));
  wq_release(q);
  wq_drain(q);
  assert_int_equal(nran, 3);  /* neither the plain job nor the last ran */
  assert_int_equal(ndn, 5);
  for(int i = 0; i < 5; i++)
    assert_int_equal(got[i], CRAWL_ERR_IO);
  assert_int_equal(flushes, 1);
  assert_int_equal(wq_error(q), CRAWL_ERR_IO);
  wq_close(&q);
  /* a buffered job that fails: those before it are flushed and done first */
  flush_reset(&q);
  wq_hold(q);
  wq_push(q, bjob(0));
  struct tjob *bad = (struct tjob *)bjob(1);
  bad->fail = CRAWL_ERR_CORRUPT;
  wq_push(q, &bad->j);
  wq_push(q, bjob(2));
  wq_release(q);
  wq_drain(q);
  assert_int_equal(nran, 2);
  assert_int_equal(ndn, 3);
  for(int i = 0; i < 3; i++)
    assert_int_equal(dn[i], i);
  assert_int_equal(got[0], CRAWL_OK);
  assert_int_equal(got[1], CRAWL_ERR_CORRUPT);
  assert_int_equal(got[2], CRAWL_ERR_CORRUPT);
  assert_int_equal(flushes, 1);
  assert_int_equal(flushed_at[0], 2);  /* after job 1's run, before its done */
  assert_int_equal(done_before_flush, 0);
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
    cmocka_unit_test(test_cap_running),
    cmocka_unit_test(test_buffered),
    cmocka_unit_test(test_buffered_flush_error),
    cmocka_unit_test(test_sticky_error),
    cmocka_unit_test(test_hold),
    cmocka_unit_test(test_reentry_and_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
