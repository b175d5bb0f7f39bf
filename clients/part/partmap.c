#include "clients/part/partmap.h"

#include <string.h>

#include "common/hash.h"
#include "common/url.h"

unsigned partmap_of_host(const char *host, unsigned n)
{
  return n ? (unsigned)(hash_fp64(host, strlen(host)) % n) : 0;
}

unsigned partmap_of_url(const char *url, unsigned n)
{
  struct url_parts p;
  if(url_split(url, &p) != URL_OK)
    return n;
  return partmap_of_host(p.host, n);
}

unsigned partmap_share(unsigned n, unsigned live)
{
  return live ? (n + live - 1) / live : n;
}
