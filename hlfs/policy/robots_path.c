/* The two sides of a robots.txt match: the target taken from a URL, and
 * the percent-encoding normal form that patterns and paths are both put in
 * before they are compared (RFC 9309 §2.2.2, §2.2.3). */
#include "hlfs/policy/robots.h"

#include <string.h>

#include "common/mem.h"
#include "common/url.h"

static int robots_hexval(unsigned char c)
{
  if(c >= '0' && c <= '9')
    return c - '0';
  if(c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if(c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* RFC 3986 unreserved: an escaped one means the same as the bare byte. */
static bool robots_unreserved(unsigned c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

/* Bytes that cannot appear bare in a URI: non-ASCII (§2.2.2 "MUST be
 * percent-encoded"), controls, space and the RFC 3986 excluded set. */
static bool robots_needs_escape(unsigned c)
{
  return c <= 0x20 || c >= 0x7F || (c && strchr("\"<>\\^`{|}", (int)c));
}

static size_t robots_put_escape(char *out, unsigned c)
{
  static const char hex[] = "0123456789ABCDEF";
  out[0] = '%';
  out[1] = hex[c >> 4];
  out[2] = hex[c & 15];
  return 3;
}

/* Both sides end up identical when they name the same octets:
 *   %xx of an unreserved byte -> the byte        ("%62%61%7A" == "baz")
 *   other %xx                 -> upper-case hex  ("%e3" == "%E3")
 *   bytes >= 0x80, controls, space, "<>... -> %XX ("ツ" == "%E3%83%84")
 *   a '%' not followed by two hex digits  -> %25
 * and '*' and '$' are special only in a pattern (a final '$'); elsewhere
 * they stand for themselves and become %2A and %24, so a pattern can name
 * a literal '*' as "%2A" (§2.2.3). A run of '*' in a pattern is one '*'. */
size_t robots_path_norm(const char *in, size_t n, bool pattern, char *out)
{
  size_t o = 0;
  for(size_t i = 0; i < n; i++) {
    unsigned c = (unsigned char)in[i];
    if(c == '%' && i + 2 < n && robots_hexval((unsigned char)in[i + 1]) >= 0 &&
       robots_hexval((unsigned char)in[i + 2]) >= 0) {
      unsigned v = (unsigned)(robots_hexval((unsigned char)in[i + 1]) * 16 +
                              robots_hexval((unsigned char)in[i + 2]));
      i += 2;
      if(robots_unreserved(v))
        out[o++] = (char)v;
      else
        o += robots_put_escape(out + o, v);
    } else if(pattern && c == '*') {
      if(!o || out[o - 1] != '*')
        out[o++] = '*';
    } else if(pattern && c == '$' && i + 1 == n) {
      out[o++] = '$';
    } else if(c == '*' || c == '$' || c == '%' || robots_needs_escape(c)) {
      o += robots_put_escape(out + o, c);
    } else {
      out[o++] = (char)c;
    }
  }
  return o;
}

robots_err robots_url_target(const char *url, size_t n, char **out, size_t *len)
{
  struct url u;
  *out = NULL;
  *len = 0;
  url_err ue = url_parse(url, n, &u);
  if(ue)
    return ue == URL_ERR_NOMEM ? ROBOTS_NOMEM : ROBOTS_INVALID;
  size_t pn = u.path.p ? u.path.n : 0, qn = u.query.n;
  bool slash = !pn || u.path.p[0] != '/';
  char *t = mem_alloc(slash + pn + (u.query.p ? 1 + qn : 0) + 1);
  if(t) {
    size_t o = 0;
    if(slash)
      t[o++] = '/';
    if(pn)
      memcpy(t + o, u.path.p, pn);
    o += pn;
    if(u.query.p) {
      t[o++] = '?';
      memcpy(t + o, u.query.p, qn);
      o += qn;
    }
    t[o] = '\0';
    *out = t;
    *len = o;
  }
  url_free(&u);
  return t ? ROBOTS_OK : ROBOTS_NOMEM;
}
