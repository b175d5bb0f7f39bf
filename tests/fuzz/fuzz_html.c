/* The crawler's page parsing on arbitrary bytes: the nesting estimate,
 * libxml2's SAX parse under its bounds, link extraction with the text in
 * the same pass, visible text alone and SimHash, and the event stream.
 * Aborts when a link is not a canonical http(s) URL (url_canon of it must
 * give it back), when a bound is not kept, when events do not nest, when
 * the text of the links' pass differs from the text alone, or on a leak.
 * Input is capped at 64 KiB: the bounds scale with it, larger inputs only
 * slow the search down. */
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

#define FUZZ_TEXT_MAX 4096

static void check_links(const char *p, size_t n, const struct html_opts *ho,
                        const struct buf *alone)
{
  struct html_links_opts o = html_links_opts_default();
  o.max_links = 200;
  o.text_max = FUZZ_TEXT_MAX;
  struct html_links l;
  if(html_links_extract(p, n, ho, "http://fuzz.test/a/b?c=d", &o, &l, NULL) != CRAWL_OK)
    return;
  if(l.n > o.max_links)
    die("link cap not kept", NULL);
  for(size_t i = 0; i < l.n; i++) {
    check_link(l.v[i].url, &o.url);
    if(l.v[i].kind >= HTML_LINK__LAST)
      die("bad link kind", l.v[i].url);
    if(l.v[i].text_at + l.v[i].anchor_len > l.text.len)
      die("anchor past the text", l.v[i].url);
  }
  if(l.canonical)
    check_link(l.canonical, &o.url);
  check_link(l.base, &o.url);
  if(l.text.len > FUZZ_TEXT_MAX)
    die("text cap not kept", NULL);
  if(alone && (l.text.len != alone->len || (l.text.len && memcmp(l.text.data, alone->data, l.text.len))))
    die("the links' text differs from the text alone", NULL);
  html_links_free(&l);
}

static bool check_text(const char *p, size_t n, const struct html_opts *ho, struct buf *b)
{
  buf_init(b, FUZZ_TEXT_MAX);
  bool cut = false;
  if(html_text(p, n, ho, b, &cut) != CRAWL_OK)
    return false;
  if(b->len > FUZZ_TEXT_MAX)
    die("text cap not kept", NULL);
  size_t shingles;
  (void)simhash_text(b->data, b->len, &shingles);
  return true;
}

/* Every start has its end, in order: each end names the innermost open
 * element, and none is left open. Names live as long as the parse. */
struct nest {
  long        depth;
  const char *open[FUZZ_MAX_INPUT];
};

static int ev_start(void *arg, const char *name, const char *const *attrs)
{
  struct nest *s = arg;
  (void)attrs;
  if(!*name)
    die("empty element name", NULL);
  if(s->depth == (long)FUZZ_MAX_INPUT)
    die("more elements open than bytes", NULL);
  s->open[s->depth++] = name;
  return 0;
}

static int ev_end(void *arg, const char *name)
{
  struct nest *s = arg;
  if(s->depth == 0)
    die("an end without its start", name);
  if(strcmp(s->open[--s->depth], name))
    die("an end that is not the innermost open element's", name);
  return 0;
}

static void check_events(const char *p, size_t n, const struct html_opts *ho)
{
  static struct nest s;
  s.depth = 0;
  struct html_sink sink = { ev_start, ev_end, NULL, &s };
  struct html_scan sc;
  if(html_scan(p, n, ho, &sink, &sc) != CRAWL_OK)
    return;
  if(sc.parsed > ho->max_bytes || sc.parsed > n)
    die("size bound not kept", NULL);
  if(s.depth != 0)
    die("a start without its end", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size > FUZZ_MAX_INPUT)
    return 0;
  const char *p = (const char *)data;
  long live = mem_live();
  if(html_depth_cut(p, size, 50) > size)
    die("depth cut past the end", NULL);
  /* the transport's charset, chosen by the input's length: decoders
   * other than UTF-8's, a wrong one for the bytes, one nobody knows */
  static const char *const cs[] = { NULL, "windows-1251", "shift_jis", "utf-16le",
                                     "iso-8859-2", "no-such-charset" };
  struct html_opts o = { .max_bytes = 32u << 10, .max_depth = 200,
                         .charset = cs[size % (sizeof cs / sizeof cs[0])] };
  check_events(p, size, &o);
  struct buf alone;
  bool ok = check_text(p, size, &o, &alone);
  check_links(p, size, &o, ok ? &alone : NULL);
  buf_free(&alone);
  if(mem_live() != live)
    die("leak", "mem_live changed");
  return 0;
}
