/* The crawler's output, written on the disk thread (wq.h): each finished
 * URL is one job that writes its WARC record, if it has one, then its
 * crawl log line, which names where the record went. The event loop hands
 * over a copy of what the page needs (URL, headers, body) and goes on; the
 * compression, the digests and the writes happen on the disk thread.
 * Jobs run in order, so a line is never on disk before its record, and a
 * checkpoint (crawl_resume.c) comes after every line it counts. Page jobs
 * are buffered (wq.h): the records and lines of the pages the thread
 * finds queued go out in one write each at the flush, records first. */
#include "clients/crawl/crawl_int.h"

#include <stdint.h>
#include <string.h>

#include "common/mem.h"

#define LOG_PENDING_MAX (1u << 20)

struct page_job {
  struct wq_job         j;
  struct crawl         *c;
  enum crawl_out_record record;
  struct warc_page      page;
  struct warc_meta      meta;
  struct warc_refers    refers;
  struct crawllog_entry le;
  uint64_t              records, bytes;  /* the WARC writer's counts after it */
  unsigned              files;
  bool                  too_large;       /* no record: past the WARC writer's caps */
  char                  digest[WARC_DIGEST_LEN];
  struct warc_loc       loc;
  size_t                used, size;
  char                  mem[];           /* the strings and the body */
};

/* ---- The copy ------------------------------------------------------------- */

static size_t str_size(const char *s)
{
  return s ? strlen(s) + 1 : 0;
}

static const char *job_copy(struct page_job *pj, const void *p, size_t n)
{
  char *d = pj->mem + pj->used;
  if(n)
    memcpy(d, p, n);
  pj->used += n;
  return d;
}

static const char *job_str(struct page_job *pj, const char *s)
{
  return s ? job_copy(pj, s, strlen(s) + 1) : NULL;
}

static size_t meta_size(const struct warc_meta *m)
{
  if(!m)
    return 0;
  size_t n = str_size(m->fields) + m->noutlinks * sizeof(struct warc_outlink) + 16;
  for(size_t i = 0; i < m->noutlinks; i++)
    n += str_size(m->outlinks[i].url) + str_size(m->outlinks[i].context);
  return n;
}

static size_t page_size(const struct crawllog_entry *le, const struct warc_page *wp,
                        const struct warc_refers *refers)
{
  size_t n = str_size(le->url) + str_size(le->outcome) + str_size(le->duplicate_of) +
             str_size(le->redirect) + str_size(le->reason) + str_size(le->cause) +
             str_size(le->extra);
  if(refers)
    n += str_size(refers->uri) + str_size(refers->id);
  if(!wp)
    return n;
  n += wp->body_len + wp->nheaders * sizeof(struct warc_header) + 16 + str_size(wp->id) +
       meta_size(wp->meta);
  for(size_t i = 0; i < wp->nheaders; i++)
    n += str_size(wp->headers[i].name) + str_size(wp->headers[i].value);
  return n;
}

static void *job_align(struct page_job *pj, size_t n)
{
  pj->used += (8 - ((uintptr_t)(pj->mem + pj->used) & 7)) & 7;
  void *p = pj->mem + pj->used;
  pj->used += n;
  return p;
}

/* Outlink contexts are static strings (crawl_page.c): not copied. */
static void meta_copy(struct page_job *pj, const struct warc_meta *m)
{
  struct warc_outlink *v = job_align(pj, m->noutlinks * sizeof *v);
  for(size_t i = 0; i < m->noutlinks; i++)
    v[i] = (struct warc_outlink){ job_str(pj, m->outlinks[i].url), m->outlinks[i].context };
  pj->meta = (struct warc_meta){ v, m->noutlinks, job_str(pj, m->fields), m->robots };
  pj->page.meta = &pj->meta;
}

static void page_copy(struct page_job *pj, const struct warc_page *wp)
{
  pj->page = *wp;
  pj->page.url = pj->le.url;
  struct warc_header *h = job_align(pj, wp->nheaders * sizeof *h);
  for(size_t i = 0; i < wp->nheaders; i++) {
    h[i].name = job_str(pj, wp->headers[i].name);
    h[i].value = job_str(pj, wp->headers[i].value);
  }
  pj->page.headers = h;
  pj->page.body = job_copy(pj, wp->body, wp->body_len);
  pj->page.id = job_str(pj, wp->id);
  if(wp->meta)
    meta_copy(pj, wp->meta);
}

static void entry_copy(struct page_job *pj, const struct crawllog_entry *le)
{
  pj->le = *le;
  pj->le.url = job_str(pj, le->url);
  pj->le.outcome = job_str(pj, le->outcome);
  pj->le.duplicate_of = job_str(pj, le->duplicate_of);
  pj->le.redirect = job_str(pj, le->redirect);
  pj->le.reason = job_str(pj, le->reason);
  pj->le.cause = job_str(pj, le->cause);  /* may be the gateway's answer's */
  pj->le.extra = job_str(pj, le->extra);
  /* dup is one of two static strings; warc and digest come from the write */
}

