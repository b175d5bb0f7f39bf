#include "clients/crawl/seen_disk.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clients/crawl/seen_run.h"
#include "common/mem.h"

#define RUN_NAME_MAX 32
#define PATH_MAX_LEN 4096

struct run_ref {
  char     name[RUN_NAME_MAX];
  uint64_t count;
};

struct run_list {
  struct run_ref *v;
  size_t          n, cap;
};

struct seen_disk {
  char           *dir;
  unsigned        max_runs;
  struct run_list runs, retired;
  uint64_t        next_run, merges;
};

crawl_err seen_disk_open(const char *dir, unsigned max_runs, struct seen_disk **out)
{
  struct seen_disk *d = mem_calloc(1, sizeof *d);
  *out = NULL;
  if(!d || !(d->dir = mem_strdup(dir))) {
    mem_free(d);
    return CRAWL_ERR_NOMEM;
  }
  d->max_runs = max_runs ? max_runs : 4;
  d->next_run = 1;
  *out = d;
  return CRAWL_OK;
}

void seen_disk_close(struct seen_disk **dp)
{
  struct seen_disk *d = *dp;
  if(!d)
    return;
  *dp = NULL;
  mem_free(d->runs.v);
  mem_free(d->retired.v);
  mem_free(d->dir);
  mem_free(d);
}

