#include "tests/testweb/tw_page.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testweb/tw_rng.h"

/* Sitemaps protocol limit per file. */
#define SITEMAP_MAX_URLS 50000

static const char *const page_words[] = {
  "crawl", "fetch", "page", "link", "site", "robots", "delay", "cache", "index",
  "server", "request", "answer", "loopback", "world", "test", "queue", "host",
  "politeness", "gateway", "fetcher", "body", "header", "status", "redirect",
};
#define NWORDS (sizeof page_words / sizeof page_words[0])

void tw_page_base(const struct tw_world *w, const struct tw_site *s, char *out, size_t len)
{
  snprintf(out, len, "http://%s:%ld", tw_site_host(s), w->link_port);
}

static void page_path(long j, char *out, size_t len)
{
  if(j == 0)
    snprintf(out, len, "/");
  else
    snprintf(out, len, "/p/%ld.html", j);
}

/* Another URL of the same page (duplicate content). */
static void page_dup_path(long j, struct tw_rng *r, char *out, size_t len)
{
  unsigned form = (unsigned)tw_rng_below(r, 2), ref = (unsigned)tw_rng_below(r, 100);
  if(j == 0)
    snprintf(out, len, form ? "/index.html" : "/?ref=%u", ref);
  else if(form)
    snprintf(out, len, "/p/%ld", j);
  else
    snprintf(out, len, "/p/%ld.html?ref=%u", j, ref);
}

static void page_link(struct buf *out, const char *href, const char *text)
{
  buf_addf(out, "<li><a href=\"%s\">%s</a></li>\n", href, text);
}

static void page_cross_link(const struct tw_world *w, const struct tw_site *s,
                            struct tw_rng *r, struct buf *out)
{
  size_t k = (size_t)tw_rng_below(r, w->n);
  if(k == s->idx)
    k = (k + 1) % w->n;
  const struct tw_site *t = w->sites[k];
  long m = t->pages > 0 ? (long)tw_rng_below(r, (uint64_t)t->pages) : 0;
  char base[300], path[64], href[400], text[300];
  tw_page_base(w, t, base, sizeof base);
  page_path(m, path, sizeof path);
  snprintf(href, sizeof href, "%s%s", base, path);
  snprintf(text, sizeof text, "%s page %ld", tw_site_host(t), m);
  page_link(out, href, text);
}

static void page_links(const struct tw_world *w, const struct tw_site *s, long j,
                       struct tw_rng *r, struct buf *out)
{
  char href[64], text[64];
  if(s->pages > 1) {
    page_path((j + 1) % s->pages, href, sizeof href);
    page_link(out, href, "next");
  }
  for(long i = 0; i < s->links; i++) {
    if(w->n > 1 && tw_rng_unit(r) < s->cross) {
      page_cross_link(w, s, r, out);
      continue;
    }
    long m = s->pages > 0 ? (long)tw_rng_below(r, (uint64_t)s->pages) : 0;
    if(tw_rng_unit(r) < s->dups)
      page_dup_path(m, r, href, sizeof href);
    else
      page_path(m, href, sizeof href);
    snprintf(text, sizeof text, "page %ld", m);
    page_link(out, href, text);
  }
  if(j == 0 && s->trap_link) {
    page_link(out, "/_b/trap/", "archive");
    page_link(out, "/_b/calendar/2024/1", "calendar");
  }
}

static void page_pad(struct tw_rng *r, size_t target, struct buf *out)
{
  static const char tail[] = "</p>\n</body></html>\n";
  buf_adds(out, "<p>");
  while(out->len + sizeof tail - 1 < target) {
    const char *word = page_words[tw_rng_below(r, NWORDS)];
    if(buf_adds(out, word) || buf_addc(out, ' '))
      break;
  }
  buf_adds(out, tail);
}

tw_err tw_page_html(const struct tw_world *w, const struct tw_site *s, long j,
                    uint64_t version, struct buf *out)
{
  if(w->topics && s->idx < (size_t)w->topics->sites)
    return tw_topic_page(w, s, j, out);  /* a page of the topical web */
  struct tw_rng r = tw_rng_for((uint64_t)w->gen.seed, s->idx, (uint64_t)j);
  const char *host = tw_site_host(s);
  char canon[64];
  page_path(j, canon, sizeof canon);
  size_t start = out->len;
  buf_addf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
           "<title>%s page %ld</title>\n<link rel=\"canonical\" href=\"%s\">\n</head>\n"
           "<body>\n<h1>%s page %ld</h1>\n<p class=\"version\">version %llu</p>\n<ul>\n",
           host, j, canon, host, j, (unsigned long long)version);
  page_links(w, s, j, &r, out);
  buf_adds(out, "</ul>\n");
  struct tw_rng pad = tw_rng_for((uint64_t)w->gen.seed ^ version, s->idx, (uint64_t)j);
  page_pad(&pad, start + (size_t)s->page_bytes, out);
  return out->len + 64 < out->max ? TW_OK : TW_TOO_LARGE;
}

