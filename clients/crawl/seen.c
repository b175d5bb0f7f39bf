#include "clients/crawl/seen.h"

#include <stdlib.h>
#include <string.h>

#include "clients/base/fpset.h"
#include "common/buf.h"
#include "common/mem.h"

struct seen_pend {
  uint64_t fp;
  size_t   off;
  uint32_t len;
};

/* Per pending entry: the entry, its key and its answer during a lookup. */
#define PEND_ENTRY_BYTES (sizeof(struct seen_pend) + sizeof(struct seen_key) + 1)

struct seen_batch {
  struct seen_pend *pend;
  size_t            n, cap;
  struct buf        recs;
};

/* A batch being looked up. keys is read by both threads once pushed;
 * found is written by the disk thread only, read at reap. */
struct scan_job {
  struct wq_job     j;
  struct seen      *s;
  struct seen_batch b;
  struct seen_key  *keys;
  uint8_t          *found;
};

/* A sorted run being written (and maybe merged with the others). */
struct spill_job {
  struct wq_job          j;
  struct seen           *s;
  uint64_t              *v;
  size_t                 n;
  struct seen_disk_stats after;
};

struct seen {
  size_t                 set_bytes, pend_bytes;
  seen_new_fn           *on_new;
  void                  *arg;
  struct wq             *wq;
  struct seen_disk      *disk;
  struct fpset           mem;
  struct seen_batch      cur;       /* being filled */
  struct scan_job       *scanning;  /* at most one batch looked up at a time */
  size_t                 spills_out, spill_bytes;
  bool                   has_runs;  /* a run exists, or is being written */
  bool                   emitting;  /* inside on_new */
  crawl_err              broken;    /* a failed job lost part of the set: sticky */
  struct seen_disk_stats disk_st;   /* as of the last spill answered */
  struct seen_stats      st;
};

static void batch_init(struct seen *s, struct seen_batch *b)
{
  memset(b, 0, sizeof *b);
  buf_init(&b->recs, s->pend_bytes / 2);
}

static void batch_free(struct seen_batch *b)
{
  mem_free(b->pend);
  buf_free(&b->recs);
  memset(b, 0, sizeof *b);
}

static size_t batch_mem(const struct seen_batch *b)
{
  return b->cap * sizeof *b->pend + b->recs.cap;
}

crawl_err seen_open(const struct seen_opts *o, struct seen **out)
{
  *out = NULL;
  if(!o->dir || !o->on_new || !o->wq)
    return CRAWL_ERR_INVALID;
  struct seen *s = mem_calloc(1, sizeof *s);
  if(!s)
    return CRAWL_ERR_NOMEM;
  crawl_err e = seen_disk_open(o->dir, o->max_runs, &s->disk);
  if(e) {
    mem_free(s);
    return e;
  }
  s->set_bytes = o->mem_budget / 4 * 3;
  fpset_init(&s->mem, s->set_bytes);
  /* The rest: the batch filled and the one looked up, together. */
  s->pend_bytes = o->mem_budget - s->set_bytes;
  batch_init(s, &s->cur);
  s->on_new = o->on_new;
  s->arg = o->arg;
  s->wq = o->wq;
  *out = s;
  return CRAWL_OK;
}

void seen_close(struct seen **sp)
{
  struct seen *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  wq_drain(s->wq);  /* jobs point at s */
  fpset_free(&s->mem);
  batch_free(&s->cur);
  seen_disk_close(&s->disk);
  mem_free(s);
}

struct seen_disk *seen_disk_of(struct seen *s)
{
  return s->disk;
}

/* ---- Looking a batch up ----------------------------------------------------- */

/* The pending budget: half for entries, half for records, shared by the
 * batch filled and the one being looked up. A batch is sent at two thirds
 * of it, so the next one has a third to fill while the disk thread looks
 * the first up: large batches (few passes over the runs) and the loop
 * waits only when a third fills faster than a pass. */
