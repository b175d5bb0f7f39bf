#ifndef WPFS_TESTWEB_TW_BEH_H
#define WPFS_TESTWEB_TW_BEH_H
/* Behaviours: what a response does. One parameter table serves the three
 * places a behaviour can come from, applied in this order, later wins:
 *   the site's defaults (site file / generator) -> a configured path ->
 *   the query string of a /_b/<kind>/<variant>?k=v&... request.
 * String values are not copied: they point into the site's JSON config or
 * into the request's own copy of its target, both outliving the response. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "tests/testweb/tw_err.h"

/* What a path serves. */
#define TW_KINDS(X)                                                           \
  X(PAGE,      "page",      "a generated HTML page of the site")              \
  X(BODY,      "body",      "filler text of `size` bytes, or the literal `body`") \
  X(STATUS,    "status",    "/_b/status/CODE: any status, small text body")  \
  X(HANG,      "hang",      "never answers; ends when the client goes away")  \
  X(REDIRECT,  "redirect",  "/_b/redirect/CODE?to=URL: one redirect")         \
  X(CHAIN,     "chain",     "/_b/chain/N: N redirects, then a body (or to URL)") \
  X(LOOP,      "loop",      "/_b/loop/I?n=N: a redirect loop over N paths")   \
  X(ENDLESS,   "endless",   "a body that never ends (chunked or close-delimited)") \
  X(ENDLESS_HEADERS, "endless-headers", "header lines that never end")         \
  X(MALFORMED, "malformed", "/_b/malformed/VARIANT: broken response heads")   \
  X(BOMB,      "bomb",      "/_b/bomb/gzip or /_b/bomb/br: `size` zero bytes, compressed") \
  X(TRAP,      "trap",      "/_b/trap/...: infinitely deep relative links")   \
  X(CALENDAR,  "calendar",  "/_b/calendar/Y/M: endless prev/next months")     \
  X(CHANGE,    "change",    "a body that changes every `every` fetches, with validators") \
  X(DUP,       "dup",       "/_b/dup/ANY: the same body under every path")     \
  X(CHURN,     "churn",     "/_b/churn/J: page J of the changing web (POST /churn)") \
  X(ROBOTS,    "robots",    "/_b/robots/K: hop K of the robots.txt redirect chain") \
  X(SITEMAP,   "sitemap",   "a sitemap of the site's generated pages")     \
  X(FLAKY,     "flaky",     "/_b/flaky/N: `status` (503) N times, then a body")

enum tw_kind {
#define X(e, s, h) TW_K_##e,
  TW_KINDS(X)
#undef X
  TW_K__COUNT
};
const char *tw_kind_name(enum tw_kind k);
/* TW_K__COUNT when the name is unknown. */
enum tw_kind tw_kind_parse(const char *s, size_t n);

/* name, type, help. Types: INT (long), SIZE (long; k/m/g suffixes),
 * BOOL (long 0/1; empty text means 1), STR (const char *). */
#define TW_PARAMS(X)                                                           \
  X(body,        STR,  "literal body")                                         \
  X(chunked,     BOOL, "send the body in chunked transfer coding")            \
  X(close_after, SIZE, "close the connection after this many body bytes")     \
  X(code,        INT,  "redirect status: 301, 302, 303, 307 or 308")          \
  X(ctype,       STR,  "Content-Type of the response")                         \
  X(drip_bytes,  SIZE, "slow drip: send the body this many bytes at a time")  \
  X(drip_ms,     INT,  "slow drip: wait this long between two pieces")        \
  X(etag,        BOOL, "send an ETag; answer 304 to a matching If-None-Match") \
  X(every,       INT,  "change: the body changes every N fetches (0: never)") \
  X(gzip,        BOOL, "the body as a gzip file (a .gz download: no Content-Encoding)") \
  X(header,      STR,  "extra header lines, \"Name: value\", separated by newlines") \
  X(hold_ms,     INT,  "wait this long before the first byte of the response") \
  X(kind,        STR,  "path config: the kind of response the path serves")   \
  X(last_modified, BOOL, "send Last-Modified; answer 304 to If-Modified-Since") \
  X(n,           INT,  "loop length, or chain hops")                          \
  X(no_length,   BOOL, "send no Content-Length: the body ends when testweb closes") \
  X(reset_after, SIZE, "reset (RST) the connection after this many body bytes") \
  X(retry_after, INT,  "send Retry-After with this many seconds")            \
  X(size,        SIZE, "body bytes (body, endless piece, bomb decoded size, huge header)") \
  X(status,      INT,  "the response status")                                  \
  X(to,          STR,  "redirect target: a path or an absolute URL")          \
  X(variant,     STR,  "path config: the variant of the kind (/_b/KIND/VARIANT)")

#define TW_BEH_INT  long
#define TW_BEH_SIZE long
#define TW_BEH_BOOL long
#define TW_BEH_STR  const char *

enum tw_param {
#define X(n, t, h) TW_P_##n,
  TW_PARAMS(X)
#undef X
  TW_P__COUNT
};

struct tw_beh {
  uint32_t set;  /* bit TW_P_x: parameter x was given */
#define X(n, t, h) TW_BEH_##t n;
  TW_PARAMS(X)
#undef X
};

#define TW_BEH_HAS(b, name) (((b)->set >> TW_P_##name) & 1u)
/* The parameter's value, or def when it was not given. */
#define TW_BEH_OR(b, name, def) (TW_BEH_HAS(b, name) ? (b)->name : (def))

/* Set one parameter from text. The value is not copied (see above).
 * TW_NOT_FOUND: no such parameter; TW_CONFIG: bad value (err says why). */
tw_err tw_beh_set(struct tw_beh *b, const char *name, size_t nlen, const char *val,
                  char *err, size_t errlen);
/* The same from a JSON value (number, string or boolean). */
tw_err tw_beh_set_json(struct tw_beh *b, const char *name, json_t *v, char *err,
                       size_t errlen);
/* Parse "k=v&k2=v2" in place (percent-decoding it) into b. */
tw_err tw_beh_query(struct tw_beh *b, char *q, char *err, size_t errlen);
/* Copy every parameter set in src over dst. */
void   tw_beh_merge(struct tw_beh *dst, const struct tw_beh *src);
/* Percent-decode s in place ('+' is a space); returns the new length. */
size_t tw_pct_decode(char *s, size_t n);
/* Markdown table of the parameters, for docs/testweb.md. */
void   tw_beh_markdown(FILE *out);

#endif
