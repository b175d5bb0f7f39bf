#ifndef WPFS_COMMON_ERR_H
#define WPFS_COMMON_ERR_H
/* Errors of the common library. 0 is success; append only, never renumber:
 * the names reach logs and tests.
 * Every error table of the project has this shape, X(ENUM, name, text):
 * the name is stable snake_case (for logs, metrics, JSON), the text is for
 * people; the functions that read them, where something does, are
 * <prefix>_err_name and <prefix>_err_text, defined by ERR_DEFINE_NAME and
 * ERR_DEFINE_TEXT below from the table itself. Out of memory is the row
 * ERR_NOMEM in every table: the enum <PREFIX>_NOMEM, named nomem.
 * (The fetch outcome, llfs/outcome.h, adds columns between name and text,
 * and says no_memory: its names are its API.) */
#include <stddef.h>

#define ERR_NOMEM(X) X(NOMEM, nomem, "out of memory")

#define CM_ERRORS(X)                                   \
  X(OK,        ok,        "ok")                                   \
  ERR_NOMEM(X)                                                    \
  X(TOO_LARGE, too_large, "over the configured limit")            \
  X(INVALID,   invalid,   "invalid input")                        \
  X(IO,        io,        "input/output error")

typedef enum {
#define X(e, name, txt) CM_##e,
  CM_ERRORS(X)
#undef X
  CM__LAST
} cm_err;

/* const char *fn(type e): the name (second column) of row e of TABLE,
 * whose rows are in enum order from 0 (a table without a row for 0 gets
 * one in front: see common/url.c); "unknown" outside it. ERR_DEFINE_TEXT
 * the same for the text, which TEXT_OF picks from a row (ERR_TEXT_OF for
 * X(ENUM, name, text)); "unknown error" outside it. One table, one place
 * that reads it: a row added is named and described at once. */
#define ERR_NAME_OF(e, name, ...) #name,
#define ERR_TEXT_OF(e, name, text) text,
#define ERR_DEFINE_NAME(fn, type, TABLE)                                    \
  const char *fn(type e)                                                    \
  {                                                                         \
    static const char *const tab[] = { TABLE(ERR_NAME_OF) };                \
    return (size_t)e < sizeof tab / sizeof tab[0] ? tab[e] : "unknown";     \
  }
#define ERR_DEFINE_TEXT(fn, type, TABLE, TEXT_OF)                           \
  const char *fn(type e)                                                    \
  {                                                                         \
    static const char *const tab[] = { TABLE(TEXT_OF) };                    \
    return (size_t)e < sizeof tab / sizeof tab[0] ? tab[e] : "unknown error"; \
  }

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
