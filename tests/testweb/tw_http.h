#ifndef WPFS_TESTWEB_TW_HTTP_H
#define WPFS_TESTWEB_TW_HTTP_H
/* A small HTTP/1.x request-head parser. It never allocates: every string
 * points into the caller's bytes, which must outlive the struct. Only the
 * headers testweb acts on or records are kept; the rest are skipped. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/testweb/tw_err.h"

#define TW_METHODS(X) X(GET) X(HEAD) X(POST) X(PUT) X(DELETE) X(OTHER)
enum tw_method {
#define X(m) TW_M_##m,
  TW_METHODS(X)
#undef X
};
const char *tw_method_name(enum tw_method m);

struct tw_str {
  const char *p;  /* NULL when absent */
  size_t n;
};

struct tw_req {
  enum tw_method method;
  struct tw_str target;   /* origin-form "/a?b" or absolute-form */
  struct tw_str host;     /* Host header, port included */
  struct tw_str ua;       /* User-Agent */
  struct tw_str inm;      /* If-None-Match */
  struct tw_str ims;      /* If-Modified-Since */
  int minor;              /* HTTP/1.<minor> */
  bool keep_alive;        /* after Connection and the version default */
  bool chunked;           /* request body in chunked coding (not supported) */
  int64_t content_length; /* -1 when absent */
  size_t head_len;        /* bytes of the head, final empty line included */
};

/* Parse the request head at p[0..n). TW_AGAIN: no complete head yet (and
 * fewer than max bytes); TW_TOO_LARGE: no end of head within max bytes;
 * TW_BAD_REQUEST: not HTTP/1.x. On TW_OK, r is filled. */
tw_err tw_http_parse(const char *p, size_t n, size_t max, struct tw_req *r);

#endif
