#ifndef WPFS_CLIENTS_CRAWL_ERR_H
#define WPFS_CLIENTS_CRAWL_ERR_H
/* Errors of the crawler modules (clients/). 0 is success; append only,
 * never renumber or rename: the names reach logs, the crawl log and tests.
 * Foreign codes (zlib, errno, jansson) are mapped where they occur. */
#include "common/err.h"

#define CRAWL_ERRORS(X)                                                     \
  ERR_NOMEM(X)                                                              \
  X(TOO_LARGE, too_large, "over a configured limit")                        \
  X(IO,        io,        "file input/output error")                        \
  X(CORRUPT,   corrupt,   "file is damaged or not in the expected format")  \
  X(INVALID,   invalid,   "invalid input")                                  \
  X(FULL,      full,      "memory budget exhausted")                        \
  X(NOT_FOUND, not_found, "no such entry")                                  \
  X(LOCKED,    locked,    "another process works in this directory")

typedef enum {
  CRAWL_OK = 0,
#define X(e, name, txt) CRAWL_ERR_##e,
  CRAWL_ERRORS(X)
#undef X
  CRAWL_ERR__LAST
} crawl_err;

/* Stable snake_case name ("too_large") and human text; "unknown" outside
 * the table. */
const char *crawl_err_name(crawl_err e);
const char *crawl_err_text(crawl_err e);
/* A common-library code (a capped buffer's) as the crawlers': out of
 * memory stays out of memory, any other failure is over a limit. */
crawl_err   crawl_from_cm(cm_err e);

#endif
