/* The refresh crawler's two readers on arbitrary bytes: the --urls input
 * (a URL list with weights, a crawl log or a WARC file, told apart by
 * their first bytes; clients/refresh/input.c) and the change log replayed
 * on --resume (clients/refresh/refresh_rec.c), its snapshot lines of a
 * compacted log included (clients/refresh/compact.c). Each either loads or says
 * why; weights read are positive and finite; the table never holds more
 * than its cap; the heap gives the page due first; nothing leaks. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/refresh/pages.h"
#include "clients/refresh/refresh.h"
#include "common/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (64u << 10)
#define FUZZ_MAX_PAGES 64

static void die(const char *what)
{
  fprintf(stderr, "fuzz_refresh: %s\n", what);
  abort();
}

static void check(struct rf_pages *ps)
{
  if(ps->n > FUZZ_MAX_PAGES)
    die("more pages than the cap");
  struct rf_page *top = rf_pages_top(ps);
  for(size_t i = 0; i < ps->n; i++) {
    const struct rf_page *p = &ps->v[i];
    if(!(p->weight > 0) || !isfinite(p->weight))
      die("a weight that is not a positive number");
    if(top && !p->retired && p->due_ms < top->due_ms)
      die("the heap's top is not the page due first");
    if(!(p->lambda >= 0) || !isfinite(p->lambda) || !(p->sd >= 0) || !isfinite(p->sd))
      die("a rate that is not a number");
    if(p->nobs > RF_OBS_MAX || p->obs_next >= RF_OBS_MAX)
      die("a history past its ring");
    if(!(p->f >= 0) || !isfinite(p->f))
      die("a visit rate that is not a number");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char path[64];
  if(size > FUZZ_MAX_INPUT)
    return 0;
  if(!path[0])
    snprintf(path, sizeof path, "/tmp/fuzz_refresh.%d", (int)getpid());
  FILE *f = fopen(path, "wb");
  if(!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    die("cannot write the input file");
  long live = mem_live();
  struct rf_pages ps;
  char err[256] = "";
  uint64_t lines;
  rf_pages_init(&ps, FUZZ_MAX_PAGES, 3, 86400);
  struct tally refused = { 0 };
  crawl_err e = rf_pages_load(&ps, path, 10, 1700000000000ull, &refused, NULL, err, sizeof err);
  if(e && !err[0] && e != CRAWL_ERR_CORRUPT && e != CRAWL_ERR_INVALID)
    die("an error without a reason");
  check(&ps);
  refresh_replay(&ps, path, &lines);
  check(&ps);
  rf_pages_plan(&ps, RF_OPTIMAL, 5, 0.01, 1700000000000ull);
  check(&ps);
  rf_pages_free(&ps);
  if(mem_live() != live)
    die("leak");
  return 0;
}
