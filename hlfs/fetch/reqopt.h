#ifndef WPFS_HLFS_FETCH_REQOPT_H
#define WPFS_HLFS_FETCH_REQOPT_H
/* A request's own options, carried through the queue with it: the method
 * (GET or HEAD), the client's headers (within the operator's allow-list,
 * --client-headers) and the key whose identity fetches it (its User-Agent
 * and robots.txt product token). Only a request that has one pays: the
 * options are appended to its queue member (hlfs/state/qenc.h,
 * QENC_OPT_SEP), so a request with other options is another request (its
 * own dedup, no coalescing with a different one) and the claim hands them
 * back with the URL.
 *
 * The options string: items separated by QENC_OPT_SEP, in this order:
 *   k<client>       the identity of that key (a key with its own
 *                   user_agent or product_token)
 *   mHEAD           the method, when not GET
 *   h<name>:<value> a header, names lower-case, sorted by name
 *   o<client>       the headers are private to that client (Authorization,
 *                   Cookie or Proxy-Authorization among them)
 * Everything after the k item is the page's variant: what the page cache
 * keys on besides the URL (reqopt_variant). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/jin.h"

#define REQOPT_MAX         1024  /* bytes of an options string */
#define REQOPT_HEADERS_MAX 16    /* headers of one request */
#define REQOPT_VALUE_MAX   256   /* bytes of one header value */
#define REQOPT_ALLOW_MAX   32    /* names in the allow-list */
#define REQOPT_NAME_MAX    64    /* bytes of a header name */

struct reqopt_allow {
  char   names[REQOPT_ALLOW_MAX][REQOPT_NAME_MAX];  /* lower-case */
  size_t n;
};

/* "Accept-Language,Accept" into a; -1 with the reason in err for a name
 * that is no header name or that a client may never set (Host, hop-by-hop
 * headers, User-Agent, the conditional headers the page cache sends...). */
int reqopt_allow_parse(const char *list, struct reqopt_allow *a, char *err, size_t errlen);

/* The options of one request: "method" and "headers" of object v (pre
 * names it in errors), the identity key ident (NULL: none) and the client
 * whose private headers they would be. out gets the options string ("" for
 * none). -1 with e filled (422 invalid-field naming the header). */
int reqopt_decode(const struct reqopt_allow *a, json_t *v, const char *pre, const char *ident,
                  const char *client, char *out, size_t outlen, struct jin_err *e);

/* Readers of an options string (NULL or "" for none). */
bool        reqopt_head(const char *opts);
/* The identity key's name into out; false when none. */
bool        reqopt_ident(const char *opts, char *out, size_t outlen);
/* The page variant: the options after the identity, or NULL when none. */
const char *reqopt_variant(const char *opts);
/* Up to max headers as "Name: value" lines, written into buf (buflen
 * bytes) and pointed to from out; the count. */
size_t      reqopt_headers(const char *opts, char *buf, size_t buflen, const char **out,
                           size_t max);

#endif
