/* Sitemaps on arbitrary bytes, plain or gzip (clients/web/sitemap.c,
 * clients/web/gunzip.c): the XML read never passes its cap (a bomb stops
 * there), every <loc> handed out is non-empty and trimmed, the answer is
 * a success or an out-of-memory, and nothing leaks. The cap is small so a
 * few KiB of gzip can reach it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/web/sitemap.h"
#include "common/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (64u << 10)
#define FUZZ_MAX_TEXT  (256u << 10)

static void die(const char *what)
{
  fprintf(stderr, "fuzz_sitemap: %s\n", what);
  abort();
}

static int on_loc(void *arg, const struct sitemap_entry *e)
{
  size_t *n = arg;
  const char *loc = e->loc;
  size_t len = e->len;
  if(len == 0 || strchr(" \t\r\n", loc[0]) || strchr(" \t\r\n", loc[len - 1]))
    die("a <loc> empty or not trimmed");
  if(e->priority != -1 && !(e->priority >= 0 && e->priority <= 1))
    die("a priority out of 0..1");
  if(e->changefreq > SITEMAP_FREQ_never)
    die("a changefreq out of its words");
  (*n)++;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size > FUZZ_MAX_INPUT)
    return 0;
  long live = mem_live();
  struct sitemap_opts o = { { .max_bytes = 32u << 10, .max_depth = 200 }, FUZZ_MAX_TEXT };
  struct sitemap_info si;
  size_t n = 0;
  crawl_err e = sitemap_read(data, size, &o, on_loc, &n, &si);
  if(e != CRAWL_OK && e != CRAWL_ERR_NOMEM)
    die(crawl_err_name(e));
  if(si.text > FUZZ_MAX_TEXT)
    die("text cap not kept");
  if(!si.gzip && si.text != (size < FUZZ_MAX_TEXT ? size : FUZZ_MAX_TEXT))
    die("plain text not read whole");
  if(mem_live() != live)
    die("leak");
  return 0;
}
