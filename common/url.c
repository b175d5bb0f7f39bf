/* URL errors, options, and the RFC 3986 splitter under everything else. */
#include "common/url.h"

#include <string.h>

#include "common/mem.h"
#include "common/url_int.h"

/* URL_OK is outside the table (it is not an error): its row goes first. */
#define URL_ERR_ROWS(X) X(OK, ok, "no error") URL_ERRORS(X)
ERR_DEFINE_NAME(url_err_name, url_err, URL_ERR_ROWS)
ERR_DEFINE_TEXT(url_err_text, url_err, URL_ERR_ROWS, ERR_TEXT_OF)

url_err url_from_cm(cm_err e)
{
  switch(e) {
  case CM_OK:        return URL_OK;
  case CM_TOO_LARGE: return URL_ERR_TOO_LONG;
  default:           return URL_ERR_NOMEM;
  }
}

struct url_opts url_opts_default(void)
{
  struct url_opts o = { URL_MAX_LEN_DEFAULT, false, false };
  return o;
}

size_t url_max_len(const struct url_opts *o)
{
  if(!o || o->max_len == 0)
    return URL_MAX_LEN_DEFAULT;
  return o->max_len > URL_MAX_LEN_LIMIT ? URL_MAX_LEN_LIMIT : o->max_len;
}

void url_trim(const char **s, size_t *n)
{
  const unsigned char *p = (const unsigned char *)*s;
  size_t len = *n;
  while(len && p[0] <= 0x20) {
    p++;
    len--;
  }
  while(len && p[len - 1] <= 0x20)
    len--;
  *s = (const char *)p;
  *n = len;
}

static bool is_alpha(unsigned char c)
{
  return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

int url_hex_val(unsigned char c)
{
  if(is_digit(c))
    return c - '0';
  c |= 0x20;
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool url_ieq(const char *s, size_t n, const char *lit)
{
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if(c >= 'A' && c <= 'Z')
      c |= 0x20;
    if(lit[i] == '\0' || c != (unsigned char)lit[i])
      return false;
  }
  return lit[n] == '\0';
}

/* Index of the first byte of s[from..n) that is in set, or n. */
/* The delimiters RFC 3986 appendix B splits on, as bits, so that finding
 * the next one is a table lookup per byte (a memchr over the set per byte
 * was a twentieth of the crawler's CPU, resolving every link of a page). */
enum { D_COLON = 1, D_SLASH = 2, D_QUERY = 4, D_FRAG = 8 };
static const unsigned char delim[256] = {
  [':'] = D_COLON, ['/'] = D_SLASH, ['?'] = D_QUERY, ['#'] = D_FRAG,
};

static size_t span_until(const char *s, size_t from, size_t n, unsigned set)
{
  while(from < n && !(delim[(unsigned char)s[from]] & set))
    from++;
  return from;
}

static struct url_span span(const char *p, size_t n)
{
  struct url_span sp = { p, n, true };
  return sp;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
static bool scheme_valid(const char *s, size_t n)
{
  if(n == 0 || !is_alpha((unsigned char)s[0]))
    return false;
  for(size_t i = 1; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if(!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
      return false;
  }
  return true;
}

/* authority = [ userinfo "@" ] host [ ":" port ]. The last '@' ends the
 * userinfo, as in browsers, so "a@b@c" is host c. */
static url_err split_authority(struct url_raw *r)
{
  const char *a = r->auth.p;
  size_t n = r->auth.n, i = n, h = 0;
  while(i > 0 && a[i - 1] != '@')
    i--;
  if(i > 0) {
    r->userinfo = span(a, i - 1);
    h = i;
  }
  size_t e;
  if(h < n && a[h] == '[') {
    const char *rb = memchr(a + h, ']', n - h);
    if(!rb)
      return URL_ERR_BAD_IPV6;
    e = (size_t)(rb - a) + 1;
    if(e < n && a[e] != ':')
      return URL_ERR_BAD_IPV6;
  } else {
    e = span_until(a, h, n, D_COLON);
  }
  r->host = span(a + h, e - h);
  if(e < n) {
    r->port = span(a + e + 1, n - e - 1);
    for(size_t k = 0; k < r->port.n; k++)
      if(!is_digit((unsigned char)r->port.p[k]))
        return URL_ERR_BAD_PORT;
  }
  return URL_OK;
}

/* RFC 3986 appendix B, in one pass:
 * ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
 * A prefix that is not a valid scheme ("1x:", "a b:") is left to the path,
 * where url_canon finds no scheme. */
url_err url_raw_split(const char *s, size_t n, struct url_raw *r)
{
  memset(r, 0, sizeof *r);
  size_t i = span_until(s, 0, n, D_COLON | D_SLASH | D_QUERY | D_FRAG);
  if(i > 0 && i < n && s[i] == ':' && scheme_valid(s, i)) {
    r->scheme = span(s, i);
    i++;
  } else {
    i = 0;
  }
  if(n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
    size_t e = span_until(s, i + 2, n, D_SLASH | D_QUERY | D_FRAG);
    r->auth = span(s + i + 2, e - i - 2);
    i = e;
  }
  size_t e = span_until(s, i, n, D_QUERY | D_FRAG);
  r->path = span(s + i, e - i);
  i = e;
  if(i < n && s[i] == '?') {
    e = span_until(s, i + 1, n, D_FRAG);
    r->query = span(s + i + 1, e - i - 1);
    i = e;
  }
  if(i < n)
    r->frag = span(s + i + 1, n - i - 1);
  return r->auth.has ? split_authority(r) : URL_OK;
}

/* Copy a span into the block at *at, NUL-terminated; {NULL, 0} if absent. */
static struct url_str url_put(char **at, struct url_span sp)
{
  struct url_str r = { NULL, 0 };
  if(!sp.has)
    return r;
  char *d = *at;
  if(sp.n)
    memcpy(d, sp.p, sp.n);
  d[sp.n] = '\0';
  *at += sp.n + 1;
  r.p = d;
  r.n = sp.n;
  return r;
}

url_err url_parse(const char *s, size_t n, struct url *out)
{
  memset(out, 0, sizeof *out);
  if(n > URL_MAX_LEN_LIMIT)
    return URL_ERR_TOO_LONG;
  struct url_raw r;
  url_err e = url_raw_split(s, n, &r);
  if(e)
    return e;
  /* Seven components, at most n bytes in all, plus their NULs. */
  char *at = mem_alloc(n + 8);
  if(!at)
    return URL_ERR_NOMEM;
  out->mem = at;
  r.path.has = true;
  out->scheme = url_put(&at, r.scheme);
  out->userinfo = url_put(&at, r.userinfo);
  out->host = url_put(&at, r.host);
  out->port = url_put(&at, r.port);
  out->path = url_put(&at, r.path);
  out->query = url_put(&at, r.query);
  out->fragment = url_put(&at, r.frag);
  return URL_OK;
}

void url_free(struct url *u)
{
  mem_free(u->mem);
  memset(u, 0, sizeof *u);
}
