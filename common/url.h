#ifndef WPFS_COMMON_URL_H
#define WPFS_COMMON_URL_H
/* URLs: RFC 3986 parsing and reference resolution, canonicalization for
 * crawling, and the pieces of a canonical URL that the gateway and the
 * fetcher need (scheme, host and its kind, port, request target, site).
 * The rules are in docs/url.md.
 *
 * Inputs are (pointer, length) and need not be NUL-terminated; no function
 * reads past the length. Heap results come from mem_alloc (free them with
 * mem_free); on any error nothing is allocated and *out is left NULL.
 * Out of memory is URL_ERR_NOMEM, never an abort. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Errors. 0 is success; append only, never renumber or rename: the name
 * (second column) is part of the gateway's API answers. */
#define URL_ERRORS(X)                                                          \
  ERR_NOMEM(X)                                                                 \
  X(TOO_LONG,           too_long,           "URL longer than the maximum "     \
                                            "length (default 2048 bytes)")     \
  X(EMPTY,              empty,              "empty URL")                       \
  X(NO_SCHEME,          no_scheme,          "relative URL: no scheme")         \
  X(UNSUPPORTED_SCHEME, unsupported_scheme, "scheme is not http or https")     \
  X(NO_HOST,            no_host,            "no host")                         \
  X(USERINFO,           userinfo,           "user name or password in URL")    \
  X(BAD_PORT,           bad_port,           "port is not a number in "         \
                                            "1-65535")                         \
  X(BAD_HOST,           bad_host,           "forbidden character in host")     \
  X(BAD_IPV4,           bad_ipv4,           "host ends in a number but is "    \
                                            "not a valid IPv4 address")        \
  X(BAD_IPV6,           bad_ipv6,           "invalid IPv6 address literal")    \
  X(BAD_IDN,            bad_idn,            "invalid internationalized "       \
                                            "host name")                       \
  X(EMPTY_LABEL,        empty_label,        "empty label in host name")        \
  X(LABEL_TOO_LONG,     label_too_long,     "host label longer than 63 bytes") \
  X(HOST_TOO_LONG,      host_too_long,      "host name longer than 253 bytes") \
  X(BASE_NOT_ABSOLUTE,  base_not_absolute,  "base URL has no scheme")          \
  X(NOT_CANONICAL,      not_canonical,      "URL is not in canonical form")

typedef enum {
  URL_OK = 0,
  URL_ERR_OK = URL_OK,  /* the same value, spelt like the errors */
#define X(e, name, txt) URL_ERR_##e,
  URL_ERRORS(X)
#undef X
  URL_ERR__LAST
} url_err;

/* Stable snake_case name ("too_long") and human text; "unknown" for a
 * value outside the table. */
const char *url_err_name(url_err e);
const char *url_err_text(url_err e);

/* ---- Parsing (RFC 3986) ------------------------------------------------ */

/* One component: p == NULL when absent (so "http://a/?" has an empty query
 * and "http://a/" none). p[n] is '\0', but p may hold NUL bytes: use n. */
struct url_str {
  const char *p;
  size_t      n;
};

struct url {
  struct url_str scheme;    /* as written, without ':' */
  struct url_str userinfo;  /* without '@' */
  struct url_str host;      /* as written; IPv6 keeps its brackets */
  struct url_str port;      /* digits only, may be empty */
  struct url_str path;      /* never absent, may be empty */
  struct url_str query;     /* without '?' */
  struct url_str fragment;  /* without '#' */
  char *mem;                /* owns the bytes of all components */
};

/* Split a URI reference (absolute or relative) into its components, the way
 * RFC 3986 appendix B does. Lenient on purpose: it only checks the scheme
 * syntax (a prefix that is not a valid scheme makes the reference a relative
 * path), that an IP literal is closed by ']' and followed by nothing but a
 * port, and that the port is all digits (else URL_ERR_BAD_IPV6 or
 * URL_ERR_BAD_PORT); n over 1 MiB is URL_ERR_TOO_LONG. url_canon checks
 * everything else. On success the caller owns out and frees it with
 * url_free (safe on a zeroed or freed struct); on error out is zeroed. */
