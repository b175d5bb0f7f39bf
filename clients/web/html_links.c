#include "clients/web/html_links.h"

#include <string.h>
#include <strings.h>

#include "clients/base/fpset.h"
#include "clients/web/html_text.h"
#include "common/hash.h"
#include "common/mem.h"

static const char *const link_kind_names[] = {
#define X(e, name) #name,
  HTML_LINK_KINDS(X)
#undef X
};

const char *html_link_kind_name(enum html_link_kind k)
{
  return (unsigned)k < HTML_LINK__LAST ? link_kind_names[k] : "unknown";
}

struct html_links_opts html_links_opts_default(void)
{
  struct html_links_opts o = { HTML_LINKS_MAX_DEFAULT, url_opts_default(), 0 };
  o.url.strip_session_ids = true;
  return o;
}

struct links_ctx {
  const struct html_links_opts *o;
  struct html_links            *out;
  struct fpset                  once;      /* fingerprints of URLs kept */
  const char                   *base_ref;  /* first <base href> */
  crawl_err                     err;
  /* With text: hidden elements open (script, ...), the <a> whose anchor
   * text is being collected and its link. */
  unsigned                      hidden;
  const GumboNode              *open_a;
  size_t                        open_idx;
  bool                          text_cut;
};

static bool is_ws(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Is token (lower case) one of the space-separated words of list? */
static bool has_token(const char *list, const char *token, const char *seps)
{
  size_t k = strlen(token);
  for(const char *p = list; p && *p;) {
    p += strspn(p, seps);
    size_t w = strcspn(p, seps);
    if(w == k && !strncasecmp(p, token, k))
      return true;
    p += w;
  }
  return false;
}

/* Browsers drop tabs and newlines anywhere in a URL (WHATWG URL); markup
 * often breaks long hrefs over lines. *tmp owns the copy, if one is made. */
static const char *strip_tab_nl(const char *ref, size_t *len, char **tmp)
{
  *tmp = NULL;
  *len = strlen(ref);
  if(!strpbrk(ref, "\t\n\r"))
    return ref;
  char *c = mem_alloc(*len + 1);
  if(!c)
    return NULL;
  size_t n = 0;
  for(size_t i = 0; i < *len; i++)
    if(ref[i] != '\t' && ref[i] != '\n' && ref[i] != '\r')
      c[n++] = ref[i];
  c[n] = '\0';
  *len = n;
  *tmp = c;
  return c;
}

/* Canonical URL of ref on this page, or NULL (counted, or c->err set). */
static char *links_resolve(struct links_ctx *c, const char *ref)
{
  char *tmp, *url = NULL;
  size_t rn;
  const char *r = strip_tab_nl(ref, &rn, &tmp);
  if(!r) {
    c->err = CRAWL_ERR_NOMEM;
    return NULL;
  }
  const char *base = c->out->base;
  url_err e = url_canon_ref(base, strlen(base), r, rn, &c->o->url, &url);
  mem_free(tmp);
  if(e == URL_ERR_NOMEM)
    c->err = CRAWL_ERR_NOMEM;
  else if(e == URL_ERR_UNSUPPORTED_SCHEME)
    c->out->not_http++;
  else if(e)
    c->out->invalid++;
  return e ? NULL : url;
}

static crawl_err links_push(struct html_links *l, char *url, enum html_link_kind kind,
                            bool nofollow)
{
  if(l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 16;
    struct html_link *nv = mem_realloc(l->v, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    l->v = nv;
    l->cap = ncap;
  }
  l->v[l->n++] = (struct html_link){ url, kind, nofollow, l->text.len, 0 };
  return CRAWL_OK;
}

static void links_add(struct links_ctx *c, const char *ref, enum html_link_kind kind,
                      bool nofollow)
{
  struct html_links *l = c->out;
  if(!ref)
    return;
  if(l->n >= c->o->max_links) {
    l->over_cap++;
    return;
  }
  char *url = links_resolve(c, ref);
  if(!url)
    return;
  bool added = false;
  uint64_t fp = hash_fp64(url, strlen(url));
  crawl_err e = fpset_add(&c->once, fp, &added);
  if(!e && added)
    e = links_push(l, url, kind, nofollow);
  if(e || !added)
    mem_free(url);
  if(!e && !added)
    l->repeated++;
  if(e)
    c->err = e == CRAWL_ERR_FULL ? CRAWL_OK : e;
}

static void links_canonical(struct links_ctx *c, const char *ref)
{
  if(c->out->canonical || !ref)
    return;
  c->out->canonical = links_resolve(c, ref);
}

static void links_meta(struct links_ctx *c, const GumboNode *n)
{
  const char *equiv = html_attr(n, "http-equiv");
  const char *name = html_attr(n, "name");
  const char *content = html_attr(n, "content");
  if(!content)
    return;
  if(equiv && !strcasecmp(equiv, "refresh")) {
    size_t len;
    const char *u = html_refresh_url(content, &len);
    char *ref = u ? mem_strndup(u, len) : NULL;
    if(u && !ref)
      c->err = CRAWL_ERR_NOMEM;
    links_add(c, ref, HTML_LINK_REFRESH, false);
    mem_free(ref);
  }
  if(name && !strcasecmp(name, "robots")) {
    bool none = has_token(content, "none", ", \t\n\r");
    c->out->meta_nofollow |= none || has_token(content, "nofollow", ", \t\n\r");
    c->out->meta_noindex |= none || has_token(content, "noindex", ", \t\n\r");
  }
}

static void links_link(struct links_ctx *c, const GumboNode *n)
{
  const char *rel = html_attr(n, "rel");
  const char *href = html_attr(n, "href");
  if(!rel || !href)
    return;
  if(has_token(rel, "canonical", " \t\n\r\f"))
    links_canonical(c, href);
  else if(has_token(rel, "alternate", " \t\n\r\f") && !has_token(rel, "stylesheet", " \t\n\r\f"))
    links_add(c, href, HTML_LINK_ALTERNATE, has_token(rel, "nofollow", " \t\n\r\f"));
}

/* With text: the node's words, unless inside a hidden element. */
static void links_text(struct links_ctx *c, const GumboNode *n)
{
  if(!c->o->text_max)
    return;
  if(html_text_hidden(n))
    c->hidden++;
  else if(!c->hidden && (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_CDATA))
    c->err = html_text_add(&c->out->text, n->v.text.text, &c->text_cut);
}

/* An <a> that became a link: its anchor text runs until the walk leaves it. */
static void links_anchor(struct links_ctx *c, const GumboNode *n, size_t before)
{
  if(c->o->text_max && !c->open_a && c->out->n > before) {
    c->open_a = n;
    c->open_idx = c->out->n - 1;
  }
}

static void links_leave(const GumboNode *n, void *arg)
{
  struct links_ctx *c = arg;
  if(html_text_hidden(n) && c->hidden)
    c->hidden--;
  if(n == c->open_a) {
    struct html_link *k = &c->out->v[c->open_idx];
    k->anchor_len = c->out->text.len - k->text_at;
    c->open_a = NULL;
  }
}

static bool links_visit(const GumboNode *n, void *arg)
{
  struct links_ctx *c = arg;
  if(c->err)
    return false;
  links_text(c, n);
  if(n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE)
    return n->type == GUMBO_NODE_DOCUMENT;
  size_t before = c->out->n;
  const char *rel = html_attr(n, "rel");
  bool nofollow = rel && has_token(rel, "nofollow", " \t\n\r\f");
  switch(n->v.element.tag) {
  case GUMBO_TAG_A:
    links_add(c, html_attr(n, "href"), HTML_LINK_A, nofollow);
    links_anchor(c, n, before);
    break;
  case GUMBO_TAG_AREA:   links_add(c, html_attr(n, "href"), HTML_LINK_AREA, nofollow); break;
  case GUMBO_TAG_FRAME:  links_add(c, html_attr(n, "src"), HTML_LINK_FRAME, false); break;
  case GUMBO_TAG_IFRAME: links_add(c, html_attr(n, "src"), HTML_LINK_IFRAME, false); break;
  case GUMBO_TAG_LINK:   links_link(c, n); break;
  case GUMBO_TAG_META:   links_meta(c, n); break;
  default: break;
  }
  return true;
}

static bool base_visit(const GumboNode *n, void *arg)
{
  struct links_ctx *c = arg;
  if(c->base_ref)
    return false;
  if(n->type == GUMBO_NODE_ELEMENT && n->v.element.tag == GUMBO_TAG_BASE)
    c->base_ref = html_attr(n, "href");
  return true;
}

/* The base: the first <base href> resolved against the page, if it is a
 * usable http(s) URL, else the page itself. */
static crawl_err links_base(struct links_ctx *c, const struct html_doc *doc,
                            const char *page_url)
{
  url_err e = url_canon(page_url, strlen(page_url), &c->o->url, &c->out->base);
  if(e)
    return e == URL_ERR_NOMEM ? CRAWL_ERR_NOMEM : CRAWL_ERR_INVALID;
  crawl_err ce = html_walk(doc, base_visit, c, NULL);
  if(ce || !c->base_ref)
    return ce;
  char *b = links_resolve(c, c->base_ref);
  if(b) {
    mem_free(c->out->base);
    c->out->base = b;
  }
  return c->err;
}

crawl_err html_links_extract(const struct html_doc *doc, const char *page_url,
                             const struct html_links_opts *o,
                             struct html_links *out)
{
  struct html_links_opts def = html_links_opts_default();
  struct links_ctx c = { o ? o : &def, out, { 0 }, NULL, CRAWL_OK, 0, NULL, 0, false };
  memset(out, 0, sizeof *out);
  buf_init(&out->text, c.o->text_max);
  /* The per-page set of URLs is sized for the link cap, so it never says
   * full before the list does. */
  fpset_init(&c.once, (c.o->max_links + 1) * 2 * sizeof(uint64_t) * 2);
  crawl_err e = links_base(&c, doc, page_url);
  if(!e)
    e = html_walk_ex(doc, links_visit, c.o->text_max ? links_leave : NULL, &c, NULL);
  if(!e)
    e = c.err;
  fpset_free(&c.once);
  if(e)
    html_links_free(out);
  return e;
}

void html_links_free(struct html_links *l)
{
  for(size_t i = 0; i < l->n; i++)
    mem_free(l->v[i].url);
  mem_free(l->v);
  mem_free(l->base);
  mem_free(l->canonical);
  buf_free(&l->text);
  memset(l, 0, sizeof *l);
}

/* "5; url=http://x/", "0;URL='x'", "3, x": the part after the delay. */
const char *html_refresh_url(const char *content, size_t *len)
{
  const char *p = content;
  while(is_ws(*p))
    p++;
  while((*p >= '0' && *p <= '9') || *p == '.')
    p++;
  if(*p != ';' && *p != ',' && !is_ws(*p))
    return NULL;  /* no separator after the delay (or nothing after it) */
  while(is_ws(*p))
    p++;
  if(*p == ';' || *p == ',')
    p++;
  while(is_ws(*p))
    p++;
  if(!strncasecmp(p, "url", 3)) {
    const char *q = p + 3;
    while(is_ws(*q))
      q++;
    if(*q == '=') {
      p = q + 1;
      while(is_ws(*p))
        p++;
    }
  }
  char quote = (*p == '"' || *p == '\'') ? *p++ : '\0';
  size_t n = quote ? strcspn(p, quote == '"' ? "\"" : "'") : strlen(p);
  while(!quote && n > 0 && is_ws(p[n - 1]))
    n--;
  *len = n;
  return n ? p : NULL;
}
