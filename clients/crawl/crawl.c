#include "clients/crawl/crawl.h"

#include "clients/crawl/crawl_int.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

static const char *const counter_names[] = {
#define X(name) #name,
  CRAWL_COUNTERS(X)
#undef X
};
#define NCOUNTERS (sizeof counter_names / sizeof counter_names[0])

struct crawl_opts crawl_opts_default(void)
{
  struct crawl_opts o = { 0 };
  o.max_depth = UINT32_MAX;
  o.scope = LINKFILTER_HOST;
  o.obey_nofollow = true;
  o.url = url_opts_default();
  o.url.strip_session_ids = true;
  o.max_links = HTML_LINKS_MAX_DEFAULT;
  o.max_text = 1u << 20;
  o.trap = trap_opts_default();
  o.dedup = dedup_opts_default();
  o.seen_mem = 64u << 20;
  o.seen_max_runs = 4;
  o.frontier_bytes = 1u << 30;
  o.max_per_host = 8;
  o.warc_max_bytes = 1u << 30;
  o.warc_level = 1;
  o.write_queue_bytes = 64u << 20;
  o.sitemap_max_text = SITEMAP_MAX_TEXT_DEFAULT;
  o.warc_prefix = "wpfs-discover";
  o.software = "wpfs-discover";
  o.robots_rounds = 3;
  o.robots_wait_ms = 60000;
  o.robots_wait_max_ms = 600000;
  return o;
}

static crawl_err make_dir(const char *p)
{
  return mkdir(p, 0755) == 0 || errno == EEXIST ? CRAWL_OK : CRAWL_ERR_IO;
}

static crawl_err crawl_paths(struct crawl *c)
{
  c->dir = mem_strdup(c->o.out_dir);
  c->warc_dir = c->dir ? crawl_path(c->dir, "warc") : NULL;
  c->seen_dir = c->dir ? crawl_path(c->dir, "seen") : NULL;
  c->frontier_dir = c->dir ? crawl_path(c->dir, "frontier") : NULL;
  c->log_path = c->dir ? crawl_path(c->dir, "crawl.jsonl") : NULL;
  c->ckpt_path = c->dir ? crawl_path(c->dir, "checkpoint") : NULL;
  if(!c->warc_dir || !c->seen_dir || !c->frontier_dir || !c->log_path || !c->ckpt_path)
    return CRAWL_ERR_NOMEM;
  crawl_err e = make_dir(c->dir);
  if(!e)
    e = make_dir(c->warc_dir);
  if(!e)
    e = make_dir(c->frontier_dir);
  return e ? e : make_dir(c->seen_dir);
}

/* Two crawlers in one directory would interleave their files. The lock
 * goes with the process, however it ends. */
static crawl_err crawl_lock(struct crawl *c)
{
  char *p = crawl_path(c->dir, "lock");
  if(!p)
    return CRAWL_ERR_NOMEM;
  c->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  mem_free(p);
  if(c->lock_fd < 0)
    return CRAWL_ERR_IO;
  return flock(c->lock_fd, LOCK_EX | LOCK_NB) == 0 ? CRAWL_OK : CRAWL_ERR_LOCKED;
}

/* A fresh crawl must not mix with an earlier one in the same directory. */
static bool holds_crawl(const struct crawl *c)
{
  struct stat st;
  return stat(c->ckpt_path, &st) == 0 || (stat(c->log_path, &st) == 0 && st.st_size > 0);
}

