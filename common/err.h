#ifndef WPFS_COMMON_ERR_H
#define WPFS_COMMON_ERR_H
/* Errors of the common library. 0 is success; append only, never renumber:
 * the names reach logs and tests.
 * Every error table of the project has this shape, X(ENUM, name, text):
 * the name is stable snake_case (for logs, metrics, JSON), the text is for
 * people; the functions that read them, where something does, are
 * <prefix>_err_name and <prefix>_err_text; out of memory is <PREFIX>_NOMEM.
 * (The fetch outcome, llfs/outcome.h, adds columns between name and text.) */
#define CM_ERRORS(X)                                   \
  X(OK,        ok,        "ok")                                   \
  X(NOMEM,     nomem,     "out of memory")                        \
  X(TOO_LARGE, too_large, "over the configured limit")            \
  X(INVALID,   invalid,   "invalid input")                        \
  X(IO,        io,        "input/output error")

typedef enum {
#define X(e, name, txt) CM_##e,
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
