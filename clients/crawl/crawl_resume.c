/* Checkpoints and resuming (docs/crawler.md, "Checkpoint and resume").
 *
 * A checkpoint is one file, DIR/checkpoint, written whole then renamed
 * (ckfile.c) by the disk thread: the crawl log's length, the last WARC
 * record, the seen set's runs (what the writes before it left on disk),
 * then the loop's snapshot: the seen set's memory and pending URLs, the
 * counters, the scope, the trap counters, the frontier and the
 * content-seen index. Resuming loads it, then replays the crawl log lines
 * written after it: each is a finished URL; its page is read back from the
 * WARC file and processed again without writing, so the links it gave are
 * queued again. Finally, what the WARC files hold beyond the last record
 * the crawl log refers to (a crash between the two writes) is cut. */
#include "clients/crawl/crawl_int.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clients/base/ckfile.h"
#include "clients/crawl/frontier_disk.h"
#include "clients/out/warc_read.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

static const char ckpt_magic[8] = { 'W', 'P', 'F', 'S', 'C', 'K', 'P', '1' };
#define CKPT_VERSION 11  /* 2: sitemap counters; 3: ascents; 4: written by the disk
                           * thread; 5: frontier on disk; 6: records_too_large;
                           * 7: scored frontiers, the scorer, drop_off_topic;
                           * 8: causes, seed refusals, the originals' link-set
                           *    fingerprints and WARC records (id, date);
                           * 9: drop_rule, the scope rules' counters;
                           * 10: robots.txt rounds per host, robots_retried,
                           *     robots_rounds, robots_gave_up;
                           * 11: connections opened per host */
#define REPLAY_MAX_RECORD (256u << 20)

static void stats_save(const struct crawl *c, struct ckfile *ck)
{
#define X(name) ckfile_put_u64(ck, c->st.name);
  CRAWL_COUNTERS(X)
#undef X
  for(int r = 0; r < DROP__LAST; r++)
    ckfile_put_u64(ck, c->st.drop[r]);
  tally_save(&c->st.causes, ck);
  tally_save(&c->st.seed_refusals, ck);
}

static void stats_load(struct crawl *c, struct ckfile *ck)
{
#define X(name) c->st.name = ckfile_get_u64(ck);
  CRAWL_COUNTERS(X)
#undef X
  for(int r = 0; r < DROP__LAST; r++)
    c->st.drop[r] = ckfile_get_u64(ck);
  tally_load(&c->st.causes, ck);
  tally_load(&c->st.seed_refusals, ck);
}

/* A checkpoint on its way to the disk: the loop's snapshot, an image in
 * memory; the disk thread puts its own part first (the crawl log's length
 * and the last WARC record, the seen set's runs: what every job before
 * this one wrote), then the image, then renames the file into place. */
struct ckpt_job {
  struct wq_job j;
  struct crawl *c;
  struct ckfile image;
  char        **retired;  /* frontier segments read before the snapshot */
};

static crawl_err ckpt_run(struct wq_job *j)
{
  struct ckpt_job *cj = (struct ckpt_job *)j;
  struct crawl *c = cj->c;
  struct ckfile ck;
  crawl_err e = ckfile_create(&ck, c->ckpt_path, ckpt_magic);
  if(e)
    return e;
  ckfile_put_u64(&ck, CKPT_VERSION);
  ckfile_put_u64(&ck, crawllog_size(c->out.log));
  ckfile_put_str(&ck, c->out.last_warc);
  ckfile_put_u64(&ck, c->out.last_warc_end);
  seen_disk_save(seen_disk_of(c->seen), &ck);
  ckfile_put_image(&ck, &cj->image);
  e = ckfile_commit(&ck);
  if(!e) {  /* the previous checkpoint's files may go now */
    seen_disk_commit(seen_disk_of(c->seen));
    frontier_disk_remove((const char *const *)cj->retired);
  }
  return e;
}

static void ckpt_done(struct wq_job *j, crawl_err e)
{
  struct ckpt_job *cj = (struct ckpt_job *)j;
  cj->c->ckpt_out--;
  if(e && !cj->c->err)
    cj->c->err = e;
  ckfile_discard(&cj->image);
  for(size_t i = 0; cj->retired && cj->retired[i]; i++)
    mem_free(cj->retired[i]);
  mem_free(cj->retired);
  mem_free(cj);
}

static void ckpt_snapshot(struct crawl *c, struct ckfile *ck)
{
  c->st.checkpoints++;
  seen_save(c->seen, ck);
  stats_save(c, ck);
  linkfilter_save(c->lf, ck);
  trap_save(c->trap, ck);
  frontier_save(c->fr, ck);
  dedup_save(c->dd, ck);
  fpset_save(&c->sitemaps, ck);
  rwait_save(c->rw, ck);
  hostconns_save(&c->conns, ck);
  if(c->o.scorer)
    c->o.scorer->save(c->o.scorer->arg, ck);
}

