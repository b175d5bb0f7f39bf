#include "clients/refresh/refresh.h"

#include <string.h>
#include <unistd.h>

#include "clients/loop/loop.h"
#include "clients/refresh/refresh_int.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define BATCH_MAX  500
#define LOST_MS    300000  /* an outstanding page is sent again after this */
#define BACKOFF_MS 1000

struct rfr {
  unsigned magic;
#define RFR_MAGIC 0x7e5f4e11u
  struct refresh_opts o;
  struct rf_pages    *ps;
  struct refresh_out *out;
  FILE               *summary;
  struct loop         lp;        /* libuv, the gateway client, tick, signals */
  struct fpmap        ids;       /* hash of a request id -> page index */
  size_t             *sub;       /* the batch in flight: page indices */
  size_t              nsub;
  bool                submitting, polling, draining, done;
  double              tokens, fresh_est;
  double              rate;      /* this process's: o.rate, or its share of it (rpart) */
  uint64_t            start, last_tick, last_plan, last_progress, end_at;
  uint64_t            plan_cost_ms;
  uint64_t            pause_until, fetches, seen[RF_SEEN_FAILED + 1], not_modified, refused;
  uint64_t            answered;  /* visits that got an HTTP answer */
  struct tally        causes;    /* visits without a page, and refusals, by cause */
  uint64_t            explored;  /* fetches of pages being explored */
  uint64_t            compact_bytes, compactions;
  uint64_t            resent;    /* pages sent again: no result came in time */
  int                 exit_code;
};

static struct rfr *rfr_of(void *arg)
{
  struct rfr *r = arg;
  CHECK(r->magic == RFR_MAGIC);
  return r;
}

/* ---- The end ------------------------------------------------------------------- */

/* Where the output is, as summary members: the WARC files, the change log. */
static void rfr_paths(const struct rfr *r, struct buf *b)
{
  if(!r->o.out_dir)
    return;
  char log[4096];
  int n = snprintf(log, sizeof log, "%s/changes.jsonl", r->o.out_dir);
  buf_adds(b, ",\"warc_paths\":");
  warc_paths_json(b, r->o.out_dir, "wpfs-refresh", 1000);
  buf_adds(b, ",\"change_log\":");
  buf_add_json_str(b, log, n > 0 && (size_t)n < sizeof log ? (size_t)n : 0);
}

/* The causes and the input's refusals, as summary members. */
static void rfr_why(const struct rfr *r, struct buf *b)
{
  static const struct tally none;
  buf_adds(b, ",\"causes\":");
  tally_json(&r->causes, b);
  buf_adds(b, ",\"input_refused\":");
  tally_json(r->o.input_refused ? r->o.input_refused : &none, b);
  buf_addf(b, ",\"redirects_ruled_out\":%llu,\"scope_rules\":",
           (unsigned long long)r->ps->ruled_out);
  scope_json(r->ps->rules, b);
}

/* A member's partitions, as summary members. */
static void rfr_part(const struct rfr *r, struct buf *b)
{
  struct rpart_stats st;
  if(!r->o.part)
    return;
  rpart_stats(r->o.part, &st);
  buf_addf(b, ",\"part_held\":%u,\"part_live\":%u,\"part_rate\":%.3f,\"part_claimed\":%llu,"
              "\"part_claimed_lapsed\":%llu,\"part_released\":%llu,\"part_lost\":%llu,"
              "\"part_snapshots\":%llu,\"part_restored\":%llu", st.held, st.live, r->rate,
           (unsigned long long)st.claimed, (unsigned long long)st.claimed_lapsed,
           (unsigned long long)st.released, (unsigned long long)st.lost,
           (unsigned long long)st.snapshots, (unsigned long long)st.restored);
}