static long page_num(const char *p, size_t n)
{
  long v = 0;
  if(!n || n > 9 || (n > 1 && p[0] == '0'))
    return -1;
  for(size_t i = 0; i < n; i++) {
    if(p[i] < '0' || p[i] > '9')
      return -1;
    v = v * 10 + (p[i] - '0');
  }
  return v;
}

long tw_page_number(const struct tw_site *s, const char *path, size_t n)
{
  long j = -1;
  if((n == 1 && path[0] == '/') || (n == 11 && !memcmp(path, "/index.html", 11)))
    j = 0;
  else if(n > 3 && !memcmp(path, "/p/", 3))
    j = n > 8 && !memcmp(path + n - 5, ".html", 5) ? page_num(path + 3, n - 8)
                                                  : page_num(path + 3, n - 3);
  return j >= 0 && j < s->pages ? j : -1;
}

tw_err tw_page_sitemap(const struct tw_world *w, const struct tw_site *s, struct buf *out)
{
  char base[300], path[64];
  tw_page_base(w, s, base, sizeof base);
  buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
  for(long j = 0; j < s->pages && j < SITEMAP_MAX_URLS; j++) {
    page_path(j, path, sizeof path);
    buf_addf(out, "<url><loc>%s%s</loc></url>\n", base, path);
  }
  return buf_adds(out, "</urlset>\n") ? TW_TOO_LARGE : TW_OK;
}

tw_err tw_page_trap(const char *path, size_t n, struct buf *out)
{
  unsigned depth = 0;
  for(size_t i = 0; i < n; i++)
    depth += path[i] == '/';
  buf_addf(out, "<!DOCTYPE html>\n<html><head><title>archive, depth %u</title></head>\n"
           "<body>\n<h1>archive</h1>\n<ul>\n", depth);
  page_link(out, "a/", "older");
  page_link(out, "b/", "newer");
  page_link(out, "c/", "related");
  return buf_adds(out, "</ul>\n</body></html>\n") ? TW_TOO_LARGE : TW_OK;
}

static int cal_days(long y, long m)
{
  static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return days[m - 1] + (m == 2 && leap);
}

/* y/m/d from "2024/1" or "2024/1/31"; d = 0 for a month page. */
static int cal_parse(const char *rest, long *y, long *m, long *d)
{
  char *end;
  errno = 0;
  *y = strtol(rest, &end, 10);
  if(errno || *end != '/' || *y < -999999 || *y > 999999)
    return -1;
  *m = strtol(end + 1, &end, 10);
  *d = 0;
  if(*end == '/' && end[1])
    *d = strtol(end + 1, &end, 10);
  if(*end == '/')
    end++;
  if(*end || *m < 1 || *m > 12 || *d < 0 || *d > cal_days(*y, *m))
    return -1;
  return 0;
}

static void cal_month_links(long y, long m, struct buf *out)
{
  char href[80];
  long py = m == 1 ? y - 1 : y, pm = m == 1 ? 12 : m - 1;
  long ny = m == 12 ? y + 1 : y, nm = m == 12 ? 1 : m + 1;
  snprintf(href, sizeof href, "/_b/calendar/%ld/%ld", py, pm);
  page_link(out, href, "previous month");
  snprintf(href, sizeof href, "/_b/calendar/%ld/%ld", ny, nm);
  page_link(out, href, "next month");
  for(int d = 1; d <= cal_days(y, m); d++) {
    char text[16];
    snprintf(href, sizeof href, "/_b/calendar/%ld/%ld/%d", y, m, d);
    snprintf(text, sizeof text, "%d", d);
    page_link(out, href, text);
  }
}

tw_err tw_page_calendar(const char *rest, struct buf *out)
{
  long y, m, d;
  if(cal_parse(rest, &y, &m, &d))
    return TW_NOT_FOUND;
  buf_addf(out, "<!DOCTYPE html>\n<html><head><title>calendar %ld-%02ld</title></head>\n"
           "<body>\n<h1>%ld-%02ld%s</h1>\n<ul>\n", y, m, y, m, d ? " (day)" : "");
  char href[80];
  if(d) {
    snprintf(href, sizeof href, "/_b/calendar/%ld/%ld", y, m);
    page_link(out, href, "month");
  } else {
    cal_month_links(y, m, out);
  }
  return buf_adds(out, "</ul>\n</body></html>\n") ? TW_TOO_LARGE : TW_OK;
}
