#ifndef WPFS_CLIENTS_GWCLIENT_H
#define WPFS_CLIENTS_GWCLIENT_H
/* An asynchronous client of the gateway (HLFS) on a libuv loop: libcurl's
 * multi socket API (common/curluv.h), the bodies and answers of gwproto.h.
 *
 * Contracts: a call that returns non-zero never calls its callback; every
 * other call calls it exactly once, from the loop. The answer handed to a
 * callback belongs to the client and is freed when the callback returns.
 * gwclient_close cancels what is under way: no callback runs after it.
 * err is CRAWL_ERR_IO when no HTTP answer came (connection refused,
 * timeout), CRAWL_ERR_INVALID when the answer was not the expected JSON;
 * http is the status (0 without one). retry_after_ms comes from the
 * Retry-After header (-1 when absent). */
#include <uv.h>

#include "clients/gwclient/gwproto.h"

struct gwclient_opts {
  const char *base_url;      /* "http://127.0.0.1:8080" */
  const char *token;         /* API key (Bearer) */
  long        timeout_ms;    /* per request, on top of a long-poll's wait */
  size_t      max_answer;    /* bytes of one answer */
  const char *user_agent;
};

struct gwclient_answer {
  crawl_err err;
  int       http;
  long      retry_after_ms;
};

typedef void gwclient_batch_fn(void *arg, const struct gwclient_answer *a,
                               struct gw_batch_answer *batch);
typedef void gwclient_results_fn(void *arg, const struct gwclient_answer *a,
                                 struct gw_results *res);
typedef void gwclient_ack_fn(void *arg, const struct gwclient_answer *a);
typedef void gwclient_sitemaps_fn(void *arg, const struct gwclient_answer *a, char **sitemaps);
typedef void gwclient_fetch_fn(void *arg, const struct gwclient_answer *a, struct gw_result *res);

struct gwclient;

crawl_err gwclient_open(uv_loop_t *loop, const struct gwclient_opts *o, struct gwclient **out);
void      gwclient_close(struct gwclient **gp);
crawl_err gwclient_batch(struct gwclient *g, const struct gw_url *u, size_t n,
                         gwclient_batch_fn *cb, void *arg);
crawl_err gwclient_results(struct gwclient *g, unsigned max, unsigned wait_ms,
                           gwclient_results_fn *cb, void *arg);
crawl_err gwclient_ack(struct gwclient *g, const char *const *deliveries, size_t n,
                       gwclient_ack_fn *cb, void *arg);
/* GET /v1/robots?url=URL: the sitemaps robots.txt names. */
crawl_err gwclient_sitemaps(struct gwclient *g, const char *url, gwclient_sitemaps_fn *cb,
                            void *arg);
/* POST /v1/fetch: one URL now, its result in the answer (res NULL when
 * there is none: a 504 past wait_ms, an error). */
crawl_err gwclient_fetch(struct gwclient *g, const char *url, unsigned wait_ms, long max_age_s,
                         gwclient_fetch_fn *cb, void *arg);

#endif