static void rfr_summary(struct rfr *r)
{
  double secs = (double)(clock_mono_ms() - r->start) / 1000;
  size_t retired = 0;
  for(size_t i = 0; i < r->ps->n; i++)
    retired += r->ps->v[i].retired;
  struct buf paths;
  buf_init(&paths, 1u << 20);
  rfr_why(r, &paths);
  rfr_part(r, &paths);
  rfr_paths(r, &paths);
  if(r->summary)
    fprintf(r->summary, "{\"policy\":\"%s\",\"pages\":%zu,\"retired\":%zu,\"seconds\":%.1f,"
            "\"fetches\":%llu,\"fetches_per_s\":%.3f,\"rate\":%.3f,\"changed\":%llu,"
            "\"unchanged\":%llu,\"first\":%llu,\"gone\":%llu,\"moved\":%llu,\"failed\":%llu,"
            "\"not_modified\":%llu,\"refused\":%llu,\"explored\":%llu,\"resent\":%llu,"
            "\"compactions\":%llu,"
            "\"estimated_freshness\":%.4f,"
            "\"exit\":%d%s}\n", rf_policy_name(r->o.policy), r->ps->n, retired, secs,
            (unsigned long long)r->fetches, secs > 0 ? (double)r->fetches / secs : 0, r->o.rate,
            (unsigned long long)r->seen[RF_SEEN_CHANGED],
            (unsigned long long)r->seen[RF_SEEN_UNCHANGED],
            (unsigned long long)r->seen[RF_SEEN_FIRST], (unsigned long long)r->seen[RF_SEEN_GONE],
            (unsigned long long)r->seen[RF_SEEN_MOVED],
            (unsigned long long)r->seen[RF_SEEN_FAILED], (unsigned long long)r->not_modified,
            (unsigned long long)r->refused, (unsigned long long)r->explored,
            (unsigned long long)r->resent, (unsigned long long)r->compactions, r->fresh_est,
            r->exit_code,
            paths.data ? paths.data : "");
  char causes[1024];
  tally_text(&r->causes, causes, sizeof causes);
  if(r->o.progress && isatty(STDERR_FILENO) && r->o.out_dir)
    fprintf(stderr, "wpfs-refresh: %llu fetches; WARC files and the change log "
            "(changes.jsonl) in %s%s%s\n", (unsigned long long)r->fetches, r->o.out_dir,
            r->causes.total ? "; without a page: " : "", r->causes.total ? causes : "");
  if(r->causes.total)
    LOG(LOG_INFO, "%llu visits ended without a page: %s",
        (unsigned long long)r->causes.total, causes);
  buf_free(&paths);
}

/* A run whose every visit ended without an HTTP answer kept nothing
 * fresh: say so, and why. */
static int rfr_verdict(struct rfr *r, int code)
{
  if(code != REFRESH_EXIT_DONE || r->answered || !(r->fetches + r->refused))
    return code;
  char causes[1024];
  tally_text(&r->causes, causes, sizeof causes);
  LOG(LOG_ERROR, "no visit got an answer: %llu fetches, %llu refused (%s)",
      (unsigned long long)r->fetches, (unsigned long long)r->refused, causes);
  return REFRESH_EXIT_NO_PAGE;
}

static void rfr_finish(struct rfr *r, int code)
{
  if(r->done)
    return;
  r->done = true;
  r->exit_code = rfr_verdict(r, code);
  if(r->o.progress && isatty(STDERR_FILENO))
    fputc('\n', stderr);
  rfr_summary(r);
  loop_stop(&r->lp);
}

/* Stop sending; wait for what is outstanding up to drain_ms. */
static void rfr_drain(struct rfr *r, int code)
{
  if(r->draining)
    return;
  r->draining = true;
  r->exit_code = code;
  r->end_at = clock_mono_ms() + r->o.drain_ms;
}

static bool rfr_fatal(struct rfr *r, crawl_err e, const char *what)
{
  if(!e)
    return false;
  LOG(LOG_ERROR, "%s: %s", what, crawl_err_text(e));
  rfr_finish(r, REFRESH_EXIT_LOCAL);
  return true;
}

/* ---- Sending ------------------------------------------------------------------ */

static void sub_back(struct rfr *r, uint64_t due)
{
  for(size_t i = 0; i < r->nsub; i++) {
    struct rf_page *p = &r->ps->v[r->sub[i]];
    p->outstanding = false;
    rf_pages_set_due(r->ps, p, due);
  }
}

static void on_item(struct rfr *r, struct rf_page *p, const struct gw_item *it, uint64_t now)
{
  if(it->status != GW_REJECTED && it->id) {
    uint64_t *v;
    if(!fpmap_put(&r->ids, hash_fp64(it->id, strlen(it->id)), &v, NULL))
      *v = (uint64_t)(p - r->ps->v);
    return;
  }
  p->outstanding = false;
  if(it->retry_after_ms >= 0 || (it->reason && !strcmp(it->reason, "store_unavailable"))) {
    rf_pages_set_due(r->ps, p, now + (uint64_t)(it->retry_after_ms > 0 ? it->retry_after_ms
                                                                        : BACKOFF_MS));
    return;
  }
  r->refused++;
  tally_add(&r->causes, it->reason ? it->reason : "rejected", 1);
  rf_page_retire(r->ps, p);
  rfr_fatal(r, rf_record_refused(r->out, p, it->reason ? it->reason : "rejected", now),
            "writing the change log");
}

