#ifndef WPFS_CLIENTS_GUNZIP_H
#define WPFS_CLIENTS_GUNZIP_H
/* gzip data (RFC 1952) decompressed as a stream with a cap on its output,
 * for files that arrive compressed as they are (a sitemap.xml.gz: the
 * gateway decodes Content-Encoding, not the file itself). The output goes
 * to the caller's sink in pieces of at most GUNZIP_PIECE bytes, so memory
 * stays GUNZIP_PIECE plus zlib's window whatever the data inflates to: a
 * gzip bomb costs max_out bytes of inflating, then stops. Concatenated
 * members (gzip -c a b) are one stream, as gunzip reads them. */
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/crawl_err.h"

#define GUNZIP_PIECE (64u << 10)

/* How the data ended. */
enum gunzip_end {
  GUNZIP_WHOLE,    /* every member read to its trailer */
  GUNZIP_CAP,      /* max_out bytes given; more would have followed */
  GUNZIP_BROKEN,   /* not gzip, a bad header, a checksum mismatch */
  GUNZIP_SHORT,    /* the data stops inside a member (a cut download) */
};

/* Returns non-zero (a crawl_err) to stop: gunzip returns it. */
typedef crawl_err gunzip_sink(void *arg, const char *p, size_t n);

/* The data starts with the gzip magic (1f 8b). */
bool      gunzip_magic(const void *p, size_t n);
/* Decompress in[0..n) into sink, at most max_out bytes. *end says how
 * the data ended, *out (may be NULL) how many bytes the sink got. A
 * damaged stream is not an error: what came before the damage was given. */
crawl_err gunzip(const void *in, size_t n, size_t max_out, gunzip_sink *sink, void *arg,
                 enum gunzip_end *end, size_t *out);
const char *gunzip_end_text(enum gunzip_end e);

#endif
