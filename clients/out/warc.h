#ifndef WPFS_CLIENTS_WARC_H
#define WPFS_CLIENTS_WARC_H
/* WARC 1.1 output (ISO 28500:2017). Each file starts with a warcinfo
 * record; each fetched page is a response record holding the HTTP status
 * line, headers and body as the gateway delivered them; an exact duplicate
 * is a revisit record (profile identical-payload-digest: headers, no body),
 * and so is a page the site answered 304 (profile server-not-modified).
 * Every record is its own gzip member, so a reader can start at any record
 * offset, and files are rotated at max_file_bytes.
 *
 * A page is a group of records, all in one file, every one naming that
 * file's warcinfo record (WARC-Warcinfo-ID): a request record (the request
 * line and Host header: what the gateway's result tells of the request it
 * made), then a metadata record when the caller gives one (outlinks and
 * fields, as Heritrix writes them), then the response or revisit record,
 * last, so that the position of a group's end is the position of its
 * response's end. Request and metadata name the response with
 * WARC-Concurrent-To.
 *
 * Bodies come from the gateway already decoded (gzip, br, ...): the
 * headers that described the encoding on the wire (Content-Encoding,
 * Transfer-Encoding, Content-Length) are kept renamed X-Archive-Orig-*,
 * and a Content-Length of the stored body is added, so the record parses
 * as the HTTP message it holds.
 *
 * Digests: WARC-Block-Digest and WARC-Payload-Digest are SHA-1 in base32,
 * "sha1:...", as Heritrix, wget and warcio write them and as CDX indexes
 * and deduplication tools expect. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"
#include "common/buf.h"

#define WARC_NAME_MAX   128
#define WARC_DIGEST_LEN 38  /* "sha1:" + 32 base32 characters + NUL */

struct warc_opts {
  const char *dir;             /* must exist */
  const char *prefix;          /* file names: PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz */
  uint64_t    max_file_bytes;  /* rotate once a file is this large */
  const char *software;        /* warcinfo "software" */
  const char *extra_info;      /* more warcinfo "name: value" lines, or NULL */
  int         level;           /* compression level of each record, 1..12 (libdeflate); 0: 1 */
  bool        buffered;        /* records wait in a 1 MiB buffer for warc_flush
                                * (else each is written as it is made) */
};

struct warc_header {
  const char *name, *value;
};

/* A WARC-Record-ID, "<urn:uuid:...>" (version 4, random), and a pool of
 * random bytes to draw them from: one getrandom call per 256 ids. */
#define WARC_ID_LEN  48
#define WARC_ID_RAW  16
struct warc_ids {
  unsigned char rnd[4096];
  size_t        at;
};
void warc_ids_init(struct warc_ids *p);
void warc_id_new(struct warc_ids *p, unsigned char raw[WARC_ID_RAW]);
void warc_id_text(const unsigned char raw[WARC_ID_RAW], char out[WARC_ID_LEN]);
/* The 16 bytes of a "<urn:uuid:...>" id; false when it is not one. */
bool warc_id_parse(const char *text, unsigned char raw[WARC_ID_RAW]);

/* A link of the page, for its metadata record: "outlink: URL CONTEXT",
 * CONTEXT as Heritrix writes it, a hop type and where the link was
 * ("L a/@href", "E iframe/@src", "R =LOCATION:"). */
struct warc_outlink {
  const char *url, *context;
};

/* The metadata record of a page: its outlinks, the page-level robots
 * directives obeyed ("robots: noindex, nofollow", from X-Robots-Tag and
 * meta robots; no line without any), then more "name: value" lines
 * (fetchTimeMs, the crawl's outcome, ...), CRLF-ended. */
struct warc_meta {
  const struct warc_outlink *outlinks;
  size_t                     noutlinks;
  const char                *fields;   /* or NULL */
  unsigned                   robots;   /* ROBOTS_TAG_* (common/robots_tag.h) */
};

/* The record a revisit refers to. */
struct warc_refers {
  const char *uri;       /* its WARC-Target-URI */
  uint64_t    date_ms;   /* its WARC-Date; 0: not known (left out) */
  const char *id;        /* its WARC-Record-ID; NULL: not known (left out) */
};

struct warc_page {
  const char               *url;
  uint64_t                  date_ms;   /* when it was fetched (wall clock) */
  int                       status;
  const struct warc_header *headers;
  size_t                    nheaders;
  const void               *body;
  size_t                    body_len;
  bool                      truncated; /* the gateway cut the body at its limit */
  /* Optional (NULL: none). */
  const char               *id;        /* the record's WARC-Record-ID (else a new one) */
  const struct warc_meta   *meta;      /* a metadata record goes with the page */
};

/* Where a page's response (or revisit) record went: file name (in dir),
 * offset and length of its gzip member. The page's other records are
 * before it in the same file. */
struct warc_loc {
  char     file[WARC_NAME_MAX];
  uint64_t offset, length;
};

struct warc;

/* The first file gets the serial after the largest one of this prefix
 * already in dir, so a resumed crawl never appends to an older file. */
crawl_err warc_open(const struct warc_opts *o, struct warc **out);
void      warc_close(struct warc **wp);
/* digest (WARC_DIGEST_LEN, may be NULL) gets the payload digest. */
crawl_err warc_write_response(struct warc *w, const struct warc_page *p,
                              struct warc_loc *loc, char *digest);
/* An exact duplicate of an original already archived (profile
 * identical-payload-digest): headers only; WARC-Refers-To-Target-URI,
 * -Date and WARC-Refers-To from orig, as far as they are known. */
crawl_err warc_write_revisit(struct warc *w, const struct warc_page *p,
                             const struct warc_refers *orig, struct warc_loc *loc,
                             char *digest);
/* The site answered 304 to a conditional request for p->url (status 304,
 * the headers of that answer; the body, if given, only for the payload
 * digest): a revisit record of profile server-not-modified, referring to
 * the copy of the same URL fetched at refers_date_ms (0: not said). */
crawl_err warc_write_not_modified(struct warc *w, const struct warc_page *p,
                                  uint64_t refers_date_ms, struct warc_loc *loc);
/* Write what buffered records wait; the first write error of any record
 * since the file opened is kept and returned from then on. */
crawl_err warc_flush(struct warc *w);
/* Records written (every type, warcinfo included), bytes written
 * (compressed), files opened. */
void      warc_counts(const struct warc *w, uint64_t *records, uint64_t *bytes,
                      unsigned *files);

/* The serial of a file name this prefix writes, 0 for any other name. */
unsigned  warc_file_serial(const char *name, const char *prefix);

/* Append a JSON array of the files this prefix wrote into dir, as
 * "dir/name", oldest first (by serial); at most max names, then the
 * count of the rest as a last string "... N more". */
cm_err    warc_paths_json(struct buf *b, const char *dir, const char *prefix, size_t max);

/* Helpers, exposed for tests. */
void warc_date(uint64_t ms, char out[21]);  /* 2024-01-01T00:00:00Z */
uint64_t warc_date_ms(const char *date);    /* its inverse; 0 when NULL or not one */

#endif