static void on_batch(void *arg, const struct gwclient_answer *a, struct gw_batch_answer *b)
{
  struct rfr *r = rfr_of(arg);
  uint64_t now = clock_wall_ms();
  r->submitting = false;
  if(!b || b->n != r->nsub) {
    LOG(LOG_WARN, "batch not taken (HTTP %d, %s): %zu pages back in the plan", a->http,
        crawl_err_name(a->err), r->nsub);
    sub_back(r, now + BACKOFF_MS);
    r->pause_until = clock_mono_ms() + (a->retry_after_ms > 0 ? (uint64_t)a->retry_after_ms
                                                              : BACKOFF_MS);
  } else {
    for(size_t i = 0; i < b->n && !r->done; i++)
      on_item(r, &r->ps->v[r->sub[i]], &b->items[i], now);
    loop_useful(&r->lp);
  }
  mem_free(r->sub);
  r->sub = NULL;
  r->nsub = 0;
}

/* The page due first, if it may be visited now: never more than half its
 * interval early. */
static struct rf_page *next_page(struct rfr *r, uint64_t now)
{
  struct rf_page *p = rf_pages_top(r->ps);
  if(!p || p->due_ms <= now)
    return p;
  double half_ms = p->f > 0 ? 500 / p->f : 0;
  return (double)(p->due_ms - now) <= half_ms ? p : NULL;
}

static void rfr_submit(struct rfr *r)
{
  size_t room = r->o.window > r->ids.count ? r->o.window - r->ids.count : 0;
  size_t max = (size_t)r->tokens < room ? (size_t)r->tokens : room;
  max = max < BATCH_MAX ? max : BATCH_MAX;
  if(r->done || r->submitting || r->draining || max == 0 || clock_mono_ms() < r->pause_until)
    return;
  uint64_t now = clock_wall_ms();
  struct gw_url *u = mem_alloc(max * sizeof *u);
  r->sub = mem_alloc(max * sizeof *r->sub);
  size_t n = 0;
  for(struct rf_page *p; u && r->sub && n < max && (p = next_page(r, now)); n++) {
    double iv = p->f > 0 ? 1 / p->f : r->ps->max_interval_s;
    u[n] = (struct gw_url){ p->url, r->o.priority, (long)(iv * r->o.max_age_share) };
    if(p->outstanding) {
      r->resent++;
      LOG(LOG_WARN, "no result for %s in %.0f s: sent again", p->url,
          (double)LOST_MS / 1000 + 2 * iv);
    }
    r->sub[n] = (size_t)(p - r->ps->v);
    p->outstanding = true;
    rf_pages_set_due(r->ps, p, now + LOST_MS + (uint64_t)(2000 * iv));
  }
  r->nsub = n;
  crawl_err e = n ? gwclient_batch(r->lp.gw, u, n, on_batch, r) : CRAWL_OK;
  if(e)
    sub_back(r, now + BACKOFF_MS);
  if(!n || e) {
    mem_free(r->sub);
    r->sub = NULL;
    r->nsub = 0;
  }
  r->submitting = n && !e;
  r->tokens -= n && !e ? (double)n : 0;
  mem_free(u);
}

/* ---- Results ------------------------------------------------------------------- */

static struct rf_page *result_page(struct rfr *r, const struct gw_result *g)
{
  uint64_t key = g->id ? hash_fp64(g->id, strlen(g->id)) : 0, *v;
  if(g->id && (v = fpmap_get(&r->ids, key))) {
    struct rf_page *p = &r->ps->v[*v];
    fpmap_del(&r->ids, key);
    return p;
  }
  return g->url ? rf_pages_find(r->ps, g->url) : NULL;  /* sent by a run before a crash */
}

