#include "clients/out/warc_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "common/mem.h"

#define IN_CHUNK (64u << 10)

/* Inflate one gzip member from f into r->raw. */
static crawl_err inflate_member(FILE *f, struct warc_record *r)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if(inflateInit2(&z, 15 + 16) != Z_OK)
    return CRAWL_ERR_NOMEM;
  unsigned char in[IN_CHUNK], out[IN_CHUNK];
  int rc = Z_OK;
  crawl_err e = CRAWL_OK;
  while(!e && rc != Z_STREAM_END) {
    if(z.avail_in == 0) {
      z.avail_in = (uInt)fread(in, 1, sizeof in, f);
      z.next_in = in;
      if(z.avail_in == 0) {
        e = CRAWL_ERR_CORRUPT;  /* cut short */
        break;
      }
    }
    z.next_out = out;
    z.avail_out = sizeof out;
    rc = inflate(&z, Z_NO_FLUSH);
    if(rc != Z_OK && rc != Z_STREAM_END)
      e = rc == Z_MEM_ERROR ? CRAWL_ERR_NOMEM : CRAWL_ERR_CORRUPT;
    else if(buf_add(&r->raw, out, sizeof out - z.avail_out))
      e = r->raw.len + (sizeof out - z.avail_out) > r->raw.max ? CRAWL_ERR_TOO_LARGE
                                                               : CRAWL_ERR_NOMEM;
  }
  r->member_len = z.total_in;
  inflateEnd(&z);
  return e;
}

/* A "Name: value" field of a header block [p, p+n), value as a heap copy. */
static char *field(const char *p, size_t n, const char *name)
{
  size_t k = strlen(name);
  for(const char *line = p; line < p + n;) {
    const char *eol = memchr(line, '\n', (size_t)(p + n - line));
    size_t len = eol ? (size_t)(eol - line) : (size_t)(p + n - line);
    if(len > k && line[k] == ':' && !strncasecmp(line, name, k)) {
      const char *v = line + k + 1;
      while(v < line + len && (*v == ' ' || *v == '\t'))
        v++;
      size_t vn = (size_t)(line + len - v);
      while(vn > 0 && (v[vn - 1] == '\r' || v[vn - 1] == ' '))
        vn--;
      return mem_strndup(v, vn);
    }
    line += len + 1;
  }
  return NULL;
}

static crawl_err parse_http(struct warc_record *r)
{
  const char *end = memmem(r->block, r->block_len, "\r\n\r\n", 4);
  if(!end || r->block_len < 12 || memcmp(r->block, "HTTP/", 5))
    return CRAWL_ERR_CORRUPT;
  const char *sp = memchr(r->block, ' ', (size_t)(end - r->block));
  r->status = sp ? (int)strtol(sp + 1, NULL, 10) : 0;
  r->http_head = r->block;
  r->http_head_len = (size_t)(end + 4 - r->block);
  r->body = end + 4;
  r->body_len = r->block_len - r->http_head_len;
  return CRAWL_OK;
}

static crawl_err parse_record(struct warc_record *r)
{
  const char *p = r->raw.data;
  const char *end = memmem(p, r->raw.len, "\r\n\r\n", 4);
  if(!end || r->raw.len < 9 || memcmp(p, "WARC/1.", 7))
    return CRAWL_ERR_CORRUPT;
  size_t hn = (size_t)(end - p);
  char *len = field(p, hn, "Content-Length");
  char *ctype = field(p, hn, "Content-Type");
  r->type = field(p, hn, "WARC-Type");
  r->target = field(p, hn, "WARC-Target-URI");
  r->payload_digest = field(p, hn, "WARC-Payload-Digest");
  unsigned long long cl = len ? strtoull(len, NULL, 10) : 0;
  r->block = end + 4;
  crawl_err e = len && r->type && cl <= r->raw.len - hn - 4 ? CRAWL_OK : CRAWL_ERR_CORRUPT;
  r->block_len = (size_t)cl;
  /* a response's block (a request's begins with its method) */
  if(!e && ctype && !strncmp(ctype, "application/http", 16) && !strstr(ctype, "msgtype=request"))
    e = parse_http(r);
  mem_free(len);
  mem_free(ctype);
  return e;
}

crawl_err warc_read_at(const char *path, uint64_t offset, size_t max, struct warc_record *r)
{
  memset(r, 0, sizeof *r);
  buf_init(&r->raw, max);
  FILE *f = fopen(path, "rb");
  if(!f)
    return CRAWL_ERR_IO;
  crawl_err e = fseeko(f, (off_t)offset, SEEK_SET) == 0 ? inflate_member(f, r) : CRAWL_ERR_IO;
  fclose(f);
  if(!e)
    e = parse_record(r);
  if(e)
    warc_record_free(r);
  return e;
}

void warc_record_free(struct warc_record *r)
{
  buf_free(&r->raw);
  mem_free(r->type);
  mem_free(r->target);
  mem_free(r->payload_digest);
  memset(r, 0, sizeof *r);
}

char *warc_record_field(const struct warc_record *r, const char *name)
{
  if(!r->block || r->block < r->raw.data)
    return NULL;
  return field(r->raw.data, (size_t)(r->block - r->raw.data), name);
}

char *warc_record_http_header(const struct warc_record *r, const char *name)
{
  if(!r->http_head)
    return NULL;
  const char *first = memchr(r->http_head, '\n', r->http_head_len);
  if(!first)
    return NULL;
  first++;
  return field(first, (size_t)(r->http_head + r->http_head_len - first), name);
}
