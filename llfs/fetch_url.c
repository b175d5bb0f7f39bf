/* The URL of a fetch: canonical form (the URL library decides what is
 * valid, and turns odd IPv4 spellings into dotted quads), then the host
 * and port the resolver and the guard work on. */
#include <string.h>

#include "common/mem.h"
#include "common/url.h"
#include "llfs/fetch_int.h"

#define FETCH_URL_MAX 16384

static enum outcome fetch_url_outcome(url_err e)
{
  switch(e) {
  case URL_ERR_OK:                 return OUTCOME_OK;
  case URL_ERR_NOMEM:              return OUTCOME_NOMEM;
  case URL_ERR_UNSUPPORTED_SCHEME: return OUTCOME_UNSUPPORTED_SCHEME;
  default:                         return OUTCOME_BAD_URL;
  }
}

enum outcome fetch_url_split(const char *url, struct fetch_url *out)
{
  struct url_opts o = url_opts_default();
  struct url_parts p;
  memset(out, 0, sizeof *out);
  o.max_len = FETCH_URL_MAX;
  /* The service hands over URLs it has already canonicalized: url_split
   * accepts only canonical input, so a second canonicalization is skipped
   * when it would change nothing. */
  url_err e;
  size_t n = strlen(url);
  if(n <= FETCH_URL_MAX && url_split(url, &p) == URL_OK)
    e = (out->canon = mem_strndup(url, n)) ? URL_OK : URL_ERR_NOMEM;
  else if(!(e = url_canon(url, n, &o, &out->canon)))
    e = url_split(out->canon, &p);
  if(e) {
    fetch_url_clear(out);
    return fetch_url_outcome(e);
  }
  _Static_assert(sizeof out->host >= URL_HOST_MAX, "host buffer");
  memcpy(out->host, p.host, sizeof p.host);
  out->port = p.port;
  out->https = p.https;
  return OUTCOME_OK;
}

void fetch_url_clear(struct fetch_url *u)
{
  mem_free(u->canon);
  u->canon = NULL;
}
