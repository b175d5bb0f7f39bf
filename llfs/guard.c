#include "llfs/guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/mem.h"

struct guard_net {
  int                family;
  unsigned char      b[16];
  unsigned           bits;
  enum guard_verdict v;
};

struct guard {
  unsigned magic;
#define GUARD_MAGIC 0x6a7d0e51u
  size_t            nallow;
  struct guard_net *allow;
  size_t            ndeny;
  struct guard_net  deny[48];
};

/* The IANA special-purpose registries, plus metadata services. The longest
 * matching prefix decides, so a host route inside a wider range (metadata
 * inside link-local, broadcast inside 240/4) names the precise reason. */
static const struct {
  const char        *cidr;
  enum guard_verdict v;
} guard_deny_tab[] = {
  { "0.0.0.0/8",          GUARD_UNSPECIFIED },
  { "10.0.0.0/8",         GUARD_PRIVATE },
  { "100.64.0.0/10",      GUARD_CGNAT },
  { "127.0.0.0/8",        GUARD_LOOPBACK },
  { "168.63.129.16/32",   GUARD_METADATA },      /* Azure host agent */
  { "169.254.0.0/16",     GUARD_LINK_LOCAL },
  { "169.254.169.254/32", GUARD_METADATA },
  { "172.16.0.0/12",      GUARD_PRIVATE },
  { "192.0.0.0/24",       GUARD_PROTOCOL },
  { "192.0.2.0/24",       GUARD_DOCUMENTATION },
  { "192.88.99.0/24",     GUARD_TUNNEL },        /* 6to4 relay anycast */
  { "192.168.0.0/16",     GUARD_PRIVATE },
  { "198.18.0.0/15",      GUARD_BENCHMARKING },
  { "198.51.100.0/24",    GUARD_DOCUMENTATION },
  { "203.0.113.0/24",     GUARD_DOCUMENTATION },
  { "224.0.0.0/4",        GUARD_MULTICAST },
  { "240.0.0.0/4",        GUARD_RESERVED },
  { "255.255.255.255/32", GUARD_BROADCAST },
  { "::/128",             GUARD_UNSPECIFIED },
  { "::1/128",            GUARD_LOOPBACK },
  { "::/96",              GUARD_RESERVED },      /* IPv4-compatible, deprecated */
  { "64:ff9b:1::/48",     GUARD_TUNNEL },        /* local-use NAT64 */
  { "100::/64",           GUARD_RESERVED },      /* discard-only */
  { "2001::/23",          GUARD_PROTOCOL },
  { "2001::/32",          GUARD_TUNNEL },        /* Teredo: client address is obfuscated */
  { "2001:2::/48",        GUARD_BENCHMARKING },
  { "2001:db8::/32",      GUARD_DOCUMENTATION },
  { "3fff::/20",          GUARD_DOCUMENTATION },
  { "5f00::/16",          GUARD_RESERVED },      /* SRv6 SIDs */
  { "fc00::/7",           GUARD_UNIQUE_LOCAL },
  { "fd00:ec2::254/128",  GUARD_METADATA },
  { "fe80::/10",          GUARD_LINK_LOCAL },
  { "fec0::/10",          GUARD_SITE_LOCAL },
  { "ff00::/8",           GUARD_MULTICAST },
};

/* IPv6 forms that carry an IPv4 address at a fixed offset: that address
 * decides, so "::ffff:10.0.0.1" is as private as "10.0.0.1". */
static const struct {
  unsigned char prefix[12];
  unsigned      bits;
  unsigned      off;
} guard_embed_tab[] = {
  { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff }, 96, 12 },            /* IPv4-mapped */
  { { 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 }, 96, 12 },            /* IPv4-translated */
  { { 0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 }, 96, 12 },         /* NAT64 well-known */
  { { 0x20, 0x02 }, 16, 2 },                                           /* 6to4 */
};

static const char *const guard_names[] = {
#define X(e, name, txt) #name,
  GUARD_VERDICTS(X)
#undef X
};

const char *guard_verdict_name(enum guard_verdict v)
{
  return (unsigned)v < GUARD__COUNT ? guard_names[v] : "unknown";
}

static bool guard_prefix_eq(const unsigned char *a, const unsigned char *p, unsigned bits)
{
  unsigned full = bits / 8, rest = bits % 8;
  if(memcmp(a, p, full))
    return false;
  if(!rest)
    return true;
  unsigned char mask = (unsigned char)(0xff << (8 - rest));
  return (a[full] & mask) == (p[full] & mask);
}

