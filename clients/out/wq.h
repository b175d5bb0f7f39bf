#ifndef WPFS_CLIENTS_WQ_H
#define WPFS_CLIENTS_WQ_H
/* The crawler's disk thread: one thread that runs jobs in the order they
 * were pushed (as redis's bio.c does for its background I/O), so the event
 * loop never waits on the disk. Files the jobs write (WARC, crawl log, the
 * seen set's runs, checkpoints) belong to this thread while it runs.
 *
 * Order is the guarantee resuming relies on: a job runs after every job
 * pushed before it has finished, so a crawl log line is written after its
 * WARC record, and a checkpoint after every line and run it counts.
 *
 * Each job has a run function (on the disk thread) and a done function (on
 * the owner's thread, at wq_reap, in push order), which frees it. Errors
 * are sticky: after the first failed job no later job runs; their done
 * functions get that error, so they still free what they hold.
 *
 * Memory: the bytes of jobs not yet finished (each job says how many it
 * holds) never exceed max_bytes by more than one job: wq_push waits while they
 * would (the disk is that far behind). Owners that can slow down earlier
 * look at wq_bytes (backpressure before the wait). */
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/crawl_err.h"

struct wq_job;
typedef crawl_err wq_run_fn(struct wq_job *j);
typedef void      wq_done_fn(struct wq_job *j, crawl_err e);

struct wq_job {
  struct wq_job *next;
  wq_run_fn     *run;      /* NULL: nothing to run (a fence) */
  wq_done_fn    *done;     /* required: frees the job */
  size_t         bytes;    /* memory the job holds until it has finished */
  crawl_err      err;
  bool           buffered; /* run leaves its output in buffers the queue's
                            * flush writes: the job is finished only after it */
};

struct wq;

/* Starts the thread. max_bytes 0 = no limit. */
crawl_err wq_open(size_t max_bytes, struct wq **out);
/* Buffered jobs: the thread runs the jobs it finds queued one after the
 * other, and calls flush once after a run of buffered ones (at most
 * WQ_FLUSH_JOBS of them), before any other job, and before it sleeps. Its
 * error is the error of each of those jobs. One write of many records
 * instead of one each: the crawler's pages (docs/benchmarks.md). Set
 * before the first buffered job is pushed. */
#define WQ_FLUSH_JOBS 256
typedef crawl_err wq_flush_fn(void *arg);
void      wq_set_flush(struct wq *q, wq_flush_fn *fn, void *arg);
/* Runs every job left, stops the thread, reaps. */
void      wq_close(struct wq **qp);
/* Takes j (its done function will free it). Waits while the jobs not yet
 * run hold max_bytes and j would add to them. */
void      wq_push(struct wq *q, struct wq_job *j);
/* Between wq_hold and wq_release (they nest), pushes do not wake the
 * thread: a loop turn that pushes a job per result of a batch wakes it once,
 * at the release, instead of once per job (a futex wake and a context
 * switch each). Anything that waits for the thread (wq_push at max_bytes,
 * wq_wait, wq_drain, wq_close) wakes it anyway. */
void      wq_hold(struct wq *q);
void      wq_release(struct wq *q);
/* Run the done functions of finished jobs; returns how many. Not
 * reentrant: a call from inside a done function returns 0. */
size_t    wq_reap(struct wq *q);
/* Wait until a job has finished, then reap. False, at once, when there
 * is nothing to wait for (no job pushed and not reaped) or when called
 * from a done function (its caller is reaping): loops that wait for a
 * condition stop on false. */
bool      wq_wait(struct wq *q);
/* Wait until every job pushed so far is finished and reaped. */
void      wq_drain(struct wq *q);
/* Readable when finished jobs wait to be reaped (an eventfd), for a loop. */
int       wq_fd(const struct wq *q);
size_t    wq_bytes(struct wq *q);       /* held by jobs not yet finished */
crawl_err wq_error(struct wq *q);       /* the first job error, or 0 */

#endif
