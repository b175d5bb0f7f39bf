#include "clients/web/html_text.h"

#include <string.h>

static bool is_ws(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static bool text_hidden(const char *name)
{
  return !strcmp(name, "script") || !strcmp(name, "style") || !strcmp(name, "noscript") ||
         !strcmp(name, "template");
}

void html_textc_init(struct html_textc *t, struct buf *out)
{
  memset(t, 0, sizeof *t);
  t->out = out;
}

/* As much of s as fits; cut when some did not. */
static void textc_add(struct html_textc *t, const char *s, size_t n)
{
  size_t room = t->out->max - t->out->len;
  if(n > room) {
    n = room;
    t->cut = true;
  }
  if(n && !t->err && buf_add(t->out, s, n))
    t->err = CRAWL_ERR_NOMEM;
}

/* Element boundaries separate words ("a<br>b" is two): a space after a
 * run of text unless it ends in one. */
static void textc_boundary(struct html_textc *t)
{
  if(!t->run)
    return;
  t->run = false;
  if(!t->cut && !t->err && !is_ws(t->out->data[t->out->len - 1]))
    textc_add(t, " ", 1);
}

void html_textc_start(struct html_textc *t, const char *name)
{
  textc_boundary(t);
  t->hidden += text_hidden(name);
}

void html_textc_end(struct html_textc *t, const char *name)
{
  textc_boundary(t);
  if(t->hidden && text_hidden(name))
    t->hidden--;
}

/* Runs of white space only (between blocks, indentation) add nothing: the
 * boundaries around them already separate words. */
void html_textc_text(struct html_textc *t, const char *s, size_t n)
{
  if(t->hidden || t->cut || t->err)
    return;
  size_t i = 0;
  while(i < n && is_ws(s[i]))
    i++;
  if(i == n && !t->run)
    return;
  textc_add(t, s, n);
  t->run = t->out->len > 0;
}

void html_textc_done(struct html_textc *t)
{
  textc_boundary(t);
}

static int tx_start(void *arg, const char *name, const char *const *attrs)
{
  (void)attrs;
  html_textc_start(arg, name);
  return ((struct html_textc *)arg)->cut || ((struct html_textc *)arg)->err;
}

static int tx_end(void *arg, const char *name)
{
  html_textc_end(arg, name);
  return ((struct html_textc *)arg)->cut || ((struct html_textc *)arg)->err;
}

static int tx_text(void *arg, const char *s, size_t n)
{
  html_textc_text(arg, s, n);
  return ((struct html_textc *)arg)->cut || ((struct html_textc *)arg)->err;
}

crawl_err html_text(const char *p, size_t n, const struct html_opts *o, struct buf *out,
                    bool *cut)
{
  struct html_textc t;
  size_t start = out->len;
  html_textc_init(&t, out);
  struct html_sink sink = { tx_start, tx_end, tx_text, &t };
  crawl_err e = html_scan(p, n, o, &sink, NULL);
  html_textc_done(&t);
  if(!e)
    e = t.err;
  if(e && out->data) {
    out->len = start;
    out->data[out->len] = '\0';
  }
  if(cut)
    *cut = t.cut;
  return e;
}