crawl_err crawl_ckpt_take(struct crawl *c)
{
  crawl_out_poll(c);
  if(c->err)
    return c->err;
  struct ckpt_job *cj = mem_calloc(1, sizeof *cj);
  if(!cj)
    return CRAWL_ERR_NOMEM;
  ckfile_create_image(&cj->image);
  ckpt_snapshot(c, &cj->image);
  if(cj->image.err) {
    crawl_err e = cj->image.err;
    ckfile_discard(&cj->image);
    mem_free(cj);
    return e;
  }
  cj->c = c;
  cj->retired = frontier_retired(c->fr);
  cj->j = (struct wq_job){ .run = ckpt_run, .done = ckpt_done,
                           .bytes = sizeof *cj + (size_t)cj->image.image_bytes };
  c->ckpt_out++;
  wq_push(c->wq, &cj->j);
  fpset_clear(&c->replayed);  /* the snapshot's seen set knows every finished URL */
  return CRAWL_OK;
}

static crawl_err load_checkpoint(struct crawl *c, uint64_t *log_from)
{
  struct ckfile ck;
  *log_from = 0;
  crawl_err e = ckfile_open(&ck, c->ckpt_path, ckpt_magic);
  if(e == CRAWL_ERR_NOT_FOUND) {  /* crashed before the first: replay the whole log */
    frontier_tidy(c->fr);
    return CRAWL_OK;
  }
  if(e)
    return e;
  if(ckfile_get_u64(&ck) != CKPT_VERSION)
    ckfile_fail(&ck, CRAWL_ERR_CORRUPT);
  *log_from = ckfile_get_u64(&ck);
  char *w = ckfile_get_str(&ck, WARC_NAME_MAX - 1);
  snprintf(c->out.last_warc, sizeof c->out.last_warc, "%s", w ? w : "");
  mem_free(w);
  c->out.last_warc_end = ckfile_get_u64(&ck);
  e = seen_disk_load(seen_disk_of(c->seen), &ck);
  if(!e)
    e = seen_load(c->seen, &ck);
  stats_load(c, &ck);
  linkfilter_load(c->lf, &ck);
  trap_load(c->trap, &ck);
  frontier_load(c->fr, &ck);
  dedup_load(c->dd, &ck);
  fpset_load(&c->sitemaps, &ck);
  rwait_load(c->rw, &ck);
  hostconns_load(&c->conns, &ck);
  if(c->o.scorer)
    c->o.scorer->load(c->o.scorer->arg, &ck);
  crawl_err ce = ckfile_close(&ck);
  return e ? e : ce;
}

/* ---- Replay ------------------------------------------------------------- */

/* The page of a recorded original 2xx or 3xx, read back and processed. */
static crawl_err replay_record(struct crawl *c, const struct crawllog_rec *rec,
                               const struct frontier_score *own)
{
  if(strchr(rec->warc, '/') || !warc_file_serial(rec->warc, c->o.warc_prefix))
    return CRAWL_ERR_CORRUPT;  /* not a file this crawl writes */
  char *path = crawl_path(c->warc_dir, rec->warc);
  if(!path)
    return CRAWL_ERR_NOMEM;
  struct warc_record wr;
  crawl_err e = warc_read_at(path, rec->warc_offset, REPLAY_MAX_RECORD, &wr);
  mem_free(path);
  if(e) {
    struct log_ctx ctx = { .url = rec->url, .action = "resuming" };
    LOGC(LOG_WARN, &ctx, "cannot read back the page (%s): its links are lost",
         crawl_err_name(e));
    if(e != CRAWL_ERR_NOMEM && c->o.scorer) {  /* still a page the scorer counts */
      struct buf scratch;
      buf_init(&scratch, CRAWLLOG_EXTRA_MAX);
      e = crawl_page_scored(c, rec->url, rec->outcome, rec->status, own, &scratch);
      buf_free(&scratch);
      return e;
    }
    return e == CRAWL_ERR_NOMEM ? e : CRAWL_OK;
  }
  char *ctype = warc_record_http_header(&wr, "content-type");
  char *id = warc_record_field(&wr, "WARC-Record-ID");
  char *date = warc_record_field(&wr, "WARC-Date");
  struct warc_header h = { "Content-Type", ctype };
  struct crawl_result r = { rec->url, rec->outcome, rec->status, &h, ctype ? 1 : 0, wr.body,
                            wr.body_len, false, rec->redirect, warc_date_ms(date), 0, NULL, 0,
                            rec->robots, 0, 0 };
  /* The content-seen index learns the original's record as it was written. */
  unsigned char raw[WARC_ID_RAW];
  c->replay_id = warc_id_parse(id, raw) ? raw : NULL;
  e = crawl_visit(c, &r, rec->depth, own);
  c->replay_id = NULL;
  mem_free(ctype);
  mem_free(id);
  mem_free(date);
  warc_record_free(&wr);
  return e;
}

/* The URL is finished: never queued or submitted again. Not in memory,
 * it may wait on disk: it is skipped when read back. */
