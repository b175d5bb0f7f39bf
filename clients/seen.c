#include "clients/seen.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/fpset.h"
#include "clients/seen_run.h"
#include "common/buf.h"
#include "common/mem.h"

#define RUN_NAME_MAX 32
#define PATH_MAX_LEN 4096

struct seen_pend {
  uint64_t fp;
  size_t   off;
  uint32_t len;
  uint32_t found;  /* set by the pass over the runs */
};

/* Per pending entry: the entry and its sort key during a flush. */
#define PEND_ENTRY_BYTES (sizeof(struct seen_pend) + sizeof(struct pend_key))

struct pend_key {
  uint64_t fp;
  size_t   idx;
};

struct run_ref {
  char     name[RUN_NAME_MAX];
  uint64_t count;
};

struct run_list {
  struct run_ref *v;
  size_t          n, cap;
};

struct seen {
  char             *dir;
  size_t            pend_budget;  /* half for entries, half for records */
  unsigned          max_runs;
  seen_new_fn      *on_new;
  void             *arg;
  struct fpset      mem;
  struct seen_pend *pend;
  size_t            npend, pend_cap;
  struct buf        recs;
  struct run_list   runs, retired;
  uint64_t          next_run;
  crawl_err         broken;  /* a failed spill lost the set: sticky */
  bool              emitting;  /* inside on_new */
  struct seen_stats st;
};

crawl_err seen_open(const struct seen_opts *o, struct seen **out)
{
  *out = NULL;
  if(!o->dir || !o->on_new)
    return CRAWL_ERR_INVALID;
  struct seen *s = mem_calloc(1, sizeof *s);
  if(!s || !(s->dir = mem_strdup(o->dir))) {
    mem_free(s);
    return CRAWL_ERR_NOMEM;
  }
  size_t set_bytes = o->mem_budget / 4 * 3;
  fpset_init(&s->mem, set_bytes);
  s->pend_budget = o->mem_budget - set_bytes;
  buf_init(&s->recs, s->pend_budget / 2);
  s->max_runs = o->max_runs ? o->max_runs : 4;
  s->on_new = o->on_new;
  s->arg = o->arg;
  s->next_run = 1;
  *out = s;
  return CRAWL_OK;
}

void seen_close(struct seen **sp)
{
  struct seen *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  fpset_free(&s->mem);
  mem_free(s->pend);
  buf_free(&s->recs);
  mem_free(s->runs.v);
  mem_free(s->retired.v);
  mem_free(s->dir);
  mem_free(s);
}

static crawl_err seen_path(const struct seen *s, const char *name, char *out)
{
  int n = snprintf(out, PATH_MAX_LEN, "%s/%s", s->dir, name);
  return n > 0 && n < PATH_MAX_LEN ? CRAWL_OK : CRAWL_ERR_TOO_LARGE;
}

