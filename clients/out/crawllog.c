#include "clients/out/crawllog.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/out/warc.h"
#include "common/buf.h"
#include "common/mem.h"
#include "common/robots_tag.h"

#define LINE_MAX_BYTES (64u << 10)  /* URLs are capped far below this */
#define WORD_MAX       256          /* the gateway's words (outcome, reason): cut */
#define PEND_MAX       (32u << 20)  /* lines added and not written (owners flush far below) */

struct crawllog {
  int      fd;
  uint64_t size;       /* bytes written to the file */
  struct buf line;
  struct buf pend;     /* lines added, not yet written (crawllog_add) */
};

/* Cut the file after its last newline. */
static crawl_err cut_partial(int fd, uint64_t *size)
{
  struct stat st;
  if(fstat(fd, &st) != 0)
    return CRAWL_ERR_IO;
  off_t end = st.st_size;
  char c[4096];
  while(end > 0) {
    size_t n = end > (off_t)sizeof c ? sizeof c : (size_t)end;
    if(pread(fd, c, n, end - (off_t)n) != (ssize_t)n)
      return CRAWL_ERR_IO;
    const char *nl = memrchr(c, '\n', n);
    if(nl) {
      end = end - (off_t)n + (nl - c) + 1;
      break;
    }
    end -= (off_t)n;
  }
  if(end != st.st_size && ftruncate(fd, end) != 0)
    return CRAWL_ERR_IO;
  *size = (uint64_t)end;
  return CRAWL_OK;
}

crawl_err crawllog_open(const char *path, struct crawllog **out)
{
  *out = NULL;
  struct crawllog *l = mem_calloc(1, sizeof *l);
  if(!l)
    return CRAWL_ERR_NOMEM;
  l->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  crawl_err e = l->fd < 0 ? CRAWL_ERR_IO : cut_partial(l->fd, &l->size);
  if(e) {
    if(l->fd >= 0)
      close(l->fd);
    mem_free(l);
    return e;
  }
  buf_init(&l->line, LINE_MAX_BYTES);
  buf_init(&l->pend, PEND_MAX);
  *out = l;
  return CRAWL_OK;
}

void crawllog_close(struct crawllog **lp)
{
  struct crawllog *l = *lp;
  if(!l)
    return;
  *lp = NULL;
  crawllog_flush(l);  /* an error here has no one to go to: the owner flushed before */
  close(l->fd);
  buf_free(&l->line);
  buf_free(&l->pend);
  mem_free(l);
}

uint64_t crawllog_size(const struct crawllog *l)
{
  return l->size;
}

static cm_err add_strn(struct buf *b, const char *key, const char *v, size_t max)
{
  cm_err e = buf_addf(b, ",\"%s\":", key);
  size_t n = v ? strlen(v) : 0;
  if(!e)
    e = v ? buf_add_json_str(b, v, n < max ? n : max) : buf_adds(b, "null");
  return e;
}

static cm_err add_str(struct buf *b, const char *key, const char *v)
{
  return add_strn(b, key, v, SIZE_MAX);
}

static cm_err add_robots(struct buf *b, unsigned bits)
{
  cm_err r = buf_adds(b, ",\"robots\":[");
  const char *sep = "";
  for(unsigned bit = 1; !r && bit <= ROBOTS_TAG_UNAVAILABLE_AFTER; bit <<= 1) {
    if(bits & bit)
      r = buf_addf(b, "%s\"%s\"", sep, robots_tag_name(bit));
    if(bits & bit)
      sep = ",";
  }
  return r ? r : buf_addc(b, ']');
}

static unsigned scan_robots(json_t *a)
{
  unsigned bits = 0;
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v)
    if(json_is_string(v))
      bits |= robots_tag_bit(json_string_value(v));
  return bits;
}

