/* The crawler's page parsing on arbitrary bytes: the nesting estimate,
 * gumbo under the arena and its bounds, link extraction, visible text and
 * SimHash. Aborts when a link is not a canonical http(s) URL (url_canon of
 * it must give it back), when a bound is not kept, or on a leak. Input is
 * capped at 64 KiB: the bounds scale with it, larger inputs only slow the
 * search down. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "clients/web/html_text.h"
#include "clients/web/simhash.h"
#include "common/mem.h"
#include "common/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (64u << 10)

static void die(const char *what, const char *detail)
{
  fprintf(stderr, "fuzz_html: %s: %s\n", what, detail ? detail : "");
  abort();
}

static void check_link(const char *url, const struct url_opts *o)
{
  char *again = NULL;
  if(url_canon(url, strlen(url), o, &again) != URL_OK)
    die("link is not a valid URL", url);
  if(strcmp(url, again) != 0)
    die("link is not canonical", url);
  mem_free(again);
  if(strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
    die("link is not http(s)", url);
}

static void check_links(const struct html_doc *doc)
{
  struct html_links_opts o = html_links_opts_default();
  o.max_links = 200;
  struct html_links l;
  if(html_links_extract(doc, "http://fuzz.test/a/b?c=d", &o, &l) != CRAWL_OK)
    return;
  if(l.n > o.max_links)
    die("link cap not kept", NULL);
  for(size_t i = 0; i < l.n; i++) {
    check_link(l.v[i].url, &o.url);
    if(l.v[i].kind >= HTML_LINK__LAST)
      die("bad link kind", l.v[i].url);
  }
  if(l.canonical)
    check_link(l.canonical, &o.url);
  check_link(l.base, &o.url);
  html_links_free(&l);
}

static void check_text(const struct html_doc *doc)
{
  struct buf b;
  buf_init(&b, 4096);
  bool cut = false;
  if(html_text(doc, &b, &cut) == CRAWL_OK) {
    if(b.len > 4096)
      die("text cap not kept", NULL);
    size_t shingles;
    (void)simhash_text(b.data, b.len, &shingles);
  }
  buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size > FUZZ_MAX_INPUT)
    return 0;
  const char *p = (const char *)data;
  long live = mem_live();
  if(html_depth_cut(p, size, 50) > size)
    die("depth cut past the end", NULL);
  struct html_opts o = { 32u << 10, 8u << 20, 200 };
  struct html_doc doc;
  crawl_err e = html_parse(p, size, &o, &doc);
  if(e == CRAWL_OK) {
    if(doc.parsed > o.max_bytes)
      die("size bound not kept", NULL);
    check_links(&doc);
    check_text(&doc);
    html_free(&doc);
  } else if(e != CRAWL_ERR_TOO_LARGE) {
    die("unexpected error", crawl_err_name(e));
  }
  if(mem_live() != live)
    die("leak", "mem_live changed");
  return 0;
}
