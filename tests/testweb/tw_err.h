#ifndef WPFS_TESTWEB_TW_ERR_H
#define WPFS_TESTWEB_TW_ERR_H
/* Errors of testweb. 0 is success; append only: the names reach logs. */
#define TW_ERRORS(X)                                   \
  X(OK,          "ok")                                 \
  X(NOMEM,       "out of memory")                      \
  X(TOO_LARGE,   "over the configured limit")          \
  X(BAD_REQUEST, "malformed request")                  \
  X(CONFIG,      "invalid configuration")              \
  X(NOT_FOUND,   "not found")                          \
  X(IO,          "input/output error")                 \
  X(EXISTS,      "already exists")                     \
  X(AGAIN,       "incomplete, need more input")

typedef enum {
#define X(e, txt) TW_##e,
  TW_ERRORS(X)
#undef X
  TW__LAST
} tw_err;

const char *tw_strerror(tw_err e);

#endif
