/* libxml2's HTML parser in SAX mode, with the bounds of html.h. */
#include "clients/web/html.h"

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

static void html_quiet(void *ctx, const char *msg, ...)
{
  (void)ctx;
  (void)msg;
}

/* A context per page: reusing one saves under 3 us of the ~55 a page
 * costs (bench_html), and a reused context would keep every name its
 * pages invented in its dictionary. libxml2 allocates with malloc, not
 * common/mem: its memory is its own, and a freed context leaves none. */
struct scan_job {
  const struct html_sink *sink;
  htmlParserCtxtPtr       x;
  bool                    stopped;
  bool                    nomem;
  /* The open elements as reported, so that every start gets its end in
   * order even where libxml2 gives up on a tag or a page: names from the
   * context's dictionary, which lives until the context is freed. */
  const char            **open;
  size_t                  nopen, cap;
};

static void job_stop(struct scan_job *j, int rc)
{
  if(rc && !j->stopped) {
    j->stopped = true;
    xmlStopParser(j->x);
  }
}

static bool job_push(struct scan_job *j, const char *name)
{
  if(j->nopen == j->cap) {
    size_t cap = j->cap ? 2 * j->cap : 64;
    const char **v = mem_realloc(j->open, cap * sizeof *v);
    if(!v)
      return false;
    j->open = v;
    j->cap = cap;
  }
  j->open[j->nopen++] = name;
  return true;
}

static void sx_start(void *arg, const xmlChar *name, const xmlChar **attrs)
{
  struct scan_job *j = arg;
  static const char *const none[] = { NULL };
  if(j->stopped)
    return;
  if(!job_push(j, (const char *)name)) {
    j->nomem = true;
    job_stop(j, 1);
    return;
  }
  if(j->sink->start)
    job_stop(j, j->sink->start(j->sink->arg, (const char *)name,
                               attrs ? (const char *const *)attrs : none));
}

/* Ends the innermost open element, as reported. */
static void job_end_top(struct scan_job *j)
{
  const char *name = j->open[--j->nopen];
  if(j->sink->end)
    job_stop(j, j->sink->end(j->sink->arg, name));
}

/* libxml2's ends nest, except after some errors: a start tag it gave up
 * on midway is reported started and never ended. An end closes the
 * innermost open element of that name and those inside it; an end of
 * nothing open is dropped. */
static void sx_end(void *arg, const xmlChar *name)
{
  struct scan_job *j = arg;
  size_t k = j->nopen;
  while(k && strcmp(j->open[k - 1], (const char *)name))
    k--;
  while(!j->stopped && k && j->nopen >= k)
    job_end_top(j);
}

/* Ends what libxml2 left open, innermost first. */
static void job_close(struct scan_job *j)
{
  while(!j->stopped && j->nopen)
    job_end_top(j);
}

static void sx_text(void *arg, const xmlChar *t, int n)
{
  struct scan_job *j = arg;
  if(!j->stopped && j->sink->text && n > 0)
    job_stop(j, j->sink->text(j->sink->arg, (const char *)t, (size_t)n));
}

/* Script and style content comes as CDATA blocks: not text. */
static void sx_cdata(void *arg, const xmlChar *t, int n)
{
  (void)arg;
  (void)t;
  (void)n;
}

static void sax_set(htmlSAXHandler *h)
{
  memset(h, 0, sizeof *h);
  h->startElement = sx_start;
  h->endElement = sx_end;
  h->characters = sx_text;
  h->cdataBlock = sx_cdata;
  h->error = html_quiet;
  h->warning = html_quiet;
  h->fatalError = html_quiet;
}

static struct html_opts html_opts_fill(const struct html_opts *o)
{
  struct html_opts r = { HTML_MAX_BYTES_DEFAULT, HTML_MAX_DEPTH_DEFAULT, NULL };
  if(o && o->max_bytes)
    r.max_bytes = o->max_bytes;
  if(o && o->max_depth)
    r.max_depth = o->max_depth;
  if(r.max_bytes > INT_MAX)
    r.max_bytes = INT_MAX;  /* libxml2 takes an int */
  r.charset = o ? o->charset : NULL;
  return r;
}

/* libxml2 reads a NUL as the end of the input in places (inside a tag it
 * stops the page there), so a page holding NULs is parsed from a copy with
 * each one replaced, as HTML's tokenizer does, by U+FFFD. *q is the copy
 * to free, or NULL when the page has no NUL. */
static crawl_err html_no_nul(const char **p, size_t *n, char **q)
{
  *q = NULL;
  size_t nul = 0;
  for(const char *s = *p, *e = *p + *n; (s = memchr(s, 0, (size_t)(e - s))); s++)
    nul++;
  if(!nul)
    return CRAWL_OK;
  if(*n + 2 * nul > INT_MAX || !(*q = mem_alloc(*n + 2 * nul)))
    return CRAWL_ERR_NOMEM;
  char *d = *q;
  for(size_t i = 0; i < *n; i++) {
    if((*p)[i]) {
      *d++ = (*p)[i];
    } else {
      memcpy(d, "\xef\xbf\xbd", 3);
      d += 3;
    }
  }
  *p = *q;
  *n = (size_t)(d - *q);
  return CRAWL_OK;
}

static bool html_has_bom(const char *p, size_t n)
{
  const unsigned char *b = (const unsigned char *)p;
  return (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) ||
         (n >= 2 && ((b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE)));
}

/* The transport's charset, unless a byte order mark says otherwise (it
 * comes first) or it is UTF-8 (the default below). The context owns the
 * handler once switched to it. A name nobody knows is ignored. */
