/* What every handler uses: the API key check, the answers for a store
 * outage and a bad URL, the canonical URL of a parameter, and readiness. */
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "common/url.h"
#include "hlfs/fetch/auth.h"
#include "hlfs/gw/gw.h"
#include "hlfs/fetch/reqopt.h"

const struct state_client *gw_auth_as(struct gw *g, struct api_req *rq, unsigned roles,
                                      const char *what)
{
  const struct state_client *c = auth_check(g->auth, api_req_header(rq, "Authorization"));
  if(!c) {
    g->stats.unauthorized++;
    api_reply_header(rq, "WWW-Authenticate", "Bearer realm=\"wpfs\"");
    api_problem(rq, 401, "unauthorized", "Unauthorized", NULL,
                "send \"Authorization: Bearer <API key>\"");
    return NULL;
  }
  api_req_set_client(rq, c->name);
  if(!(roles & GW_ROLE(auth_role_of(g->auth, c)))) {
    gw_forbidden(g, rq, c, what);
    return NULL;
  }
  return c;
}

const struct state_client *gw_auth(struct gw *g, struct api_req *rq)
{
  return gw_auth_as(g, rq, GW_ROLES_CRAWL, "this route is for crawler and operator keys");
}

void gw_forbidden(struct gw *g, struct api_req *rq, const struct state_client *c,
                  const char *why)
{
  enum auth_role r = auth_role_of(g->auth, c);
  json_t *ext = json_pack("{s:s, s:s}", "client", c->name, "role", auth_role_name(r));
  g->stats.forbidden++;
  api_problem(rq, 403, "forbidden", "Forbidden", ext, "%s (key of %s, role %s)", why, c->name,
              auth_role_name(r));
}

void gw_store_down(struct api_req *rq, store_err e)
{
  api_reply_header(rq, "Retry-After", "1");
  api_problem(rq, 503, "store-unavailable", "Shared state unavailable", NULL, "%s",
              store_err_text(e));
}

void gw_url_problem(struct api_req *rq, const char *field, url_err ue)
{
  json_t *ext = json_pack("{s:s, s:s}", "field", field, "url_error", url_err_name(ue));
  const char *type = ue == URL_ERR_TOO_LONG             ? "url-too-long"
                   : ue == URL_ERR_UNSUPPORTED_SCHEME ? "unsupported-scheme"
                                                      : "invalid-url";
  api_problem(rq, 400, type, "Invalid URL", ext, "%s: %s", field, url_err_text(ue));
}

char *gw_canon(struct gw *g, struct api_req *rq, const char *field, const char *url)
{
  struct url_opts o = url_opts_default();
  char *canon = NULL;
  o.max_len = g->cfg.max_url_len;
  url_err ue = url ? url_canon(url, strlen(url), &o, &canon) : URL_ERR_EMPTY;
  if(ue != URL_OK)
    gw_url_problem(rq, field, ue);
  return canon;
}

/* Ready unless stopping, or before every state Redis was reached once (a
 * replica that cannot start must not take traffic). A dependency lost
 * later does not make it unready: every replica would lose it together
 * and leave the Service at once, so clients would meet refused
 * connections instead of 503 with Retry-After for what cannot be served,
 * and could not read the results already stored. The *_up gauges say
 * what is down. */
int gw_ready(void *arg, char *why, size_t whylen)
{
  struct gw *g = arg;
  if(g->stopping) {
    snprintf(why, whylen, "shutting down");
    return -1;
  }
  for(unsigned k = 0; k < g->nstores; k++)
    if(!store_stats(g->store[k])->connects) {
      snprintf(why, whylen, "redis not reached yet%s", g->nstores > 1 ? " (a shard group)" : "");
      return -1;
    }
  return 0;
}

int gw_req_opts(const struct gw *g, const struct state_client *c, json_t *v, const char *pre,
                char **out, struct jin_err *e)
{
  static const struct reqopt_allow none = { .n = 0 };
  char opts[REQOPT_MAX];
  const char *ua, *tok;
  size_t tlen;
  /* a key with an identity of its own names it: its requests are its own
   * (no coalescing with another identity's), and the synchronous
   * pseudo-client's claim finds whose they are */
  bool own = auth_identity(g->auth, c, &ua, &tok, &tlen);
  *out = NULL;
  if(reqopt_decode(g->cfg.client_headers ? g->cfg.client_headers : &none, v, pre,
                   own ? c->name : NULL, c->name, opts, sizeof opts, e))
    return -1;
  if(opts[0] && !(*out = mem_strdup(opts))) {
    jin_set(e, pre, "headers", "out of memory");
    return -1;
  }
  return 0;
}
