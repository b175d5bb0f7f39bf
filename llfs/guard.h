#ifndef WPFS_LLFS_GUARD_H
#define WPFS_LLFS_GUARD_H
/* The address guard (SSRF defence): decides whether the fetcher may connect
 * to one binary IPv4 or IPv6 address. It refuses every range that is not
 * the public Internet (loopback, RFC 1918, link-local, CGNAT, multicast,
 * reserved, documentation, benchmarking, cloud metadata, ULA, ...) and
 * looks through IPv6 forms that embed an IPv4 address (IPv4-mapped, NAT64,
 * 6to4), unless an allow-list CIDR covers the address. The fetcher runs it
 * on every resolved address and pins the one it picked, so a name that
 * changes its answer between check and connect cannot reach a denied range.
 * The ranges are listed in docs/llfs-engine.md. */
#include <stddef.h>

/* Verdicts: 0 = allowed, else the kind of range that denied the address.
 * Names reach metrics and logs: append only. */
#define GUARD_VERDICTS(X)                                              \
  X(OK,             ok,             "allowed")                         \
  X(UNSPECIFIED,    unspecified,    "unspecified / this network")      \
  X(LOOPBACK,       loopback,       "loopback")                        \
  X(PRIVATE,        private,        "private network (RFC 1918)")      \
  X(LINK_LOCAL,     link_local,     "link-local")                      \
  X(CGNAT,          cgnat,          "shared address space (CGNAT)")    \
  X(METADATA,       cloud_metadata, "cloud metadata service")          \
  X(MULTICAST,      multicast,      "multicast")                       \
  X(BROADCAST,      broadcast,      "limited broadcast")               \
  X(RESERVED,       reserved,       "reserved or not globally routed") \
  X(DOCUMENTATION,  documentation,  "documentation range")             \
  X(BENCHMARKING,   benchmarking,   "benchmarking range")              \
  X(PROTOCOL,       protocol,       "IETF protocol assignments")       \
  X(UNIQUE_LOCAL,   unique_local,   "IPv6 unique local (fc00::/7)")    \
  X(SITE_LOCAL,     site_local,     "IPv6 site-local (deprecated)")    \
  X(TUNNEL,         tunnel,         "tunnel or translation prefix")    \
  X(BAD_FAMILY,     bad_family,     "not an IPv4 or IPv6 address")     \
  X(NOT_PROXY,      not_proxy,      "not the configured proxy")

enum guard_verdict {
#define X(e, name, txt) GUARD_##e,
  GUARD_VERDICTS(X)
#undef X
  GUARD__COUNT
};

const char *guard_verdict_name(enum guard_verdict v);

struct guard;

/* allow_csv: comma-separated CIDRs ("127.0.0.0/8,::1"; a bare address is a
 * host route), NULL or "" for none. Returns NULL with a reason in err when a
 * CIDR is malformed or there are more than GUARD_MAX_ALLOW of them, or on
 * out of memory. */
#define GUARD_MAX_ALLOW 256
struct guard *guard_new(const char *allow_csv, char *err, size_t errlen);
void          guard_free(struct guard **gp);

/* family is AF_INET (4 bytes) or AF_INET6 (16 bytes), network order. */
enum guard_verdict guard_check(const struct guard *g, int family, const unsigned char *bytes);

#endif
