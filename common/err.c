#include "common/err.h"

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
