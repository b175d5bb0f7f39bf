#ifndef WPFS_BENCH_ARGS_H
#define WPFS_BENCH_ARGS_H
/* Command-line numbers of the benchmark programs. Header-only. */
#include <errno.h>
#include <stdlib.h>

/* s as a whole decimal number in [min, max] into *out; -1 otherwise. */
static inline int num_arg(const char *s, long min, long max, long *out)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if(end == s || *end || errno || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

#endif
