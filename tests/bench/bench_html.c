/* The crawler's page parsing, stage by stage, on pages shaped like a
 * crawl's (testweb's generated HTML of about 7 KiB with 30 links): the
 * nesting estimate alone, libxml2's SAX parse with no reader, the visible
 * text, links and text in one pass (what the crawler does per page), and
 * that plus SimHash, and SimHash alone on each page's text. Prints microseconds per page for each.
 *   bench_html [PAGES [STAGE]]   STAGE: only that one (1-6; for perf),
 *                                or "dump": print one page */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "clients/web/html_text.h"
#include "clients/web/simhash.h"
#include "common/buf.h"
#include "common/clock.h"
#include "tests/bench/crawl_pages.h"

#define PAGE_URL "http://site0.test/p/1.html"

static size_t sink;  /* keeps the work from being optimised away */

static void st_depth(const struct crawl_page *r)
{
  sink += html_depth_cut(r->p, r->n, HTML_MAX_DEPTH_DEFAULT);
}

static void st_scan(const struct crawl_page *r)
{
  struct html_scan sc;
  if(html_scan(r->p, r->n, NULL, NULL, &sc))
    abort();
  sink += sc.parsed;
}

static void st_text(const struct crawl_page *r)
{
  struct buf t;
  buf_init(&t, 1u << 20);
  if(html_text(r->p, r->n, NULL, &t, NULL))
    abort();
  sink += t.len;
  buf_free(&t);
}

static void links(const struct crawl_page *r, bool sim)
{
  struct html_links_opts o = html_links_opts_default();
  o.text_max = 1u << 20;
  struct html_links l;
  if(html_links_extract(r->p, r->n, NULL, PAGE_URL, &o, &l, NULL))
    abort();
  size_t sh;
  sink += l.n + (sim ? simhash_text(l.text.data, l.text.len, &sh) : 0);
  html_links_free(&l);
}

static void st_links(const struct crawl_page *r)
{
  links(r, false);
}

static void st_links_sim(const struct crawl_page *r)
{
  links(r, true);
}

/* Each page's visible text, extracted once, for SimHash alone. */
static struct buf *texts;
static const struct crawl_page *texts_of;

static void st_sim(const struct crawl_page *r)
{
  size_t sh;
  const struct buf *t = &texts[r - texts_of];
  sink += simhash_text(t->data, t->len, &sh);
}

static void texts_make(const struct crawl_page *v, size_t pages)
{
  texts_of = v;
  texts = calloc(pages, sizeof *texts);
  if(!texts)
    abort();
  for(size_t j = 0; j < pages; j++) {
    buf_init(&texts[j], 1u << 20);
    if(html_text(v[j].p, v[j].n, NULL, &texts[j], NULL))
      abort();
  }
}

static void measure(const char *name, void (*f)(const struct crawl_page *), const struct crawl_page *v,
                    size_t nrec)
{
  size_t n = 0;
  uint64_t t0 = clock_mono_us(), t;
  do {
    f(&v[n % nrec]);
    n++;
  } while((t = clock_mono_us() - t0) < bench_min_us());
  printf("   %-34s %7.1f us/page\n", name, (double)t / (double)n);
}

int main(int argc, char **argv)
{
  size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  struct crawl_page *v = crawl_pages("bench_html", pages, NULL);
  if(!v)
    return 1;
  size_t bytes = 0;
  for(size_t j = 0; j < pages; j++)
    bytes += v[j].n;
  if(argc > 2 && !strcmp(argv[2], "dump")) {
    fwrite(v[0].p, 1, v[0].n, stdout);
    return 0;
  }
  static const struct {
    const char *name;
    void      (*f)(const struct crawl_page *);
  } stages[] = {
    { "nesting estimate", st_depth },
    { "parse (estimate + SAX, no reader)", st_scan },
    { "visible text", st_text },
    { "links + text (the crawler's pass)", st_links },
    { "links + text + SimHash", st_links_sim },
    { "SimHash alone (of the visible text)", st_sim },
  };
  unsigned only = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
  texts_make(v, pages);
  printf("   %zu pages of %zu bytes on average\n", pages, bytes / pages);
  for(unsigned k = 0; k < sizeof stages / sizeof stages[0]; k++)
    if(!only || only == k + 1)
      measure(stages[k].name, stages[k].f, v, pages);
  crawl_pages_free(v, pages);
  return sink == 1;
}
