#include "tests/testweb/tw_http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *tw_method_name(enum tw_method m)
{
  static const char *const names[] = {
#define X(m) #m,
    TW_METHODS(X)
#undef X
  };
  return names[m];
}

/* Case-insensitive comparison of s with the NUL-terminated lit. */
static bool tw_str_ieq(struct tw_str s, const char *lit)
{
  return s.p && strlen(lit) == s.n && !strncasecmp(s.p, lit, s.n);
}

/* End of the head: the offset just past the empty line, or 0. Bare LF line
 * ends are accepted as RFC 9112 allows. */
static size_t http_head_end(const char *p, size_t n)
{
  for(const char *q = memchr(p, '\n', n); q; q = memchr(q + 1, '\n', (size_t)(p + n - q - 1))) {
    size_t i = (size_t)(q - p) + 1;
    if(i < n && p[i] == '\n')
      return i + 1;
    if(i + 1 < n && p[i] == '\r' && p[i + 1] == '\n')
      return i + 2;
    if(i + 1 >= n)
      break;
  }
  return 0;
}

static enum tw_method http_method(const char *p, size_t n)
{
  static const struct { const char *s; enum tw_method m; } tab[] = {
    { "GET", TW_M_GET }, { "HEAD", TW_M_HEAD }, { "POST", TW_M_POST },
    { "PUT", TW_M_PUT }, { "DELETE", TW_M_DELETE },
  };
  for(size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if(strlen(tab[i].s) == n && !memcmp(tab[i].s, p, n))
      return tab[i].m;
  return TW_M_OTHER;
}

/* "METHOD SP target SP HTTP/1.x" in line[0..n), no line end. */
static tw_err http_request_line(const char *line, size_t n, struct tw_req *r)
{
  const char *sp1 = memchr(line, ' ', n);
  if(!sp1 || sp1 == line)
    return TW_BAD_REQUEST;
  const char *t = sp1 + 1, *end = line + n;
  const char *sp2 = memchr(t, ' ', (size_t)(end - t));
  if(!sp2 || sp2 == t || end - sp2 != 9 || memcmp(sp2 + 1, "HTTP/1.", 7))
    return TW_BAD_REQUEST;
  char minor = sp2[8];
  if(minor < '0' || minor > '9')
    return TW_BAD_REQUEST;
  r->method = http_method(line, (size_t)(sp1 - line));
  r->target = (struct tw_str){ t, (size_t)(sp2 - t) };
  r->minor = minor - '0';
  r->keep_alive = r->minor >= 1;
  return TW_OK;
}

static struct tw_str http_trim(const char *p, size_t n)
{
  while(n && (*p == ' ' || *p == '\t')) {
    p++;
    n--;
  }
  while(n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
    n--;
  return (struct tw_str){ p, n };
}

static tw_err http_content_length(struct tw_str v, struct tw_req *r)
{
  char tmp[24];
  if(!v.n || v.n >= sizeof tmp || v.p[0] == '-' || v.p[0] == '+')
    return TW_BAD_REQUEST;
  memcpy(tmp, v.p, v.n);
  tmp[v.n] = '\0';
  char *end;
  errno = 0;
  long long cl = strtoll(tmp, &end, 10);
  if(errno || *end || cl < 0 || (r->content_length >= 0 && r->content_length != cl))
    return TW_BAD_REQUEST;
  r->content_length = cl;
  return TW_OK;
}

static tw_err http_header(const char *line, size_t n, struct tw_req *r)
{
  const char *colon = memchr(line, ':', n);
  if(!colon || colon == line || line[0] == ' ' || line[0] == '\t')
    return TW_BAD_REQUEST;
  struct tw_str name = { line, (size_t)(colon - line) };
  struct tw_str v = http_trim(colon + 1, (size_t)(line + n - colon - 1));
  if(tw_str_ieq(name, "host"))
    r->host = v;
  else if(tw_str_ieq(name, "user-agent"))
    r->ua = v;
  else if(tw_str_ieq(name, "if-none-match"))
    r->inm = v;
  else if(tw_str_ieq(name, "if-modified-since"))
    r->ims = v;
  else if(tw_str_ieq(name, "content-length"))
    return http_content_length(v, r);
  else if(tw_str_ieq(name, "transfer-encoding"))
    r->chunked = v.n >= 7 && !strncasecmp(v.p + v.n - 7, "chunked", 7);
  else if(tw_str_ieq(name, "connection")) {
    if(tw_str_ieq(v, "close"))
      r->keep_alive = false;
    else if(tw_str_ieq(v, "keep-alive"))
      r->keep_alive = true;
  }
  return TW_OK;
}

tw_err tw_http_parse(const char *p, size_t n, size_t max, struct tw_req *r)
{
  size_t skip = 0;  /* empty lines before a request are ignored (RFC 9112 2.2) */
  while(skip < n && (p[skip] == '\r' || p[skip] == '\n'))
    skip++;
  size_t lim = n < max ? n : max;
  size_t end = skip < lim ? http_head_end(p + skip, lim - skip) : 0;
  if(!end)
    return n >= max ? TW_TOO_LARGE : TW_AGAIN;
  memset(r, 0, sizeof *r);
  r->content_length = -1;
  r->head_len = skip + end;
  const char *line = p + skip, *stop = p + skip + end;
  for(int first = 1; line < stop; first = 0) {
    const char *nl = memchr(line, '\n', (size_t)(stop - line));
    size_t len = (size_t)(nl - line);
    if(len && line[len - 1] == '\r')
      len--;
    if(!len)
      break;
    tw_err e = first ? http_request_line(line, len, r) : http_header(line, len, r);
    if(e)
      return e;
    line = nl + 1;
  }
  return TW_OK;
}
