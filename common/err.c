#include "common/err.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const cm_text[] = {
#define X(e, txt) txt,
  CM_ERRORS(X)
#undef X
};

const char *cm_strerror(cm_err e)
{
  if((unsigned)e >= CM__LAST)
    return "unknown error";
  return cm_text[e];
}

_Noreturn void check_failed(const char *file, int line, const char *what)
{
  fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
  abort();
}
