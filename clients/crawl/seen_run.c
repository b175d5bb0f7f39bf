#include "clients/crawl/seen_run.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "clients/base/le.h"
#include "common/mem.h"

static const char run_magic[8] = { 'W', 'P', 'F', 'S', 'R', 'U', 'N', '1' };
#define RUN_HEAD 16


static void run_head(uint8_t out[RUN_HEAD], uint64_t count)
{
  memcpy(out, run_magic, 8);
  le_put(out + 8, count, 8);
}

crawl_err seen_run_create(struct seen_run_w *w, const char *path)
{
  memset(w, 0, offsetof(struct seen_run_w, buf));
  size_t n = strlen(path);
  w->path = mem_strdup(path);
  w->tmp = mem_alloc(n + 5);
  if(!w->path || !w->tmp) {
    seen_run_abort(w);
    return CRAWL_ERR_NOMEM;
  }
  memcpy(w->tmp, path, n);
  memcpy(w->tmp + n, ".tmp", 5);
  uint8_t head[RUN_HEAD];
  run_head(head, 0);  /* the count is written at commit */
  w->f = fopen(w->tmp, "wb");
  if(!w->f || fwrite(head, 1, sizeof head, w->f) != sizeof head) {
    seen_run_abort(w);
    return CRAWL_ERR_IO;
  }
  return CRAWL_OK;
}

static void run_flush(struct seen_run_w *w)
{
  uint8_t out[SEEN_RUN_IOBUF * 8];
  for(size_t i = 0; i < w->len; i++)
    le_put(out + 8 * i, w->buf[i], 8);
  if(!w->err && w->len && fwrite(out, 8, w->len, w->f) != w->len)
    w->err = CRAWL_ERR_IO;
  w->len = 0;
}

void seen_run_put(struct seen_run_w *w, uint64_t v)
{
  if(w->count > 0 && v <= w->last)
    return;
  w->last = v;
  w->count++;
  w->buf[w->len++] = v;
  if(w->len == SEEN_RUN_IOBUF)
    run_flush(w);
}

crawl_err seen_run_commit(struct seen_run_w *w)
{
  run_flush(w);
  uint8_t head[RUN_HEAD];
  run_head(head, w->count);
  if(!w->err && (fseek(w->f, 0, SEEK_SET) != 0 ||
                 fwrite(head, 1, sizeof head, w->f) != sizeof head))
    w->err = CRAWL_ERR_IO;
  if(fclose(w->f) != 0 && !w->err)
    w->err = CRAWL_ERR_IO;
  w->f = NULL;
  if(!w->err && rename(w->tmp, w->path) != 0)
    w->err = CRAWL_ERR_IO;
  crawl_err e = w->err;
  seen_run_abort(w);
  return e;
}

void seen_run_abort(struct seen_run_w *w)
{
  if(w->f)
    fclose(w->f);
  if(w->tmp)
    unlink(w->tmp);  /* gone already after a successful rename */
  mem_free(w->tmp);
  mem_free(w->path);
  w->f = NULL;
  w->tmp = w->path = NULL;
}

crawl_err seen_run_write(const char *path, const uint64_t *v, size_t n)
{
  struct seen_run_w *w = mem_alloc(sizeof *w);
  if(!w)
    return CRAWL_ERR_NOMEM;
  crawl_err e = seen_run_create(w, path);
  for(size_t i = 0; !e && i < n; i++)
    seen_run_put(w, v[i]);
  if(!e)
    e = seen_run_commit(w);
  mem_free(w);
  return e;
}

crawl_err seen_run_open(struct seen_run_r *r, const char *path, uint64_t *count)
{
  memset(r, 0, offsetof(struct seen_run_r, buf));
  r->f = fopen(path, "rb");
  if(!r->f)
    return errno == ENOENT ? CRAWL_ERR_NOT_FOUND : CRAWL_ERR_IO;
  uint8_t head[RUN_HEAD];
  crawl_err e = CRAWL_OK;
  if(fread(head, 1, sizeof head, r->f) != sizeof head || memcmp(head, run_magic, 8))
    e = CRAWL_ERR_CORRUPT;
  r->left = le_get(head + 8, 8);
  off_t size = 0;
  if(!e && (fseeko(r->f, 0, SEEK_END) != 0 || (size = ftello(r->f)) < 0 ||
            fseeko(r->f, RUN_HEAD, SEEK_SET) != 0))
    e = CRAWL_ERR_IO;
  if(!e && (uint64_t)size != RUN_HEAD + 8 * r->left)
    e = CRAWL_ERR_CORRUPT;
  if(e)
    seen_run_close(r);
  else if(count)
    *count = r->left;
  return e;
}

static bool run_fill(struct seen_run_r *r)
{
  uint8_t in[SEEN_RUN_IOBUF * 8];
  size_t want = r->left < SEEN_RUN_IOBUF ? (size_t)r->left : SEEN_RUN_IOBUF;
  if(want == 0)
    return false;
  if(fread(in, 8, want, r->f) != want) {
    r->err = CRAWL_ERR_IO;
    return false;
  }
  for(size_t i = 0; i < want; i++)
    r->buf[i] = le_get(in + 8 * i, 8);
  r->left -= want;
  r->pos = 0;
  r->len = want;
  return true;
}

bool seen_run_next(struct seen_run_r *r, uint64_t *v)
{
  if(r->err || !r->f)
    return false;
  if(r->pos == r->len && !run_fill(r))
    return false;
  *v = r->buf[r->pos++];
  return true;
}

void seen_run_close(struct seen_run_r *r)
{
  if(r->f)
    fclose(r->f);
  r->f = NULL;
}
