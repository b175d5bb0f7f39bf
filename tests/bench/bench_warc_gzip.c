/* The per-record gzip of WARC output, the options measured: zlib
 * (deflate with a gzip wrapper, as clients/out/warc.c used) and libdeflate
 * (whole-buffer), at levels 1 and 6 (and libdeflate's 3), on records shaped like a crawl's
 * (testweb's generated HTML pages of about 7 KiB, 30 links, an HTTP head
 * and a WARC head in front). Prints microseconds per record and the
 * compressed share for each.
 *   bench_warc_gzip [PAGES] */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/mem.h"
#include "tests/bench/crawl_pages.h"


/* One stream kept and reset per record, as warc.c does. */
static size_t z_gzip(const struct crawl_page *r, int level, unsigned char *out, size_t cap)
{
  static z_stream z;
  static int zlevel = -1;
  if(zlevel != level) {
    if(zlevel >= 0)
      deflateEnd(&z);
    memset(&z, 0, sizeof z);
    if(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      abort();
    zlevel = level;
  }
  deflateReset(&z);
  z.next_in = (unsigned char *)r->p;
  z.avail_in = (unsigned)r->n;
  z.next_out = out;
  z.avail_out = (unsigned)cap;
  if(deflate(&z, Z_FINISH) != Z_STREAM_END)
    abort();
  return z.total_out;
}

static void measure(const char *name, const struct crawl_page *v, size_t nrec, int level, bool libd)
{
  size_t cap = 1u << 20, in = 0, out = 0, n = 0;
  unsigned char *buf = malloc(cap);
  struct libdeflate_compressor *c = libd ? libdeflate_alloc_compressor(level) : NULL;
  uint64_t t0 = clock_mono_us(), t;
  do {
    const struct crawl_page *r = &v[n % nrec];
    size_t got = libd ? libdeflate_gzip_compress(c, r->p, r->n, buf, cap) : z_gzip(r, level, buf, cap);
    if(!got)
      abort();
    in += r->n;
    out += got;
    n++;
  } while((t = clock_mono_us() - t0) < bench_min_us());
  printf("   %-22s %6.1f us/record  %5.1f %% of the bytes  (%zu records of %zu bytes on average)\n",
         name, (double)t / (double)n, 100.0 * (double)out / (double)in, n, in / n);
  if(c)
    libdeflate_free_compressor(c);
  free(buf);
}

int main(int argc, char **argv)
{
  size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  /* Each page with the WARC and HTTP heads in front, as in a record. */
  struct crawl_page *v = crawl_pages("bench_warc_gzip", pages,
    "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427>\r\n"
    "WARC-Date: 2026-11-25T00:00:00Z\r\nWARC-Target-URI: http://site0.test/p/1.html\r\n"
    "Content-Type: application/http; msgtype=response\r\nContent-Length: 7300\r\n\r\n"
    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 7000\r\n"
    "ETag: \"0123456789abcdef\"\r\nLast-Modified: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n");
  if(!v)
    return 1;
  measure("zlib level 6", v, pages, 6, false);
  measure("zlib level 1", v, pages, 1, false);
  measure("libdeflate level 6", v, pages, 6, true);
  measure("libdeflate level 3", v, pages, 3, true);
  measure("libdeflate level 1", v, pages, 1, true);
  crawl_pages_free(v, pages);
  return 0;
}