/* "a.b.c.d/n", "x::y/n" or a bare address (host route), n bytes of s. */
static int guard_net_parse(const char *s, size_t n, struct guard_net *out)
{
  char tmp[64];
  while(n && (*s == ' ' || *s == '\t')) { s++; n--; }
  while(n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  if(n == 0 || n >= sizeof tmp)
    return -1;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  char *slash = strchr(tmp, '/');
  if(slash)
    *slash = '\0';
  memset(out, 0, sizeof *out);
  if(inet_pton(AF_INET, tmp, out->b) == 1)
    out->family = AF_INET;
  else if(inet_pton(AF_INET6, tmp, out->b) == 1)
    out->family = AF_INET6;
  else
    return -1;
  long max = out->family == AF_INET ? 32 : 128;
  out->bits = (unsigned)max;
  if(!slash)
    return 0;
  char *end;
  errno = 0;
  long bits = strtol(slash + 1, &end, 10);
  if(end == slash + 1 || *end || errno || bits < 0 || bits > max)
    return -1;
  out->bits = (unsigned)bits;
  return 0;
}

static void guard_load_deny(struct guard *g)
{
  size_t n = sizeof guard_deny_tab / sizeof guard_deny_tab[0];
  _Static_assert(sizeof guard_deny_tab / sizeof guard_deny_tab[0] <=
                 sizeof ((struct guard *)0)->deny / sizeof (struct guard_net),
                 "deny table larger than its slot");
  for(size_t i = 0; i < n; i++) {
    const char *c = guard_deny_tab[i].cidr;
    int rc = guard_net_parse(c, strlen(c), &g->deny[i]);
    if(rc) {
      fprintf(stderr, "guard: bad built-in range %s\n", c);
      abort();
    }
    g->deny[i].v = guard_deny_tab[i].v;
  }
  g->ndeny = n;
}

static size_t guard_count_items(const char *csv)
{
  size_t n = 1;
  for(const char *p = csv; *p; p++)
    n += *p == ',';
  return n;
}

static int guard_load_allow(struct guard *g, const char *csv, char *err, size_t errlen)
{
  if(!csv || !*csv)
    return 0;
  size_t max = guard_count_items(csv);
  if(max > GUARD_MAX_ALLOW) {
    snprintf(err, errlen, "more than %d allow-list CIDRs", GUARD_MAX_ALLOW);
    return -1;
  }
  g->allow = mem_calloc(max, sizeof *g->allow);
  if(!g->allow) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for(const char *p = csv; *p;) {
    size_t len = strcspn(p, ",");
    if(len && strspn(p, " \t") < len) {
      if(guard_net_parse(p, len, &g->allow[g->nallow])) {
        snprintf(err, errlen, "bad CIDR \"%.*s\"", (int)(len > 64 ? 64 : len), p);
        return -1;
      }
      g->nallow++;
    }
    p += len + (p[len] == ',');
  }
  return 0;
}

struct guard *guard_new(const char *allow_csv, char *err, size_t errlen)
{
  struct guard *g = mem_calloc(1, sizeof *g);
  if(!g) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  g->magic = GUARD_MAGIC;
  guard_load_deny(g);
  if(guard_load_allow(g, allow_csv, err, errlen)) {
    guard_free(&g);
    return NULL;
  }
  return g;
}

void guard_free(struct guard **gp)
{
  struct guard *g = *gp;
  if(!g)
    return;
  *gp = NULL;
  mem_free(g->allow);
  g->magic = 0;
  mem_free(g);
}

static bool guard_allowed(const struct guard *g, int family, const unsigned char *b)
{
  for(size_t i = 0; i < g->nallow; i++)
    if(g->allow[i].family == family && guard_prefix_eq(b, g->allow[i].b, g->allow[i].bits))
      return true;
  return false;
}

static enum guard_verdict guard_deny_lookup(const struct guard *g, int family,
                                            const unsigned char *b)
{
  const struct guard_net *best = NULL;
  for(size_t i = 0; i < g->ndeny; i++) {
    const struct guard_net *d = &g->deny[i];
    if(d->family == family && guard_prefix_eq(b, d->b, d->bits) &&
       (!best || d->bits > best->bits))
      best = d;
  }
  if(best)
    return best->v;
  /* Only 2000::/3 is global unicast; the rest of the IPv6 space is
   * unassigned or special, and a web server has no business there. */
  if(family == AF_INET6 && (b[0] & 0xe0) != 0x20)
    return GUARD_RESERVED;
  return GUARD_OK;
}

enum guard_verdict guard_check(const struct guard *g, int family, const unsigned char *b)
{
  if(!g || g->magic != GUARD_MAGIC)
    abort();
  if(family != AF_INET && family != AF_INET6)
    return GUARD_BAD_FAMILY;
  if(guard_allowed(g, family, b))
    return GUARD_OK;
  if(family == AF_INET6)
    for(size_t i = 0; i < sizeof guard_embed_tab / sizeof guard_embed_tab[0]; i++)
      if(guard_prefix_eq(b, guard_embed_tab[i].prefix, guard_embed_tab[i].bits))
        return guard_check(g, AF_INET, b + guard_embed_tab[i].off);
  return guard_deny_lookup(g, family, b);
}