static crawl_err crawl_modules(struct crawl *c)
{
  struct linkfilter_opts lo = { c->o.scope, c->o.deny_ext, c->o.rules };
  crawl_err e = wq_open(c->o.write_queue_bytes, &c->wq);
  if(!e)
    wq_set_flush(c->wq, crawl_out_flush, c);
  struct frontier_opts fo = { c->o.frontier_bytes, c->o.max_per_host, c->frontier_dir, c->wq,
                              c->o.frontier_seg_bytes, c->o.scorer != NULL };
  struct seen_opts so = { c->seen_dir, c->o.seen_mem, c->o.seen_max_runs,
                          crawl_admit_on_new, c, c->wq };
  struct rwait_opts ro = { c->o.robots_rounds, c->o.robots_wait_ms, c->o.robots_wait_max_ms,
                           RWAIT_MAX_BYTES };
  if(!e)
    e = rwait_open(&ro, &c->rw);
  if(!e)
    e = linkfilter_open(&lo, &c->lf);
  if(!e)
    e = trap_open(&c->o.trap, &c->trap);
  if(!e)
    e = seen_open(&so, &c->seen);
  if(!e)
    e = frontier_open(&fo, &c->fr);
  if(!e)
    e = dedup_open(&c->o.dedup, &c->dd);
  if(!e)
    e = crawllog_open(c->log_path, &c->out.log);
  fpset_init(&c->replayed, 64u << 20);
  fpset_init(&c->sitemaps, 8u << 20);
  hostconns_init(&c->conns, HOSTCONNS_MAX_BYTES);
  return e;
}

static crawl_err crawl_warc(struct crawl *c)
{
  struct warc_opts wo = { c->warc_dir, c->o.warc_prefix, c->o.warc_max_bytes,
                          c->o.software, "robots: obeyed by the wpfs gateway\r\n",
                          c->o.warc_level, true };
  return warc_open(&wo, &c->out.warc);
}

crawl_err crawl_open(const struct crawl_opts *o, bool resume, struct crawl **out)
{
  struct crawl *c = mem_calloc(1, sizeof *c);
  *out = NULL;
  if(!c)
    return CRAWL_ERR_NOMEM;
  warc_ids_init(&c->ids);
  c->o = *o;
  c->lock_fd = -1;
  crawl_err e = o->out_dir ? crawl_paths(c) : CRAWL_ERR_INVALID;
  if(!e)
    e = crawl_lock(c);
  if(!e && !resume && holds_crawl(c))
    e = CRAWL_ERR_INVALID;
  if(!e)
    e = crawl_modules(c);
  if(!e && !resume)
    frontier_tidy(c->fr);  /* segments of a crawl that died before its first checkpoint */
  if(!e && resume)
    e = crawl_resume(c);
  if(!e)
    e = crawl_warc(c);
  if(e) {
    crawl_close(&c);
    return e;
  }
  *out = c;
  return CRAWL_OK;
}

void crawl_close(struct crawl **cp)
{
  struct crawl *c = *cp;
  if(!c)
    return;
  *cp = NULL;
  if(c->wq)
    wq_drain(c->wq);  /* jobs point at the modules */
  linkfilter_close(&c->lf);
  trap_close(&c->trap);
  seen_close(&c->seen);
  frontier_close(&c->fr);
  dedup_close(&c->dd);
  rwait_close(&c->rw);
  wq_close(&c->wq);
  warc_close(&c->out.warc);
  crawllog_close(&c->out.log);
  fpset_free(&c->replayed);
  fpset_free(&c->sitemaps);
  hostconns_free(&c->conns);
  mem_free(c->dir);
  mem_free(c->warc_dir);
  mem_free(c->seen_dir);
  mem_free(c->frontier_dir);
  mem_free(c->log_path);
  mem_free(c->ckpt_path);
  if(c->lock_fd >= 0)
    close(c->lock_fd);
  mem_free(c);
}

static crawl_err canon(const struct crawl *c, const char *url, char **out)
{
  url_err ue = url_canon(url, strlen(url), &c->o.url, out);
  return ue == URL_OK ? CRAWL_OK : ue == URL_ERR_NOMEM ? CRAWL_ERR_NOMEM : CRAWL_ERR_INVALID;
}

/* What crawl_admit_one did with a seed, from the counters it moved. */
struct seed_mark {
  uint64_t new, known, invalid, drop[DROP__LAST];
};

static void seed_mark(const struct crawl *c, struct seed_mark *m)
{
  m->new = c->st.links_new;
  m->known = c->st.links_known;
  m->invalid = c->st.links_invalid;
  memcpy(m->drop, c->st.drop, sizeof m->drop);
}

/* NULL: queued (or waiting for the seen set's answer); else why not. The
 * counters a link would move are put back: seeds are not links. */
