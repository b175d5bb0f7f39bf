#include "hlfs/policy/site.h"

#include <curl/curl.h>
#include <libpsl.h>
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

static cm_err site_from_curl(CURLUcode rc)
{
  return rc == CURLUE_OK ? CM_OK : rc == CURLUE_OUT_OF_MEMORY ? CM_NOMEM : CM_INVALID;
}

/* url parsed by libcurl; *u is NULL on error. */
static cm_err site_parse(const char *url, CURLU **u)
{
  *u = curl_url();
  if(!*u)
    return CM_NOMEM;
  cm_err e = site_from_curl(curl_url_set(*u, CURLUPART_URL, url, 0));
  if(e) {
    curl_url_cleanup(*u);
    *u = NULL;
  }
  return e;
}

static cm_err site_part(CURLU *u, CURLUPart part, unsigned flags, char **out)
{
  return site_from_curl(curl_url_get(u, part, out, flags));
}

static int site_is_ip(const char *host)
{
  if(host[0] == '[')
    return 1;
  return strspn(host, "0123456789.") == strlen(host);
}

cm_err site_of_url(enum site_mode mode, const char *url, const char *addr,
                   char *out, size_t outlen)
{
  CURLU *u;
  char *host = NULL;
  cm_err e = site_parse(url, &u);
  if(!e)
    e = site_part(u, CURLUPART_HOST, 0, &host);
  curl_url_cleanup(u);
  if(e)
    return e;
  const char *s = host;
  if(mode == SITE_BY_IP && addr && *addr)
    s = addr;
  else if(mode == SITE_BY_DOMAIN && !site_is_ip(host)) {
    const char *rd = psl_registrable_domain(psl_builtin(), host);
    if(rd)
      s = rd;
  }
  e = site_copy(s, out, outlen);
  curl_free(host);
  return e;
}

cm_err site_origin(const char *url, char *out, size_t outlen)
{
  CURLU *u;
  char *scheme = NULL, *host = NULL, *port = NULL;
  cm_err e = site_parse(url, &u);
  if(!e)
    e = site_part(u, CURLUPART_SCHEME, 0, &scheme);
  if(!e)
    e = site_part(u, CURLUPART_HOST, 0, &host);
  if(!e)
    e = site_part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT, &port);
  if(!e) {
    int n = snprintf(out, outlen, "%s://%s:%s", scheme, host, port);
    e = n < 0 || (size_t)n >= outlen ? CM_TOO_LARGE : CM_OK;
  }
  curl_url_cleanup(u);
  curl_free(scheme);
  curl_free(host);
  curl_free(port);
  return e;
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
