#include "clients/loop/crawl_loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "clients/base/fpmap.h"
#include "clients/base/fpset.h"
#include "clients/loop/loop.h"
#include "clients/loop/progress.h"
#include "clients/part/part.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define CL_MAGIC      0x2d15c0e7u
#define ROBOTS_PARALLEL 4
#define ROBOTS_QUEUE   4096   /* hosts waiting for their sitemaps question */
#define BACKOFF_MIN_MS 500
#define BACKOFF_MAX_MS 30000

/* A question of a host's sitemaps in flight: its URL, for the log. */
struct robots_ask {
  struct crawl_loop *d;
  char       *url;  /* NULL: the slot is free */
};

struct crawl_loop {
  unsigned             magic;
  struct crawl_loop_opts o;
  struct crawl        *c;
  struct loop          lp;           /* libuv, the gateway client, tick, signals */
  uv_poll_t            disk;         /* the engine's disk thread has finished writes */
  bool                 submitting, polling, done;
  char               **sub;          /* URLs of the batch in flight */
  size_t               nsub;
  uint64_t             pause_until, poll_pause_until, backoff_ms;
  uint64_t             last_ckpt;
  struct progress      prog;
  struct fpset         hosts_asked;
  char                *robots_q[ROBOTS_QUEUE];
  size_t               robots_head, robots_n;
  unsigned             robots_in_flight;
  struct robots_ask    robots_ask[ROBOTS_PARALLEL];
  struct fpmap         alias;        /* gateway's canonical URL -> ours */
  int                  exit_code;
  FILE                *summary;
  size_t               disk_soft;    /* backlog past which no more results are read */
  bool                 disk_behind;  /* it was, at the last look */
  bool                 disk_ready;
  bool                 part_done;    /* several processes: the whole crawl is over */
};

struct crawl_loop_opts crawl_loop_opts_default(void)
{
  struct crawl_loop_opts o;
  memset(&o, 0, sizeof o);
  o.gw.timeout_ms = 30000;
  o.gw.max_answer = 256u << 20;
  o.batch_max = 1000;
  o.window = 5000;
  o.results_max = 500;
  o.wait_ms = 2000;
  o.max_age_s = -1;
  o.checkpoint_ms = 30000;
  o.stall_ms = 600000;
  o.sitemaps = true;
  o.progress = true;
  o.write_soft_bytes = 32u << 20;
  return o;
}

static void cl_pump(struct crawl_loop *d);

/* Every callback's opaque pointer is checked before use. */
static struct crawl_loop *cl_of(void *arg)
{
  struct crawl_loop *d = arg;
  if(!d || d->magic != CL_MAGIC)
    abort();
  return d;
}

/* ---- The end --------------------------------------------------------------- */

static void cl_progress(struct crawl_loop *d, bool force)
{
  struct crawl_stats st;
  struct crawl_sizes sz;
  crawl_stats(d->c, &st);
  crawl_sizes(d->c, &sz);
  char note[128];
  crawl_note(d->c, note, sizeof note);
  struct progress_counts pc = { st.pages, st.fetch_errors + st.http_errors + st.rejected,
                                st.dup_exact + st.dup_near, sz.seen_distinct,
                                sz.frontier.queued + sz.frontier.on_disk,
                                sz.frontier.outstanding, note, st.drop[DROP_RULE],
                                sz.robots_waiting };
  progress_update(&d->prog, &pc, force);
}

/* Said once at the end, on or off a terminal: what ended without a page,
 * by cause; and a crawl none of whose seeds gave a page did nothing. */
static int cl_verdict(struct crawl_loop *d, int code)
{
  struct crawl_stats st;
  crawl_stats(d->c, &st);
  char causes[1024];
  tally_text(&st.causes, causes, sizeof causes);
  if(st.causes.total)
    LOG(LOG_INFO, "%llu URLs ended without a page: %s", (unsigned long long)st.causes.total,
        causes);
  /* several processes: a seed may have been crawled by another */
  if(code != CRAWL_LOOP_EXIT_DONE || st.seeds_fetched || !(st.seeds || st.seeds_refused) ||
     d->o.part)
    return code;
  LOG(LOG_ERROR, "no seed could be crawled: %llu refused, %llu without a 2xx or 3xx answer "
      "(%s)", (unsigned long long)st.seeds_refused, (unsigned long long)st.seeds,
      st.causes.total ? causes : "no result");
  return CRAWL_LOOP_EXIT_NO_SEED;
}