static const char *seed_fate(struct crawl *c, const struct seed_mark *m)
{
  const char *why = NULL;
  for(int r = 1; !why && r < DROP__LAST; r++)
    if(c->st.drop[r] != m->drop[r])
      why = drop_name((enum drop_reason)r);
  if(!why && c->st.links_invalid != m->invalid)
    why = "malformed";
  if(!why && c->st.links_known != m->known)
    why = "duplicate";
  c->st.seeds += c->st.links_new - m->new;
  c->st.links_new = m->new;
  c->st.links_known = m->known;
  c->st.links_invalid = m->invalid;
  return why;
}

static void seed_refuse(struct crawl *c, const char *why, const char **refused)
{
  *refused = why;
  c->st.seeds_refused++;
  tally_add(&c->st.seed_refusals, why, 1);
}

crawl_err crawl_seed(struct crawl *c, const char *url, const char **refused)
{
  char *u = NULL;
  *refused = NULL;
  crawl_err e = canon(c, url, &u);
  if(e == CRAWL_ERR_INVALID) {
    seed_refuse(c, "malformed", refused);
    return c->err;
  }
  if(!e)
    e = linkfilter_add_seed(c->lf, u);
  struct seed_mark m;
  seed_mark(c, &m);
  struct frontier_score sc = { 1, NULL, 0 };
  if(!e && c->o.scorer && c->o.scorer->seed)
    c->o.scorer->seed(c->o.scorer->arg, u, &sc);
  if(!e)
    e = crawl_admit_one(c, u, 0, 0, FRONTIER_LEVELS - 1, &sc);
  const char *why = seed_fate(c, &m);
  if(!e && why)
    seed_refuse(c, why, refused);
  mem_free(u);
  return e ? e : c->err;
}

crawl_err crawl_add_seed(struct crawl *c, const char *url)
{
  const char *refused;
  crawl_err e = crawl_seed(c, url, &refused);
  return !e && refused && !strcmp(refused, "malformed") ? CRAWL_ERR_INVALID : e;
}

crawl_err crawl_add_url(struct crawl *c, const char *url, uint32_t depth, unsigned level)
{
  char *u = NULL;
  crawl_err e = canon(c, url, &u);
  if(!e)
    e = crawl_admit_one(c, u, depth, 0, level, NULL);
  mem_free(u);
  return e ? e : c->err;
}

crawl_err crawl_add_sitemap(struct crawl *c, const char *url)
{
  char *u = NULL;
  crawl_err e = canon(c, url, &u);
  if(!e)
    e = crawl_admit_sitemap(c, u);
  mem_free(u);
  return e ? e : c->err;
}

void crawl_sitemaps_unasked(struct crawl *c, const char *url, const char *why)
{
  c->st.sitemaps_unasked++;
  struct log_ctx ctx = { .url = url, .action = "asking for sitemaps" };
  LOGC(LOG_INFO, &ctx, "the host's sitemaps are not read: %s", why);
}

/* Pages still allowed by max_pages, counting the outstanding ones. */
static size_t page_room(struct crawl *c, size_t max)
{
  if(!c->o.max_pages)
    return max;
  struct frontier_stats fs;
  frontier_stats(c->fr, &fs);
  uint64_t used = c->st.pages + fs.outstanding;
  uint64_t room = used < c->o.max_pages ? c->o.max_pages - used : 0;
  return room < max ? (size_t)room : max;
}

/* ---- The disk thread --------------------------------------------------- */

size_t crawl_poll(struct crawl *c)
{
  return crawl_out_poll(c);
}

crawl_err crawl_fence(struct crawl *c, crawl_fence_fn *fn, void *arg)
{
  return crawl_out_fence(c, fn, arg);
}

crawl_err crawl_checkpoint(struct crawl *c)
{
  return crawl_ckpt_take(c);
}

void crawl_hold(struct crawl *c) { wq_hold(c->wq); }
void crawl_release(struct crawl *c) { wq_release(c->wq); }

bool crawl_wait(struct crawl *c)
{
  bool any = wq_wait(c->wq);
  crawl_poll(c);
  return any;
}

