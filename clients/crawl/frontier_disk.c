#include "clients/crawl/frontier_disk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/base/le.h"
#include "common/buf.h"
#include "common/mem.h"

#define L            FRONTIER_DISK_LEVELS
#define PATH_MAX_LEN 4096
#define SEGS_MAX     (1u << 20)  /* per level, in a checkpoint */
#define RETIRED_MAX  4096        /* waiting for a checkpoint; past it, kept */

struct fseg {
  uint64_t serial;
  uint64_t size;     /* bytes handed to the disk thread */
};

struct flevel {
  struct fseg *seg;     /* oldest first; the last one is written to */
  size_t       nseg, cap;
  uint64_t     rd_off;  /* in seg[0] */
  uint64_t     queued, bytes;
  struct buf   wbuf;    /* records not yet handed over */
};

struct frontier_disk {
  char         *dir;
  struct wq    *wq;
  uint64_t      seg_bytes, next_serial;
  struct flevel lv[L];
  bool          reading;
  char         *retired[RETIRED_MAX];
  size_t        nretired;
  uint64_t      spilled, refilled, spilled_bytes;
};

crawl_err frontier_disk_open(const char *dir, struct wq *wq, size_t buf_bytes,
                             uint64_t seg_bytes, struct frontier_disk **out)
{
  struct frontier_disk *d = mem_calloc(1, sizeof *d);
  *out = NULL;
  if(!d || !(d->dir = mem_strdup(dir))) {
    mem_free(d);
    return CRAWL_ERR_NOMEM;
  }
  d->wq = wq;
  d->seg_bytes = seg_bytes;
  d->next_serial = 1;
  for(unsigned l = 0; l < L; l++)
    buf_init(&d->lv[l].wbuf, buf_bytes);
  *out = d;
  return CRAWL_OK;
}

void frontier_disk_close(struct frontier_disk **dp)
{
  struct frontier_disk *d = *dp;
  if(!d)
    return;
  *dp = NULL;
  for(unsigned l = 0; l < L; l++) {
    mem_free(d->lv[l].seg);
    buf_free(&d->lv[l].wbuf);
  }
  for(size_t i = 0; i < d->nretired; i++)
    mem_free(d->retired[i]);
  mem_free(d->dir);
  mem_free(d);
}

static int seg_path(const struct frontier_disk *d, unsigned l, uint64_t serial, char *out)
{
  int n = snprintf(out, PATH_MAX_LEN, "%s/frontier-L%u-%06" PRIu64 ".q", d->dir, l, serial);
  return n > 0 && n < PATH_MAX_LEN ? 0 : -1;
}

uint64_t frontier_disk_queued(const struct frontier_disk *d, unsigned level)
{
  return level < L ? d->lv[level].queued : 0;
}

bool frontier_disk_reading(const struct frontier_disk *d)
{
  return d->reading;
}

/* ---- Records -------------------------------------------------------------- */

static size_t rec_size(const struct frontier_rec *r)
{
  return FRONTIER_REC_HEAD + r->url_len + r->host_len;
}

static cm_err rec_encode(const struct frontier_rec *r, struct buf *b)
{
  uint8_t h[FRONTIER_REC_HEAD];
  le_put(h, r->url_len, 2);
  le_put(h + 2, r->host_len, 1);
  le_put(h + 3, r->base, 1);
  le_put(h + 4, r->depth, 4);
  le_put(h + 8, r->inlinks, 4);
  cm_err e = buf_add(b, h, sizeof h);
  if(!e)
    e = buf_add(b, r->url, r->url_len);
  return e ? e : buf_add(b, r->host, r->host_len);
}

/* One record from p[0..n): its size, or 0 when it is not whole there. */
static size_t rec_decode(const uint8_t *p, size_t n, struct frontier_rec *r)
{
  if(n < FRONTIER_REC_HEAD)
    return 0;
  r->url_len = (size_t)le_get(p, 2);
  r->host_len = (size_t)le_get(p + 2, 1);
  r->base = (unsigned)le_get(p + 3, 1);
  r->depth = (uint32_t)le_get(p + 4, 4);
  r->inlinks = (uint32_t)le_get(p + 8, 4);
  size_t size = rec_size(r);
  if(size > n)
    return 0;
  r->url = (const char *)p + FRONTIER_REC_HEAD;
  r->host = r->url + r->url_len;
  return size;
}

/* ---- Writing ---------------------------------------------------------------- */

