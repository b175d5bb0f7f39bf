#include "tests/testweb/tw_err.h"

const char *tw_strerror(tw_err e)
{
  static const char *const txt[] = {
#define X(e, t) t,
    TW_ERRORS(X)
#undef X
  };
  return (unsigned)e < TW__LAST ? txt[e] : "unknown error";
}
