#ifndef WPFS_BENCH_ROBOTS_GEN_H
#define WPFS_BENCH_ROBOTS_GEN_H
/* The robots.txt inputs the robots benchmarks share (bench_robots,
 * bench_robots_check): one generator, so both measure the same file.
 * Header-only; each benchmark is one program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"

static uint64_t seed = 9309;

/* Deterministic, so every run and every benchmark sees the same bytes. */
static inline unsigned rnd(unsigned n)
{
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(seed >> 33) % n;
}

/* At most cap bytes of path; NULL if it cannot be read. */
static inline char *read_file(const char *path, size_t cap, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if(!f)
    return NULL;
  char *b = malloc(cap);
  *len = b ? fread(b, 1, cap, f) : 0;
  fclose(f);
  return b;
}

/* A 500 KiB robots.txt: 200 named groups, then a large "*" group, with
 * literal, wildcard and anchored rules and some percent-encoding. */
static inline void gen_500k(struct buf *b)
{
  static const char *const parts[] = { "shop", "cart", "search", "img", "caf%C3%A9", "user",
                                       "api", "v2", "tmp", "news", "2023", "print" };
  int g = 0;
  while(b->len < 500 * 1024 - 200) {
    if(g < 200 && b->len > (size_t)g * 1000)
      buf_addf(b, "\nuser-agent: bot%d\n", g++);
    else if(g == 200 && ++g)
      buf_adds(b, "\nuser-agent: *\ncrawl-delay: 0.5\n");
    unsigned r = rnd(10);
    buf_addf(b, "%s: /%s/%s%s%s%u%s\n", r < 7 ? "disallow" : "allow", parts[rnd(12)],
             parts[rnd(12)], r == 3 ? "*" : "/", r == 4 ? "*." : "", rnd(100000),
             r == 5 ? "$" : "");
  }
}

#endif