static crawl_err disk_path(const struct seen_disk *d, const char *name, char *out)
{
  int n = snprintf(out, PATH_MAX_LEN, "%s/%s", d->dir, name);
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

static void run_name(struct seen_disk *d, struct run_ref *r)
{
  snprintf(r->name, sizeof r->name, "seen-%06" PRIu64 ".run", d->next_run++);
}

/* ---- Scans ------------------------------------------------------------- */

static crawl_err scan_run(const struct seen_disk *d, const struct run_ref *r,
                          const struct seen_key *k, size_t nk, uint8_t *found)
{
  char path[PATH_MAX_LEN];
  struct seen_run_r *rd = mem_alloc(sizeof *rd);
  crawl_err e = rd ? disk_path(d, r->name, path) : CRAWL_ERR_NOMEM;
  if(!e)
    e = seen_run_open(rd, path, NULL);
  uint64_t v;
  size_t j = 0;
  while(!e && j < nk && seen_run_next(rd, &v)) {
    while(j < nk && k[j].fp < v)
      j++;
    while(j < nk && k[j].fp == v)
      found[k[j++].idx] = 1;
  }
  if(!e)
    e = rd->err;
  if(rd)
    seen_run_close(rd);
  mem_free(rd);
  return e;
}

crawl_err seen_disk_scan(struct seen_disk *d, const struct seen_key *k, size_t n,
                         uint8_t *found)
{
  crawl_err e = CRAWL_OK;
  for(size_t r = 0; r < d->runs.n && !e; r++)
    e = scan_run(d, &d->runs.v[r], k, n, found);
  return e;
}

/* ---- Merges -------------------------------------------------------------- */

/* A k-way merge of the runs: one reader and its current value per run. */
struct merge {
  struct seen_run_r *rd;
  uint64_t          *head;
  bool              *live;
  size_t             n, opened;
};

static crawl_err merge_open(const struct seen_disk *d, struct merge *m)
{
  m->n = d->runs.n;
  m->rd = mem_calloc(m->n, sizeof *m->rd);
  m->head = mem_calloc(m->n, sizeof *m->head);
  m->live = mem_calloc(m->n, sizeof *m->live);
  crawl_err e = m->rd && m->head && m->live ? CRAWL_OK : CRAWL_ERR_NOMEM;
  for(; !e && m->opened < m->n; m->opened++) {
    char in[PATH_MAX_LEN];
    size_t i = m->opened;
    e = disk_path(d, d->runs.v[i].name, in);
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
static crawl_err merge_swap(struct seen_disk *d, const struct run_ref *out)
{
  crawl_err e = CRAWL_OK;
  for(size_t i = 0; !e && i < d->runs.n; i++)
    e = runs_push(&d->retired, &d->runs.v[i]);
  if(e)
    return e;
  d->runs.n = 0;
  d->merges++;
  return runs_push(&d->runs, out);  /* room exists: the list was just emptied */
}

static crawl_err disk_merge(struct seen_disk *d)
{
  struct merge m = { 0 };
  struct run_ref out;
  char path[PATH_MAX_LEN];
  struct seen_run_w *w = mem_calloc(1, sizeof *w);
  run_name(d, &out);
  crawl_err e = w ? merge_open(d, &m) : CRAWL_ERR_NOMEM;
  if(!e)
    e = disk_path(d, out.name, path);
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
  return e ? e : merge_swap(d, &out);
}

/* ---- Spills --------------------------------------------------------------- */

crawl_err seen_disk_spill(struct seen_disk *d, const uint64_t *v, size_t n)
{
  struct run_ref r = { "", n };
  char path[PATH_MAX_LEN];
  run_name(d, &r);
  crawl_err e = disk_path(d, r.name, path);
  if(!e)
    e = seen_run_write(path, v, n);
  if(!e)
    e = runs_push(&d->runs, &r);
  if(!e && d->runs.n > d->max_runs)
    e = disk_merge(d);
  return e;
}

void seen_disk_stats(const struct seen_disk *d, struct seen_disk_stats *st)
{
  st->runs = (unsigned)d->runs.n;
  st->merges = d->merges;
  st->disk_bytes = 0;
  for(size_t i = 0; i < d->runs.n; i++)
    st->disk_bytes += 16 + 8 * d->runs.v[i].count;
}

/* ---- Checkpoints ------------------------------------------------------------ */

void seen_disk_save(const struct seen_disk *d, struct ckfile *c)
{
  ckfile_put_u64(c, d->next_run);
  ckfile_put_u64(c, d->merges);
  ckfile_put_u64(c, d->runs.n);
  for(size_t i = 0; i < d->runs.n; i++) {
    ckfile_put_str(c, d->runs.v[i].name);
    ckfile_put_u64(c, d->runs.v[i].count);
  }
}

void seen_disk_commit(struct seen_disk *d)
{
  char path[PATH_MAX_LEN];
  for(size_t i = 0; i < d->retired.n; i++)
    if(!disk_path(d, d->retired.v[i].name, path))
      unlink(path);
  d->retired.n = 0;
}

static bool listed(const struct run_list *l, const char *name)
{
  for(size_t i = 0; i < l->n; i++)
    if(!strcmp(l->v[i].name, name))
      return true;
  return false;
}

/* Run files the checkpoint does not know were written after it. */
static void remove_strays(struct seen_disk *d)
{
  DIR *dir = opendir(d->dir);
  struct dirent *de;
  char path[PATH_MAX_LEN];
  while(dir && (de = readdir(dir)) != NULL) {
    if(strncmp(de->d_name, "seen-", 5) || listed(&d->runs, de->d_name))
      continue;
    if(!disk_path(d, de->d_name, path))
      unlink(path);
  }
  if(dir)
    closedir(dir);
}

static crawl_err load_run(struct seen_disk *d, struct ckfile *c)
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
  crawl_err e = disk_path(d, r.name, path);
  if(!e)
    e = seen_run_open(&rd, path, &count);
  if(!e)
    seen_run_close(&rd);
  if(!e && count != r.count)
    e = CRAWL_ERR_CORRUPT;
  return e ? e : runs_push(&d->runs, &r);
}

crawl_err seen_disk_load(struct seen_disk *d, struct ckfile *c)
{
  d->next_run = ckfile_get_u64(c);
  d->merges = ckfile_get_u64(c);
  uint64_t nruns = ckfile_get_u64(c);
  crawl_err e = CRAWL_OK;
  for(uint64_t i = 0; i < nruns && !e && !c->err; i++)
    e = load_run(d, c);
  if(!e)
    e = c->err;
  if(!e)
    remove_strays(d);
  return e;
}
