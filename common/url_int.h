#ifndef WPFS_COMMON_URL_INT_H
#define WPFS_COMMON_URL_INT_H
/* Private to common/url*.c: the allocation-free RFC 3986 splitter and the
 * steps each file of the URL library lends to the others. */
#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/url.h"

/* Largest max_len honoured (larger options are clamped) and largest input
 * url_parse and url_resolve accept: a bound for every internal buffer. */
#define URL_MAX_LEN_LIMIT (1u << 20)

/* A slice of the input; has distinguishes absent from empty. */
struct url_span {
  const char *p;
  size_t      n;
  bool        has;
};

struct url_raw {
  struct url_span scheme, auth, userinfo, host, port, path, query, frag;
};

/* url.c */
url_err url_raw_split(const char *s, size_t n, struct url_raw *r);
size_t  url_max_len(const struct url_opts *o);
/* Skip leading and trailing spaces and C0 controls, as browsers do. */
void    url_trim(const char **s, size_t *n);
url_err url_from_cm(cm_err e);
int     url_hex_val(unsigned char c);
/* s[0..n) equals the lower-case literal lit, ASCII case-insensitively. */
bool    url_ieq(const char *s, size_t n, const char *lit);

/* url_path.c: RFC 3986 §5.2.4, appended to out; never pops below the
 * length out had on entry. */
cm_err  url_path_remove_dots(struct buf *out, const char *p, size_t n);

/* url_host.c: the canonical host (brackets kept for IPv6), appended to out. */
url_err url_host_canon(const char *h, size_t n, struct buf *out,
                       enum url_host_kind *kind);
/* h[0..n) (no trailing dot) is a WHATWG "ends in a number" host. */
bool    url_host_ends_in_number(const char *h, size_t n);

/* url_canon.c: the bytes a canonical path or query may hold raw. */
bool    url_canon_char(unsigned char c);

#endif