static crawl_err replay_finish(struct crawl *c, const struct crawllog_rec *rec, uint64_t fp)
{
  crawl_err e = fpset_add(&c->replayed, fp, NULL);
  if(!e && rec->sitemap && fpset_add(&c->sitemaps, fp, NULL) == CRAWL_ERR_NOMEM)
    e = CRAWL_ERR_NOMEM;
  if(e)
    return e == CRAWL_ERR_FULL ? CRAWL_ERR_TOO_LARGE : e;
  if(frontier_done(c->fr, fp, NULL) == CRAWL_ERR_NOT_FOUND)
    e = frontier_forget(c->fr, fp);
  return e;
}

/* The scorer sees the line as it saw the result then. */
static crawl_err replay_scored(struct crawl *c, const struct crawllog_rec *rec,
                               const struct frontier_score *own)
{
  struct buf scratch;
  buf_init(&scratch, CRAWLLOG_EXTRA_MAX);
  crawl_err e = crawl_page_scored(c, rec->url, rec->outcome ? rec->outcome : "error",
                                  rec->status, own, &scratch);
  buf_free(&scratch);
  return e;
}

/* A line with no page to read again: counted as it was counted then. */
static crawl_err replay_count(struct crawl *c, const struct crawllog_rec *rec,
                              const struct frontier_score *own)
{
  crawl_err e = c->o.scorer ? replay_scored(c, rec, own) : CRAWL_OK;
  if(e)
    return e;
  if(rec->outcome && !strcmp(rec->outcome, "rejected")) {
    c->st.pages++;
    c->st.rejected++;
    tally_add(&c->st.causes, rec->cause ? rec->cause : "rejected", 1);
    return CRAWL_OK;
  }
  const char *cause = rec->cause;
  if(!cause && !crawl_outcome_http(rec->outcome))
    cause = rec->outcome ? rec->outcome : "error";  /* as crawl_page_read names it */
  crawl_page_count(c, rec->outcome, rec->status, cause);
  c->st.dup_exact += rec->duplicate_of && (!rec->dup || !strcmp(rec->dup, "exact"));
  c->st.dup_near += rec->duplicate_of && rec->dup && !strcmp(rec->dup, "near");
  /* As crawl_page_read does for any HTTP answer. */
  bool http = crawl_outcome_http(rec->outcome) && rec->status > 0;
  c->st.seeds_fetched += http && rec->depth == 0 && rec->status >= 200 && rec->status < 400;
  if(!http)
    return CRAWL_OK;
  struct crawl_found f = { 0 };
  e = crawl_links_ascend(c, rec->url, rec->depth, &f);
  if(!e)
    e = crawl_admit(c, &f);
  crawl_found_free(&f);
  return e;
}

static crawl_err replay_line(void *arg, const struct crawllog_rec *rec)
{
  struct crawl *c = arg;
  struct frontier_score own = { 0, NULL, 0 };
  crawl_err e = c->o.scorer ? c->o.scorer->recorded(c->o.scorer->arg, rec->line,
                                                     rec->line_len, &own) : CRAWL_OK;
  if(!e)
    e = replay_finish(c, rec, hash_fp64(rec->url, strlen(rec->url)));
  if(e)
    return e;
  c->st.replayed++;
  if(rec->warc) {
    snprintf(c->out.last_warc, sizeof c->out.last_warc, "%s", rec->warc);
    c->out.last_warc_end = rec->warc_offset + rec->warc_length;
  }
  const struct frontier_score *o = c->o.scorer ? &own : NULL;
  /* A near duplicate is read back too: it may have links of its own. */
  bool near = rec->duplicate_of && rec->dup && !strcmp(rec->dup, "near");
  if(crawl_outcome_http(rec->outcome) && rec->warc && (!rec->duplicate_of || near) &&
     rec->status >= 200 && rec->status < 400)
    return replay_record(c, rec, o);
  return replay_count(c, rec, o);
}

/* Cut what the WARC files hold after the last record the log refers to. */
static void warc_cut(struct crawl *c)
{
  unsigned last = warc_file_serial(c->out.last_warc, c->o.warc_prefix);
  DIR *d = opendir(c->warc_dir);
  struct dirent *de;
  while(d && (de = readdir(d)) != NULL) {
    unsigned s = warc_file_serial(de->d_name, c->o.warc_prefix);
    char *path = s == 0 || s < last ? NULL : crawl_path(c->warc_dir, de->d_name);
    if(path && s > last)
      unlink(path);
    else if(path && truncate(path, (off_t)c->out.last_warc_end) != 0)
      LOG(LOG_WARN, "cannot cut %s after its last recorded page", de->d_name);
    mem_free(path);
  }
  if(d)
    closedir(d);
}

crawl_err crawl_resume(struct crawl *c)
{
  uint64_t from;
  crawl_err e = load_checkpoint(c, &from);
  if(e)
    return e;
  c->replaying = true;
  e = crawllog_scan(c->log_path, from, replay_line, c);
  c->replaying = false;
  if(e)
    return e;
  warc_cut(c);
  LOG(LOG_INFO, "resumed: checkpoint at %llu bytes of the crawl log, %llu lines replayed",
      (unsigned long long)from, (unsigned long long)c->st.replayed);
  return c->err;
}