url_err url_parse(const char *s, size_t n, struct url *out);
void    url_free(struct url *u);

/* Resolve reference ref against base (RFC 3986 section 5.2, strict: a
 * reference with a scheme is absolute even when the scheme is the base's).
 * base must have a scheme (else URL_ERR_BASE_NOT_ABSOLUTE). Leading and
 * trailing spaces and C0 controls of both inputs are ignored, as browsers
 * do. No normalization besides dot-segment removal; canonicalize the result
 * with url_canon (or use url_canon_ref). *out is a heap string. Inputs over
 * 1 MiB are URL_ERR_TOO_LONG; the result is never longer than both. */
url_err url_resolve(const char *base, size_t bn, const char *ref, size_t rn,
                    char **out);

/* ---- Canonicalization ---------------------------------------------------- */

#define URL_MAX_LEN_DEFAULT 2048

struct url_opts {
  size_t max_len;          /* input and result limit; 0 = URL_MAX_LEN_DEFAULT;
                              values over 1 MiB are clamped to 1 MiB */
  bool   sort_query;       /* stable sort of query parameters by name */
  bool   strip_session_ids;/* drop jsessionid, phpsessid, sid, ... */
};
struct url_opts url_opts_default(void);

/* Canonical form of an absolute http or https URL (docs/url.md has every
 * rule). o may be NULL for the defaults. An input or a result longer than
 * max_len is URL_ERR_TOO_LONG, never truncated. URLs with a user name or
 * password are rejected (URL_ERR_USERINFO): a crawler never sends
 * credentials. canon(canon(x)) == canon(x) for the same options. */
url_err url_canon(const char *s, size_t n, const struct url_opts *o,
                  char **out);
/* url_resolve then url_canon, for links found in a page at base. Leading and
 * trailing spaces and controls around base and ref are ignored, as browsers
 * do; base or ref longer than max_len is URL_ERR_TOO_LONG. */
url_err url_canon_ref(const char *base, size_t bn, const char *ref, size_t rn,
                      const struct url_opts *o, char **out);

/* ---- Pieces of a canonical URL --------------------------------------------- */

enum url_host_kind { URL_HOST_NAME, URL_HOST_IPV4, URL_HOST_IPV6 };

#define URL_HOST_MAX 253  /* longest canonical host, brackets excluded */

struct url_parts {
  const char        *scheme;     /* static "http" or "https" */
  bool               https;
  enum url_host_kind host_kind;
  uint16_t           port;       /* default applied: 80 or 443 */
  /* Bare host, NUL-terminated: a lower-case A-label name, a dotted quad, or
   * an IPv6 address without brackets (what DNS or inet_pton want). */
  char               host[URL_HOST_MAX + 1];
  /* The rest point into the canonical string given to url_split. */
  const char        *authority;  /* host[:port] as in the URL: Host header */
  size_t             authority_len;
  const char        *target;     /* path[?query] up to the end: request target */
  size_t             target_len;
};

/* Split a canonical URL (the output of url_canon, NUL-terminated) without
 * allocating. Anything url_canon would not have produced (wrong case,
 * default or zero port, fragment, user info, dot segments, bytes that need
 * percent-encoding, ...) is URL_ERR_NOT_CANONICAL; so target is always safe
 * to put on a request line. */
url_err url_split(const char *canon, struct url_parts *p);

/* Registrable domain (public suffix + one label, from the built-in Public
 * Suffix List) of a bare canonical host as in url_parts.host: a suffix of
 * host, no allocation. An IP address, a public suffix itself ("co.uk") or a
 * name without one ("localhost") returns host unchanged, so the result is
 * always usable as the "site" of the host. */
const char *url_registrable_domain(const char *host);

#endif
