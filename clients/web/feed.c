/* RSS and Atom links through libxml2's XML reader (feed.h). */
#include "clients/web/feed.h"

#include <libxml/xmlreader.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

static void feed_quiet(void *arg, const char *msg, xmlParserSeverities sev,
                       xmlTextReaderLocatorPtr loc)
{
  (void)arg;
  (void)msg;
  (void)sev;
  (void)loc;
}

static bool ct_is(const char *ct, const char *type)
{
  size_t n = strlen(type);
  return !strncasecmp(ct, type, n) && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* The first element's name: after a byte order mark, the XML declaration,
 * comments, processing instructions and a doctype. */
static const char *feed_root(const char *p, size_t n, size_t *len)
{
  size_t i = n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3) ? 3 : 0;
  while(i < n) {
    while(i < n && strchr(" \t\r\n", p[i]))
      i++;
    if(i + 1 >= n || p[i] != '<')
      return NULL;
    if(p[i + 1] != '?' && p[i + 1] != '!')
      break;
    const char *gt = memchr(p + i, '>', n - i);
    if(!gt)
      return NULL;
    i = (size_t)(gt - p) + 1;
  }
  size_t s = i + 1, e = s;
  while(e < n && !strchr(" \t\r\n/>", p[e]))
    e++;
  *len = e - s;
  return e > s ? p + s : NULL;
}

static enum feed_kind feed_kind_of(const char *name, size_t n)
{
  if(n == 3 && !memcmp(name, "rss", 3))
    return FEED_RSS;
  if(n == 4 && !memcmp(name, "feed", 4))
    return FEED_ATOM;
  if(n >= 3 && !memcmp(name + n - 3, "RDF", 3) && (n == 3 || name[n - 4] == ':'))
    return FEED_RDF;
  return FEED_NONE;
}

bool feed_detect(const char *ct, const void *body, size_t len)
{
  while(ct && (*ct == ' ' || *ct == '\t'))
    ct++;
  if(ct && (ct_is(ct, "application/rss+xml") || ct_is(ct, "application/atom+xml") ||
            ct_is(ct, "application/rdf+xml")))
    return true;
  if(ct && !ct_is(ct, "application/xml") && !ct_is(ct, "text/xml") &&
     !ct_is(ct, "text/plain"))
    return false;
  size_t n;
  const char *root = feed_root(body, len < 4096 ? len : 4096, &n);
  return root && feed_kind_of(root, n) != FEED_NONE;
}

struct feed_walk {
  xmlTextReaderPtr r;
  feed_link_fn    *fn;
  void            *arg;
  struct feed_info info;
  bool             stop;
};

static void walk_report(struct feed_walk *w, const char *s)
{
  if(!s)
    return;
  size_t n = strlen(s);
  while(n && strchr(" \t\r\n", s[n - 1]))
    n--;
  while(n && strchr(" \t\r\n", *s)) {
    s++;
    n--;
  }
  if(!n || n > FEED_LINK_MAX)
    return;
  w->info.links++;
  w->stop = w->fn(w->arg, s, n) != 0;
}

/* <link>: Atom's href (the page of the feed or entry: rel alternate or
 * none), else RSS's text. */
static void walk_link(struct feed_walk *w)
{
  xmlChar *href = xmlTextReaderGetAttribute(w->r, BAD_CAST "href");
  if(href) {
    xmlChar *rel = xmlTextReaderGetAttribute(w->r, BAD_CAST "rel");
    if(!rel || !strcmp((const char *)rel, "alternate"))
      walk_report(w, (const char *)href);
    xmlFree(rel);
    xmlFree(href);
    return;
  }
  if(xmlTextReaderIsEmptyElement(w->r))
    return;
  xmlChar *text = xmlTextReaderReadString(w->r);
  walk_report(w, (const char *)text);
  xmlFree(text);
}

static void walk_root(struct feed_walk *w)
{
  const char *name = (const char *)xmlTextReaderConstName(w->r);
  w->info.kind = name ? feed_kind_of(name, strlen(name)) : FEED_NONE;
}

crawl_err feed_read(const void *body, size_t len, size_t max_bytes, feed_link_fn *fn, void *arg,
                    struct feed_info *info)
{
  size_t cap = max_bytes ? max_bytes : FEED_MAX_BYTES_DEFAULT;
  if(cap > INT_MAX)
    cap = INT_MAX;
  struct feed_walk w = { NULL, fn, arg, { FEED_NONE, 0, false, len > cap }, false };
  /* No DTD, no entities substituted, no network: a feed is data. */
  w.r = xmlReaderForMemory(body, (int)(len < cap ? len : cap), NULL, NULL,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if(!w.r)
    return CRAWL_ERR_NOMEM;
  xmlTextReaderSetErrorHandler(w.r, feed_quiet, NULL);
  int rc = 0;
  bool first = true;
  while(!w.stop && (rc = xmlTextReaderRead(w.r)) == 1) {
    if(xmlTextReaderNodeType(w.r) != XML_READER_TYPE_ELEMENT)
      continue;
    if(first)
      walk_root(&w);
    first = false;
    const char *local = (const char *)xmlTextReaderConstLocalName(w.r);
    if(local && !strcmp(local, "link"))
      walk_link(&w);
  }
  w.info.broken = !w.stop && rc < 0;
  xmlFreeTextReader(w.r);
  if(info)
    *info = w.info;
  return CRAWL_OK;
}
