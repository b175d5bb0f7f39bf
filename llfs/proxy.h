#ifndef WPFS_LLFS_PROXY_H
#define WPFS_LLFS_PROXY_H
/* The outgoing proxy (--proxy): when set, every connection the fetcher
 * makes goes to it and to nothing else. The target is named to the proxy
 * by the address the guard allowed, never by a host name the proxy would
 * resolve on its own (where the guard could not see the answer): HTTP and
 * HTTPS proxies get "CONNECT ADDR:PORT" for every fetch, plain http://
 * targets included; SOCKS5 gets the address (local resolution). TLS to the
 * target still checks the URL's name. The proxy's own addresses are
 * allowed because the operator named them, whatever range they are in. */
#include <stdbool.h>
#include <stddef.h>

struct fetch_proxy;

#define PROXY_MAX_ADDRS 16

/* url: "http://[user:pass@]host:port", "https://...", "socks5://...".
 * socks5h, socks4 and socks4a are refused: the proxy would resolve the
 * target's name, or could not take an IPv6 address. The proxy's host is
 * resolved once, here. NULL with a reason in err. */
struct fetch_proxy *fetch_proxy_new(const char *url, char *err, size_t errlen);
void fetch_proxy_free(struct fetch_proxy **pp);

/* Is this one of the proxy's addresses (family AF_INET or AF_INET6,
 * network-order bytes)? */
bool fetch_proxy_is(const struct fetch_proxy *p, int family, const unsigned char *bytes);
/* HTTP(S) proxies tunnel every fetch with CONNECT; SOCKS5 needs none. */
bool fetch_proxy_tunnels(const struct fetch_proxy *p);

#endif
