#include "clients/html_text.h"

#include <string.h>

struct text_ctx {
  struct buf *out;
  size_t      start;
  bool        cut;
  crawl_err   err;
};

static bool text_hidden(GumboTag t)
{
  return t == GUMBO_TAG_SCRIPT || t == GUMBO_TAG_STYLE || t == GUMBO_TAG_NOSCRIPT ||
         t == GUMBO_TAG_TEMPLATE;
}

/* As much of the node's text as fits, then a space unless it ends in one
 * (element boundaries separate words; "a <b>b</b>" is two words anyway). */
static void text_add(struct text_ctx *c, const char *t)
{
  size_t len = strlen(t), room = c->out->max - c->out->len;
  if(len + 1 > room) {
    len = room;
    c->cut = true;
  }
  cm_err e = buf_add(c->out, t, len);
  bool spaced = c->out->len > 0 && strchr(" \t\n\r\f", c->out->data[c->out->len - 1]);
  if(!e && !c->cut && !spaced)
    e = buf_addc(c->out, ' ');
  if(e)
    c->err = CRAWL_ERR_NOMEM;
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
    return !text_hidden(n->v.element.tag);
  case GUMBO_NODE_TEMPLATE:
    return false;
  case GUMBO_NODE_TEXT:
  case GUMBO_NODE_CDATA:
    text_add(c, n->v.text.text);
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
