/* The page cache's compression (hlfs/state/pages.c: zstd, one context
 * kept per thread), the levels measured on pages shaped like a crawl's
 * (testweb's generated HTML of about 7 KiB with 30 links): microseconds
 * to compress and to decompress a page, and the compressed share.
 *   bench_page_zstd [PAGES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "tests/testweb/tw_gen.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_world.h"

#define MIN_US 500000

struct rec {
  char  *p, *z;
  size_t n, zn;
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
  } while((tc = clock_mono_us() - t0) < MIN_US);
  size_t nc = n;
  n = 0;
  uint64_t td;
  t0 = clock_mono_us();
  do {
    struct rec *r = &v[n++ % nrec];
    if(ZSTD_decompressDCtx(d, buf, 1u << 20, r->z, r->zn) != r->n)
      abort();
  } while((td = clock_mono_us() - t0) < MIN_US);
  printf("   zstd level %3d   compress %6.1f us/page   decompress %5.1f us/page   %5.1f %% of the bytes\n",
         level, per_page_us(tc, nc), per_page_us(td, n), 100.0 * (double)out / (double)in);
  free(buf);
  ZSTD_freeCCtx(c);
  ZSTD_freeDCtx(d);
}

int main(int argc, char **argv)
{
  size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  char err[256];
  struct tw_world w;
  tw_world_init(&w, 0);
  if(!pages || tw_gen_parse(&w.gen, "sites=1,pages=1000,links=30,page_bytes=7000,seed=5", err,
                            sizeof err) || tw_gen_world(&w, err, sizeof err)) {
    fprintf(stderr, "bench_page_zstd: %s\n", pages ? err : "PAGES must be > 0");
    return 1;
  }
  struct rec *v = calloc(pages, sizeof *v);
  for(size_t j = 0; j < pages; j++) {
    struct buf b;
    buf_init(&b, 1u << 20);
    if(tw_page_html(&w, w.sites[0], (long)(j % 1000), 0, &b))
      return 1;
    v[j].p = b.data;
    v[j].n = b.len;
  }
  static const int levels[] = { 3, 1, -1, -3, -7 };
  for(size_t k = 0; k < sizeof levels / sizeof levels[0]; k++)
    measure(levels[k], v, pages);
  for(size_t j = 0; j < pages; j++) {
    free(v[j].p);
    free(v[j].z);
  }
  free(v);
  tw_world_free(&w);
  return 0;
}
