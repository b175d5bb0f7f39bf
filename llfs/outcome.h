#ifndef WPFS_LLFS_OUTCOME_H
#define WPFS_LLFS_OUTCOME_H
/* Outcomes of the fetch engine: how one fetch ended. 0 is success.
 * The name (second column) reaches the service's JSON answers, its metrics
 * and the gateway's decisions: append only, never renumber or rename.
 * Foreign codes (CURLE_*, ARES_*) are mapped to these only inside llfs/.
 * "ok" means an HTTP response was received, whatever its status.
 * Columns: the enum, the name, an error (1) or not, whether a request may
 * have reached the site (1: the gateway charges the site's politeness
 * delay; 0: it certainly did not, e.g. the name did not resolve or the
 * address was refused here), the text. */
#include <stdbool.h>

#define OUTCOMES(X)                                                              \
  X(OK,                 ok,                 0, 1, "an HTTP response was received")   \
  X(DNS_NXDOMAIN,       dns_nxdomain,       1, 0, "no such host name, or no A/AAAA records") \
  X(DNS_SERVFAIL,       dns_servfail,       1, 0, "the DNS server failed to answer (SERVFAIL)") \
  X(DNS_TIMEOUT,        dns_timeout,        1, 0, "no DNS answer within dns_timeout_ms") \
  X(DNS_ERROR,          dns_error,          1, 0, "other DNS failure (refused, bad reply)") \
  X(CONNECT_REFUSED,    connect_refused,    1, 1, "the server refused the TCP connection") \
  X(CONNECT_TIMEOUT,    connect_timeout,    1, 1, "no TCP connection within the connect timeout") \
  X(TLS_ERROR,          tls_error,          1, 1, "TLS handshake or certificate verification failed") \
  X(TIMEOUT,            timeout,            1, 1, "total time or low-speed limit exceeded") \
  X(TOO_LARGE,          too_large,          1, 1, "body, decoded body or headers over the limit; body truncated") \
  X(BLOCKED_ADDRESS,    blocked_address,    1, 0, "every address of the host is in a denied range") \
  X(PROTOCOL_ERROR,     protocol_error,     1, 1, "malformed response (status line, headers, chunking, encoding)") \
  X(RESET,              reset,              1, 1, "connection reset or closed before the response ended") \
  X(BAD_URL,            bad_url,            1, 0, "the URL cannot be parsed") \
  X(UNSUPPORTED_SCHEME, unsupported_scheme, 1, 0, "the URL scheme is neither http nor https") \
  X(NOMEM,              no_memory,          1, 0, "out of memory") \
  X(OVERLOADED,         overloaded,         1, 0, "too many fetches in flight and queued") \
  X(SHUTTING_DOWN,      shutting_down,      1, 0, "the engine is stopping") \
  X(INTERNAL,           internal,           1, 0, "unexpected internal error") \
  X(CONNECT_ERROR,      connect_error,      1, 1, "other connection failure (unreachable, no route)") \
  X(BAD_REQUEST,        bad_request,        1, 1, "invalid request header or pinned address") \
  X(PROXY_ERROR,        proxy_error,        1, 0, "the outgoing proxy could not be reached or refused the tunnel")

enum outcome {
#define X(e, name, err, contact, txt) OUTCOME_##e,
  OUTCOMES(X)
#undef X
  OUTCOME__COUNT
};

/* "dns_nxdomain"; "unknown" outside the table. */
const char *outcome_name(enum outcome o);
/* One-line description for docs and logs. */
const char *outcome_text(enum outcome o);

#endif
