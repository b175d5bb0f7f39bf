/* The pieces of a canonical URL, for the gateway and the fetcher. This is a
 * checker as much as a splitter: the fetcher puts target on the request line
 * and host into its address guard, so anything url_canon would not have
 * produced is refused rather than interpreted. */
#include <arpa/inet.h>
#include <string.h>

#include "common/str.h"
#include "common/url_int.h"

static bool name_char(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

static bool unreserved(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || (c && strchr("-._~", c));
}

/* inet_ntop of the address parsed from txt gives txt back exactly. */
static bool ip_is_canonical(int af, const char *txt)
{
  unsigned char a[16];
  char back[INET6_ADDRSTRLEN];
  if(inet_pton(af, txt, a) != 1)
    return false;
  if(af == AF_INET)
    str_ipv4(back, a);
  else if(!inet_ntop(af, a, back, sizeof back))
    return false;
  return strcmp(back, txt) == 0;
}

static bool labels_ok(const char *h, size_t n)
{
  size_t i = 0;
  while(i <= n) {
    size_t e = i;
    while(e < n && h[e] != '.')
      e++;
    if(e == i || e - i > 63)
      return false;
    i = e + 1;
  }
  return true;
}

static const char *split_ipv6(const char *s, struct url_parts *p)
{
  const char *rb = strchr(s, ']');
  if(!rb || (size_t)(rb - s) - 1 >= INET6_ADDRSTRLEN)
    return NULL;
  memcpy(p->host, s + 1, (size_t)(rb - s) - 1);
  p->host[rb - s - 1] = '\0';
  p->host_kind = URL_HOST_IPV6;
  return ip_is_canonical(AF_INET6, p->host) ? rb + 1 : NULL;
}

/* Host at s into p; returns what follows it, or NULL if not canonical. */
static const char *split_host(const char *s, struct url_parts *p)
{
  if(*s == '[')
    return split_ipv6(s, p);
  size_t n = 0;
  while(name_char((unsigned char)s[n]))
    n++;
  if(n == 0 || n > URL_HOST_MAX || !labels_ok(s, n))
    return NULL;
  memcpy(p->host, s, n);
  p->host[n] = '\0';
  p->host_kind = URL_HOST_NAME;
  if(url_host_ends_in_number(s, n)) {
    p->host_kind = URL_HOST_IPV4;
    if(!ip_is_canonical(AF_INET, p->host))
      return NULL;
  }
  return s + n;
}

/* ":port" (no leading zero, not the default) or nothing. */
static const char *split_port(const char *s, struct url_parts *p)
{
  unsigned def = p->https ? 443 : 80, v = 0;
  size_t i = 1;
  p->port = (uint16_t)def;
  if(*s != ':')
    return s;
  if(s[1] < '1' || s[1] > '9')
    return NULL;
  for(; s[i] >= '0' && s[i] <= '9' && i <= 5; i++)
    v = v * 10 + (unsigned)(s[i] - '0');
  if(v > 65535 || v == def || (s[i] >= '0' && s[i] <= '9'))
    return NULL;
  p->port = (uint16_t)v;
  return s + i;
}

/* Every byte may stand raw, or is a %XX that url_canon would keep; the path
 * has no "." or ".." segment. */
static bool target_ok(const char *t)
{
  bool in_path = true;
  for(size_t i = 0; t[i]; i++) {
    unsigned char c = (unsigned char)t[i];
    if(c == '?')
      in_path = false;
    if(in_path && c == '/' && t[i + 1] == '.' &&
       (strchr("/?", t[i + 2]) || (t[i + 2] == '.' && strchr("/?", t[i + 3]))))
      return false;  /* strchr also matches the terminating NUL */
    if(c == '%') {
      int hi = url_hex_val((unsigned char)t[i + 1]);
      int lo = hi < 0 ? -1 : url_hex_val((unsigned char)t[i + 2]);
      if(lo < 0 || strchr("abcdef", t[i + 1]) || strchr("abcdef", t[i + 2]) ||
         unreserved((unsigned char)(hi * 16 + lo)))
        return false;
      i += 2;
    } else if(!url_canon_char(c)) {
      return false;
    }
  }
  return true;
}

url_err url_split(const char *canon, struct url_parts *p)
{
  memset(p, 0, sizeof *p);
  const char *s = canon;
  p->https = strncmp(s, "https://", 8) == 0;
  if(!p->https && strncmp(s, "http://", 7) != 0)
    return URL_ERR_NOT_CANONICAL;
  p->scheme = p->https ? "https" : "http";
  s += p->https ? 8 : 7;
  p->authority = s;
  s = split_host(s, p);
  if(s)
    s = split_port(s, p);
  if(!s || *s != '/' || !target_ok(s))
    return URL_ERR_NOT_CANONICAL;
  p->authority_len = (size_t)(s - p->authority);
  p->target = s;
  p->target_len = strlen(s);
  return URL_OK;
}