static crawl_err runs_push(struct run_list *l, const struct run_ref *r)
{
  if(l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 8;
    struct run_ref *nv = mem_realloc(l->v, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    l->v = nv;
    l->cap = ncap;
  }
  l->v[l->n++] = *r;
  return CRAWL_OK;
}

/* ---- The pending batch ------------------------------------------------- */

static size_t pend_max_entries(const struct seen *s)
{
  return s->pend_budget / 2 / PEND_ENTRY_BYTES;
}

static bool pend_fits(const struct seen *s, size_t len)
{
  return s->npend + 1 <= pend_max_entries(s) && len <= s->recs.max - s->recs.len;
}

static crawl_err pend_push(struct seen *s, uint64_t fp, const void *rec, size_t len)
{
  if(s->npend == s->pend_cap) {
    size_t ncap = s->pend_cap ? s->pend_cap * 2 : 256;
    if(ncap > pend_max_entries(s))
      ncap = pend_max_entries(s);
    struct seen_pend *nv = mem_realloc(s->pend, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    s->pend = nv;
    s->pend_cap = ncap;
  }
  size_t off = s->recs.len;
  if(buf_add(&s->recs, rec, len))
    return CRAWL_ERR_NOMEM;
  s->pend[s->npend++] = (struct seen_pend){ fp, off, (uint32_t)len, 0 };
  return CRAWL_OK;
}

static int key_cmp(const void *a, const void *b)
{
  uint64_t x = ((const struct pend_key *)a)->fp, y = ((const struct pend_key *)b)->fp;
  return (x > y) - (x < y);
}

/* One sequential pass over a run, marking the pending entries it holds. */
static crawl_err scan_run(struct seen *s, const struct run_ref *r,
                          const struct pend_key *k, size_t nk)
{
  char path[PATH_MAX_LEN];
  struct seen_run_r *rd = mem_alloc(sizeof *rd);
  crawl_err e = rd ? seen_path(s, r->name, path) : CRAWL_ERR_NOMEM;
  if(!e)
    e = seen_run_open(rd, path, NULL);
  uint64_t v;
  size_t j = 0;
  while(!e && j < nk && seen_run_next(rd, &v)) {
    while(j < nk && k[j].fp < v)
      j++;
    if(j < nk && k[j].fp == v)
      s->pend[k[j++].idx].found = 1;
  }
  if(!e)
    e = rd->err;
  if(rd)
    seen_run_close(rd);
  mem_free(rd);
  return e;
}

static crawl_err pend_resolve(struct seen *s)
{
  struct pend_key *k = mem_alloc(s->npend * sizeof *k);
  if(!k)
    return CRAWL_ERR_NOMEM;
  for(size_t i = 0; i < s->npend; i++)
    k[i] = (struct pend_key){ s->pend[i].fp, i };
  qsort(k, s->npend, sizeof *k, key_cmp);
  crawl_err e = CRAWL_OK;
  for(size_t r = 0; r < s->runs.n && !e; r++)
    e = scan_run(s, &s->runs.v[r], k, s->npend);
  mem_free(k);
  return e;
}

crawl_err seen_flush(struct seen *s)
{
  if(s->broken)
    return s->broken;
  if(s->npend == 0)
    return CRAWL_OK;
  crawl_err e = pend_resolve(s);
  if(e)
    return e;
  /* Detach the batch: the set is consistent while on_new runs. */
  struct seen_pend *p = s->pend;
  size_t n = s->npend;
  struct buf recs = s->recs;
  s->pend = NULL;
  s->npend = s->pend_cap = 0;
  buf_init(&s->recs, recs.max);
  s->st.flushes++;
  s->emitting = true;
  for(size_t i = 0; i < n; i++) {
    if(p[i].found) {
      s->st.pending_old++;
      continue;
    }
    s->st.pending_new++;
    s->st.distinct++;
    s->on_new(s->arg, p[i].fp, recs.data + p[i].off, p[i].len);
  }
  s->emitting = false;
  mem_free(p);
  buf_free(&recs);
  return CRAWL_OK;
}

/* ---- Spills and merges ------------------------------------------------- */

static void run_name(struct seen *s, struct run_ref *r)
{
  snprintf(r->name, sizeof r->name, "seen-%06" PRIu64 ".run", s->next_run++);
}

/* A k-way merge of the runs: one reader and its current value per run. */
struct merge {
  struct seen_run_r *rd;
  uint64_t          *head;
  bool              *live;
  size_t             n, opened;
};

static crawl_err merge_open(struct seen *s, struct merge *m)
{
  m->n = s->runs.n;
  m->rd = mem_calloc(m->n, sizeof *m->rd);
  m->head = mem_calloc(m->n, sizeof *m->head);
  m->live = mem_calloc(m->n, sizeof *m->live);
  crawl_err e = m->rd && m->head && m->live ? CRAWL_OK : CRAWL_ERR_NOMEM;
  for(; !e && m->opened < m->n; m->opened++) {
    char in[PATH_MAX_LEN];
    size_t i = m->opened;
    e = seen_path(s, s->runs.v[i].name, in);
    if(!e)
      e = seen_run_open(&m->rd[i], in, NULL);
    if(!e)
      m->live[i] = seen_run_next(&m->rd[i], &m->head[i]);
  }
  return e;
}

/* Smallest head first; the writer drops repeats. */
static crawl_err merge_run(struct merge *m, struct seen_run_w *w)
{
  for(;;) {
    size_t k = m->n;
    for(size_t i = 0; i < m->n; i++)
      if(m->live[i] && (k == m->n || m->head[i] < m->head[k]))
        k = i;
    if(k == m->n)
      return CRAWL_OK;
    seen_run_put(w, m->head[k]);
    m->live[k] = seen_run_next(&m->rd[k], &m->head[k]);
    if(!m->live[k] && m->rd[k].err)
      return m->rd[k].err;
  }
}

static void merge_close(struct merge *m)
{
  for(size_t i = 0; i < m->opened && m->rd; i++)
    seen_run_close(&m->rd[i]);
  mem_free(m->rd);
  mem_free(m->head);
  mem_free(m->live);
}

/* The merged run replaces the inputs, which are retired, not removed. */
static crawl_err merge_swap(struct seen *s, const struct run_ref *out)
{
  crawl_err e = CRAWL_OK;
  for(size_t i = 0; !e && i < s->runs.n; i++)
    e = runs_push(&s->retired, &s->runs.v[i]);
  if(e)
    return e;
  s->runs.n = 0;
  s->st.merges++;
  return runs_push(&s->runs, out);  /* room exists: the list was just emptied */
}

/* Merge every run into one. */
static crawl_err seen_merge(struct seen *s)
{
  struct merge m = { 0 };
  struct run_ref out;
  char path[PATH_MAX_LEN];
  struct seen_run_w *w = mem_calloc(1, sizeof *w);
  run_name(s, &out);
  crawl_err e = w ? merge_open(s, &m) : CRAWL_ERR_NOMEM;
  if(!e)
    e = seen_path(s, out.name, path);
  if(!e)
    e = seen_run_create(w, path);
  if(!e)
    e = merge_run(&m, w);
  out.count = w ? w->count : 0;
  if(!e)
    e = seen_run_commit(w);
  else if(w && w->f)
    seen_run_abort(w);
  merge_close(&m);
  mem_free(w);
  return e ? e : merge_swap(s, &out);
}

static crawl_err spill_open(struct seen *s, struct run_ref *r, struct seen_run_w **wp)
{
  char path[PATH_MAX_LEN];
  run_name(s, r);
  crawl_err e = seen_path(s, r->name, path);
  struct seen_run_w *w = e ? NULL : mem_alloc(sizeof *w);
  if(!e && !w)
    e = CRAWL_ERR_NOMEM;
  if(!e)
    e = seen_run_create(w, path);
  if(e)
    mem_free(w);
  *wp = e ? NULL : w;
  return e;
}

/* Write the in-memory set as a run and empty it. */
static crawl_err seen_spill(struct seen *s)
{
  crawl_err e = seen_flush(s);
  struct run_ref r = { "", 0 };
  struct seen_run_w *w = NULL;
  if(!e)
    e = spill_open(s, &r, &w);
  if(e)
    return e;  /* nothing lost: the set is intact */
  size_t n;
  bool zero = s->mem.has_zero;
  const uint64_t *v = fpset_take_sorted(&s->mem, &n);
  if(zero)
    seen_run_put(w, 0);
  for(size_t i = 0; i < n; i++)
    seen_run_put(w, v[i]);
  r.count = w->count;
  e = seen_run_commit(w);
  mem_free(w);
  fpset_clear(&s->mem);
  if(!e)
    e = runs_push(&s->runs, &r);
  if(e)
    return s->broken = e;  /* the set's content is gone: stop answering */
  s->st.spills++;
  return s->runs.n > s->max_runs ? seen_merge(s) : CRAWL_OK;
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
  crawl_err e = fpset_full(&s->mem) ? seen_spill(s) : CRAWL_OK;
  if(!e && s->runs.n > 0 && !pend_fits(s, len))
    e = seen_flush(s);
  if(!e && s->runs.n > 0 && !pend_fits(s, len))
    e = CRAWL_ERR_TOO_LARGE;  /* one record over the whole batch budget */
  if(!e && s->runs.n > 0)
    e = pend_push(s, fp, rec, len);
  if(e)
    return e;
  e = fpset_add(&s->mem, fp, NULL);
  if(e && s->runs.n > 0)
    s->npend--;  /* undo: the record's bytes are reclaimed at the flush */
  if(e)
    return e;
  *ans = s->runs.n > 0 ? SEEN_PENDING : SEEN_NEW;
  if(*ans == SEEN_NEW)
    s->st.distinct++;
  return CRAWL_OK;
}

size_t seen_pending(const struct seen *s)
{
  return s->npend;
}

void seen_stats(const struct seen *s, struct seen_stats *st)
{
  *st = s->st;
  st->pending = s->npend;
  st->in_memory = s->mem.count;
  st->runs = (unsigned)s->runs.n;
  st->mem_bytes = fpset_bytes(&s->mem) + s->pend_cap * sizeof *s->pend + s->recs.cap;
  st->disk_bytes = 0;
  for(size_t i = 0; i < s->runs.n; i++)
    st->disk_bytes += 16 + 8 * s->runs.v[i].count;
}

/* ---- Checkpoints ------------------------------------------------------- */

crawl_err seen_save(struct seen *s, struct ckfile *c)
{
  crawl_err e = seen_flush(s);
  if(e)
    return e;
  ckfile_put_u64(c, s->next_run);
  ckfile_put_u64(c, s->runs.n);
  for(size_t i = 0; i < s->runs.n; i++) {
    ckfile_put_str(c, s->runs.v[i].name);
    ckfile_put_u64(c, s->runs.v[i].count);
  }
  ckfile_put_u64(c, s->mem.count);
  if(s->mem.has_zero)
    ckfile_put_u64(c, 0);
  for(size_t i = 0; i < s->mem.cap; i++)
    if(s->mem.slot[i])
      ckfile_put_u64(c, s->mem.slot[i]);
  ckfile_put_u64(c, s->st.distinct);
  ckfile_put_u64(c, s->st.spills);
  ckfile_put_u64(c, s->st.merges);
  return CRAWL_OK;
}

void seen_commit(struct seen *s)
{
  char path[PATH_MAX_LEN];
  for(size_t i = 0; i < s->retired.n; i++)
    if(!seen_path(s, s->retired.v[i].name, path))
      unlink(path);
  s->retired.n = 0;
}

static bool listed(const struct run_list *l, const char *name)
{
  for(size_t i = 0; i < l->n; i++)
    if(!strcmp(l->v[i].name, name))
      return true;
  return false;
}

/* Run files the checkpoint does not know were written after it. */
static void remove_strays(struct seen *s)
{
  DIR *d = opendir(s->dir);
  struct dirent *de;
  char path[PATH_MAX_LEN];
  while(d && (de = readdir(d)) != NULL) {
    if(strncmp(de->d_name, "seen-", 5) || listed(&s->runs, de->d_name))
      continue;
    if(!seen_path(s, de->d_name, path))
      unlink(path);
  }
  if(d)
    closedir(d);
}

static crawl_err load_run(struct seen *s, struct ckfile *c)
{
  struct run_ref r = { "", 0 };
  char *name = ckfile_get_str(c, RUN_NAME_MAX - 1);
  r.count = ckfile_get_u64(c);
  if(!name)
    return c->err ? c->err : CRAWL_ERR_CORRUPT;
  memcpy(r.name, name, strlen(name) + 1);
  mem_free(name);
  char path[PATH_MAX_LEN];
  struct seen_run_r rd;
  uint64_t count = 0;
  crawl_err e = seen_path(s, r.name, path);
  if(!e)
    e = seen_run_open(&rd, path, &count);
  if(!e)
    seen_run_close(&rd);
  if(!e && count != r.count)
    e = CRAWL_ERR_CORRUPT;
  return e ? e : runs_push(&s->runs, &r);
}

crawl_err seen_load(struct seen *s, struct ckfile *c)
{
  s->next_run = ckfile_get_u64(c);
  uint64_t nruns = ckfile_get_u64(c);
  crawl_err e = CRAWL_OK;
  for(uint64_t i = 0; i < nruns && !e && !c->err; i++)
    e = load_run(s, c);
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !e && !c->err; i++) {
    uint64_t v = ckfile_get_u64(c);
    e = fpset_full(&s->mem) ? seen_spill(s) : CRAWL_OK;  /* a smaller budget now */
    if(!e)
      e = fpset_add(&s->mem, v, NULL);
  }
  s->st.distinct = ckfile_get_u64(c);
  s->st.spills = ckfile_get_u64(c);
  s->st.merges = ckfile_get_u64(c);
  if(!e)
    e = c->err;
  if(!e)
    remove_strays(s);
  return e;
}
