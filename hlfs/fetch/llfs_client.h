#ifndef WPFS_HLFS_LLFS_CLIENT_H
#define WPFS_HLFS_LLFS_CLIENT_H
/* The gateway's client of the fetcher service (POST /internal/v1/fetch, framed
 * answers: one JSON line, then the body bytes). Asynchronous on the loop
 * through common/curluv; keep-alive connections to the fetcher, recycled
 * after 30 s so that new fetchers get their share.
 *
 * Fetchers come and go (rollouts, scale-down, crashes), so the client does
 * not lean on one address: each base URL's host name is resolved every
 * refresh_ms, and every address it has (a headless Service lists one per
 * fetcher pod) is an endpoint, used in turn. A fetch that a fetcher refused
 * without fetching (it could not be reached, or answered 503
 * shutting-down/overloaded or any other status but 200) is offered to the
 * next endpoint, up to 3, and the refusing one is skipped for 2 s; only
 * when every try was refused is the answer refused. An answer lost after
 * the fetch was sent (a reset, a timeout) is not retried: the site may
 * have been contacted.
 *
 * Contracts: on a non-zero return cb is never called; otherwise cb runs once
 * from the loop unless llfs_client_cancel comes first. The answer and every
 * string in it live only during cb. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct llfs_client_cfg {
  const char *base_urls;     /* "http://127.0.0.1:8081,http://..." */
  long        slack_ms;      /* added to the fetch timeout for the hop itself */
  size_t      max_answer;    /* cap on one answer (metadata + body) */
  long        max_conns;     /* connections kept to the fetchers */
  unsigned    refresh_ms;    /* base host names resolved again this often (0: 5 s) */
  const char *ca_file;       /* PEM CA of https fetchers (NULL: the system's) */
  const char *secret;        /* the fetchers' shared secret (NULL: none sent) */
};

struct llfs_client_stats {
  uint64_t retries;          /* refused fetches offered to another fetcher */
  uint64_t refused;          /* fetches every fetcher tried refused (not made) */
  uint64_t lost;             /* fetches whose answer was lost (made, maybe) */
  uint64_t resolves, resolve_errors;
  unsigned endpoints;        /* fetcher addresses known */
};

struct llfs_answer {
  bool        reached;       /* the fetcher answered with a result */
  bool        refused;       /* not reached, and certainly not fetched: every
                                fetcher tried refused it or could not be reached */
  const char *outcome;       /* fetch outcome name, or "fetcher_unavailable" */
  const char *detail;        /* may be NULL */
  long        status;        /* HTTP status of the page, 0 if none */
  const char *redirect;      /* absolute Location, or NULL */
  bool        truncated;
  bool        reused;        /* a kept-alive connection carried it (reused_connection) */
  uint64_t    total_us;      /* the fetch as the fetcher timed it */
  uint64_t    downloaded;
  json_t     *meta;          /* the whole FetchResult (borrowed) */
  const char *body;
  size_t      body_len;
};

/* Split a framed answer "META\nBODY" (meta_len: the Wpfs-Meta-Length
 * header, -1 if absent) and read the metadata into a; *meta owns it (free
 * with json_decref). Pointers in a point into p. 0, or -1 if malformed. */
int llfs_answer_parse(const char *p, size_t len, long meta_len, struct llfs_answer *a,
                      json_t **meta);

/* Value of response header name in a.meta (first, case-insensitive). */
const char *llfs_answer_header(const struct llfs_answer *a, const char *name);

struct llfs_client_req {
  const char        *url;
  bool               head;
  const char *const *headers;  /* "Name: value" */
  size_t             nheaders;
  long               timeout_ms;  /* 0: the fetcher's default */
  const char        *req_id;      /* X-Request-Id, carried into its logs */
  uint64_t           not_before_us;  /* monotonic: the fetcher holds the request
                                        until then (its hold_us); 0: none */
  const char        *pin;         /* the address to dial (its pin_address), or NULL */
};

struct llfs_client;
struct llfs_client_job;
typedef void llfs_client_cb(void *arg, const struct llfs_answer *a);

struct llfs_client *llfs_client_new(uv_loop_t *loop, const struct llfs_client_cfg *cfg);
int  llfs_client_fetch(struct llfs_client *c, const struct llfs_client_req *r,
                       llfs_client_cb *cb, void *arg, struct llfs_client_job **jobp);
void llfs_client_cancel(struct llfs_client_job **jobp);
/* GET /internal/v1/resolve of host: cb gets the first address the
 * fetcher's guard allows, or NULL (no answer, no address, all blocked). */
typedef void llfs_resolve_cb(void *arg, const char *addr);
int  llfs_client_resolve(struct llfs_client *c, const char *host, llfs_resolve_cb *cb, void *arg);
/* GET /readyz of the next fetcher; cb(arg, true) if it answered 200. */
int  llfs_client_ping(struct llfs_client *c, void (*cb)(void *arg, bool ok), void *arg);
const struct llfs_client_stats *llfs_client_stats(const struct llfs_client *c);
void llfs_client_free(struct llfs_client **cp);

#endif
