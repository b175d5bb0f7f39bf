#ifndef WPFS_COMMON_ERR_H
#define WPFS_COMMON_ERR_H
/* Errors of the common library. 0 is success; append only, never renumber:
 * the names reach logs and tests. */
#define CM_ERRORS(X)                                   \
  X(OK,        "ok")                                   \
  X(NOMEM,     "out of memory")                        \
  X(TOO_LARGE, "over the configured limit")            \
  X(INVALID,   "invalid input")                        \
  X(IO,        "input/output error")

typedef enum {
#define X(e, txt) CM_##e,
  CM_ERRORS(X)
#undef X
  CM__LAST
} cm_err;

const char *cm_strerror(cm_err e);

#endif