static size_t entries_total(const struct seen *s)
{
  return s->pend_bytes / 2 / PEND_ENTRY_BYTES;
}

static size_t recs_total(const struct seen *s)
{
  return s->pend_bytes / 2;
}

static size_t less(size_t a, size_t b)
{
  return a > b ? a - b : 0;
}

/* Room of the batch being filled: what the one being looked up leaves. */
static size_t batch_max_entries(const struct seen *s)
{
  return less(entries_total(s), s->scanning ? s->scanning->b.cap : 0);
}

static bool batch_fits(struct seen *s, size_t len)
{
  size_t recs = less(recs_total(s), s->scanning ? s->scanning->b.recs.cap : 0);
  s->cur.recs.max = recs > s->cur.recs.cap ? recs : s->cur.recs.cap;
  return s->cur.n + 1 <= batch_max_entries(s) && s->cur.recs.len + len <= recs;
}

static bool batch_ripe(const struct seen *s)
{
  return 3 * s->cur.n >= 2 * entries_total(s) || 3 * s->cur.recs.len >= 2 * recs_total(s);
}

static crawl_err pend_push(struct seen *s, uint64_t fp, const void *rec, size_t len)
{
  struct seen_batch *b = &s->cur;
  if(b->n == b->cap) {
    size_t ncap = b->cap ? b->cap * 2 : 256;
    if(ncap > batch_max_entries(s))
      ncap = batch_max_entries(s);
    struct seen_pend *nv = mem_realloc(b->pend, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    b->pend = nv;
    b->cap = ncap;
  }
  size_t off = b->recs.len;
  if(buf_add(&b->recs, rec, len))
    return CRAWL_ERR_NOMEM;
  b->pend[b->n++] = (struct seen_pend){ fp, off, (uint32_t)len };
  return CRAWL_OK;
}

static int key_cmp(const void *a, const void *b)
{
  uint64_t x = ((const struct seen_key *)a)->fp, y = ((const struct seen_key *)b)->fp;
  return (x > y) - (x < y);
}

static crawl_err scan_run(struct wq_job *j)
{
  struct scan_job *sj = (struct scan_job *)j;
  return seen_disk_scan(sj->s->disk, sj->keys, sj->b.n, sj->found);
}

/* New ones to on_new, in the order they were added. */
static void scan_emit(struct seen *s, struct scan_job *sj)
{
  s->emitting = true;
  for(size_t i = 0; i < sj->b.n; i++) {
    const struct seen_pend *p = &sj->b.pend[i];
    if(sj->found[i]) {
      s->st.pending_old++;
      continue;
    }
    s->st.pending_new++;
    s->st.distinct++;
    s->on_new(s->arg, p->fp, sj->b.recs.data + p->off, p->len);
  }
  s->emitting = false;
}

static void scan_done(struct wq_job *j, crawl_err e)
{
  struct scan_job *sj = (struct scan_job *)j;
  struct seen *s = sj->s;
  s->scanning = NULL;
  if(e && !s->broken)
    s->broken = e;
  if(!e)
    scan_emit(s, sj);
  batch_free(&sj->b);
  mem_free(sj->keys);
  mem_free(sj->found);
  mem_free(sj);
}

/* The batch's keys, sorted, for the disk thread's one pass over the runs. */
static struct scan_job *scan_new(const struct seen_batch *b)
{
  struct scan_job *sj = mem_calloc(1, sizeof *sj);
  if(sj) {
    sj->keys = mem_alloc(b->n * sizeof *sj->keys);
    sj->found = mem_calloc(b->n, 1);
  }
  if(sj && sj->keys && sj->found) {
    for(size_t i = 0; i < b->n; i++)
      sj->keys[i] = (struct seen_key){ b->pend[i].fp, i };
    qsort(sj->keys, b->n, sizeof *sj->keys, key_cmp);
    return sj;
  }
  if(sj) {
    mem_free(sj->keys);
    mem_free(sj->found);
  }
  mem_free(sj);
  return NULL;
}

crawl_err seen_flush(struct seen *s)
{
  if(s->broken || s->cur.n == 0 || s->scanning)
    return s->broken;
  struct scan_job *sj = scan_new(&s->cur);
  if(!sj)
    return CRAWL_ERR_NOMEM;
  size_t n = s->cur.n;
  sj->s = s;
  sj->b = s->cur;
  batch_init(s, &s->cur);
  sj->j = (struct wq_job){ .run = scan_run, .done = scan_done,
                           .bytes = batch_mem(&sj->b) + n * (sizeof *sj->keys + 1) };
  s->scanning = sj;
  s->st.flushes++;
  wq_push(s->wq, &sj->j);
  return CRAWL_OK;
}

/* The batch is full: send it, after the one being looked up. */
static crawl_err batch_room(struct seen *s)
{
  while(s->scanning && !s->broken && wq_wait(s->wq))
    ;
  if(s->scanning && !s->broken)
    return CRAWL_ERR_INVALID;  /* waiting from inside a done function */
  return seen_flush(s);
}

crawl_err seen_settle(struct seen *s)
{
  while(!s->broken && (s->scanning || s->cur.n)) {
    if(!s->scanning) {
      crawl_err e = seen_flush(s);
      if(e)
        return e;
    } else if(!wq_wait(s->wq)) {
      return CRAWL_ERR_INVALID;
    }
  }
  return s->broken;
}

size_t seen_pending(const struct seen *s)
{
  return s->cur.n + (s->scanning ? s->scanning->b.n : 0);
}

/* ---- Spills ---------------------------------------------------------------- */

static void mem_limit(struct seen *s)
{
  size_t left = s->set_bytes > s->spill_bytes ? s->set_bytes - s->spill_bytes : 0;
  s->mem.max_bytes = left < FPSET_MIN_BYTES ? FPSET_MIN_BYTES : left;
}

static crawl_err spill_run(struct wq_job *j)
{
  struct spill_job *sp = (struct spill_job *)j;
  crawl_err e = seen_disk_spill(sp->s->disk, sp->v, sp->n);
  seen_disk_stats(sp->s->disk, &sp->after);
  mem_free(sp->v);  /* the run is on disk: its memory goes now */
  sp->v = NULL;
  return e;
}

static void spill_done(struct wq_job *j, crawl_err e)
{
  struct spill_job *sp = (struct spill_job *)j;
  struct seen *s = sp->s;
  s->spills_out--;
  s->spill_bytes -= sp->n * sizeof *sp->v;
  mem_limit(s);
  if(e && !s->broken)
    s->broken = e;  /* that run's fingerprints are gone: stop answering */
  if(!e) {
    s->disk_st = sp->after;
    s->st.merges = sp->after.merges;
  }
  mem_free(sp->v);
  mem_free(sp);
}

static int u64_cmp(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The fingerprints of the batches, sorted: they stay in memory. */
static uint64_t *pending_sorted(const struct seen *s, size_t *n)
{
  size_t a = s->cur.n, b = s->scanning ? s->scanning->b.n : 0;
  uint64_t *p = mem_alloc((a + b + 1) * sizeof *p);
  if(!p)
    return NULL;
  for(size_t i = 0; i < a; i++)
    p[i] = s->cur.pend[i].fp;
  for(size_t i = 0; i < b; i++)
    p[a + i] = s->scanning->keys[i].fp;
  qsort(p, a + b, sizeof *p, u64_cmp);
  *n = a + b;
  return p;
}

static bool sorted_has(const uint64_t *p, size_t n, size_t *at, uint64_t v)
{
  while(*at < n && p[*at] < v)
    (*at)++;
  return *at < n && p[*at] == v;
}

/* Sort the set in place and keep, at the front of its table, what goes to
 * the run: every value but the pending ones. Returns the table, taken
 * from the set (now empty, with no table). */
static uint64_t *spill_take(struct seen *s, const uint64_t *p, size_t np, size_t *m)
{
  size_t n, k = 0, at = 0;
  bool zero = s->mem.has_zero && !(np && p[0] == 0);
  uint64_t *v = (uint64_t *)fpset_take_sorted(&s->mem, &n);
  for(size_t i = 0; i < n; i++)
    if(!sorted_has(p, np, &at, v[i]))
      v[k++] = v[i];
  if(zero) {  /* room: the table had a free slot at least */
    memmove(v + 1, v, k * sizeof *v);
    v[0] = 0;
    k++;
  }
  s->mem.slot = NULL;
  s->mem.cap = s->mem.count = 0;
  s->mem.has_zero = false;
  *m = k;
  return v;
}

/* Wait for a run being written, when the set needs its memory. */
static bool mem_wait(struct seen *s)
{
  return s->spills_out > 0 && !s->broken && wq_wait(s->wq);
}

static crawl_err mem_add(struct seen *s, uint64_t fp)
{
  crawl_err e;
  while((e = fpset_add(&s->mem, fp, NULL)) == CRAWL_ERR_FULL && mem_wait(s))
    ;
  return e;
}

static crawl_err spill_push(struct seen *s, uint64_t *v, size_t m)
{
  if(m == 0) {  /* every value is pending: they stay in memory */
    mem_free(v);
    return CRAWL_OK;
  }
  struct spill_job *sp = mem_calloc(1, sizeof *sp);
  if(!sp) {
    mem_free(v);
    return CRAWL_ERR_NOMEM;
  }
  uint64_t *fit = mem_realloc(v, m * sizeof *v);  /* the table was larger */
  *sp = (struct spill_job){ .s = s, .v = fit ? fit : v, .n = m };
  sp->j = (struct wq_job){ .run = spill_run, .done = spill_done, .bytes = m * sizeof *v };
  s->spills_out++;
  s->spill_bytes += sp->j.bytes;
  s->has_runs = true;
  s->st.spills++;
  mem_limit(s);
  wq_push(s->wq, &sp->j);
  return CRAWL_OK;
}

/* Hand the set to the disk thread as a run, keeping the pending ones. */
static crawl_err seen_spill(struct seen *s)
{
  size_t np, m;
  uint64_t *p = pending_sorted(s, &np);
  if(!p)
    return CRAWL_ERR_NOMEM;  /* nothing lost: the set is intact */
  uint64_t *v = spill_take(s, p, np, &m);
  crawl_err e = spill_push(s, v, m);
  for(size_t i = 0; !e && i < np; i++)
    e = mem_add(s, p[i]);
  mem_free(p);
  if(e && !s->broken)
    s->broken = e;  /* the set lost values: stop answering */
  return e;
}

/* The set is full: wait for a run being written to free its memory, or
 * write one. */
static crawl_err mem_room(struct seen *s)
{
  while(fpset_full(&s->mem) && mem_wait(s))
    ;
  return fpset_full(&s->mem) ? seen_spill(s) : CRAWL_OK;
}

/* ---- Adding ------------------------------------------------------------ */

crawl_err seen_add(struct seen *s, uint64_t fp, const void *rec, size_t len,
                   enum seen_answer *ans)
{
  *ans = SEEN_OLD;
  if(s->broken)
    return s->broken;
  if(s->emitting)
    return CRAWL_ERR_INVALID;  /* see seen_new_fn */
  s->st.lookups++;
  if(fpset_has(&s->mem, fp)) {
    s->st.mem_hits++;
    return CRAWL_OK;
  }
  crawl_err e = mem_room(s);
  if(!e && s->has_runs && !batch_fits(s, len))
    e = batch_room(s);
  if(!e && s->has_runs && !batch_fits(s, len))
    e = CRAWL_ERR_TOO_LARGE;  /* one record over the whole batch budget */
  if(!e && s->has_runs)
    e = pend_push(s, fp, rec, len);
  if(e)
    return e;
  e = mem_add(s, fp);
  if(e && s->has_runs)
    s->cur.n--;  /* undo: the record's bytes are reclaimed with the batch */
  if(!e && s->has_runs && !s->scanning && batch_ripe(s))
    e = seen_flush(s);
  if(e)
    return e;
  *ans = s->has_runs ? SEEN_PENDING : SEEN_NEW;
  if(*ans == SEEN_NEW)
    s->st.distinct++;
  return CRAWL_OK;
}

void seen_stats(const struct seen *s, struct seen_stats *st)
{
  *st = s->st;
  st->pending = seen_pending(s);
  st->in_memory = s->mem.count;
  st->runs = s->disk_st.runs;
  st->disk_bytes = s->disk_st.disk_bytes;
  st->mem_bytes = fpset_bytes(&s->mem) + batch_mem(&s->cur) + s->spill_bytes;
  if(s->scanning)
    st->mem_bytes += s->scanning->j.bytes;
}

/* ---- Checkpoints ------------------------------------------------------- */

static void batch_save(const struct seen_batch *b, struct ckfile *c)
{
  for(size_t i = 0; i < b->n; i++) {
    ckfile_put_u64(c, b->pend[i].fp);
    ckfile_put_u64(c, b->pend[i].len);
    ckfile_put_bytes(c, b->recs.data + b->pend[i].off, b->pend[i].len);
  }
}

void seen_save(const struct seen *s, struct ckfile *c)
{
  ckfile_put_u64(c, seen_pending(s));  /* in the order they were added */
  if(s->scanning)
    batch_save(&s->scanning->b, c);
  batch_save(&s->cur, c);
  ckfile_put_u64(c, s->mem.count);
  if(s->mem.has_zero)
    ckfile_put_u64(c, 0);
  for(size_t i = 0; i < s->mem.cap; i++)
    if(s->mem.slot[i])
      ckfile_put_u64(c, s->mem.slot[i]);
  ckfile_put_u64(c, s->st.distinct);
  ckfile_put_u64(c, s->st.spills);
}

/* A pending record back into the batch (its fingerprint comes back with
 * the set, next). */
static crawl_err load_pending(struct seen *s, struct ckfile *c)
{
  uint64_t fp = ckfile_get_u64(c), len = ckfile_get_u64(c);
  if(c->err || len > s->cur.recs.max) {
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
    return c->err;
  }
  char *rec = mem_alloc(len + 1);
  if(!rec)
    return CRAWL_ERR_NOMEM;
  ckfile_get_bytes(c, rec, (size_t)len);
  crawl_err e = c->err;
  if(!e && !batch_fits(s, (size_t)len))
    e = batch_room(s);
  if(!e)
    e = pend_push(s, fp, rec, (size_t)len);
  mem_free(rec);
  return e;
}

crawl_err seen_load(struct seen *s, struct ckfile *c)
{
  struct seen_disk_stats ds;
  seen_disk_stats(s->disk, &ds);
  s->disk_st = ds;
  s->st.merges = ds.merges;
  s->has_runs = ds.runs > 0;
  uint64_t np = ckfile_get_u64(c);
  crawl_err e = np && !s->has_runs ? CRAWL_ERR_CORRUPT : CRAWL_OK;
  for(uint64_t i = 0; i < np && !e && !c->err; i++)
    e = load_pending(s, c);
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !e && !c->err; i++) {
    uint64_t v = ckfile_get_u64(c);
    e = mem_room(s);  /* a smaller budget now */
    if(!e)
      e = mem_add(s, v);
  }
  s->st.distinct = ckfile_get_u64(c);
  s->st.spills = ckfile_get_u64(c);
  return e ? e : c->err;
}