void crawl_sync(struct crawl *c)
{
  wq_drain(c->wq);
  crawl_poll(c);
}

int crawl_fd(const struct crawl *c)
{
  return wq_fd(c->wq);
}

size_t crawl_backlog(struct crawl *c)
{
  return wq_bytes(c->wq);
}

unsigned crawl_checkpoints_out(const struct crawl *c)
{
  return c->ckpt_out;
}

/* Running low: look up the URLs waiting on the seen set's runs now. */
static void seen_kick(struct crawl *c)
{
  crawl_err e = seen_flush(c->seen);
  if(e && !c->err)
    c->err = e;
}

/* ---- Taking and recording --------------------------------------------------- */

size_t crawl_take(struct crawl *c, size_t max, struct frontier_item *out)
{
  crawl_poll(c);
  crawl_robots_wake(c);
  max = page_room(c, max);
  if(max == 0 || c->err)
    return 0;
  struct frontier_stats fs;
  frontier_stats(c->fr, &fs);
  if(fs.queued < max && seen_pending(c->seen) > 0)
    seen_kick(c);
  return frontier_take(c->fr, max, out);
}

crawl_err crawl_result(struct crawl *c, const struct crawl_result *r)
{
  uint32_t depth = 0;
  uint64_t fp = hash_fp64(r->url, strlen(r->url));
  crawl_poll(c);
  if(c->err)
    return c->err;
  hostconns_note(&c->conns, r->url, r->site_connections);  /* a count, even redelivered */
  if(!frontier_depth(c->fr, fp, &depth)) {
    c->st.redelivered++;  /* finished before: results come at least once */
    return CRAWL_OK;
  }
  /* The entry goes last: r->url (and own's meta) may be the frontier's. */
  if(crawl_robots_hold(c, r, fp))
    return c->err;  /* it waits, outstanding: no line, the scorer sees it later */
  struct frontier_score own;
  bool scored = c->o.scorer && frontier_score_of(c->fr, fp, &own);
  crawl_err e = crawl_visit(c, r, depth, scored ? &own : NULL);
  frontier_done(c->fr, fp, NULL);
  return e ? e : c->err;
}

crawl_err crawl_requeue(struct crawl *c, const char *url)
{
  crawl_err e = frontier_retry(c->fr, hash_fp64(url, strlen(url)));
  c->st.requeued += e == CRAWL_OK;
  return e;
}

crawl_err crawl_reject(struct crawl *c, const char *url, const char *reason)
{
  uint32_t depth = 0;
  uint64_t fp = hash_fp64(url, strlen(url));
  if(!frontier_depth(c->fr, fp, &depth))
    return CRAWL_ERR_NOT_FOUND;
  struct crawllog_entry le = { 0 };
  le.url = url;
  le.outcome = "rejected";
  le.reason = reason;
  le.cause = tally_word(reason) ? reason : "rejected";
  tally_add(&c->st.causes, le.cause, 1);
  le.depth = depth;
  le.time_ms = clock_wall_ms();
  c->st.rejected++;
  c->st.pages++;
  struct frontier_score own;
  struct buf extra;
  buf_init(&extra, CRAWLLOG_EXTRA_MAX);
  bool scored = c->o.scorer && frontier_score_of(c->fr, fp, &own);
  crawl_err e = c->o.scorer ? crawl_page_scored(c, url, "rejected", 0, scored ? &own : NULL,
                                                &extra) : CRAWL_OK;
  le.extra = extra.data;
  if(!e)
    e = crawl_out_page(c, &le, CRAWL_OUT_NONE, NULL, NULL);
  buf_free(&extra);
  frontier_done(c->fr, fp, NULL);  /* last: url may be the frontier's copy */
  return e;
}

/* When it is over, everything is written before it says so. */
static bool crawl_over(struct crawl *c)
{
  crawl_sync(c);
  return true;
}

