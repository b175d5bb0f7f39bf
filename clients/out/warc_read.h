#ifndef WPFS_CLIENTS_WARC_READ_H
#define WPFS_CLIENTS_WARC_READ_H
/* Reading back one record of our WARC files at a known offset (each
 * record is one gzip member): for resuming a crawl, which re-reads the
 * pages recorded after the last checkpoint instead of fetching them again,
 * and for tests. Not a general WARC reader: it expects what warc.c writes
 * (it does accept any record type and an uncompressed tail). */
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"
#include "common/buf.h"

struct warc_record {
  struct buf  raw;          /* the whole uncompressed record */
  char       *type;         /* WARC-Type */
  char       *target;       /* WARC-Target-URI, or NULL */
  char       *payload_digest;
  const char *block;        /* into raw */
  size_t      block_len;
  /* For application/http blocks: */
  int         status;
  const char *http_head;    /* status line and headers, CRLF CRLF included */
  size_t      http_head_len;
  const char *body;
  size_t      body_len;
  uint64_t    member_len;   /* compressed bytes of the record */
};

/* Read the record at offset of path; max bounds its uncompressed size
 * (CRAWL_ERR_TOO_LARGE beyond). CRAWL_ERR_CORRUPT for a damaged or cut
 * member (a crash while writing) or a malformed record. */
crawl_err warc_read_at(const char *path, uint64_t offset, size_t max,
                       struct warc_record *r);
void      warc_record_free(struct warc_record *r);
/* Value of a WARC header field of the record (heap, mem_free), or NULL. */
char     *warc_record_field(const struct warc_record *r, const char *name);
/* Value of an HTTP header of the record (heap, mem_free), or NULL. */
char     *warc_record_http_header(const struct warc_record *r, const char *name);

#endif
