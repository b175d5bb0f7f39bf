#include "common/err.h"

#include <stdio.h>
#include <stdlib.h>

_Noreturn void check_failed(const char *file, int line, const char *what)
{
  fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
  abort();
}
