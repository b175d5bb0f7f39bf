/* The crawler's page parsing, stage by stage, on pages shaped like a
 * crawl's (testweb's generated HTML of about 7 KiB with 30 links): the
 * nesting estimate alone, libxml2's SAX parse with no reader, the visible
 * text, links and text in one pass (what the crawler does per page), and
 * that plus SimHash. Prints microseconds per page for each.
 *   bench_html [PAGES [STAGE]]   STAGE: only that one (1-5; for perf),
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
#include "tests/testweb/tw_gen.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_world.h"

#define MIN_US 500000
#define PAGE_URL "http://site0.test/p/1.html"

struct rec {
  char  *p;
  size_t n;
};

static size_t sink;  /* keeps the work from being optimised away */

static void st_depth(const struct rec *r)
{
  sink += html_depth_cut(r->p, r->n, HTML_MAX_DEPTH_DEFAULT);
}

static void st_scan(const struct rec *r)
{
  struct html_scan sc;
  if(html_scan(r->p, r->n, NULL, NULL, &sc))
    abort();
  sink += sc.parsed;
}

static void st_text(const struct rec *r)
{
  struct buf t;
  buf_init(&t, 1u << 20);
  if(html_text(r->p, r->n, NULL, &t, NULL))
    abort();
  sink += t.len;
  buf_free(&t);
}

static void links(const struct rec *r, bool sim)
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

static void st_links(const struct rec *r)
{
  links(r, false);
}

static void st_links_sim(const struct rec *r)
{
  links(r, true);
}

static void measure(const char *name, void (*f)(const struct rec *), const struct rec *v,
                    size_t nrec)
{
  size_t n = 0;
  uint64_t t0 = clock_mono_us(), t;
  do {
    f(&v[n % nrec]);
    n++;
  } while((t = clock_mono_us() - t0) < MIN_US);
  printf("   %-34s %7.1f us/page\n", name, (double)t / (double)n);
}

int main(int argc, char **argv)
{
  size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  char err[256];
  struct tw_world w;
  tw_world_init(&w, 0);
  if(!pages || tw_gen_parse(&w.gen, "sites=1,pages=1000,links=30,page_bytes=7000,seed=5", err,
                            sizeof err) || tw_gen_world(&w, err, sizeof err)) {
    fprintf(stderr, "bench_html: %s\n", pages ? err : "PAGES must be > 0");
    return 1;
  }
  struct rec *v = calloc(pages, sizeof *v);
  size_t bytes = 0;
  for(size_t j = 0; j < pages; j++) {
    struct buf b;
    buf_init(&b, 1u << 20);
    if(tw_page_html(&w, w.sites[0], (long)(j % 1000), 0, &b))
      return 1;
    v[j].p = b.data;
    v[j].n = b.len;
    bytes += b.len;
  }
  if(argc > 2 && !strcmp(argv[2], "dump")) {
    fwrite(v[0].p, 1, v[0].n, stdout);
    return 0;
  }
  static const struct {
    const char *name;
    void      (*f)(const struct rec *);
  } stages[] = {
    { "nesting estimate", st_depth },
    { "parse (estimate + SAX, no reader)", st_scan },
    { "visible text", st_text },
    { "links + text (the crawler's pass)", st_links },
    { "links + text + SimHash", st_links_sim },
  };
  unsigned only = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
  printf("   %zu pages of %zu bytes on average\n", pages, bytes / pages);
  for(unsigned k = 0; k < sizeof stages / sizeof stages[0]; k++)
    if(!only || only == k + 1)
      measure(stages[k].name, stages[k].f, v, pages);
  for(size_t j = 0; j < pages; j++)
    free(v[j].p);
  free(v);
  tw_world_free(&w);
  return sink == 1;
}
