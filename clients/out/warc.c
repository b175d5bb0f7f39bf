#include "clients/out/warc.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <libdeflate.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/mem.h"
#include "common/robots_tag.h"
#include "common/url.h"

#define WARC_HEAD_MAX (64u << 10)   /* WARC header block, URL included */
#define HTTP_HEAD_MAX (1u << 20)    /* HTTP status line and headers */
#define META_MAX      (4u << 20)    /* a metadata record's block */
#define META_FIELDS   (64u << 10)   /* kept in it for the fields after the outlinks */
#define RECORD_MAX    ((size_t)1 << 30)  /* one record, uncompressed */
#define RAW_KEEP      (64u << 20)  /* a larger record's buffer is not kept */
#define FILE_BUF      (1u << 20)   /* buffered: the stdio buffer of the file */

struct warc {
  char     *dir, *prefix, *software, *extra;
  uint64_t  max_file_bytes;
  int       level;     /* libdeflate's, 1..12 */
  FILE     *f;
  char      name[WARC_NAME_MAX];
  uint64_t  size;      /* bytes in the current file */
  unsigned  serial;    /* of the current (or last) file */
  char      info_id[WARC_ID_LEN];
  struct libdeflate_compressor *z;  /* made at the first record */
  struct buf raw;      /* the record being written, uncompressed */
  unsigned char *zout; /* its gzip member */
  size_t    zcap;
  uint64_t  records, bytes;
  unsigned  files;
  bool      buffered;
  crawl_err err;       /* a write failed: every later flush says so */
  struct warc_ids ids;
};

/* ---- Small pieces --------------------------------------------------------- */

