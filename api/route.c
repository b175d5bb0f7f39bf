#include "api/route.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

/* Does path fit pattern? Records where captures start and end. */
static bool route_fits(const char *pat, const char *path, const char **cap_at,
                       size_t *cap_len, unsigned maxcap, unsigned *ncap)
{
  *ncap = 0;
  while(*pat && *path) {
    if(pat[0] == '{' && pat[1] == '}') {
      size_t n = strcspn(path, "/");
      if(n == 0 || *ncap >= maxcap)
        return false;
      cap_at[*ncap] = path;
      cap_len[(*ncap)++] = n;
      path += n;
      pat += 2;
      continue;
    }
    if(*pat++ != *path++)
      return false;
  }
  return *pat == '\0' && *path == '\0';
}

static void route_allow(const struct api_route *r, size_t n, const char *path, char *allow,
                        size_t allowlen)
{
  const char *at[8];
  size_t len[8];
  unsigned nc;
  size_t used = 0;
  allow[0] = '\0';
  for(size_t i = 0; i < n && used < allowlen; i++)
    if(route_fits(r[i].pattern, path, at, len, 8, &nc)) {
      int w = snprintf(allow + used, allowlen - used, "%s%s", used ? ", " : "", r[i].method);
      used += w > 0 ? (size_t)w : 0;
    }
}

enum route_rc route_match(const struct api_route *r, size_t n, const char *method,
                          const char *path, size_t *idx, char **params,
                          unsigned maxparams, unsigned *nparams, char *allow,
                          size_t allowlen)
{
  const char *at[8];
  size_t len[8];
  unsigned nc;
  bool path_known = false;
  *nparams = 0;
  for(size_t i = 0; i < n; i++) {
    if(!route_fits(r[i].pattern, path, at, len, maxparams < 8 ? maxparams : 8, &nc))
      continue;
    path_known = true;
    if(strcmp(r[i].method, method))
      continue;
    for(unsigned k = 0; k < nc; k++) {
      params[k] = mem_strndup(at[k], len[k]);
      if(!params[k]) {
        while(k--)
          mem_free(params[k]);
        return ROUTE_NOMEM;
      }
    }
    *nparams = nc;
    *idx = i;
    return ROUTE_FOUND;
  }
  if(!path_known)
    return ROUTE_NOT_FOUND;
  route_allow(r, n, path, allow, allowlen);
  return ROUTE_BAD_METHOD;
}