/* The summary into path, whole or not at all (a temporary file renamed). */
static void cl_summary_file(const char *path, const struct buf *sum)
{
  char tmp[4200];
  if((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
    LOG(LOG_ERROR, "summary file %s: path too long", path);
    return;
  }
  FILE *f = fopen(tmp, "w");
  bool ok = f && fprintf(f, "%s\n", sum->data) > 0;
  ok = f && !fclose(f) && ok;
  if(!ok || rename(tmp, path)) {
    LOG(LOG_ERROR, "summary file %s: %s", path, strerror(errno));
    unlink(tmp);
  }
}

static void cl_finish(struct crawl_loop *d, int code)
{
  if(d->done)
    return;
  d->done = true;
  d->exit_code = code;
  crawl_err e = crawl_checkpoint(d->c);
  crawl_sync(d->c);  /* the end: everything on disk before the summary */
  if(!e)
    e = crawl_error(d->c);
  if(e) {
    LOG(LOG_ERROR, "final checkpoint failed: %s", crawl_err_text(e));
    if(code == CRAWL_LOOP_EXIT_DONE)
      d->exit_code = CRAWL_LOOP_EXIT_LOCAL;
  }
  d->exit_code = cl_verdict(d, d->exit_code);
  cl_progress(d, true);
  progress_end(&d->prog);
  struct buf sum;
  buf_init(&sum, 1u << 20);
  crawl_err se = d->summary ? crawl_summary(d->c, &sum) : CRAWL_ERR_INVALID;
  if(!se && d->o.part && sum.len && sum.data[sum.len - 1] == '}') {
    sum.data[--sum.len] = 0;  /* the member's counters in the same object */
    part_summary(d->o.part, &sum);
    buf_addc(&sum, '}');
  }
  if(!se) {
    fprintf(d->summary, "%s\n", sum.data);
    fflush(d->summary);
    if(d->o.summary_path)
      cl_summary_file(d->o.summary_path, &sum);
  }
  buf_free(&sum);
  if(d->prog.tty) {  /* a person is watching: say where the output is */
    char where[1024];
    crawl_where(d->c, where, sizeof where);
    fprintf(stderr, "%s\n", where);
  }
  /* The loop returns once this turn's callbacks have run: this may run
   * inside a gateway callback, whose request must not be freed under it. */
  loop_stop(&d->lp);
}

/* A local error (disk, memory) ends the crawl. */
static bool cl_fatal(struct crawl_loop *d, crawl_err e, const char *what)
{
  if(!e)
    return false;
  LOG(LOG_ERROR, "%s: %s", what, crawl_err_text(e));
  cl_finish(d, CRAWL_LOOP_EXIT_LOCAL);
  return true;
}

static void cl_backoff(struct crawl_loop *d, uint64_t *until, long retry_after_ms)
{
  d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 : BACKOFF_MIN_MS;
  if(d->backoff_ms > BACKOFF_MAX_MS)
    d->backoff_ms = BACKOFF_MAX_MS;
  uint64_t wait = retry_after_ms >= 0 ? (uint64_t)retry_after_ms : d->backoff_ms;
  uint64_t t = clock_mono_ms() + wait;
  if(t > *until)
    *until = t;
}

/* ---- Submitting ------------------------------------------------------------- */

static void sub_free(struct crawl_loop *d)
{
  for(size_t i = 0; i < d->nsub; i++)
    mem_free(d->sub[i]);
  mem_free(d->sub);
  d->sub = NULL;
  d->nsub = 0;
}

static void cl_requeue(struct crawl_loop *d, const char *url)
{
  if(crawl_requeue(d->c, url) == CRAWL_OK && d->o.part)
    part_requeued(d->o.part, url);
}

static void sub_requeue_all(struct crawl_loop *d)
{
  for(size_t i = 0; i < d->nsub; i++)
    cl_requeue(d, d->sub[i]);
}

/* The gateway will call it canonical_url; results carry that. */
static void note_alias(struct crawl_loop *d, const char *ours, const char *theirs)
{
  uint64_t *v;
  if(!theirs || !strcmp(ours, theirs))
    return;
  if(fpmap_put(&d->alias, hash_fp64(theirs, strlen(theirs)), &v, NULL) == CRAWL_OK)
    *v = hash_fp64(ours, strlen(ours));
}

static bool reason_is_temporary(const char *r)
{
  return r && (!strcmp(r, "over_rate_quota") || !strcmp(r, "over_queue_quota") ||
               !strcmp(r, "store_unavailable"));
}

static void on_item(struct crawl_loop *d, const char *ours, const struct gw_item *it, long *retry)
{
  if(it->status != GW_REJECTED) {
    note_alias(d, ours, it->canonical_url);
    return;
  }
  if(reason_is_temporary(it->reason)) {
    cl_requeue(d, ours);
    if(it->retry_after_ms > *retry)
      *retry = it->retry_after_ms;
    return;
  }
  crawl_err e = crawl_reject(d->c, ours, it->reason ? it->reason : "rejected");
  if(e && e != CRAWL_ERR_NOT_FOUND)
    cl_fatal(d, e, "recording a rejected URL");
}

static void on_batch(void *arg, const struct gwclient_answer *a, struct gw_batch_answer *b)
{
  struct crawl_loop *d = cl_of(arg);
  d->submitting = false;
  if(d->done) {
    sub_free(d);  /* after the final checkpoint: nothing changes any more */
    return;
  }
  if(!b || b->n != d->nsub) {
    LOG(LOG_WARN, "batch not taken (HTTP %d, %s): %zu URLs back in the queue", a->http,
        crawl_err_name(a->err), d->nsub);
    sub_requeue_all(d);
    cl_backoff(d, &d->pause_until, a->retry_after_ms);
    sub_free(d);
    return;
  }
  long retry = -1;
  for(size_t i = 0; i < b->n && !d->done; i++)
    on_item(d, d->sub[i], &b->items[i], &retry);
  if(a->http == 429 && a->retry_after_ms > retry)
    retry = a->retry_after_ms;
  if(retry >= 0)
    cl_backoff(d, &d->pause_until, retry);
  else
    d->backoff_ms = 0;
  loop_useful(&d->lp);
  sub_free(d);
  if(!d->done)
    cl_pump(d);
}

/* The disk is behind: take no more work until it catches up (past the
 * whole write_queue_bytes the engine would wait, and the loop with it). */
static bool cl_disk_behind(struct crawl_loop *d)
{
  size_t backlog = crawl_backlog(d->c);
  bool behind = backlog > d->disk_soft;
  if(behind && !d->disk_behind)
    LOG(LOG_INFO, "the disk is behind (%zu bytes to write): no more results until it catches up",
        backlog);
  d->disk_behind = behind;
  return behind;
}

static void cl_submit(struct crawl_loop *d)
{
  struct crawl_sizes sz;
  crawl_sizes(d->c, &sz);
  if(d->submitting || cl_disk_behind(d) || clock_mono_ms() < d->pause_until || sz.frontier.outstanding >= d->o.window ||
     (d->o.part && part_busy(d->o.part)) ||
     (sz.frontier.queued == 0 && sz.seen_pending == 0 && sz.frontier.on_disk == 0))
    return;
  size_t room = d->o.window - sz.frontier.outstanding;
  size_t max = room < d->o.batch_max ? room : d->o.batch_max;
  struct frontier_item *it = mem_alloc(max * sizeof *it);
  struct gw_url *u = mem_alloc(max * sizeof *u);
  d->sub = mem_calloc(max, sizeof *d->sub);
  size_t n = it && u && d->sub ? crawl_take(d->c, max, it) : 0;
  if(d->o.part) {  /* those whose partition went elsewhere are forgotten */
    size_t k = 0;
    for(size_t i = 0; i < n; i++)
      if(part_take(d->o.part, &it[i]))
        it[k++] = it[i];
    n = k;
  }
  for(size_t i = 0; i < n; i++) {
    u[i] = (struct gw_url){ it[i].url, it[i].level, d->o.max_age_s };
    d->sub[i] = mem_strdup(it[i].url);
    d->nsub = i + 1;
    if(!d->sub[i])
      n = 0;
  }
  crawl_err e = n ? gwclient_batch(d->lp.gw, u, n, on_batch, d) : CRAWL_OK;
  if(n && e)
    sub_requeue_all(d);
  if(!n || e)
    sub_free(d);
  d->submitting = n && !e;
  mem_free(it);
  mem_free(u);
  if(e)
    cl_backoff(d, &d->pause_until, -1);
}

/* ---- Sitemaps ------------------------------------------------------------------- */

static void robots_enqueue(struct crawl_loop *d, const char *url)
{
  struct url_parts p;
  if(!d->o.sitemaps || url_split(url, &p) != URL_OK)
    return;
  bool added = false;
  if(fpset_add(&d->hosts_asked, hash_fp64(p.authority, p.authority_len), &added) || !added)
    return;
  if(d->robots_n == ROBOTS_QUEUE) {  /* far behind: its links still count */
    crawl_sitemaps_unasked(d->c, url, "too many hosts wait for the question");
    return;
  }
  char *copy = mem_strdup(url);
  if(!copy) {
    crawl_sitemaps_unasked(d->c, url, "out of memory");
    return;
  }
  d->robots_q[(d->robots_head + d->robots_n++) % ROBOTS_QUEUE] = copy;
}

static void on_sitemaps(void *arg, const struct gwclient_answer *a, char **v)
{
  struct robots_ask *ra = arg;
  struct crawl_loop *d = cl_of(ra->d);
  d->robots_in_flight--;
  if(!d->done && (a->err || a->http != 200)) {  /* sitemaps are a bonus: no retry */
    char why[96];
    snprintf(why, sizeof why, "GET /v1/robots failed (HTTP %d, %s)", a->http,
             crawl_err_name(a->err));
    crawl_sitemaps_unasked(d->c, ra->url, why);
  }
  mem_free(ra->url);
  ra->url = NULL;
  if(d->done || a->err || a->http != 200)
    return;
  for(size_t i = 0; v && v[i] && !d->done; i++) {
    crawl_err e = crawl_add_sitemap(d->c, v[i]);
    if(e && e != CRAWL_ERR_INVALID && cl_fatal(d, e, "queueing a sitemap"))
      return;
  }
}

static void cl_robots(struct crawl_loop *d)
{
  while(d->robots_n && d->robots_in_flight < ROBOTS_PARALLEL) {
    char *url = d->robots_q[d->robots_head];
    d->robots_head = (d->robots_head + 1) % ROBOTS_QUEUE;
    d->robots_n--;
    struct robots_ask *ra = NULL;
    for(size_t i = 0; !ra && i < ROBOTS_PARALLEL; i++)
      ra = d->robots_ask[i].url ? NULL : &d->robots_ask[i];
    if(!ra) {  /* never: fewer than ROBOTS_PARALLEL are in flight */
      crawl_sitemaps_unasked(d->c, url, "no slot for the question");
      mem_free(url);
      continue;
    }
    ra->d = d;
    ra->url = url;
    if(gwclient_sitemaps(d->lp.gw, url, on_sitemaps, ra) == CRAWL_OK) {
      d->robots_in_flight++;
    } else {
      crawl_sitemaps_unasked(d->c, url, "the question could not be sent");
      mem_free(url);
      ra->url = NULL;
    }
  }
}

/* ---- Results --------------------------------------------------------------------- */

/* Our URL for a result: the one submitted (the gateway may have written it
 * its own canonical way). */
static const char *result_url(struct crawl_loop *d, const struct gw_result *g, char **own)
{
  *own = NULL;
  uint64_t key = hash_fp64(g->url, strlen(g->url)), *v = fpmap_get(&d->alias, key);
  if(!v)
    return g->url;
  *own = crawl_url_of(d->c, *v);
  if(*own)
    fpmap_del(&d->alias, key);  /* it serves one result: the map holds outstanding URLs only */
  return *own ? *own : g->url;
}

static crawl_err deliver(struct crawl_loop *d, const struct gw_result *g)
{
  char *own;
  const char *url = result_url(d, g, &own);
  bool no_page = g->page != NULL;  /* the gateway could not inline the page */
  char why[GWPROTO_CAUSE_MAX];
  const char *cause = gwproto_cause(g, why, sizeof why);
  struct crawl_result r = {
    url, no_page ? "page_unavailable" : g->outcome,
    !strcmp(g->outcome, "not_modified") ? 200 : g->status, g->headers, g->nheaders,
    no_page ? NULL : g->body, no_page ? 0 : g->body_len, g->truncated, g->redirect,
    g->fetched_at ? g->fetched_at : clock_wall_ms(), g->response_ms, cause,
    cause ? g->cause_status : 0, gwproto_robots(g, clock_wall_ms()), g->robots_retry_at,
    g->site_connections
  };
  crawl_err e = crawl_result(d->c, &r);
  if(!e && crawl_outcome_http(g->outcome))
    robots_enqueue(d, url);
  mem_free(own);
  return e;
}

static void on_ack(void *arg, const struct gwclient_answer *a)
{
  (void)arg;
  if(a->err || a->http != 200)
    LOG(LOG_WARN, "ack failed (HTTP %d): those results will come again and be ignored",
        a->http);
}

/* Deliveries to acknowledge once their pages are on disk. */
struct ack_wait {
  struct crawl_loop *d;
  size_t      n;
  char       *id[];
};

static void ack_written(void *arg, crawl_err e)
{
  struct ack_wait *aw = arg;
  struct crawl_loop *d = cl_of(aw->d);
  if(!e && !d->done && d->lp.gw)
    gwclient_ack(d->lp.gw, (const char *const *)aw->id, aw->n, on_ack, d);
  for(size_t i = 0; i < aw->n; i++)
    mem_free(aw->id[i]);
  mem_free(aw);
}

/* A result is acknowledged only once its crawl log line is on disk: a
 * crash before then gets it again from the gateway, never loses it. */
static void cl_ack(struct crawl_loop *d, const struct gw_results *res)
{
  struct ack_wait *aw = mem_calloc(1, sizeof *aw + res->n * sizeof aw->id[0]);
  if(!aw)
    return;  /* not acknowledged: they come again and are ignored */
  aw->d = d;
  for(size_t i = 0; i < res->n; i++)
    if(res->v[i].delivery && (aw->id[aw->n] = mem_strdup(res->v[i].delivery)))
      aw->n++;
  if(!aw->n || crawl_fence(d->c, ack_written, aw))
    ack_written(aw, CRAWL_ERR_NOMEM);
}

static void on_results(void *arg, const struct gwclient_answer *a, struct gw_results *res)
{
  struct crawl_loop *d = cl_of(arg);
  d->polling = false;
  if(d->done)
    return;  /* not acknowledged: they come again to the next run */
  if(!res) {
    LOG(LOG_WARN, "reading results failed (HTTP %d, %s)", a->http, crawl_err_name(a->err));
    cl_backoff(d, &d->poll_pause_until, a->retry_after_ms);
    return;
  }
  d->backoff_ms = 0;
  crawl_hold(d->c);  /* the disk thread wakes once for the batch's records */
  for(size_t i = 0; i < res->n && !d->done; i++)
    if(cl_fatal(d, deliver(d, &res->v[i]), "recording a result")) {
      crawl_release(d->c);
      return;
    }
  crawl_release(d->c);
  if(res->n)
    loop_useful(&d->lp);
  cl_ack(d, res);
  cl_pump(d);
}

static void cl_poll(struct crawl_loop *d)
{
  struct crawl_sizes sz;
  crawl_sizes(d->c, &sz);
  /* URLs waiting for robots.txt are outstanding here only: no result comes for them */
  if(d->polling || sz.frontier.outstanding <= sz.robots_waiting ||
     clock_mono_ms() < d->poll_pause_until ||
     cl_disk_behind(d))
    return;
  if(gwclient_results(d->lp.gw, d->o.results_max, d->o.wait_ms, on_results, d) == CRAWL_OK)
    d->polling = true;
}

/* ---- The loop ---------------------------------------------------------------------- */

static void cl_checkpoint(struct crawl_loop *d)
{
  uint64_t now = clock_mono_ms();
  if(now - d->last_ckpt < d->o.checkpoint_ms || crawl_checkpoints_out(d->c) > 0)
    return;
  d->last_ckpt = now;
  cl_fatal(d, crawl_checkpoint(d->c), "checkpoint");
}

/* Nothing to do but wait for URLs whose robots.txt failed for now. */
static bool cl_waits_robots(struct crawl_loop *d)
{
  struct crawl_sizes sz;
  crawl_sizes(d->c, &sz);
  return sz.robots_waiting && sz.frontier.outstanding <= sz.robots_waiting &&
         sz.frontier.queued == 0 && !d->submitting && !d->polling;
}

/* Nothing to do here: nothing queued, outstanding or on its way. */
static bool cl_idle(struct crawl_loop *d)
{
  return !d->submitting && !d->polling && d->robots_in_flight == 0 && !d->robots_n &&
         crawl_finished(d->c);
}

static void cl_pump(struct crawl_loop *d)
{
  if(d->done)
    return;
  cl_checkpoint(d);
  if(!d->done)
    cl_submit(d);
  if(!d->done)
    cl_poll(d);
  if(!d->done)
    cl_robots(d);
  if(d->done)
    return;
  cl_progress(d, false);
  bool idle = cl_idle(d);
  if(idle && d->o.part && !d->part_done && !crawl_error(d->c))
    loop_useful(&d->lp);  /* waiting for the other processes is not a stall */
  else if(idle)
    cl_finish(d, crawl_error(d->c) ? CRAWL_LOOP_EXIT_LOCAL : CRAWL_LOOP_EXIT_DONE);
  else if(cl_waits_robots(d))
    loop_useful(&d->lp);  /* a wait the crawl chose, bounded by its rounds: not a stall */
  else if(loop_stalled(&d->lp, d->o.stall_ms))
    cl_finish(d, CRAWL_LOOP_EXIT_STALLED);
}

static void on_tick(void *arg)
{
  struct crawl_loop *d = cl_of(arg);
  if(!d->done && d->o.part)
    d->part_done = part_tick(d->o.part, cl_idle(d));
  if(!d->done)
    cl_pump(d);
}

static void on_disk(uv_poll_t *p, int status, int events)
{
  struct crawl_loop *d = cl_of(p->data);
  (void)status;
  (void)events;
  crawl_poll(d->c);
  if(!d->done)
    cl_pump(d);
}

static void on_signal(void *arg, int signum)
{
  struct crawl_loop *d = cl_of(arg);
  LOG(LOG_WARN, "signal %d: checkpoint and stop (--resume continues)", signum);
  cl_finish(d, CRAWL_LOOP_EXIT_STOPPED);
}

static crawl_err cl_start(struct crawl_loop *d)
{
  static const struct loop_hooks hooks = { on_tick, on_signal };
  crawl_err e = loop_open(&d->lp, &d->o.gw, &hooks, d);
  if(e)
    return e;
  uv_poll_init(&d->lp.uv, &d->disk, crawl_fd(d->c));
  d->disk.data = d;
  d->disk_ready = true;
  uv_poll_start(&d->disk, UV_READABLE, on_disk);
  return CRAWL_OK;
}

static void cl_free(struct crawl_loop *d)
{
  while(d->robots_n--) {
    mem_free(d->robots_q[d->robots_head]);
    d->robots_head = (d->robots_head + 1) % ROBOTS_QUEUE;
  }
  for(size_t i = 0; i < ROBOTS_PARALLEL; i++)
    mem_free(d->robots_ask[i].url);  /* cancelled by gwclient_close: no callback */
  sub_free(d);
  fpset_free(&d->hosts_asked);
  fpmap_free(&d->alias);
  d->magic = 0;
  mem_free(d);
}

int crawl_loop_run(struct crawl *c, const struct crawl_loop_opts *o, FILE *summary)
{
  struct crawl_loop *d = mem_calloc(1, sizeof *d);
  if(!d)
    return CRAWL_LOOP_EXIT_LOCAL;
  d->magic = CL_MAGIC;
  d->o = *o;
  d->c = c;
  d->summary = summary;
  d->disk_soft = o->write_soft_bytes;
  d->last_ckpt = clock_mono_ms();
  fpset_init(&d->hosts_asked, 16u << 20);
  fpmap_init(&d->alias, 16u << 20);
  progress_init(&d->prog, o->progress ? STDERR_FILENO : -1);
  crawl_err e = cl_start(d);
  if(e) {
    LOG(LOG_ERROR, "cannot start: %s", crawl_err_text(e));
    d->exit_code = CRAWL_LOOP_EXIT_LOCAL;
  } else {
    loop_run(&d->lp);
  }
  if(d->disk_ready)
    uv_close((uv_handle_t *)&d->disk, NULL);
  loop_close(&d->lp);  /* the gateway client first: no callback after it */
  crawl_sync(c);       /* fences waiting to acknowledge point at d */
  int code = d->exit_code;
  cl_free(d);
  return code;
}
