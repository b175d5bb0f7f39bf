#include "clients/web/sitemap.h"

#include <string.h>
#include <strings.h>

#include "common/buf.h"

struct sm_ctx {
  sitemap_loc_fn      *fn;
  void                *arg;
  bool                 stop;
  struct html_opts     html;
  size_t               max_text;
  struct buf           text;   /* XML not parsed yet: under 2 pieces */
  struct sitemap_info *info;
};

/* The element's own name for elements HTML does not know. */
static bool named(const GumboNode *n, const char *name)
{
  if(!n || n->type != GUMBO_NODE_ELEMENT || n->v.element.tag != GUMBO_TAG_UNKNOWN)
    return false;
  GumboStringPiece t = n->v.element.original_tag;
  gumbo_tag_from_original_text(&t);
  size_t k = strlen(name);
  return t.length == k && !strncasecmp(t.data, name, k);
}

static void sm_loc(struct sm_ctx *c, const GumboNode *loc)
{
  const GumboVector *kids = &loc->v.element.children;
  for(unsigned i = 0; i < kids->length && !c->stop; i++) {
    const GumboNode *t = kids->data[i];
    if(t->type != GUMBO_NODE_TEXT && t->type != GUMBO_NODE_CDATA &&
       t->type != GUMBO_NODE_WHITESPACE)
      continue;
    const char *s = t->v.text.text;
    size_t n = strlen(s);
    while(n && strchr(" \t\r\n", s[n - 1]))
      n--;
    while(n && strchr(" \t\r\n", *s)) {
      s++;
      n--;
    }
    if(n)
      c->stop = c->fn(c->arg, s, n, named(loc->parent, "sitemap")) != 0;
  }
}

static bool sm_visit(const GumboNode *n, void *arg)
{
  struct sm_ctx *c = arg;
  if(c->stop)
    return false;
  if(named(n, "loc")) {
    sm_loc(c, n);
    return false;
  }
  return n->type == GUMBO_NODE_DOCUMENT || n->type == GUMBO_NODE_ELEMENT;
}

static crawl_err sm_parse(struct sm_ctx *c, const char *p, size_t n)
{
  struct html_doc doc;
  c->info->pieces++;
  crawl_err e = html_parse(p, n, &c->html, &doc);
  if(e == CRAWL_ERR_TOO_LARGE) {
    c->info->failed++;  /* this piece's URLs are lost, not the next pieces' */
    return CRAWL_OK;
  }
  if(e)
    return e;
  e = html_walk(&doc, sm_visit, c, NULL);
  html_free(&doc);
  return e;
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
  info->gzip = gunzip_magic(body, len);
  crawl_err e = info->gzip ? gunzip(body, len, c.max_text, sm_text, &c, &info->end, NULL)
                           : sm_plain(&c, body, len);
  if(!e && !c.stop && c.text.len)
    e = sm_piece(&c, true);
  buf_free(&c.text);
  return c.stop ? CRAWL_OK : e;
}