void warc_date(uint64_t ms, char out[21])
{
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

uint64_t warc_date_ms(const char *date)
{
  static const char form[] = "dddd-dd-ddTdd:dd:ddZ";  /* what warc_date writes */
  for(size_t i = 0; date && i < sizeof form; i++)
    if(form[i] == 'd' ? date[i] < '0' || date[i] > '9' : date[i] != form[i])
      return 0;
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = date ? strptime(date, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
  if(!end || *end)
    return 0;
  time_t t = timegm(&tm);
  return t > 0 ? (uint64_t)t * 1000 : 0;
}

static void base32(const unsigned char *in, size_t n, char *out)
{
  static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  uint32_t acc = 0;
  int bits = 0;
  size_t o = 0;
  for(size_t i = 0; i < n; i++) {
    acc = (acc << 8) | in[i];
    bits += 8;
    while(bits >= 5) {
      out[o++] = alpha[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if(bits > 0)
    out[o++] = alpha[(acc << (5 - bits)) & 31];
  out[o] = '\0';
}

static void digest_text(const unsigned char md[20], char out[WARC_DIGEST_LEN])
{
  memcpy(out, "sha1:", 5);
  base32(md, 20, out + 5);  /* 20 bytes = 160 bits = 32 characters, no padding */
}

static void warc_sha1_base32(const void *p, size_t n, char out[WARC_DIGEST_LEN])
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(p, n, md, &len, EVP_sha1(), NULL);
  digest_text(md, out);
}

/* SHA-1 of a ‖ b: the block digest of head + body. */
static crawl_err sha1_two(const void *a, size_t an, const void *b, size_t bn,
                          char out[WARC_DIGEST_LEN])
{
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
           EVP_DigestUpdate(ctx, a, an) && EVP_DigestUpdate(ctx, b, bn) &&
           EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  if(!ok)
    return CRAWL_ERR_NOMEM;
  digest_text(md, out);
  return CRAWL_OK;
}

static void record_id(struct warc *w, char out[WARC_ID_LEN])
{
  unsigned char u[WARC_ID_RAW];
  warc_id_new(&w->ids, u);
  warc_id_text(u, out);
}

static const char *reason_phrase(int status)
{
  switch(status) {
  case 200: return "OK";
  case 201: return "Created";
  case 202: return "Accepted";
  case 203: return "Non-Authoritative Information";
  case 204: return "No Content";
  case 206: return "Partial Content";
  case 301: return "Moved Permanently";
  case 302: return "Found";
  case 303: return "See Other";
  case 304: return "Not Modified";
  case 307: return "Temporary Redirect";
  case 308: return "Permanent Redirect";
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 408: return "Request Timeout";
  case 410: return "Gone";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default:  return "";
  }
}

/* ---- The HTTP message of a record --------------------------------------- */

static bool token_char(unsigned char c)
{
  return c > 32 && c < 127 && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

static bool header_renamed(const char *name)
{
  return !strcasecmp(name, "content-encoding") || !strcasecmp(name, "transfer-encoding") ||
         !strcasecmp(name, "content-length");
}

static cm_err head_header(struct buf *b, const struct warc_header *h)
{
  for(const char *p = h->name; *p; p++)
    if(!token_char((unsigned char)*p))
      return CM_OK;  /* not a header name: cannot be written as one */
  if(!*h->name)
    return CM_OK;
  cm_err e = buf_addf(b, "%s%s: ", header_renamed(h->name) ? "X-Archive-Orig-" : "", h->name);
  for(const char *p = h->value ? h->value : ""; !e && *p; p++)
    e = buf_addc(b, *p == '\r' || *p == '\n' ? ' ' : *p);
  return e ? e : buf_adds(b, "\r\n");
}

static crawl_err http_head(const struct warc_page *p, struct buf *b)
{
  int st = p->status >= 100 && p->status <= 999 ? p->status : 200;
  cm_err e = buf_addf(b, "HTTP/1.1 %d %s\r\n", st, reason_phrase(st));
  for(size_t i = 0; !e && i < p->nheaders; i++)
    e = head_header(b, &p->headers[i]);
  if(!e)
    e = buf_addf(b, "Content-Length: %zu\r\n\r\n", p->body_len);
  return crawl_from_cm(e);
}

/* ---- Files ---------------------------------------------------------------- */

unsigned warc_file_serial(const char *name, const char *prefix)
{
  size_t pl = strlen(prefix), n = strlen(name);
  const char *suffix = ".warc.gz";
  if(strncmp(name, prefix, pl) || name[pl] != '-' || n < pl + 14 ||
     strcmp(name + n - 8, suffix))
    return 0;
  const char *dash = name + n - 8;
  while(dash > name + pl && dash[-1] != '-')
    dash--;
  return (unsigned)strtoul(dash, NULL, 10);
}

static unsigned last_serial(const char *dir, const char *prefix)
{
  unsigned max = 0;
  DIR *d = opendir(dir);
  struct dirent *de;
  while(d && (de = readdir(d)) != NULL) {
    unsigned s = warc_file_serial(de->d_name, prefix);
    max = s > max ? s : max;
  }
  if(d)
    closedir(d);
  return max;
}

struct named { unsigned serial; char name[WARC_NAME_MAX]; };

static int by_serial(const void *a, const void *b)
{
  unsigned x = ((const struct named *)a)->serial, y = ((const struct named *)b)->serial;
  return x < y ? -1 : x > y;
}

/* The files of prefix in dir, sorted; NULL (n 0) when none or no memory. */
static struct named *list_files(const char *dir, const char *prefix, size_t *n)
{
  struct named *v = NULL;
  size_t cap = 0;
  *n = 0;
  DIR *d = opendir(dir);
  struct dirent *de;
  while(d && (de = readdir(d)) != NULL) {
    unsigned s = warc_file_serial(de->d_name, prefix);
    if(!s || strlen(de->d_name) >= WARC_NAME_MAX)
      continue;
    if(*n == cap) {
      struct named *nv = mem_realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
      if(!nv)
        break;
      v = nv;
    }
    v[*n].serial = s;
    snprintf(v[(*n)++].name, WARC_NAME_MAX, "%s", de->d_name);
  }
  if(d)
    closedir(d);
  if(*n)
    qsort(v, *n, sizeof *v, by_serial);
  return v;
}

cm_err warc_paths_json(struct buf *b, const char *dir, const char *prefix, size_t max)
{
  size_t n;
  struct named *v = list_files(dir, prefix, &n);
  cm_err e = buf_addc(b, '[');
  for(size_t i = 0; !e && i < n && i < max; i++) {
    char path[4096 + WARC_NAME_MAX];
    int pl = snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
    e = i ? buf_addc(b, ',') : CM_OK;
    if(!e)
      e = buf_add_json_str(b, path, pl > 0 && (size_t)pl < sizeof path ? (size_t)pl : 0);
  }
  if(!e && n > max)
    e = buf_addf(b, ",\"... %zu more\"", n - max);
  if(!e)
    e = buf_addc(b, ']');
  mem_free(v);
  return e;
}

crawl_err warc_open(const struct warc_opts *o, struct warc **out)
{
  struct warc *w = mem_calloc(1, sizeof *w);
  *out = NULL;
  if(!w)
    return CRAWL_ERR_NOMEM;
  w->dir = mem_strdup(o->dir);
  w->prefix = mem_strdup(o->prefix ? o->prefix : "wpfs");
  w->software = mem_strdup(o->software ? o->software : "wpfs");
  w->extra = o->extra_info ? mem_strdup(o->extra_info) : NULL;
  w->max_file_bytes = o->max_file_bytes ? o->max_file_bytes : (1ull << 30);
  w->level = o->level >= 1 && o->level <= 12 ? o->level : 1;
  w->buffered = o->buffered;
  warc_ids_init(&w->ids);
  buf_init(&w->raw, RECORD_MAX);
  if(!w->dir || !w->prefix || !w->software || (o->extra_info && !w->extra)) {
    warc_close(&w);
    return CRAWL_ERR_NOMEM;
  }
  w->serial = last_serial(w->dir, w->prefix);
  *out = w;
  return CRAWL_OK;
}

static void file_close(struct warc *w)
{
  if(w->f)
    fclose(w->f);
  w->f = NULL;
}

void warc_close(struct warc **wp)
{
  struct warc *w = *wp;
  if(!w)
    return;
  *wp = NULL;
  file_close(w);
  if(w->z)
    libdeflate_free_compressor(w->z);
  buf_free(&w->raw);
  mem_free(w->zout);
  mem_free(w->dir);
  mem_free(w->prefix);
  mem_free(w->software);
  mem_free(w->extra);
  mem_free(w);
}

void warc_counts(const struct warc *w, uint64_t *records, uint64_t *bytes, unsigned *files)
{
  *records = w->records;
  *bytes = w->bytes;
  *files = w->files;
}

/* ---- Compressed records ----------------------------------------------------- */

/* Each record is one gzip member, made whole by libdeflate from the record
 * gathered in raw: four times zlib's speed at level 1 for 8 % more bytes
 * than its level 6 (tests/bench/bench_warc_gzip.c, docs/benchmarks.md). */
static crawl_err rec_add(struct warc *w, const void *p, size_t n)
{
  cm_err e = buf_add(&w->raw, p, n);
  return crawl_from_cm(e);
}

static crawl_err rec_begin(struct warc *w, struct warc_loc *loc)
{
  if(!w->z && !(w->z = libdeflate_alloc_compressor(w->level)))
    return CRAWL_ERR_NOMEM;
  buf_reset(&w->raw);
  snprintf(loc->file, sizeof loc->file, "%s", w->name);
  loc->offset = w->size;
  return CRAWL_OK;
}

static crawl_err rec_gzip(struct warc *w, size_t *n)
{
  size_t bound = libdeflate_gzip_compress_bound(w->z, w->raw.len);
  if(bound > w->zcap) {
    unsigned char *z = mem_realloc(w->zout, bound);
    if(!z)
      return CRAWL_ERR_NOMEM;
    w->zout = z;
    w->zcap = bound;
  }
  *n = libdeflate_gzip_compress(w->z, w->raw.data, w->raw.len, w->zout, w->zcap);
  return *n ? CRAWL_OK : CRAWL_ERR_NOMEM;
}

static crawl_err rec_end(struct warc *w, struct warc_loc *loc)
{
  size_t n = 0;
  crawl_err e = rec_add(w, "\r\n\r\n", 4);
  if(!e)
    e = rec_gzip(w, &n);
  if(!e && (fwrite(w->zout, 1, n, w->f) != n || (!w->buffered && fflush(w->f) != 0)))
    e = w->err = CRAWL_ERR_IO;
  if(w->raw.len > RAW_KEEP) {  /* one huge page does not hold its memory */
    buf_free(&w->raw);
    buf_init(&w->raw, RECORD_MAX);
    mem_free(w->zout);
    w->zout = NULL;
    w->zcap = 0;
  }
  if(e)
    return e;
  w->size += n;
  loc->length = n;
  w->records++;
  w->bytes += loc->length;
  return CRAWL_OK;
}

static crawl_err warcinfo(struct warc *w)
{
  struct buf fields, head;
  char date[21];
  buf_init(&fields, WARC_HEAD_MAX);
  buf_init(&head, WARC_HEAD_MAX);
  warc_date(clock_wall_ms(), date);
  record_id(w, w->info_id);
  buf_addf(&fields, "software: %s\r\nformat: WARC File Format 1.1\r\n"
           "conformsTo: http://iipc.github.io/warc-specifications/specifications/"
           "warc-format/warc-1.1/\r\n%s", w->software, w->extra ? w->extra : "");
  cm_err ce = buf_addf(&head, "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: %s\r\n"
                       "WARC-Date: %s\r\nWARC-Filename: %s\r\n"
                       "Content-Type: application/warc-fields\r\nContent-Length: %zu\r\n\r\n",
                       w->info_id, date, w->name, fields.len);
  struct warc_loc loc;
  crawl_err e = ce ? CRAWL_ERR_NOMEM : rec_begin(w, &loc);
  if(!e)
    e = rec_add(w, head.data, head.len);
  if(!e)
    e = rec_add(w, fields.data, fields.len);
  if(!e)
    e = rec_end(w, &loc);
  buf_free(&fields);
  buf_free(&head);
  return e;
}

static crawl_err file_open(struct warc *w)
{
  char stamp[16], path[4096];
  time_t t = (time_t)(clock_wall_ms() / 1000);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  w->serial++;
  int n = snprintf(w->name, sizeof w->name, "%s-%s-%05u.warc.gz", w->prefix, stamp, w->serial);
  int m = snprintf(path, sizeof path, "%s/%s", w->dir, w->name);
  if(n < 0 || (size_t)n >= sizeof w->name || m < 0 || (size_t)m >= sizeof path)
    return CRAWL_ERR_TOO_LARGE;
  w->f = fopen(path, "wb");
  if(!w->f)
    return CRAWL_ERR_IO;
  if(w->buffered)
    setvbuf(w->f, NULL, _IOFBF, FILE_BUF);
  w->size = 0;
  w->files++;
  crawl_err e = warcinfo(w);
  if(e)
    file_close(w);
  return e;
}

static crawl_err file_ready(struct warc *w)
{
  if(w->f && w->size >= w->max_file_bytes) {
    if(warc_flush(w))  /* its buffered records' error, which fclose would lose */
      return w->err;
    file_close(w);
  }
  return w->f ? CRAWL_OK : file_open(w);
}

crawl_err warc_flush(struct warc *w)
{
  if(w->f && fflush(w->f) != 0 && !w->err)
    w->err = CRAWL_ERR_IO;
  return w->err;
}

/* ---- A page's records ------------------------------------------------------ */

/* The blocks of a page's records, made before anything is written: a
 * group is written whole or not at all. */
struct group {
  struct buf http;       /* the response's status line and headers */
  struct buf req;        /* the request record's block; empty: none */
  struct buf meta;       /* the metadata record's block */
  struct buf head[3];    /* WARC headers: request, metadata, response */
  size_t     body_len;   /* of the body stored (none in a revisit) */
  char       payload[WARC_DIGEST_LEN], block[WARC_DIGEST_LEN];
  char       req_digest[WARC_DIGEST_LEN], meta_digest[WARC_DIGEST_LEN];
  char       id[WARC_ID_LEN];  /* the response's */
};

struct rec {
  const char               *type;     /* "response" or "revisit" */
  const struct warc_refers *refers;   /* revisit only */
  bool                      with_body;
  const char               *profile;  /* revisit: the profile's last path segment */
};

static crawl_err cm_crawl(cm_err e)
{
  return crawl_from_cm(e);
}

/* What the gateway's result tells of its request: the method (it fetches
 * pages with GET), the target and the Host header of the URL in canonical
 * form (url_split: safe on a request line), which is what the gateway
 * fetches. The headers it added (User-Agent, Accept-Encoding, conditional
 * ones) are not in its result, so they are not here. A URL that has no
 * canonical form gets no request record. */
static crawl_err request_block(const char *url, struct buf *b)
{
  struct url_parts u;
  char *canon = NULL;
  url_err ue = url_split(url, &u);
  if(ue != URL_OK && (ue = url_canon(url, strlen(url), NULL, &canon)) == URL_OK)
    ue = url_split(canon, &u);
  crawl_err e = ue == URL_ERR_NOMEM ? CRAWL_ERR_NOMEM : CRAWL_OK;
  if(ue == URL_OK)
    e = cm_crawl(buf_addf(b, "GET %.*s HTTP/1.1\r\nHost: %.*s\r\n\r\n", (int)u.target_len,
                          u.target, (int)u.authority_len, u.authority));
  mem_free(canon);
  return e;
}

/* A warc-fields value: one line, no control characters. */
static bool field_value_ok(const char *s)
{
  for(; *s; s++)
    if((unsigned char)*s < 32 || *s == 127)
      return false;
  return true;
}

/* "robots: noindex, nofollow": the directives' names as the crawl log
 * lists them, comma-separated as in X-Robots-Tag. */
static cm_err meta_robots(unsigned bits, struct buf *b)
{
  cm_err e = buf_adds(b, "robots: ");
  const char *sep = "";
  for(unsigned bit = 1; !e && bit && bit <= bits; bit <<= 1) {
    const char *name = (bits & bit) ? robots_tag_name(bit) : NULL;
    if(name) {
      e = buf_addf(b, "%s%s", sep, name);
      sep = ", ";
    }
  }
  return e ? e : buf_add(b, "\r\n", 2);
}

/* Outlinks past META_MAX (less room for the fields) are counted, not
 * written: a page of 10,000 long links still gets its record. */
static crawl_err meta_block(const struct warc_meta *m, struct buf *b)
{
  size_t omitted = 0;
  cm_err e = CM_OK;
  for(size_t i = 0; !e && i < m->noutlinks; i++) {
    const struct warc_outlink *o = &m->outlinks[i];
    size_t un = strlen(o->url), cn = strlen(o->context);
    if(!field_value_ok(o->url) || !field_value_ok(o->context) || memchr(o->url, ' ', un))
      continue;
    if(b->len + un + cn + 12 > META_MAX - META_FIELDS) {
      omitted++;
      continue;
    }
    e = buf_add(b, "outlink: ", 9);  /* not buf_addf: a page has many (docs/crawler.md) */
    if(!e)
      e = buf_add(b, o->url, un);
    if(!e)
      e = buf_addc(b, ' ');
    if(!e)
      e = buf_add(b, o->context, cn);
    if(!e)
      e = buf_add(b, "\r\n", 2);
  }
  if(!e && omitted)
    e = buf_addf(b, "outlinksOmitted: %zu\r\n", omitted);
  if(!e && m->robots)
    e = meta_robots(m->robots, b);
  if(!e && m->fields)
    e = buf_adds(b, m->fields);
  return cm_crawl(e);
}

static cm_err head_start(struct warc *w, struct buf *h, const char *type, const char *id,
                         const struct warc_page *p)
{
  char date[21];
  warc_date(p->date_ms, date);
  return buf_addf(h, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\n"
                  "WARC-Date: %s\r\nWARC-Target-URI: %s\r\nWARC-Warcinfo-ID: %s\r\n",
                  type, id, date, p->url, w->info_id);
}

static cm_err refers_fields(const struct rec *r, struct buf *h)
{
  const struct warc_refers *o = r->refers;
  cm_err e = buf_addf(h, "WARC-Profile: http://netpreserve.org/warc/1.1/revisit/%s\r\n",
                      r->profile);
  if(!e && o->uri)
    e = buf_addf(h, "WARC-Refers-To-Target-URI: %s\r\n", o->uri);
  if(!e && o->date_ms) {
    char date[21];
    warc_date(o->date_ms, date);
    e = buf_addf(h, "WARC-Refers-To-Date: %s\r\n", date);
  }
  if(!e && o->id && *o->id)
    e = buf_addf(h, "WARC-Refers-To: %s\r\n", o->id);
  return e;
}

static cm_err main_head(struct warc *w, const struct warc_page *p, const struct rec *r,
                        struct group *g)
{
  struct buf *h = &g->head[2];
  cm_err e = head_start(w, h, r->type, g->id, p);
  if(!e && r->refers)
    e = refers_fields(r, h);
  if(!e && p->truncated && r->with_body)
    e = buf_adds(h, "WARC-Truncated: length\r\n");
  if(!e)
    e = buf_addf(h, "WARC-Payload-Digest: %s\r\nWARC-Block-Digest: %s\r\n"
                 "Content-Type: application/http; msgtype=response\r\n"
                 "Content-Length: %zu\r\n\r\n", g->payload, g->block, g->http.len + g->body_len);
  return e;
}

/* A request or metadata record's header: it names the response. */
static cm_err side_head(struct warc *w, const struct warc_page *p, const char *type,
                        const char *ctype, const struct buf *block, const char *digest,
                        struct group *g, struct buf *h)
{
  char id[WARC_ID_LEN];
  record_id(w, id);
  cm_err e = head_start(w, h, type, id, p);
  if(!e)
    e = buf_addf(h, "WARC-Concurrent-To: %s\r\nWARC-Block-Digest: %s\r\n"
                 "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n", g->id, digest, ctype,
                 block->len);
  return e;
}

static crawl_err group_blocks(const struct warc_page *p, const struct rec *r, struct group *g)
{
  g->body_len = r->with_body ? p->body_len : 0;
  crawl_err e = http_head(p, &g->http);
  if(!e)
    e = request_block(p->url, &g->req);
  if(!e && p->meta)
    e = meta_block(p->meta, &g->meta);
  if(e)
    return e;
  warc_sha1_base32(p->body, p->body_len, g->payload);
  warc_sha1_base32(g->req.data, g->req.len, g->req_digest);
  warc_sha1_base32(g->meta.data, g->meta.len, g->meta_digest);
  return sha1_two(g->http.data, g->http.len, p->body, g->body_len, g->block);
}

/* Once the file is known: every header names its warcinfo record. */
static crawl_err group_heads(struct warc *w, const struct warc_page *p, const struct rec *r,
                             struct group *g)
{
  if(p->id && *p->id)
    snprintf(g->id, sizeof g->id, "%s", p->id);
  else
    record_id(w, g->id);
  cm_err e = CM_OK;
  if(g->req.len)
    e = side_head(w, p, "request", "application/http; msgtype=request", &g->req, g->req_digest,
                  g, &g->head[0]);
  if(!e && p->meta)
    e = side_head(w, p, "metadata", "application/warc-fields", &g->meta, g->meta_digest, g,
                  &g->head[1]);
  if(!e)
    e = main_head(w, p, r, g);
  return cm_crawl(e);
}

static crawl_err rec_one(struct warc *w, const struct buf *head, const void *a, size_t an,
                         const void *b, size_t bn, struct warc_loc *loc)
{
  crawl_err e = rec_begin(w, loc);
  if(!e)
    e = rec_add(w, head->data, head->len);
  if(!e)
    e = rec_add(w, a, an);
  if(!e)
    e = rec_add(w, b, bn);
  return e ? e : rec_end(w, loc);
}

static crawl_err group_write(struct warc *w, const struct warc_page *p, struct group *g,
                             struct warc_loc *loc)
{
  struct warc_loc side;
  crawl_err e = CRAWL_OK;
  if(g->head[0].len)
    e = rec_one(w, &g->head[0], g->req.data, g->req.len, "", 0, &side);
  if(!e && g->head[1].len)
    e = rec_one(w, &g->head[1], g->meta.data, g->meta.len, "", 0, &side);
  return e ? e : rec_one(w, &g->head[2], g->http.data, g->http.len, p->body, g->body_len, loc);
}

static crawl_err write_record(struct warc *w, const struct warc_page *p, const struct rec *r,
                              struct warc_loc *loc, char *digest)
{
  struct group *g = mem_calloc(1, sizeof *g);
  if(!g)
    return CRAWL_ERR_NOMEM;
  buf_init(&g->http, HTTP_HEAD_MAX);
  buf_init(&g->req, HTTP_HEAD_MAX);
  buf_init(&g->meta, META_MAX);
  for(int i = 0; i < 3; i++)
    buf_init(&g->head[i], WARC_HEAD_MAX);
  crawl_err e = group_blocks(p, r, g);
  if(!e)  /* before the headers: a new file has a new warcinfo record */
    e = file_ready(w);
  if(!e)
    e = group_heads(w, p, r, g);
  if(!e)
    e = group_write(w, p, g, loc);
  if(!e && digest)
    memcpy(digest, g->payload, WARC_DIGEST_LEN);
  buf_free(&g->http);
  buf_free(&g->req);
  buf_free(&g->meta);
  for(int i = 0; i < 3; i++)
    buf_free(&g->head[i]);
  mem_free(g);
  return e;
}

crawl_err warc_write_response(struct warc *w, const struct warc_page *p,
                              struct warc_loc *loc, char *digest)
{
  struct rec r = { "response", NULL, true, NULL };
  return write_record(w, p, &r, loc, digest);
}

crawl_err warc_write_revisit(struct warc *w, const struct warc_page *p,
                             const struct warc_refers *orig, struct warc_loc *loc, char *digest)
{
  struct rec r = { "revisit", orig, false, "identical-payload-digest" };
  return write_record(w, p, &r, loc, digest);
}

crawl_err warc_write_not_modified(struct warc *w, const struct warc_page *p,
                                  uint64_t refers_date_ms, struct warc_loc *loc)
{
  struct warc_refers orig = { p->url, refers_date_ms, NULL };
  struct rec r = { "revisit", &orig, false, "server-not-modified" };
  return write_record(w, p, &r, loc, NULL);
}
