#include "clients/sitemap.h"

#include <string.h>
#include <strings.h>

struct sm_ctx {
  sitemap_loc_fn *fn;
  void           *arg;
  bool            stop;
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

crawl_err sitemap_parse(const char *body, size_t len, const struct html_opts *o,
                        sitemap_loc_fn *fn, void *arg)
{
  struct html_doc doc;
  crawl_err e = html_parse(body, len, o, &doc);
  if(e)
    return e;
  struct sm_ctx c = { fn, arg, false };
  e = html_walk(&doc, sm_visit, &c, NULL);
  html_free(&doc);
  return e;
}