bool crawl_finished(struct crawl *c)
{
  crawl_poll(c);
  if(c->err)
    return true;
  if(c->o.max_pages && c->st.pages >= c->o.max_pages)
    return crawl_over(c);
  crawl_robots_wake(c);
  struct frontier_stats fs;
  frontier_stats(c->fr, &fs);
  if(fs.queued || fs.outstanding)  /* URLs waiting for robots.txt are outstanding */
    return false;
  if(seen_pending(c->seen) > 0 || fs.on_disk > 0) {
    seen_kick(c);  /* the answers come at a later poll */
    frontier_refill(c->fr);
    return c->err != CRAWL_OK;
  }
  return crawl_over(c);
}

void crawl_stats(const struct crawl *c, struct crawl_stats *st)
{
  *st = c->st;
}

crawl_err crawl_error(const struct crawl *c)
{
  return c->err ? c->err : wq_error(c->wq);
}

char *crawl_url_of(struct crawl *c, uint64_t fp)
{
  const char *u = frontier_url(c->fr, fp);
  return u ? mem_strdup(u) : NULL;
}

void crawl_sizes(const struct crawl *c, struct crawl_sizes *s)
{
  struct seen_stats ss;
  memset(s, 0, sizeof *s);
  frontier_stats(c->fr, &s->frontier);
  seen_stats(c->seen, &ss);
  s->seen_distinct = ss.distinct;
  s->seen_pending = ss.pending;
  s->seen_mem_bytes = ss.mem_bytes;
  s->seen_disk_bytes = ss.disk_bytes;
  s->seen_runs = ss.runs;
  dedup_stats(c->dd, &s->dedup);
  s->warc_records = c->warc_records;
  s->warc_bytes = c->warc_bytes;
  s->warc_files = c->warc_files;
  s->robots_waiting = crawl_robots_waiting(c);
}

static cm_err summary_counters(const struct crawl *c, struct buf *b)
{
  const uint64_t *v[] = {
#define X(name) &c->st.name,
    CRAWL_COUNTERS(X)
#undef X
  };
  cm_err e = CM_OK;
  for(size_t i = 0; !e && i < NCOUNTERS; i++)
    e = buf_addf(b, "%s\"%s\":%llu", i ? "," : "", counter_names[i],
                 (unsigned long long)*v[i]);
  for(int r = 1; !e && r < DROP__LAST; r++)
    e = buf_addf(b, ",\"drop_%s\":%llu", drop_name((enum drop_reason)r),
                 (unsigned long long)c->st.drop[r]);
  if(!e)
    e = buf_adds(b, ",\"scope_rules\":");
  if(!e)
    e = scope_json(c->o.rules, b);
  if(!e)
    e = buf_adds(b, ",\"causes\":");
  if(!e)
    e = tally_json(&c->st.causes, b);
  if(!e)
    e = buf_adds(b, ",\"seed_refusals\":");
  return e ? e : tally_json(&c->st.seed_refusals, b);
}

static double per(uint64_t bytes, uint64_t n)
{
  return n ? (double)bytes / (double)n : 0;
}

/* Bytes per URL: in memory when it held the most, on disk over every URL
 * that went there. */
static cm_err summary_frontier(const struct crawl_sizes *s, struct buf *b)
{
  const struct frontier_stats *f = &s->frontier;
  return buf_addf(b, ",\"frontier\":%zu,\"outstanding\":%zu,\"hosts\":%zu,"
                  "\"frontier_mem_bytes\":%zu,\"frontier_peak_urls\":%zu,"
                  "\"frontier_mem_bytes_per_url\":%.2f,\"frontier_on_disk\":%llu,"
                  "\"frontier_disk_bytes\":%llu,\"frontier_spilled\":%llu,"
                  "\"frontier_refilled\":%llu,\"frontier_disk_bytes_per_url\":%.2f,"
                  "\"robots_waiting\":%zu",
                  f->queued, f->outstanding, f->hosts, f->bytes, f->peak_urls,
                  per(f->peak_bytes, f->peak_urls), (unsigned long long)f->on_disk,
                  (unsigned long long)f->disk_bytes, (unsigned long long)f->spilled,
                  (unsigned long long)f->refilled, per(f->spilled_bytes, f->spilled),
                  s->robots_waiting);
}

void crawl_note(const struct crawl *c, char *out, size_t n)
{
  if(n)
    out[0] = '\0';
  if(c->o.scorer && c->o.scorer->note)
    c->o.scorer->note(c->o.scorer->arg, out, n);
}

