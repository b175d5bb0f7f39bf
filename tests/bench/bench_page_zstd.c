/* The page cache's compression (hlfs/state/pages.c: zstd, one context
 * kept per thread), the levels measured on pages shaped like a crawl's
 * (testweb's generated HTML of about 7 KiB with 30 links): microseconds
 * to compress and to decompress a page, and the compressed share.
 *   bench_page_zstd [PAGES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/clock.h"
#include "tests/bench/crawl_pages.h"


struct rec {
  const char *p;
  size_t      n;
  char       *z;  /* compressed at the level measured */
  size_t      zn;
};

static double per_page_us(uint64_t t, size_t n) { return (double)t / (double)n; }

static void measure(int level, struct rec *v, size_t nrec)
{
  ZSTD_CCtx *c = ZSTD_createCCtx();
  ZSTD_DCtx *d = ZSTD_createDCtx();
  size_t cap = ZSTD_compressBound(1u << 20), in = 0, out = 0, n = 0;
  char *buf = malloc(1u << 20);
  for(size_t j = 0; j < nrec; j++) {
    v[j].z = realloc(v[j].z, cap);
    v[j].zn = ZSTD_compressCCtx(c, v[j].z, cap, v[j].p, v[j].n, level);
    if(ZSTD_isError(v[j].zn))
      abort();
  }
  uint64_t t0 = clock_mono_us(), tc;
  do {
    struct rec *r = &v[n++ % nrec];
    size_t got = ZSTD_compressCCtx(c, buf, 1u << 20, r->p, r->n, level);
    if(ZSTD_isError(got))
      abort();
    in += r->n;
    out += got;
  } while((tc = clock_mono_us() - t0) < bench_min_us());
  size_t nc = n;
  n = 0;
  uint64_t td;
  t0 = clock_mono_us();
  do {
    struct rec *r = &v[n++ % nrec];
    if(ZSTD_decompressDCtx(d, buf, 1u << 20, r->z, r->zn) != r->n)
      abort();
  } while((td = clock_mono_us() - t0) < bench_min_us());
  printf("   zstd level %3d   compress %6.1f us/page   decompress %5.1f us/page   %5.1f %% of the bytes\n",
         level, per_page_us(tc, nc), per_page_us(td, n), 100.0 * (double)out / (double)in);
  free(buf);
  ZSTD_freeCCtx(c);
  ZSTD_freeDCtx(d);
}

int main(int argc, char **argv)
{
  size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  struct crawl_page *pg = crawl_pages("bench_page_zstd", pages, NULL);
  struct rec *v = pg ? calloc(pages, sizeof *v) : NULL;
  if(!v)
    return 1;
  for(size_t j = 0; j < pages; j++)
    v[j] = (struct rec){ pg[j].p, pg[j].n, NULL, 0 };
  static const int levels[] = { 3, 1, -1, -3, -7 };
  for(size_t k = 0; k < sizeof levels / sizeof levels[0]; k++)
    measure(levels[k], v, pages);
  for(size_t j = 0; j < pages; j++)
    free(v[j].z);
  free(v);
  crawl_pages_free(pg, pages);
  return 0;
}
