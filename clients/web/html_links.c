#include "clients/web/html_links.h"

#include <string.h>
#include <strings.h>

#include "clients/base/fpset.h"
#include "clients/web/html_robots.h"
#include "clients/web/html_text.h"
#include "common/hash.h"
#include "common/mem.h"

struct html_links_opts html_links_opts_default(void)
{
  struct html_links_opts o = { HTML_LINKS_MAX_DEFAULT, url_opts_default(), 0, NULL };
  o.url.strip_session_ids = true;
  return o;
}

/* A reference as the page wrote it: resolved once the whole page is read,
 * because the first <base href> applies to every link, before it too. */
struct raw_ref {
  size_t              at;        /* in refs */
  enum html_link_kind kind;
  bool                nofollow;
  size_t              text_at, anchor_len;
};

struct links_ctx {
  const struct html_links_opts *o;
  struct html_links            *out;
  struct fpset                  once;      /* fingerprints of URLs kept */
  crawl_err                     err;
  struct buf                    refs;      /* references' bytes, each NUL-ended */
  struct raw_ref               *raw;
  size_t                        nraw, raw_cap;
  size_t                        base_at, canon_at;  /* in refs; SIZE_MAX: none */
  struct html_textc             text;      /* with text_max */
  /* The <a> whose anchor text is being collected: its raw reference and
   * the element depth it opened at. */
  unsigned                      depth, a_depth;
  size_t                        a_idx;
  bool                          a_open;
};

#define REFS_MAX     (64u << 20)

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

/* Keep a reference (len bytes of ref) for resolution; *at gets where. */
static bool refs_keep(struct links_ctx *c, const char *ref, size_t len, size_t *at)
{
  if(c->refs.len + len + 1 > c->refs.max) {
    c->out->over_cap++;
    return false;
  }
  *at = c->refs.len;
  if(buf_add(&c->refs, ref, len) || buf_addc(&c->refs, '\0')) {
    c->err = CRAWL_ERR_NOMEM;
    return false;
  }
  return true;
}

static bool links_raw(struct links_ctx *c, const char *ref, size_t len,
                      enum html_link_kind kind, bool nofollow)
{
  if(!ref || c->err)
    return false;
  if(c->nraw >= (size_t)c->o->max_links * HTML_LINKS_REFS_PER_LINK) {
    c->out->over_cap++;
    return false;
  }
  if(c->nraw == c->raw_cap) {
    size_t ncap = c->raw_cap ? c->raw_cap * 2 : 64;
    struct raw_ref *nv = mem_realloc(c->raw, ncap * sizeof *nv);
    if(!nv) {
      c->err = CRAWL_ERR_NOMEM;
      return false;
    }
    c->raw = nv;
    c->raw_cap = ncap;
  }
  size_t at;
  if(!refs_keep(c, ref, len, &at))
    return false;
  c->raw[c->nraw++] = (struct raw_ref){ at, kind, nofollow, c->out->text.len, 0 };
  return true;
}

static void links_add(struct links_ctx *c, const char *ref, enum html_link_kind kind,
                      bool nofollow)
{
  links_raw(c, ref, ref ? strlen(ref) : 0, kind, nofollow);
}

/* "5; url=http://x/", "0;URL='x'", "3, x": the part after the delay
 * (NULL if none), *len its length. */
static const char *html_refresh_url(const char *content, size_t *len)
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

static void links_meta(struct links_ctx *c, const char *const *attrs)
{
  const char *equiv = html_attr(attrs, "http-equiv");
  const char *name = html_attr(attrs, "name");
  const char *content = html_attr(attrs, "content");
  if(!content)
    return;
  if(equiv && !strcasecmp(equiv, "refresh")) {
    size_t len = 0;
    const char *u = html_refresh_url(content, &len);
    links_raw(c, u, len, HTML_LINK_REFRESH, false);
  }
  c->out->robots |= html_robots_meta(name, content, c->o->robots_agent);
}

static void links_link(struct links_ctx *c, const char *const *attrs)
{
  const char *rel = html_attr(attrs, "rel");
  const char *href = html_attr(attrs, "href");
  if(!rel || !href)
    return;
  if(has_token(rel, "canonical", " \t\n\r\f")) {
    if(c->canon_at == SIZE_MAX)
      refs_keep(c, href, strlen(href), &c->canon_at);
  } else if(has_token(rel, "alternate", " \t\n\r\f") && !has_token(rel, "stylesheet", " \t\n\r\f")) {
    links_add(c, href, HTML_LINK_ALTERNATE, has_token(rel, "nofollow", " \t\n\r\f"));
  }
}

/* An <a> with a reference: its anchor text runs until its end tag. */
static void links_a(struct links_ctx *c, const char *const *attrs, bool nofollow)
{
  const char *href = html_attr(attrs, "href");
  if(!links_raw(c, href, href ? strlen(href) : 0, HTML_LINK_A, nofollow))
    return;
  if(c->o->text_max && !c->a_open) {
    c->a_open = true;
    c->a_depth = c->depth;
    c->a_idx = c->nraw - 1;
  }
}