static crawl_err deliver(struct rfr *r, const struct gw_result *g)
{
  struct rf_page *p = result_page(r, g);
  if(!p)
    return CRAWL_OK;
  uint64_t now = clock_wall_ms(), prev = p->last_ms;
  struct rf_judged j;
  rf_judge(p, g, now, &j);
  rf_page_observe_lm(r->ps, p, j.seen, j.at_ms, j.digest, j.lm_ms);
  r->explored += p->explore;
  p->outstanding = false;
  rf_page_replan(r->ps, p, now);
  r->fetches++;
  r->seen[j.seen]++;
  char why[GWPROTO_CAUSE_MAX];
  const char *cause = gwproto_cause(g, why, sizeof why);
  if(cause)
    tally_add(&r->causes, cause, 1);
  r->answered += !cause;
  r->not_modified += j.not_modified;
  crawl_err e = rf_record(r->out, p, g, &j, prev, now);
  bool added;
  if(!e && j.seen == RF_SEEN_MOVED && p->gone == 1 &&  /* follow a move once */
     rf_pages_keep_target(r->ps, g->redirect))
    e = rf_pages_add(r->ps, g->redirect, p->weight, now, &added);
  return e == CRAWL_ERR_FULL ? CRAWL_OK : e;
}

static void on_ack(void *arg, const struct gwclient_answer *a)
{
  (void)arg;
  if(a->err || a->http != 200)
    LOG(LOG_WARN, "ack failed (HTTP %d): those results will come again", a->http);
}

/* Results are acknowledged once their lines are written (synchronously,
 * above): a crash before the ack gets them again. */
static void rfr_ack(struct rfr *r, const struct gw_results *res)
{
  const char **id = mem_alloc(res->n * sizeof *id + 1);
  size_t n = 0;
  for(size_t i = 0; id && i < res->n; i++)
    if(res->v[i].delivery)
      id[n++] = res->v[i].delivery;
  if(n)
    gwclient_ack(r->lp.gw, id, n, on_ack, r);
  mem_free(id);
}

/* The change log is compacted once what was added since it was last
 * compacted passes compact_factor times its compacted size (at least 256
 * bytes a page, what a snapshot line takes about): it stays within
 * 1 + compact_factor times that, and a compaction is paid for by that
 * many lines. */
static void rfr_compact(struct rfr *r)
{
  struct refresh_out *out = r->out;
  double base = (double)r->ps->n * 256;
  base = (double)r->compact_bytes > base ? (double)r->compact_bytes : base;
  if(r->o.compact_factor <= 0 || !out->log_path || !out->log ||
     (double)crawllog_size(out->log) <= (1 + r->o.compact_factor) * base)
    return;
  uint64_t t0 = clock_mono_ms(), before = crawllog_size(out->log);
  crawl_err e = refresh_compact(r->ps, out->log_path, &r->compact_bytes);
  crawllog_close(&out->log);
  crawl_err e2 = crawllog_open(out->log_path, &out->log);
  if(e)
    LOG(LOG_WARN, "compacting the change log failed (%s): it keeps growing",
        crawl_err_text(e));
  else
    LOG(LOG_INFO, "change log compacted: %llu bytes to %llu in %llu ms",
        (unsigned long long)before, (unsigned long long)r->compact_bytes,
        (unsigned long long)(clock_mono_ms() - t0));
  r->compactions += !e;
  rfr_fatal(r, e2, "reopening the change log");
}

static void on_results(void *arg, const struct gwclient_answer *a, struct gw_results *res)
{
  struct rfr *r = rfr_of(arg);
  r->polling = false;
  if(r->done)
    return;
  if(!res) {
    LOG(LOG_WARN, "reading results failed (HTTP %d, %s)", a->http, crawl_err_name(a->err));
    r->pause_until = clock_mono_ms() + BACKOFF_MS;
    return;
  }
  for(size_t i = 0; i < res->n && !r->done; i++)
    if(rfr_fatal(r, deliver(r, &res->v[i]), "recording a result"))
      return;
  if(res->n)
    loop_useful(&r->lp);
  rfr_ack(r, res);
  rfr_compact(r);
}

static void rfr_poll(struct rfr *r)
{
  if(r->polling || r->ids.count == 0 || clock_mono_ms() < r->pause_until)
    return;
  if(gwclient_results(r->lp.gw, r->o.results_max, r->o.wait_ms, on_results, r) == CRAWL_OK)
    r->polling = true;
}

/* ---- The loop ------------------------------------------------------------------- */