static cm_err format(struct buf *b, const struct crawllog_entry *e)
{
  char date[21];
  warc_date(e->time_ms, date);
  cm_err r = buf_addf(b, "{\"time\":\"%s\"", date);
  if(!r)
    r = add_str(b, "url", e->url);
  if(!r)
    r = buf_addf(b, ",\"status\":%d", e->status);
  if(!r)
    r = add_strn(b, "outcome", e->outcome, WORD_MAX);
  if(!r && e->cause)
    r = add_strn(b, "cause", e->cause, WORD_MAX);
  if(!r && e->cause && e->cause_status > 0)
    r = buf_addf(b, ",\"cause_status\":%d", e->cause_status);
  if(!r)
    r = buf_addf(b, ",\"bytes\":%llu,\"ms\":%llu,\"depth\":%u,\"links\":%llu",
                 (unsigned long long)e->bytes, (unsigned long long)e->ms, e->depth,
                 (unsigned long long)e->links);
  if(!r)
    r = add_str(b, "duplicate_of", e->duplicate_of);
  if(!r && e->duplicate_of)
    r = buf_addf(b, ",\"dup\":\"%s\",\"distance\":%u", e->dup ? e->dup : "exact", e->distance);
  if(!r && e->warc)
    r = add_str(b, "warc", e->warc);
  if(!r && e->warc)
    r = buf_addf(b, ",\"warc_offset\":%llu,\"warc_length\":%llu",
                 (unsigned long long)e->warc_offset, (unsigned long long)e->warc_length);
  if(!r && e->digest)
    r = add_str(b, "digest", e->digest);
  if(!r && e->redirect)
    r = add_str(b, "redirect", e->redirect);
  if(!r && e->reason)
    r = add_strn(b, "reason", e->reason, WORD_MAX);
  if(!r && e->sitemap)
    r = buf_adds(b, ",\"sitemap\":true");
  if(!r && e->feed)
    r = buf_adds(b, ",\"feed\":true");
  if(!r && e->robots)
    r = add_robots(b, e->robots);
  if(!r && e->extra)
    r = buf_add(b, e->extra, strnlen(e->extra, CRAWLLOG_EXTRA_MAX));
  return r ? r : buf_adds(b, "}\n");
}

crawl_err crawllog_flush(struct crawllog *l)
{
  size_t done = 0;
  while(done < l->pend.len) {
    ssize_t n = write(l->fd, l->pend.data + done, l->pend.len - done);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      return CRAWL_ERR_IO;
    done += (size_t)n;
  }
  l->size += done;
  buf_reset(&l->pend);
  return CRAWL_OK;
}

crawl_err crawllog_add(struct crawllog *l, const struct crawllog_entry *e)
{
  buf_reset(&l->line);
  cm_err ce = format(&l->line, e);
  if(ce)
    return crawl_from_cm(ce);
  ce = buf_add(&l->pend, l->line.data, l->line.len);
  return crawl_from_cm(ce);
}

size_t crawllog_pending(const struct crawllog *l)
{
  return l->pend.len;
}

crawl_err crawllog_write(struct crawllog *l, const struct crawllog_entry *e)
{
  crawl_err r = crawllog_add(l, e);
  return r ? r : crawllog_flush(l);
}

static const char *jstr(json_t *o, const char *k)
{
  return json_string_value(json_object_get(o, k));
}

static crawl_err scan_line(const char *p, size_t n, crawllog_line_fn *fn, void *arg)
{
  json_t *o = json_loadb(p, n, 0, NULL);
  struct crawllog_rec r = { 0 };
  if(!o || !(r.url = jstr(o, "url"))) {
    json_decref(o);
    return CRAWL_ERR_CORRUPT;
  }
  r.outcome = jstr(o, "outcome");
  r.warc = jstr(o, "warc");
  r.duplicate_of = jstr(o, "duplicate_of");
  r.dup = jstr(o, "dup");
  r.redirect = jstr(o, "redirect");
  r.cause = jstr(o, "cause");
  r.sitemap = json_is_true(json_object_get(o, "sitemap"));
  r.robots = scan_robots(json_object_get(o, "robots"));
  r.status = (int)json_integer_value(json_object_get(o, "status"));
  r.depth = (uint32_t)json_integer_value(json_object_get(o, "depth"));
  r.warc_offset = (uint64_t)json_integer_value(json_object_get(o, "warc_offset"));
  r.warc_length = (uint64_t)json_integer_value(json_object_get(o, "warc_length"));
  r.line = p;
  r.line_len = n;
  crawl_err e = fn(arg, &r);
  json_decref(o);
  return e;
}

crawl_err crawllog_scan(const char *path, uint64_t from, crawllog_line_fn *fn, void *arg)
{
  FILE *f = fopen(path, "rb");
  if(!f)
    return errno == ENOENT ? CRAWL_OK : CRAWL_ERR_IO;
  char *line = mem_alloc(LINE_MAX_BYTES + 2);
  crawl_err e = !line ? CRAWL_ERR_NOMEM
                      : fseeko(f, (off_t)from, SEEK_SET) == 0 ? CRAWL_OK : CRAWL_ERR_IO;
  while(!e && fgets(line, LINE_MAX_BYTES + 2, f)) {
    size_t n = strlen(line);
    if(n == 0 || line[n - 1] != '\n') {
      if(!feof(f))
        e = CRAWL_ERR_CORRUPT;  /* longer than any line we write */
      break;                    /* else a partial last line: not finished */
    }
    e = scan_line(line, n - 1, fn, arg);
  }
  mem_free(line);
  fclose(f);
  return e;
}
