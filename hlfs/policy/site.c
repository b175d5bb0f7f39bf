#include "hlfs/policy/site.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/hash.h"
#include "common/url.h"

int site_mode_parse(const char *s, enum site_mode *out)
{
  static const char *const names[] = { "host", "ip", "domain" };
  for(unsigned i = 0; i < 3; i++)
    if(!strcmp(s, names[i])) {
      *out = (enum site_mode)i;
      return 0;
    }
  return -1;
}

/* Characters that would break key names or the queue key separator. */
static int site_name_ok(const char *s)
{
  if(!*s)
    return 0;
  for(; *s; s++)
    if((unsigned char)*s <= ' ' || *s == '{' || *s == '}' || *s == '|' || *s == 0x7f)
      return 0;
  return 1;
}

static cm_err site_copy(const char *s, char *out, size_t outlen)
{
  if(!site_name_ok(s))
    return CM_INVALID;
  int n = snprintf(out, outlen, "%s", s);
  return n < 0 || (size_t)n >= outlen ? CM_TOO_LARGE : CM_OK;
}

/* The gateway keeps canonical URLs only; url_split reads them without
 * parsing again or allocating, with the same parser that made them. */
static cm_err site_split(const char *url, struct url_parts *p)
{
  return url_split(url, p) == URL_OK ? CM_OK : CM_INVALID;
}

cm_err site_of_url(enum site_mode mode, const char *url, const char *addr,
                   char *out, size_t outlen)
{
  struct url_parts p;
  char host[URL_HOST_MAX + 3];
  cm_err e = site_split(url, &p);
  if(e)
    return e;
  snprintf(host, sizeof host, p.host_kind == URL_HOST_IPV6 ? "[%s]" : "%s", p.host);
  const char *s = host;
  if(mode == SITE_BY_IP && addr && *addr)
    s = addr;
  else if(mode == SITE_BY_DOMAIN && p.host_kind == URL_HOST_NAME)
    s = url_registrable_domain(p.host);
  return site_copy(s, out, outlen);
}

cm_err site_origin(const char *url, char *out, size_t outlen)
{
  struct url_parts p;
  cm_err e = site_split(url, &p);
  return e ? e : site_origin_split(&p, out, outlen);
}

cm_err site_origin_split(const struct url_parts *p, char *out, size_t outlen)
{
  bool v6 = p->host_kind == URL_HOST_IPV6;
  int n = snprintf(out, outlen, "%s://%s%s%s:%u", p->scheme, v6 ? "[" : "", p->host,
                   v6 ? "]" : "", (unsigned)p->port);
  return n < 0 || (size_t)n >= outlen ? CM_TOO_LARGE : CM_OK;
}

unsigned site_shard(const char *site, unsigned nshards)
{
  if(nshards <= 1)
    return 0;
  return (unsigned)(hash_fp64(site, strlen(site)) % nshards);
}
