#include "clients/web/html_text.h"

#include <string.h>

struct text_ctx {
  struct buf *out;
  size_t      start;
  bool        cut;
  crawl_err   err;
};

bool html_text_hidden(const GumboNode *n)
{
  if(n->type == GUMBO_NODE_TEMPLATE)
    return true;
  if(n->type != GUMBO_NODE_ELEMENT)
    return false;
  GumboTag t = n->v.element.tag;
  return t == GUMBO_TAG_SCRIPT || t == GUMBO_TAG_STYLE || t == GUMBO_TAG_NOSCRIPT ||
         t == GUMBO_TAG_TEMPLATE;
}

/* As much of the node's text as fits, then a space unless it ends in one
 * (element boundaries separate words; "a <b>b</b>" is two words anyway). */
crawl_err html_text_add(struct buf *out, const char *t, bool *cut)
{
  if(*cut)
    return CRAWL_OK;
  size_t len = strlen(t), room = out->max - out->len;
  if(len + 1 > room) {
    len = room;
    *cut = true;
  }
  cm_err e = buf_add(out, t, len);
  bool spaced = out->len > 0 && strchr(" \t\n\r\f", out->data[out->len - 1]);
  if(!e && !*cut && !spaced)
    e = buf_addc(out, ' ');
  return e ? CRAWL_ERR_NOMEM : CRAWL_OK;
}

static bool text_visit(const GumboNode *n, void *arg)
{
  struct text_ctx *c = arg;
  if(c->cut || c->err)
    return false;
  switch(n->type) {
  case GUMBO_NODE_DOCUMENT:
    return true;
  case GUMBO_NODE_ELEMENT:
    return !html_text_hidden(n);
  case GUMBO_NODE_TEXT:
  case GUMBO_NODE_CDATA:
    c->err = html_text_add(c->out, n->v.text.text, &c->cut);
    return false;
  default:
    return false;
  }
}

crawl_err html_text(const struct html_doc *doc, struct buf *out, bool *cut)
{
  struct text_ctx c = { out, out->len, false, CRAWL_OK };
  crawl_err e = html_walk(doc, text_visit, &c, NULL);
  if(!e)
    e = c.err;
  if(e && out->data) {
    out->len = c.start;
    out->data[out->len] = '\0';
  }
  if(cut)
    *cut = c.cut;
  return e;
}
