/* The outgoing proxy: its URL checked with libcurl's own parser, its
 * addresses resolved once at start (a proxy is infrastructure the
 * operator names; a proxy that moves takes a restart). */
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "common/mem.h"
#include "llfs/proxy.h"

struct proxy_addr {
  int family;
  unsigned char b[16];
};

struct fetch_proxy {
  bool tunnel;
  size_t naddr;
  struct proxy_addr addr[PROXY_MAX_ADDRS];
};

/* Schemes whose proxy is handed the target's address, not its name. */
static int proxy_scheme(const char *s, bool *tunnel)
{
  *tunnel = !strcasecmp(s, "http") || !strcasecmp(s, "https");
  return *tunnel || !strcasecmp(s, "socks5") ? 0 : -1;
}

static void proxy_add(struct fetch_proxy *p, const struct addrinfo *ai)
{
  for(; ai && p->naddr < PROXY_MAX_ADDRS; ai = ai->ai_next) {
    struct proxy_addr *a = &p->addr[p->naddr];
    if(ai->ai_family == AF_INET)
      memcpy(a->b, &((const struct sockaddr_in *)(const void *)ai->ai_addr)->sin_addr, 4);
    else if(ai->ai_family == AF_INET6)
      memcpy(a->b, &((const struct sockaddr_in6 *)(const void *)ai->ai_addr)->sin6_addr, 16);
    else
      continue;
    a->family = ai->ai_family;
    p->naddr++;
  }
}

static int proxy_resolve(struct fetch_proxy *p, const char *host, char *err, size_t errlen)
{
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
  char h[256];
  size_t n = strlen(host);
  if(n >= sizeof h) {
    snprintf(err, errlen, "proxy host name too long");
    return -1;
  }
  /* libcurl hands an IPv6 literal back in brackets; getaddrinfo wants it bare. */
  if(host[0] == '[' && n > 2 && host[n - 1] == ']')
    snprintf(h, sizeof h, "%.*s", (int)(n - 2), host + 1);
  else
    snprintf(h, sizeof h, "%s", host);
  int rc = getaddrinfo(h, NULL, &hints, &ai);
  if(rc) {
    snprintf(err, errlen, "proxy host %s: %s", h, gai_strerror(rc));
    return -1;
  }
  proxy_add(p, ai);
  freeaddrinfo(ai);
  if(!p->naddr) {
    snprintf(err, errlen, "proxy host %s has no IPv4 or IPv6 address", h);
    return -1;
  }
  return 0;
}

static int proxy_parse(struct fetch_proxy *p, CURLU *u, const char *url, char *err,
                       size_t errlen)
{
  char *scheme = NULL, *host = NULL, *port = NULL;
  int rc = -1;
  if(curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME)) {
    snprintf(err, errlen, "proxy: not a URL (scheme://host:port)");
    return -1;
  }
  curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
  curl_url_get(u, CURLUPART_HOST, &host, 0);
  curl_url_get(u, CURLUPART_PORT, &port, 0);
  if(!scheme || proxy_scheme(scheme, &p->tunnel))
    snprintf(err, errlen, "proxy scheme %s: use http, https or socks5 (the proxy must "
             "not resolve the target's name)", scheme ? scheme : "(none)");
  else if(!host || !port)
    snprintf(err, errlen, "proxy URL needs a host and a port");
  else if(!proxy_resolve(p, host, err, errlen))
    rc = 0;
  curl_free(scheme);
  curl_free(host);
  curl_free(port);
  return rc;
}

struct fetch_proxy *fetch_proxy_new(const char *url, char *err, size_t errlen)
{
  struct fetch_proxy *p = mem_calloc(1, sizeof *p);
  CURLU *u = curl_url();
  if(!p || !u) {
    snprintf(err, errlen, "out of memory");
  } else if(!proxy_parse(p, u, url, err, errlen)) {
    curl_url_cleanup(u);
    return p;
  }
  curl_url_cleanup(u);
  mem_free(p);
  return NULL;
}

void fetch_proxy_free(struct fetch_proxy **pp)
{
  mem_free(*pp);
  *pp = NULL;
}

bool fetch_proxy_is(const struct fetch_proxy *p, int family, const unsigned char *bytes)
{
  size_t len = family == AF_INET ? 4 : 16;
  for(size_t i = 0; i < p->naddr; i++)
    if(p->addr[i].family == family && !memcmp(p->addr[i].b, bytes, len))
      return true;
  return false;
}

bool fetch_proxy_tunnels(const struct fetch_proxy *p)
{
  return p->tunnel;
}