static void html_use_charset(htmlParserCtxtPtr x, const char *cs, const char *p, size_t n)
{
  if(!cs || html_has_bom(p, n) || xmlParseCharEncoding(cs) == XML_CHAR_ENCODING_UTF8)
    return;
  xmlCharEncodingHandlerPtr h = xmlFindCharEncodingHandler(cs);
  if(h)
    xmlSwitchToEncoding(x, h);
}

/* The decoder the parser ended with (a meta charset's, or Latin-1 after
 * bytes that were not UTF-8) into enc, "" for UTF-8's: the next segment of
 * the page starts with it. */
static void html_enc_keep(htmlParserCtxtPtr x, char *enc, size_t cap)
{
  const char *name = x->input && x->input->buf && x->input->buf->encoder
                     ? x->input->buf->encoder->name : NULL;
  enc[0] = '\0';
  if(name && strlen(name) < cap)
    memcpy(enc, name, strlen(name) + 1);
}

static crawl_err html_run(struct scan_job *j, const char *p, size_t n, const char *charset,
                          char *enc, size_t enc_cap)
{
  j->x = htmlCreateMemoryParserCtxt(p, (int)n);
  if(!j->x)
    return CRAWL_ERR_NOMEM;
  /* No implied html/head/body elements; no network (there is none to
   * reach anyway: no DTD is ever loaded in SAX mode). */
  htmlCtxtUseOptions(j->x, HTML_PARSE_NOIMPLIED | HTML_PARSE_NONET);
  /* Undeclared pages are UTF-8 (libxml2 would take them for Latin-1); a
   * byte order mark or a meta charset still switches, and bytes that are
   * not UTF-8 fall back to Latin-1. A charset from the transport is set
   * as the input's decoder, which a meta charset does not replace. */
  xmlSwitchEncoding(j->x, XML_CHAR_ENCODING_UTF8);
  html_use_charset(j->x, charset, p, n);
  sax_set(j->x->sax);
  j->x->userData = j;
  htmlParseDocument(j->x);
  job_close(j);
  html_enc_keep(j->x, enc, enc_cap);
  if(j->x->myDoc)
    xmlFreeDoc(j->x->myDoc);  /* none in SAX mode; freed should one appear */
  bool nomem = j->nomem || j->x->errNo == XML_ERR_NO_MEMORY;
  htmlFreeParserCtxt(j->x);
  j->x = NULL;
  return nomem ? CRAWL_ERR_NOMEM : CRAWL_OK;
}

/* One segment of the page, from a copy without NULs when it has some. */
static crawl_err html_segment(struct scan_job *j, const char *p, size_t n,
                              const char *charset, char *enc, size_t enc_cap)
{
  char *copy;
  crawl_err e = html_no_nul(&p, &n, &copy);
  if(e == CRAWL_OK)
    e = html_run(j, p, n, charset, enc, enc_cap);
  mem_free(copy);
  return e;
}

/* The part under the size bound is parsed in segments, each ending where
 * the estimated nesting would pass max_depth: the elements open there are
 * ended and the parser starts anew on the rest, with the encoding it had
 * (a meta charset is read once). Each segment's cost is bounded as a page
 * under the bound is, so the whole costs a bounded amount per byte, and
 * the links of the whole prefix come out. */
crawl_err html_scan(const char *p, size_t n, const struct html_opts *o,
                    const struct html_sink *sink, struct html_scan *info)
{
  /* Errors without a parser context go to the generic handler (stderr by
   * default); it is per thread. */
  xmlSetGenericErrorFunc(NULL, html_quiet);
  struct html_opts op = html_opts_fill(o);
  struct html_scan local;
  if(!info)
    info = &local;
  memset(info, 0, sizeof *info);
  info->cut = n > op.max_bytes ? HTML_CUT_SIZE : HTML_CUT_NONE;
  info->parsed = n > op.max_bytes ? op.max_bytes : n;
  static const struct html_sink none = { 0 };
  struct scan_job j = { .sink = sink ? sink : &none };
  char enc[2][64];
  const char *charset = op.charset;
  crawl_err e = CRAWL_OK;
  for(size_t at = 0, k = 0; at < info->parsed && !e && !j.stopped; k ^= 1) {
    size_t len = html_depth_cut(p + at, info->parsed - at, op.max_depth);
    if(len == 0)
      len = info->parsed - at;  /* not reached: a first tag never passes the bound */
    e = html_segment(&j, p + at, len, charset, enc[k], sizeof enc[k]);
    charset = enc[k][0] ? enc[k] : charset;
    at += len;
    info->restarts += at < info->parsed;
  }
  mem_free(j.open);
  info->stopped = j.stopped && !j.nomem;
  return e;
}

const char *html_ct_charset(const char *ct, char *out, size_t cap)
{
  const char *p = ct;
  while(p && (p = strchr(p, ';'))) {
    p++;
    while(*p == ' ' || *p == '\t')
      p++;
    if(strncasecmp(p, "charset=", 8))
      continue;
    p += 8;
    bool quoted = *p == '"';
    p += quoted;
    size_t n = strcspn(p, quoted ? "\"" : "; \t");
    if(!n || n >= cap)
      return NULL;
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
  }
  return NULL;
}

const char *html_attr(const char *const *attrs, const char *name)
{
  for(; attrs && attrs[0]; attrs += 2)
    if(!strcmp(attrs[0], name))
      return attrs[1];
  return NULL;
}
