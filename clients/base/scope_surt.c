/* SURT forms of URLs and SURT prefixes (scope.h), as Heritrix writes
 * them: "http://(org,example,www,:8080)/path?q". The host's labels are
 * reversed, each followed by a comma, so that a prefix of the form covers
 * a domain and its subdomains ("http://(org,example,") or one host's path
 * ("http://(org,example,www,)/docs/"). https is written http (Heritrix
 * compares them as one); an IP address is kept in order. */
#include "clients/base/scope.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

struct sbuf {
  char  *p;
  size_t n, at;
  bool   over;
};

static void sb_put(struct sbuf *b, const char *s, size_t k)
{
  if(b->over || k >= b->n - b->at) {
    b->over = true;
    return;
  }
  memcpy(b->p + b->at, s, k);
  b->at += k;
  b->p[b->at] = '\0';
}

/* "www.example.org" -> "org,example,www," */
static void sb_reversed(struct sbuf *b, const char *host)
{
  size_t end = strlen(host);
  while(end > 0) {
    size_t start = end;
    while(start > 0 && host[start - 1] != '.')
      start--;
    sb_put(b, host + start, end - start);
    sb_put(b, ",", 1);
    end = start ? start - 1 : 0;
  }
}

/* Up to and with the ")" (no path). */
static void sb_authority(struct sbuf *b, const struct url_parts *p)
{
  sb_put(b, "http://(", 8);
  if(p->host_kind == URL_HOST_NAME)
    sb_reversed(b, p->host);
  else if(p->host_kind == URL_HOST_IPV6) {
    sb_put(b, "[", 1);
    sb_put(b, p->host, strlen(p->host));
    sb_put(b, "]", 1);
  } else
    sb_put(b, p->host, strlen(p->host));
  if(p->port != (p->https ? 443 : 80)) {
    char port[8];
    int k = snprintf(port, sizeof port, ":%u", (unsigned)p->port);
    sb_put(b, port, (size_t)k);
  }
  sb_put(b, ")", 1);
}

size_t scope_surt(const struct url_parts *p, char *out, size_t n)
{
  struct sbuf b = { out, n, 0, n == 0 };
  if(n)
    out[0] = '\0';
  sb_authority(&b, p);
  sb_put(&b, p->target, p->target_len);
  return b.over ? 0 : b.at;
}

/* "http://(" or "https://(" begins a SURT prefix as written; any other
 * "scheme://(" is no prefix of an http(s) URL's SURT. */
static bool surt_written(const char *arg, size_t n, size_t *skip)
{
  *skip = n >= 9 && !strncasecmp(arg, "https://(", 9);  /* "https" -> "http" */
  if(*skip || (n >= 8 && !strncasecmp(arg, "http://(", 8)))
    return true;
  for(size_t i = 0; i + 3 < n && arg[i] != '/'; i++)
    if(!memcmp(arg + i, "://(", 4))
      return true;
  return false;
}

/* A SURT prefix as written: the scheme and host part lower-cased, https
 * made http. */
static crawl_err prefix_written(const char *arg, size_t n, size_t skip, char **out)
{
  if(n < 8 + skip || strncasecmp(arg, "http", 4) || memcmp(arg + 4 + skip, "://(", 4))
    return CRAWL_ERR_INVALID;
  char *s = mem_alloc(n - skip + 1);
  if(!s)
    return CRAWL_ERR_NOMEM;
  memcpy(s, "http", 4);
  memcpy(s + 4, arg + 4 + skip, n - 4 - skip);
  s[n - skip] = '\0';
  for(char *q = s; *q && *q != ')'; q++)
    if(*q >= 'A' && *q <= 'Z')
      *q = (char)(*q + 32);
  *out = s;
  return CRAWL_OK;
}

/* A plain URL (a missing scheme is http) made into a prefix. */
static crawl_err prefix_plain(const char *arg, size_t n, char **out)
{
  char *withs = NULL, *canon = NULL;
  crawl_err e = CRAWL_ERR_INVALID;
  bool schemed = false;
  for(size_t i = 0; i + 2 < n && !schemed; i++)
    schemed = !memcmp(arg + i, "://", 3);
  if(!schemed && (withs = mem_alloc(n + 8))) {
    memcpy(withs, "http://", 7);
    memcpy(withs + 7, arg, n);
    withs[n + 7] = '\0';
  }
  const char *u = schemed ? arg : withs;
  url_err ue = u ? url_canon(u, schemed ? n : n + 7, NULL, &canon) : URL_ERR_NOMEM;
  struct url_parts p;
  if(ue == URL_ERR_NOMEM)
    e = CRAWL_ERR_NOMEM;
  if(ue == URL_OK && url_split(canon, &p) == URL_OK) {
    size_t plen = strcspn(p.target, "?");
    while(plen > 0 && p.target[plen - 1] != '/')
      plen--;  /* the last path segment and the query go */
    bool whole = p.target_len == 1 && p.host_kind == URL_HOST_NAME &&
                 p.port == (p.https ? 443 : 80);
    p.target_len = plen;
    char tmp[SCOPE_SURT_MAX];
    size_t k = scope_surt(&p, tmp, sizeof tmp);
    if(k && whole)
      k -= 2;  /* ")/": the host and every name under it */
    *out = k ? mem_strndup(tmp, k) : NULL;
    e = !k ? CRAWL_ERR_INVALID : *out ? CRAWL_OK : CRAWL_ERR_NOMEM;
  }
  mem_free(withs);
  mem_free(canon);
  return e;
}

crawl_err scope_surt_prefix(const char *arg, size_t n, char **out)
{
  size_t skip;
  *out = NULL;
  return surt_written(arg, n, &skip) ? prefix_written(arg, n, skip, out)
                                     : prefix_plain(arg, n, out);
}