struct append_job {
  struct wq_job j;
  char         *path;
  char         *data;
  size_t        len;
};

static crawl_err append_run(struct wq_job *j)
{
  struct append_job *a = (struct append_job *)j;
  int fd = open(a->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  crawl_err e = fd < 0 ? CRAWL_ERR_IO : CRAWL_OK;
  for(size_t done = 0; !e && done < a->len;) {
    ssize_t n = write(fd, a->data + done, a->len - done);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      e = CRAWL_ERR_IO;
    else
      done += (size_t)n;
  }
  if(fd >= 0 && close(fd) != 0 && !e)
    e = CRAWL_ERR_IO;
  mem_free(a->data);
  a->data = NULL;
  return e;
}

static void append_done(struct wq_job *j, crawl_err e)
{
  struct append_job *a = (struct append_job *)j;
  (void)e;  /* the queue's error is the crawl's */
  mem_free(a->data);
  mem_free(a->path);
  mem_free(a);
}

/* The level's buffer to the disk thread, into its last segment. */
static void level_flush(struct frontier_disk *d, unsigned l)
{
  struct flevel *v = &d->lv[l];
  char path[PATH_MAX_LEN];
  if(v->wbuf.len == 0 || seg_path(d, l, v->seg[v->nseg - 1].serial, path))
    return;
  struct append_job *a = mem_calloc(1, sizeof *a);
  if(!a || !(a->path = mem_strdup(path))) {
    mem_free(a);
    return;  /* kept in the buffer: the next flush tries again */
  }
  size_t cap_max = v->wbuf.max;
  a->data = buf_steal(&v->wbuf, &a->len);
  buf_init(&v->wbuf, cap_max);
  v->seg[v->nseg - 1].size += a->len;
  a->j = (struct wq_job){ .run = append_run, .done = append_done, .bytes = a->len };
  wq_push(d->wq, &a->j);
}

void frontier_disk_flush(struct frontier_disk *d)
{
  for(unsigned l = 0; l < L; l++)
    level_flush(d, l);
}

static crawl_err seg_new(struct frontier_disk *d, struct flevel *v)
{
  if(v->nseg == v->cap) {
    size_t ncap = v->cap ? v->cap * 2 : 4;
    struct fseg *ns = mem_realloc(v->seg, ncap * sizeof *ns);
    if(!ns)
      return CRAWL_ERR_NOMEM;
    v->seg = ns;
    v->cap = ncap;
  }
  v->seg[v->nseg++] = (struct fseg){ d->next_serial++, 0 };
  return CRAWL_OK;
}

crawl_err frontier_disk_put(struct frontier_disk *d, unsigned level,
                            const struct frontier_rec *r)
{
  struct flevel *v = &d->lv[level];
  size_t size = rec_size(r);
  if(level >= L || r->url_len > 0xffff || r->host_len > 0xff || size > v->wbuf.max)
    return CRAWL_ERR_INVALID;
  if(v->wbuf.len + size > v->wbuf.max)
    level_flush(d, level);
  crawl_err e = CRAWL_OK;
  if(v->nseg == 0 || v->seg[v->nseg - 1].size + v->wbuf.len >= d->seg_bytes) {
    level_flush(d, level);
    e = seg_new(d, v);
  }
  if(!e && rec_encode(r, &v->wbuf))
    e = CRAWL_ERR_NOMEM;
  if(e)
    return e;
  v->queued++;
  v->bytes += size;
  d->spilled++;
  d->spilled_bytes += size;
  return CRAWL_OK;
}

/* ---- Reading back ------------------------------------------------------------ */

#define REFILL_MIN (80u << 10)  /* more than one record of the largest size */

struct refill_job {
  struct wq_job         j;
  struct frontier_disk *d;
  unsigned              level;
  char                 *path;
  uint64_t              off;
  size_t                len, got;
  uint8_t              *data;
  frontier_disk_fn     *fn;
  void                 *arg;
};

static crawl_err refill_run(struct wq_job *j)
{
  struct refill_job *r = (struct refill_job *)j;
  int fd = open(r->path, O_RDONLY | O_CLOEXEC);
  crawl_err e = fd < 0 ? CRAWL_ERR_IO : CRAWL_OK;
  while(!e && r->got < r->len) {
    ssize_t n = pread(fd, r->data + r->got, r->len - r->got, (off_t)(r->off + r->got));
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      e = n == 0 ? CRAWL_ERR_CORRUPT : CRAWL_ERR_IO;  /* shorter than what was appended */
    else
      r->got += (size_t)n;
  }
  if(fd >= 0)
    close(fd);
  return e;
}

static void retire(struct frontier_disk *d, unsigned l, uint64_t serial)
{
  char path[PATH_MAX_LEN];
  if(d->nretired < RETIRED_MAX && !seg_path(d, l, serial, path) &&
     (d->retired[d->nretired] = mem_strdup(path)) != NULL)
    d->nretired++;
  /* else the file stays until a resume finds it listed nowhere */
}

/* Segments read to their end go; the last one only when the level is
 * empty (else it is still written to). */
static void level_advance(struct frontier_disk *d, unsigned l)
{
  struct flevel *v = &d->lv[l];
  while(v->nseg > 0 && v->rd_off == v->seg[0].size &&
        (v->nseg > 1 || (v->queued == 0 && v->wbuf.len == 0))) {
    retire(d, l, v->seg[0].serial);
    memmove(v->seg, v->seg + 1, (v->nseg - 1) * sizeof *v->seg);
    v->nseg--;
    v->rd_off = 0;
  }
}

static void refill_deliver(struct refill_job *r)
{
  struct flevel *v = &r->d->lv[r->level];
  struct frontier_rec rec;
  size_t off = 0, n = 0, size;
  while((size = rec_decode(r->data + off, r->got - off, &rec)) > 0 && r->fn(r->arg, &rec)) {
    off += size;
    n++;
  }
  v->rd_off += off;
  v->queued -= n;
  v->bytes -= off;
  r->d->refilled += n;
  level_advance(r->d, r->level);
}

static void refill_done(struct wq_job *j, crawl_err e)
{
  struct refill_job *r = (struct refill_job *)j;
  r->d->reading = false;
  if(!e)
    refill_deliver(r);
  mem_free(r->data);
  mem_free(r->path);
  mem_free(r);
}

static struct refill_job *refill_new(const char *path, size_t len)
{
  struct refill_job *r = mem_calloc(1, sizeof *r);
  if(r) {
    r->path = mem_strdup(path);
    r->data = mem_alloc(len);
  }
  if(r && r->path && r->data)
    return r;
  if(r) {
    mem_free(r->path);
    mem_free(r->data);
  }
  mem_free(r);
  return NULL;
}

crawl_err frontier_disk_refill(struct frontier_disk *d, unsigned level, size_t max,
                               frontier_disk_fn *fn, void *arg)
{
  char path[PATH_MAX_LEN];
  if(d->reading || level >= L || d->lv[level].queued == 0)
    return CRAWL_OK;
  struct flevel *v = &d->lv[level];
  level_flush(d, level);
  level_advance(d, level);
  if(v->nseg == 0 || seg_path(d, level, v->seg[0].serial, path))
    return CRAWL_OK;
  uint64_t left = v->seg[0].size - v->rd_off;
  size_t len = max < REFILL_MIN ? REFILL_MIN : max;
  len = len > left ? (size_t)left : len;
  struct refill_job *r = len ? refill_new(path, len) : NULL;
  if(!r)
    return len ? CRAWL_ERR_NOMEM : CRAWL_OK;
  r->d = d;
  r->level = level;
  r->off = v->rd_off;
  r->len = len;
  r->fn = fn;
  r->arg = arg;
  r->j = (struct wq_job){ .run = refill_run, .done = refill_done, .bytes = len };
  d->reading = true;
  wq_push(d->wq, &r->j);
  return CRAWL_OK;
}

void frontier_disk_stats(const struct frontier_disk *d, struct frontier_disk_stats *st)
{
  memset(st, 0, sizeof *st);
  st->spilled = d->spilled;
  st->spilled_bytes = d->spilled_bytes;
  st->refilled = d->refilled;
  for(unsigned l = 0; l < L; l++) {
    st->queued += d->lv[l].queued;
    st->bytes += d->lv[l].bytes;
    st->segments += d->lv[l].nseg;
    st->mem += d->lv[l].wbuf.cap + d->lv[l].cap * sizeof(struct fseg);
  }
}

/* ---- Checkpoints --------------------------------------------------------------- */

void frontier_disk_save(const struct frontier_disk *d, struct ckfile *c)
{
  ckfile_put_u64(c, d->next_serial);
  ckfile_put_u64(c, d->spilled);
  ckfile_put_u64(c, d->spilled_bytes);
  ckfile_put_u64(c, d->refilled);
  for(unsigned l = 0; l < L; l++) {
    const struct flevel *v = &d->lv[l];
    ckfile_put_u64(c, v->queued);
    ckfile_put_u64(c, v->bytes);
    ckfile_put_u64(c, v->rd_off);
    ckfile_put_u64(c, v->nseg);
    for(size_t i = 0; i < v->nseg; i++) {
      ckfile_put_u64(c, v->seg[i].serial);
      ckfile_put_u64(c, v->seg[i].size);
    }
  }
}

/* A segment as the checkpoint knew it: appends after it are cut. */
static crawl_err seg_check(const struct frontier_disk *d, unsigned l, const struct fseg *s)
{
  char path[PATH_MAX_LEN];
  struct stat st;
  if(seg_path(d, l, s->serial, path) || stat(path, &st) != 0)
    return CRAWL_ERR_CORRUPT;
  if((uint64_t)st.st_size < s->size)
    return CRAWL_ERR_CORRUPT;
  return (uint64_t)st.st_size == s->size || truncate(path, (off_t)s->size) == 0 ? CRAWL_OK
                                                                                 : CRAWL_ERR_IO;
}

static crawl_err level_load(struct frontier_disk *d, unsigned l, struct ckfile *c)
{
  struct flevel *v = &d->lv[l];
  v->queued = ckfile_get_u64(c);
  v->bytes = ckfile_get_u64(c);
  v->rd_off = ckfile_get_u64(c);
  uint64_t n = ckfile_get_u64(c);
  if(n > SEGS_MAX)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  crawl_err e = CRAWL_OK;
  for(uint64_t i = 0; i < n && !e && !c->err; i++) {
    e = seg_new(d, v);
    if(!e) {
      v->seg[v->nseg - 1].serial = ckfile_get_u64(c);
      v->seg[v->nseg - 1].size = ckfile_get_u64(c);
      e = c->err ? c->err : seg_check(d, l, &v->seg[v->nseg - 1]);
    }
  }
  if(!e && !c->err && v->nseg && v->rd_off > v->seg[0].size)
    e = CRAWL_ERR_CORRUPT;
  return e ? e : c->err;
}

static bool listed(const struct frontier_disk *d, const char *name)
{
  char path[PATH_MAX_LEN];
  for(unsigned l = 0; l < L; l++)
    for(size_t i = 0; i < d->lv[l].nseg; i++)
      if(!seg_path(d, l, d->lv[l].seg[i].serial, path) &&
         !strcmp(strrchr(path, '/') + 1, name))
        return true;
  return false;
}

/* Segments the checkpoint does not list: begun after it, or retired. */
void frontier_disk_tidy(const struct frontier_disk *d)
{
  DIR *dir = opendir(d->dir);
  struct dirent *de;
  char path[PATH_MAX_LEN];
  while(dir && (de = readdir(dir)) != NULL) {
    if(strncmp(de->d_name, "frontier-", 9) || listed(d, de->d_name))
      continue;
    int n = snprintf(path, sizeof path, "%s/%s", d->dir, de->d_name);
    if(n > 0 && n < (int)sizeof path)
      unlink(path);
  }
  if(dir)
    closedir(dir);
}

crawl_err frontier_disk_load(struct frontier_disk *d, struct ckfile *c)
{
  d->next_serial = ckfile_get_u64(c);
  d->spilled = ckfile_get_u64(c);
  d->spilled_bytes = ckfile_get_u64(c);
  d->refilled = ckfile_get_u64(c);
  crawl_err e = CRAWL_OK;
  for(unsigned l = 0; l < L && !e; l++)
    e = level_load(d, l, c);
  if(!e)
    frontier_disk_tidy(d);
  return e;
}

char **frontier_disk_retired(struct frontier_disk *d)
{
  if(d->nretired == 0)
    return NULL;
  char **v = mem_alloc((d->nretired + 1) * sizeof *v);
  if(!v)
    return NULL;  /* kept: the next checkpoint takes them */
  memcpy(v, d->retired, d->nretired * sizeof *v);
  v[d->nretired] = NULL;
  d->nretired = 0;
  return v;
}

void frontier_disk_remove(const char *const *paths)
{
  for(size_t i = 0; paths && paths[i]; i++)
    unlink(paths[i]);
}
