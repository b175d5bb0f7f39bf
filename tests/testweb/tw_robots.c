#include "tests/testweb/tw_robots.h"

#include <string.h>

#include "tests/testweb/tw_page.h"

static void robots_lines(struct buf *out, const char *field, json_t *list)
{
  size_t i;
  json_t *v;
  if(json_is_string(list)) {
    buf_addf(out, "%s: %s\n", field, json_string_value(list));
    return;
  }
  json_array_foreach(list, i, v) buf_addf(out, "%s: %s\n", field, json_string_value(v));
}

static void robots_rules(const struct tw_world *w, const struct tw_site *s, struct buf *out)
{
  const struct tw_robots *r = &s->robots;
  buf_adds(out, "User-agent: *\n");
  if(r->crawl_delay)
    buf_addf(out, "Crawl-delay: %s\n", r->crawl_delay);
  if(r->disallow)
    robots_lines(out, "Disallow", r->disallow);
  else
    buf_adds(out, "Disallow: /private/\n");
  robots_lines(out, "Allow", r->allow);
  if(r->sitemaps) {
    robots_lines(out, "Sitemap", r->sitemaps);
  } else if(s->pages > 0) {
    char base[300];
    tw_page_base(w, s, base, sizeof base);
    buf_addf(out, "Sitemap: %s/sitemap.xml\n", base);
  }
}

/* Comment lines up to exactly `size` bytes: a huge but valid file. */
static void robots_pad(struct buf *out, size_t size)
{
  static const char line[] = "# testweb pads this robots.txt with comment lines.........\n";
  while(out->len + sizeof line - 1 <= size)
    if(buf_add(out, line, sizeof line - 1))
      return;
  if(out->len + 1 < size) {
    buf_addc(out, '#');
    while(out->len + 1 < size && !buf_addc(out, '.'))
      ;
    buf_addc(out, '\n');
  }
}

tw_err tw_robots_text(const struct tw_world *w, const struct tw_site *s, struct buf *out)
{
  const struct tw_beh *b = &s->robots.beh;
  size_t start = out->len;
  if(TW_BEH_HAS(b, body))
    buf_adds(out, b->body);
  else
    robots_rules(w, s, out);
  if(TW_BEH_HAS(b, size))
    robots_pad(out, start + (size_t)b->size);
  return out->len + 64 < out->max ? TW_OK : TW_TOO_LARGE;
}
