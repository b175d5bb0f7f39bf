#ifndef WPFS_TESTWEB_TW_ROUTE_H
#define WPFS_TESTWEB_TW_ROUTE_H
/* From a parsed request to a plan: which site, which kind of response
 * (robots.txt, /_b/<kind>/..., a configured path, a generated page), its
 * behaviour parameters, and the head. Handlers run with no socket, so unit
 * tests call tw_route directly. */
#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "tests/testweb/tw_beh.h"
#include "tests/testweb/tw_bomb.h"
#include "tests/testweb/tw_http.h"
#include "tests/testweb/tw_plan.h"
#include "tests/testweb/tw_world.h"

/* What every request needs and outlives it. */
struct tw_route_env {
  struct tw_world *w;
  struct tw_bomb  *bombs;
  char     date[40];  /* the Date header value, rebuilt once a second */
  int64_t  date_s;
};

/* Decide the response to req for site s (NULL: unknown site) into pl, which
 * tw_plan_init prepared. Never fails: errors become 4xx/5xx plans. */
void tw_route(struct tw_route_env *env, struct tw_site *s, const struct tw_req *req,
              struct tw_plan *pl);

/* The state of one routing, shared by tw_route.c and the kind handlers in
 * tw_kind.c. */
enum tw_framing { TW_FR_LENGTH, TW_FR_CHUNKED, TW_FR_CLOSE };

struct tw_route {
  struct tw_route_env *env;
  struct tw_site      *s;
  const struct tw_req *req;
  struct tw_plan      *pl;
  struct tw_beh        beh;       /* merged: site, path config, query */
  struct tw_beh        qbeh;      /* the query's parameters alone */
  char                *query;     /* decoded in place by tw_beh_query */
  enum tw_kind         kind;
  const char          *path;      /* decoded path, NUL-terminated */
  size_t               plen;
  const char          *variant;   /* "" when none */
  const char          *rawq;      /* the query as received, or NULL */
  long                 page;      /* PAGE: page number */
  int                  status;
  const char          *ctype;
  const char          *encoding;  /* Content-Encoding or NULL */
  struct buf           location;  /* Location value, empty = none */
  bool                 raw;       /* the handler wrote the whole head */
  bool                 validators;/* ETag/Last-Modified apply */
  char                 etag[24];
  int64_t              last_modified;  /* epoch seconds, 0 = none */
  enum tw_framing      framing;
};

/* Kind handlers (tw_kind.c): fill status, body and headers of r. */
void tw_kind_run(struct tw_route *r);
/* A short text body (errors, status pages). */
void tw_route_text(struct tw_route *r, int status, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* Validators for the body now in the plan, or for key when the body is
 * too large to hash (pass NULL to hash the body). */
void tw_route_validators(struct tw_route *r, const char *key, uint64_t version);
/* A redirect to target (query appended when q is non-NULL). */
void tw_route_redirect(struct tw_route *r, int code, const char *target, const char *q);
const char *tw_route_reason(int status);

#endif
