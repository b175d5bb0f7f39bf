#ifndef WPFS_LLFS_REQ_H
#define WPFS_LLFS_REQ_H
/* Decoding a FetchRequest (openapi.yaml) into what the engine needs, with an
 * answer naming the offending field for every invalid input. Pure: no I/O,
 * unit-tested in tests/unit/llfs/req.c. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/jin.h"

#define LLFS_MAX_HEADERS 32
#define LLFS_MAX_HEADER_VALUE 8192
/* The longest a caller may hold its fetch back (hold_us): the gateway
 * holds a few milliseconds (hlfs --claim-ahead-us). */
#define LLFS_MAX_HOLD_US 10000000LL
enum { LLFS_GET, LLFS_HEAD };

/* The service's limits: defaults and maxima of the per-request fields. */
struct llfs_limits {
  long   connect_timeout_ms;
  long   timeout_ms;
  size_t max_body;
  size_t max_decoded;
  size_t max_url_len;
};

struct llfs_req {
  char  *url;                         /* canonical, mem_alloc'd */
  int    method;                      /* LLFS_GET / LLFS_HEAD */
  char  *headers[LLFS_MAX_HEADERS];   /* "Name: value", mem_alloc'd */
  size_t nheaders;
  long   connect_timeout_ms;
  long   timeout_ms;
  size_t max_body;
  size_t max_decoded;
  char   pin[48];                     /* "" = resolve */
  uint64_t hold_us;                   /* contact the site no sooner (fetch_req) */
};

/* Problem to answer when decoding fails. */
struct llfs_req_err {
  unsigned status;        /* 400 or 422 */
  const char *type;       /* problem slug */
  const char *url_error;  /* URL library error name, or NULL */
  struct jin_err e;
};

int  llfs_req_decode(json_t *body, const struct llfs_limits *lim, struct llfs_req *out,
                     struct llfs_req_err *err);
void llfs_req_clear(struct llfs_req *r);

#endif