/* ---- On the disk thread ------------------------------------------------------ */

static crawl_err page_run(struct wq_job *j)
{
  struct page_job *pj = (struct page_job *)j;
  struct crawl_out *o = &pj->c->out;
  crawl_err e = CRAWL_OK;
  if(pj->record == CRAWL_OUT_RESPONSE)
    e = warc_write_response(o->warc, &pj->page, &pj->loc, pj->digest);
  else if(pj->record == CRAWL_OUT_REVISIT)
    e = warc_write_revisit(o->warc, &pj->page, &pj->refers, &pj->loc, pj->digest);
  if(e == CRAWL_ERR_TOO_LARGE) {  /* nothing was written: the page keeps its line */
    pj->too_large = true;
    pj->record = CRAWL_OUT_NONE;
    pj->le.reason = "warc_record_too_large";
    e = CRAWL_OK;
  }
  if(!e && pj->record != CRAWL_OUT_NONE) {
    pj->le.warc = pj->loc.file;
    pj->le.warc_offset = pj->loc.offset;
    pj->le.warc_length = pj->loc.length;
    pj->le.digest = pj->digest;
    memcpy(o->last_warc, pj->loc.file, sizeof o->last_warc);
    o->last_warc_end = pj->loc.offset + pj->loc.length;
  }
  /* a batch of long lines: written (after their records) before more wait */
  if(!e && crawllog_pending(o->log) >= LOG_PENDING_MAX)
    e = crawl_out_flush(pj->c);
  if(!e)
    e = crawllog_add(o->log, &pj->le);
  if(o->warc)
    warc_counts(o->warc, &pj->records, &pj->bytes, &pj->files);
  return e;
}

crawl_err crawl_out_flush(void *arg)
{
  struct crawl *c = arg;
  crawl_err e = c->out.warc ? warc_flush(c->out.warc) : CRAWL_OK;
  return !e && c->out.log ? crawllog_flush(c->out.log) : e;
}

static void page_done(struct wq_job *j, crawl_err e)
{
  struct page_job *pj = (struct page_job *)j;
  struct crawl *c = pj->c;
  if(!e && pj->record != CRAWL_OUT_NONE) {
    c->warc_records = pj->records;
    c->warc_bytes = pj->bytes;
    c->warc_files = pj->files;
  }
  c->st.records_too_large += pj->too_large;
  if(e && !c->err)
    c->err = e;
  mem_free(pj);
}

/* ---- On the loop ---------------------------------------------------------------- */

crawl_err crawl_out_page(struct crawl *c, const struct crawllog_entry *le,
                         enum crawl_out_record record, const struct warc_page *wp,
                         const struct warc_refers *refers)
{
  size_t size = page_size(le, record ? wp : NULL, refers);
  struct page_job *pj = mem_alloc(sizeof *pj + size);
  if(!pj)
    return CRAWL_ERR_NOMEM;
  memset(pj, 0, sizeof *pj);
  pj->size = size;
  pj->c = c;
  pj->record = record;
  entry_copy(pj, le);
  if(refers)
    pj->refers = (struct warc_refers){ job_str(pj, refers->uri), refers->date_ms,
                                       job_str(pj, refers->id) };
  if(record)
    page_copy(pj, wp);
  pj->j = (struct wq_job){ .run = page_run, .done = page_done, .bytes = sizeof *pj + size,
                          .buffered = true };
  wq_push(c->wq, &pj->j);
  return CRAWL_OK;
}

struct fence_job {
  struct wq_job   j;
  crawl_fence_fn *fn;
  void           *arg;
};

static void fence_done(struct wq_job *j, crawl_err e)
{
  struct fence_job *f = (struct fence_job *)j;
  f->fn(f->arg, e);
  mem_free(f);
}

crawl_err crawl_out_fence(struct crawl *c, crawl_fence_fn *fn, void *arg)
{
  struct fence_job *f = mem_calloc(1, sizeof *f);
  if(!f)
    return CRAWL_ERR_NOMEM;
  f->fn = fn;
  f->arg = arg;
  f->j = (struct wq_job){ .run = NULL, .done = fence_done, .bytes = 0 };
  wq_push(c->wq, &f->j);
  return CRAWL_OK;
}

size_t crawl_out_poll(struct crawl *c)
{
  size_t n = wq_reap(c->wq);
  crawl_err e = wq_error(c->wq);
  if(e && !c->err)
    c->err = e;
  return n;
}

char *crawl_path(const char *dir, const char *name)
{
  size_t a = strlen(dir), b = strlen(name);
  char *p = mem_alloc(a + b + 2);
  if(p) {
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
  }
  return p;
}
