#ifndef WPFS_BENCH_CRAWL_PAGES_H
#define WPFS_BENCH_CRAWL_PAGES_H
/* The pages the per-page benchmarks share (bench_html, bench_warc_gzip,
 * bench_page_zstd): testweb's generated HTML of about 7 KiB with 30 links,
 * the same bytes in every run, so that their figures add up. Header-only;
 * each benchmark is one program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"
#include "tests/testweb/tw_gen.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_world.h"

/* How long each figure is measured: 0.5 s, or WPFS_BENCH_US microseconds
 * (tests/e2e/bench_programs.sh only checks that they run). */
static inline uint64_t bench_min_us(void)
{
  const char *e = getenv("WPFS_BENCH_US");
  return e && *e ? strtoull(e, NULL, 10) : 500000;
}

struct crawl_page {
  char  *p;
  size_t n;
};

/* n pages, each with head (may be NULL) in front; NULL after printing why
 * (prog names the benchmark). Free with crawl_pages_free. */
static inline struct crawl_page *crawl_pages(const char *prog, size_t n, const char *head)
{
  char err[256];
  struct tw_world w;
  tw_world_init(&w, 0);
  struct crawl_page *v = n ? calloc(n, sizeof *v) : NULL;
  if(!v || tw_gen_parse(&w.gen, "sites=1,pages=1000,links=30,page_bytes=7000,seed=5", err,
                        sizeof err) || tw_gen_world(&w, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", prog, v ? err : "PAGES must be > 0");
    free(v);
    tw_world_free(&w);
    return NULL;
  }
  for(size_t j = 0; j < n; j++) {
    struct buf b;
    buf_init(&b, 1u << 20);
    if((head && buf_adds(&b, head)) || tw_page_html(&w, w.sites[0], (long)(j % 1000), 0, &b))
      abort();
    v[j].n = b.len;
    v[j].p = malloc(b.len + 1);
    if(!v[j].p)
      abort();
    memcpy(v[j].p, b.data, b.len + 1);
    buf_free(&b);
  }
  tw_world_free(&w);
  return v;
}

static inline void crawl_pages_free(struct crawl_page *v, size_t n)
{
  for(size_t j = 0; v && j < n; j++)
    free(v[j].p);
  free(v);
}

#endif
