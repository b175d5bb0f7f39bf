#include "clients/web/sitemap.h"

#include <string.h>
#include <strings.h>

#include "common/buf.h"

#define SM_LOC_MAX (64u << 10)  /* a <loc> longer than this is no URL */

struct sm_ctx {
  sitemap_loc_fn      *fn;
  void                *arg;
  bool                 stop;
  struct html_opts     html;
  size_t               max_text;
  struct buf           text;   /* XML not parsed yet: under 2 pieces */
  struct sitemap_info *info;
  unsigned             in_sitemap;  /* <sitemap> elements open: an index */
  bool                 in_loc;
  struct buf           loc;
  crawl_err            err;
};

static int sm_start(void *arg, const char *name, const char *const *attrs)
{
  struct sm_ctx *c = arg;
  (void)attrs;
  if(!strcmp(name, "sitemap"))
    c->in_sitemap++;
  if(!strcmp(name, "loc")) {
    c->in_loc = true;
    buf_reset(&c->loc);
  }
  return 0;
}

static int sm_text_ev(void *arg, const char *t, size_t n)
{
  struct sm_ctx *c = arg;
  if(c->in_loc && c->loc.len + n <= c->loc.max && buf_add(&c->loc, t, n))
    c->err = CRAWL_ERR_NOMEM;
  return c->err != CRAWL_OK;
}

/* The end of a <loc>: its text, trimmed, is one URL. */
static int sm_end(void *arg, const char *name)
{
  struct sm_ctx *c = arg;
  if(!strcmp(name, "sitemap") && c->in_sitemap)
    c->in_sitemap--;
  if(strcmp(name, "loc") || !c->in_loc)
    return 0;
  c->in_loc = false;
  const char *s = c->loc.data ? c->loc.data : "";
  size_t n = c->loc.len;
  while(n && strchr(" \t\r\n", s[n - 1]))
    n--;
  while(n && strchr(" \t\r\n", *s)) {
    s++;
    n--;
  }
  if(n)
    c->stop = c->fn(c->arg, s, n, c->in_sitemap > 0) != 0;
  return c->stop;
}

static crawl_err sm_parse(struct sm_ctx *c, const char *p, size_t n)
{
  c->info->pieces++;
  c->in_loc = false;
  struct html_sink sink = { sm_start, sm_end, sm_text_ev, c };
  crawl_err e = html_scan(p, n, &c->html, &sink, NULL);
  return e ? e : c->err;
}

/* Just after the last </url> or </sitemap> of p[0..n), or 0: a piece ends
 * between two entries, so each <loc> is parsed with its parent. */
static size_t sm_cut(const char *p, size_t n)
{
  for(size_t i = n; i-- > 0;) {
    if(p[i] != '>')
      continue;
    if(i >= 5 && !strncasecmp(p + i - 5, "</url", 5))
      return i + 1;
    if(i >= 9 && !strncasecmp(p + i - 9, "</sitemap", 9))
      return i + 1;
  }
  return 0;
}

/* Parse a piece off the front of the text (all of it when last). */
static crawl_err sm_piece(struct sm_ctx *c, bool last)
{
  size_t cut = last ? c->text.len : sm_cut(c->text.data, c->text.len);
  if(cut == 0)
    cut = c->text.len;  /* one entry longer than a piece: not a sitemap */
  crawl_err e = sm_parse(c, c->text.data, cut);
  memmove(c->text.data, c->text.data + cut, c->text.len - cut);
  c->text.len -= cut;
  c->text.data[c->text.len] = '\0';
  return e;
}

/* gunzip_sink: XML text, in any pieces. CRAWL_ERR_INVALID stops a reader
 * that fn asked to stop (sitemap_read returns OK then). */
static crawl_err sm_text(void *arg, const char *p, size_t n)
{
  struct sm_ctx *c = arg;
  crawl_err e = CRAWL_OK;
  c->info->text += n;
  while(!e && n > 0 && !c->stop) {
    size_t k = SITEMAP_PIECE < n ? SITEMAP_PIECE : n;
    if(buf_add(&c->text, p, k))
      return CRAWL_ERR_NOMEM;
    p += k;
    n -= k;
    while(!e && c->text.len >= SITEMAP_PIECE && !c->stop)
      e = sm_piece(c, false);
  }
  return e ? e : c->stop ? CRAWL_ERR_INVALID : CRAWL_OK;
}

static crawl_err sm_plain(struct sm_ctx *c, const char *body, size_t len)
{
  c->info->end = len > c->max_text ? GUNZIP_CAP : GUNZIP_WHOLE;
  return sm_text(c, body, len < c->max_text ? len : c->max_text);
}

crawl_err sitemap_read(const void *body, size_t len, const struct sitemap_opts *o,
                       sitemap_loc_fn *fn, void *arg, struct sitemap_info *info)
{
  struct sm_ctx c = { .fn = fn, .arg = arg, .info = info };
  memset(info, 0, sizeof *info);
  if(o)
    c.html = o->html;
  c.max_text = o && o->max_text ? o->max_text : SITEMAP_MAX_TEXT_DEFAULT;
  buf_init(&c.text, 2 * SITEMAP_PIECE);
  buf_init(&c.loc, SM_LOC_MAX);
  info->gzip = gunzip_magic(body, len);
  crawl_err e = info->gzip ? gunzip(body, len, c.max_text, sm_text, &c, &info->end, NULL)
                           : sm_plain(&c, body, len);
  if(!e && !c.stop && c.text.len)
    e = sm_piece(&c, true);
  buf_free(&c.text);
  buf_free(&c.loc);
  return c.stop ? CRAWL_OK : e;
}