/* A focused crawl: what its frontier dropped or raised, and the scorer's. */
static cm_err summary_scorer(const struct crawl *c, const struct crawl_sizes *s, struct buf *b)
{
  if(!c->o.scorer)
    return CM_OK;
  cm_err e = buf_addf(b, ",\"frontier_evicted\":%llu,\"frontier_raised\":%llu",
                      (unsigned long long)s->frontier.evicted,
                      (unsigned long long)s->frontier.raised);
  if(!e && c->o.scorer->summary)
    e = c->o.scorer->summary(c->o.scorer->arg, b) ? CM_NOMEM : CM_OK;
  return e;
}

/* Where the output is: the WARC files (all runs of a resumed crawl) and
 * the crawl log. */
static cm_err summary_paths(const struct crawl *c, struct buf *b)
{
  if(!c->dir)
    return CM_OK;
  cm_err e = buf_adds(b, ",\"warc_paths\":");
  if(!e)
    e = warc_paths_json(b, c->warc_dir, c->o.warc_prefix, 1000);
  if(!e)
    e = buf_adds(b, ",\"crawl_log\":");
  if(!e)
    e = buf_add_json_str(b, c->log_path, strlen(c->log_path));
  return e;
}

/* snprintf at out + *at, moving *at along (up to n: the text cut there). */
static void where_add(char *out, size_t n, size_t *at, const char *fmt, ...)
{
  va_list ap;
  if(*at + 1 >= n)
    return;
  va_start(ap, fmt);
  int w = vsnprintf(out + *at, n - *at, fmt, ap);
  va_end(ap);
  *at += w > 0 && (size_t)w < n - *at ? (size_t)w : n - *at;
}

void crawl_where(const struct crawl *c, char *out, size_t n)
{
  size_t at = 0;
  if(n)
    out[0] = '\0';
  where_add(out, n, &at, "%llu pages in %u WARC file(s) in %s; crawl log %s",
            (unsigned long long)c->warc_records, c->warc_files,
            c->warc_dir ? c->warc_dir : "-", c->log_path ? c->log_path : "-");
  if(c->st.causes.total) {
    where_add(out, n, &at, "; %llu without a page: ", (unsigned long long)c->st.causes.total);
    if(at + 1 < n) {
      tally_text(&c->st.causes, out + at, n - at);
      at += strlen(out + at);
    }
  }
  if(c->conns.map.count)
    where_add(out, n, &at, "; %llu connections opened to %zu host%s (at most %llu to one)",
              (unsigned long long)c->conns.opened, c->conns.map.count,
              c->conns.map.count == 1 ? "" : "s", (unsigned long long)c->conns.max);
}

crawl_err crawl_summary(const struct crawl *c, struct buf *out)
{
  struct crawl_sizes s;
  crawl_sizes(c, &s);
  cm_err e = buf_adds(out, "{");
  if(!e)
    e = summary_counters(c, out);
  if(!e)
    e = summary_frontier(&s, out);
  if(!e)
    e = hostconns_json(&c->conns, out);
  if(!e)
    e = summary_scorer(c, &s, out);
  if(!e)
    e = buf_addf(out, ",\"seen\":%llu,\"seen_runs\":%u,\"seen_mem_bytes\":%zu,"
                 "\"seen_disk_bytes\":%zu,\"seen_mem_bytes_per_url\":%.2f,"
                 "\"seen_disk_bytes_per_url\":%.2f,\"warc_records\":%llu,"
                 "\"warc_bytes\":%llu,\"warc_files\":%u",
                 (unsigned long long)s.seen_distinct, s.seen_runs, s.seen_mem_bytes,
                 s.seen_disk_bytes, per(s.seen_mem_bytes, s.seen_distinct),
                 per(s.seen_disk_bytes, s.seen_distinct), (unsigned long long)s.warc_records,
                 (unsigned long long)s.warc_bytes, s.warc_files);
  if(!e)
    e = summary_paths(c, out);
  if(!e)
    e = buf_addc(out, '}');
  return crawl_from_cm(e);
}
