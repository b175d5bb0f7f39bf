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

/* CHECK(cond): an invariant the code relies on. Broken, it stops the
 * process with the file, the line and the condition, in release builds
 * too (redis's serverAssert is the model): it is a bug, and going on would
 * corrupt what other requests share. */
_Noreturn void check_failed(const char *file, int line, const char *what);
#define CHECK(cond)                                   \
  do {                                                \
    if(!(cond))                                       \
      check_failed(__FILE__, __LINE__, #cond);        \
  } while(0)

#endif