static void rfr_plan(struct rfr *r)
{
  double sum = 0;
  size_t n = 0;
  for(size_t i = 0; i < r->ps->n; i++)
    if(r->ps->v[i].nobs && !r->ps->v[i].retired) {
      sum += r->ps->v[i].lambda;
      n++;
    }
  double prior = n ? sum / (double)n : r->o.rate / (double)(r->ps->n ? r->ps->n : 1);
  uint64_t t0 = clock_mono_ms();
  r->fresh_est = rf_pages_plan(r->ps, r->o.policy, r->rate, prior, clock_wall_ms());
  r->plan_cost_ms = clock_mono_ms() - t0;
}

static void rfr_progress(struct rfr *r, uint64_t now)
{
  if(!r->o.progress || !isatty(STDERR_FILENO) || now - r->last_progress < 1000)
    return;
  r->last_progress = now;
  double secs = (double)(now - r->start) / 1000;
  uint64_t judged = r->seen[RF_SEEN_CHANGED] + r->seen[RF_SEEN_UNCHANGED];
  fprintf(stderr, "\rrefresh: %zu pages, %llu fetches, %.2f/s, %.1f%% changed, "
          "estimated freshness %.3f", r->ps->n, (unsigned long long)r->fetches,
          secs > 0 ? (double)r->fetches / secs : 0,
          judged ? 100.0 * (double)r->seen[RF_SEEN_CHANGED] / (double)judged : 0, r->fresh_est);
  if(r->ps->ruled_out)
    fprintf(stderr, ", %llu redirects ruled out", (unsigned long long)r->ps->ruled_out);
  fprintf(stderr, "   ");
}

static void on_tick(void *arg)
{
  struct rfr *r = rfr_of(arg);
  uint64_t now = clock_mono_ms();
  /* A member's partitions changed: its share of the rate, and a plan. */
  if(r->o.part && rpart_tick(r->o.part, now)) {
    r->rate = r->o.rate * rpart_share(r->o.part);
    r->last_plan = 0;
  }
  double cap = r->rate > 1 ? r->rate : 1;
  r->tokens += r->rate * (double)(now - r->last_tick) / 1000;
  r->tokens = r->tokens > cap ? cap : r->tokens;
  r->last_tick = now;
  if(r->o.duration_ms && now - r->start >= r->o.duration_ms)
    rfr_drain(r, REFRESH_EXIT_DONE);
  if(r->draining && (r->ids.count == 0 || now >= r->end_at)) {
    rfr_finish(r, r->exit_code);
    return;
  }
  /* Planning takes at most a twentieth of the time (about 2 s of CPU for
   * 100,000 pages): a large list is planned less often than plan_ms. */
  if(now - r->last_plan >= r->o.plan_ms && now - r->last_plan >= 20 * r->plan_cost_ms) {
    r->last_plan = now;
    rfr_plan(r);
  }
  if(!r->done)
    rfr_submit(r);
  if(!r->done)
    rfr_poll(r);
  rfr_progress(r, now);
  if(!r->done && r->ids.count && loop_stalled(&r->lp, r->o.stall_ms))
    rfr_finish(r, REFRESH_EXIT_STALLED);
}

static void on_signal(void *arg, int signum)
{
  struct rfr *r = rfr_of(arg);
  LOG(LOG_WARN, "signal %d: stopping (--resume continues)", signum);
  if(r->draining)
    rfr_finish(r, REFRESH_EXIT_STOPPED);
  rfr_drain(r, REFRESH_EXIT_STOPPED);
}

int refresh_run(struct rf_pages *ps, struct refresh_out *out, const struct refresh_opts *o,
                FILE *summary)
{
  struct rfr *r = mem_calloc(1, sizeof *r);
  if(!r)
    return REFRESH_EXIT_LOCAL;
  *r = (struct rfr){ .magic = RFR_MAGIC, .o = *o, .ps = ps, .out = out, .summary = summary,
                     .rate = o->part ? o->rate * rpart_share(o->part) : o->rate };
  r->start = r->last_tick = r->last_plan = clock_mono_ms();
  fpmap_init(&r->ids, (size_t)o->window * 64 + 4096);
  rfr_plan(r);
  static const struct loop_hooks hooks = { on_tick, on_signal };
  crawl_err e = loop_open(&r->lp, &o->gw, &hooks, r);
  if(e) {
    LOG(LOG_ERROR, "cannot start: %s", crawl_err_text(e));
    r->exit_code = REFRESH_EXIT_LOCAL;
  } else {
    loop_run(&r->lp);
  }
  loop_close(&r->lp);
  int code = r->exit_code;
  mem_free(r->sub);
  fpmap_free(&r->ids);
  r->magic = 0;
  mem_free(r);
  return code;
}