static int lk_start(void *arg, const char *name, const char *const *attrs)
{
  struct links_ctx *c = arg;
  c->depth++;
  if(c->o->text_max)
    html_textc_start(&c->text, name);
  const char *rel = html_attr(attrs, "rel");
  bool nofollow = rel && has_token(rel, "nofollow", " \t\n\r\f");
  if(!strcmp(name, "a"))
    links_a(c, attrs, nofollow);
  else if(!strcmp(name, "area"))
    links_add(c, html_attr(attrs, "href"), HTML_LINK_AREA, nofollow);
  else if(!strcmp(name, "frame"))
    links_add(c, html_attr(attrs, "src"), HTML_LINK_FRAME, false);
  else if(!strcmp(name, "iframe"))
    links_add(c, html_attr(attrs, "src"), HTML_LINK_IFRAME, false);
  else if(!strcmp(name, "link"))
    links_link(c, attrs);
  else if(!strcmp(name, "meta"))
    links_meta(c, attrs);
  else if(!strcmp(name, "base") && c->base_at == SIZE_MAX && html_attr(attrs, "href"))
    refs_keep(c, html_attr(attrs, "href"), strlen(html_attr(attrs, "href")), &c->base_at);
  return c->err != CRAWL_OK;
}

static int lk_end(void *arg, const char *name)
{
  struct links_ctx *c = arg;
  if(c->o->text_max)
    html_textc_end(&c->text, name);
  if(c->a_open && c->depth == c->a_depth) {
    struct raw_ref *k = &c->raw[c->a_idx];
    k->anchor_len = c->out->text.len - k->text_at;
    c->a_open = false;
  }
  if(c->depth)
    c->depth--;
  return c->err != CRAWL_OK;
}

static int lk_text(void *arg, const char *t, size_t n)
{
  struct links_ctx *c = arg;
  if(c->o->text_max)
    html_textc_text(&c->text, t, n);
  return 0;
}

/* A reference resolved and kept once. */
static void links_keep(struct links_ctx *c, const struct raw_ref *r)
{
  struct html_links *l = c->out;
  if(l->n >= c->o->max_links) {
    l->over_cap++;
    return;
  }
  char *url = links_resolve(c, c->refs.data + r->at);
  if(!url)
    return;
  bool added = false;
  uint64_t fp = hash_fp64(url, strlen(url));
  crawl_err e = fpset_add(&c->once, fp, &added);
  if(!e && added)
    e = links_push(l, url, r->kind, r->nofollow);
  if(e || !added)
    mem_free(url);
  if(!e && added) {
    l->v[l->n - 1].text_at = r->text_at;
    l->v[l->n - 1].anchor_len = r->anchor_len;
  }
  if(!e && !added)
    l->repeated++;
  if(e)
    c->err = e == CRAWL_ERR_FULL ? CRAWL_OK : e;
}

/* The base (the first <base href> resolved against the page, if it is a
 * usable http(s) URL, else the page), the canonical URL, then the links. */
static void links_resolve_all(struct links_ctx *c)
{
  if(c->base_at != SIZE_MAX) {
    char *b = links_resolve(c, c->refs.data + c->base_at);
    if(b) {
      mem_free(c->out->base);
      c->out->base = b;
    }
  }
  if(c->canon_at != SIZE_MAX && !c->err)
    c->out->canonical = links_resolve(c, c->refs.data + c->canon_at);
  for(size_t i = 0; i < c->nraw && !c->err; i++)
    links_keep(c, &c->raw[i]);
}

crawl_err html_links_extract(const char *p, size_t n, const struct html_opts *ho,
                             const char *page_url, const struct html_links_opts *o,
                             struct html_links *out, struct html_scan *scan)
{
  struct html_links_opts def = html_links_opts_default();
  struct links_ctx c = { .o = o ? o : &def, .out = out, .base_at = SIZE_MAX,
                         .canon_at = SIZE_MAX };
  memset(out, 0, sizeof *out);
  buf_init(&out->text, c.o->text_max);
  html_textc_init(&c.text, &out->text);
  url_err ue = url_canon(page_url, strlen(page_url), &c.o->url, &out->base);
  if(ue) {
    html_links_free(out);
    return ue == URL_ERR_NOMEM ? CRAWL_ERR_NOMEM : CRAWL_ERR_INVALID;
  }
  buf_init(&c.refs, REFS_MAX);
  /* The per-page set of URLs is sized for the link cap, so it never says
   * full before the list does. */
  fpset_init(&c.once, (c.o->max_links + 1) * 2 * sizeof(uint64_t) * 2);
  struct html_sink sink = { lk_start, lk_end, lk_text, &c };
  crawl_err e = html_scan(p, n, ho, &sink, scan);
  html_textc_done(&c.text);
  if(!e)
    e = c.err ? c.err : c.text.err;
  out->text_cut = c.text.cut;
  if(!e)
    links_resolve_all(&c);
  if(!e)
    e = c.err;
  fpset_free(&c.once);
  buf_free(&c.refs);
  mem_free(c.raw);
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
