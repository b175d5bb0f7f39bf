#ifndef WPFS_HLFS_SITE_H
#define WPFS_HLFS_SITE_H
/* The politeness unit. One site = one request in flight at a time, one
 * next-allowed time, one queue per client. By configuration it is the host
 * (default), the IP address the host resolves to, or the registrable domain
 * (public suffix list), as crawlers commonly allow.
 * A site name is also part of Redis key names: it never contains '{', '}',
 * '|', blanks or control characters (such URLs are rejected). */
#include <stddef.h>

#include "common/err.h"

enum site_mode { SITE_BY_HOST, SITE_BY_IP, SITE_BY_DOMAIN };

#define SITE_MAX 256      /* bytes of a site name, NUL included */
#define SITE_ORIGIN_MAX 300

int    site_mode_parse(const char *s, enum site_mode *out);
/* Site of a canonical absolute http(s) URL. addr is the address the host
 * resolved to (text), used only in SITE_BY_IP mode; without it an IP-literal
 * host is its own site and a name falls back to the host. */
cm_err site_of_url(enum site_mode mode, const char *url, const char *addr,
                   char *out, size_t outlen);
/* scheme://host:port of a canonical url (robots.txt is per origin, RFC
 * 9309). Both take canonical URLs only (url_canon's output): anything else
 * is CM_INVALID. */
cm_err site_origin(const char *url, char *out, size_t outlen);
/* The same origin from a canonical URL's parts (common/url.h url_split),
 * without parsing it again. */
struct url_parts;
cm_err site_origin_split(const struct url_parts *p, char *out, size_t outlen);
/* Which Redis shard holds the site's keys (stable: xxh3 of the name). */
unsigned site_shard(const char *site, unsigned nshards);

#endif
