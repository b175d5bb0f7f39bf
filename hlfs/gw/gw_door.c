/* The gateway's front door: is the request's key valid? Asked by the HTTP
 * server as soon as a request head is in, before a byte of its body is
 * read (api/srv.h, authorize), so that a client without a key can make
 * the gateway neither buffer a body nor hold its connection long. The
 * route's handler checks the key again, and decides what the client it
 * names may do; here only whether it names one counts. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hlfs/fetch/auth.h"
#include "hlfs/gw/gw.h"

/* HTTP Basic with the API key as the password (GET /status, for a
 * browser): the key, as a Bearer header value, into out. */
static bool door_basic(const char *h, char *out, size_t outlen)
{
  unsigned char dec[512];
  if(!h || strncasecmp(h, "Basic ", 6))
    return false;
  size_t n = strlen(h + 6);
  int len = n < 680 ? EVP_DecodeBlock(dec, (const unsigned char *)h + 6, (int)n) : -1;
  if(len <= 0)
    return false;
  dec[len] = 0;
  char *pw = strchr((char *)dec, ':');
  return pw && snprintf(out, outlen, "Bearer %s", pw + 1) < (int)outlen;
}

bool gw_authorize(struct api_req *rq, const struct api_route *route, void *arg)
{
  struct gw *g = arg;
  const char *h = api_req_header(rq, "Authorization");
  bool basic = route->fn == gw_h_status;
  char bearer[600];
  if(auth_check(g->auth, h) ||
     (basic && door_basic(h, bearer, sizeof bearer) && auth_check(g->auth, bearer)))
    return true;
  g->stats.unauthorized++;
  api_reply_header(rq, "WWW-Authenticate", "Bearer realm=\"wpfs\"");
  if(basic)   /* both challenges, one header each: a browser takes the one it knows */
    api_reply_header(rq, "WWW-Authenticate", "Basic realm=\"wpfs\", charset=\"UTF-8\"");
  api_problem(rq, 401, "unauthorized", "Unauthorized", NULL,
              basic ? "send \"Authorization: Bearer <API key>\", or the key as a Basic password"
                    : "send \"Authorization: Bearer <API key>\"");
  return false;
}
