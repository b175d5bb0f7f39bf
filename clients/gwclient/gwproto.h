#ifndef WPFS_CLIENTS_GWPROTO_H
#define WPFS_CLIENTS_GWPROTO_H
/* The gateway's JSON (openapi.yaml, HLFS) as C structs: the bodies the
 * crawler sends and the answers it reads, with no I/O, so every field is
 * tested without a server (gwclient.c does the HTTP). jansson stays in
 * these files (gwproto.c, gwproto_info.c). Answers are parsed strictly
 * enough to trust them: a required member missing or of the wrong type is
 * CRAWL_ERR_INVALID. bin/wpfs reads the gateway through them too. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/crawl_err.h"
#include "clients/out/warc.h"
#include "common/buf.h"

struct gw_url {
  const char *url;
  unsigned    priority;   /* 0..7 */
  long        max_age_s;  /* -1: any cached copy */
};

enum gw_item_status { GW_ACCEPTED, GW_DUPLICATE, GW_REJECTED };

struct gw_item {
  enum gw_item_status status;
  char               *url;            /* as given */
  char               *canonical_url;  /* or NULL */
  char               *id;             /* request id, or NULL */
  char               *reason;         /* rejected: why */
  long                retry_after_ms; /* rejected by a quota: when to retry; else -1 */
  char               *json;           /* _kept: the item as the gateway wrote it */
};

struct gw_batch_answer {
  struct gw_item *items;
  size_t          n;
};

struct gw_result {
  char               *delivery, *id, *url, *outcome, *redirect, *detail, *page;
  char               *cause;          /* robots_unavailable: why (an outcome of the
                                       * robots.txt fetch, or "ok"), or NULL */
  int                 status;         /* 0 when none */
  int                 cause_status;   /* with cause "ok": robots.txt's status, else 0 */
  uint64_t            robots_retry_at; /* robots_unavailable: the gateway fetches
                                        * robots.txt again then (ms since the epoch), 0 */
  bool                truncated;
  unsigned            robots_tags;    /* ROBOTS_TAG_* the gateway read in X-Robots-Tag */
  uint64_t            robots_unavailable_after; /* ms since the epoch, 0: none */
  uint64_t            fetched_at, response_ms;
  uint64_t            site_connections; /* the site's connections after the fetch
                                         * (the gateway's count), 0: not said */
  struct warc_header *headers;        /* names and values owned here */
  size_t              nheaders;
  unsigned char      *body;           /* the page's bytes, NUL-terminated */
  size_t              body_len;
  char               *json;           /* _kept: the result as the gateway wrote it */
};

struct gw_results {
  struct gw_result *v;
  size_t            n;
};

/* {"urls":[{"url":..,"priority":..,"max_age_s":..},...]} */
crawl_err gwproto_batch_body(const struct gw_url *u, size_t n, struct buf *out);
crawl_err gwproto_batch_answer(const char *json, size_t len, struct gw_batch_answer *a);
/* The same, and each item's compact JSON, keys in the gateway's order, in
 * its json: for a program that passes answers on as they came. */
crawl_err gwproto_batch_answer_kept(const char *json, size_t len, struct gw_batch_answer *a);
void      gwproto_batch_free(struct gw_batch_answer *a);

crawl_err gwproto_results(const char *json, size_t len, struct gw_results *r);
crawl_err gwproto_results_kept(const char *json, size_t len, struct gw_results *r);
/* The robots_tags of r as they stand at now_ms: an unavailable_after
 * date past by then means noindex, whenever the gateway made the answer
 * (a copy it kept rendered may be older than the date). */
unsigned  gwproto_robots(const struct gw_result *r, uint64_t now_ms);
/* The same answer framed (GWPROTO_RESULTS_FRAMED, openapi.yaml): per
 * result a line of JSON without body_base64, then, when it has
 * body_bytes, that many bytes of page and a newline. No base64 to decode
 * and no escaped string to scan: the pages are copied as they are. */
#define GWPROTO_RESULTS_FRAMED "application/vnd.wpfs.results"
crawl_err gwproto_results_framed(const char *p, size_t len, struct gw_results *r);
void      gwproto_results_free(struct gw_results *r);

/* POST /v1/fetch: {"url":..,"wait_ms":..,"max_age_s":..} (max_age_s < 0:
 * left out, any cached copy); its answer is one result. */
crawl_err gwproto_fetch_body(const char *url, unsigned wait_ms, long max_age_s, struct buf *out);
crawl_err gwproto_result(const char *json, size_t len, struct gw_result *r);
void      gwproto_result_free(struct gw_result *r);

/* Why a result came without a page, as one word for crawl logs and
 * counts (decoded here, so every crawler names it alike), or NULL when
 * it has one (an HTTP answer, whatever its status, with its page):
 *  - robots_unavailable: its cause, the robots.txt fetch's outcome
 *    (dns_nxdomain, connect_refused, timeout, blocked_address, ...); a
 *    robots.txt answered with 5xx is robots_5xx, with 429 robots_429;
 *    without a cause, robots_unavailable;
 *  - a page the gateway could not inline: page_expired, page_unavailable;
 *  - any other outcome (robots_disallowed, a fetch error such as
 *    dns_nxdomain, fetcher_unavailable, abandoned, ...): the outcome.
 * A word from the gateway that is not [a-z0-9_]{1,47} reads "unknown".
 * Points into r or at a constant; buf (at least GWPROTO_CAUSE_MAX) holds
 * what is made up. */
#define GWPROTO_CAUSE_MAX 48
const char *gwproto_cause(const struct gw_result *r, char *buf, size_t n);

/* {"deliveries":[...]} */
crawl_err gwproto_ack_body(const char *const *deliveries, size_t n, struct buf *out);

/* GET /v1/robots: the decision, and why (docs/api.md). Strings are heap
 * copies, NULL when absent; numbers absent are -1 (line, age_s: 0). */
struct gw_robots_answer {
  bool   allowed;
  char  *robots_status, *rule, *rule_type, *robots_url, *origin, *agent, *product_token;
  long long line, age_s, retry_at;
  double crawl_delay_s;
};
crawl_err gwproto_robots_answer(const char *json, size_t len, struct gw_robots_answer *a);
void      gwproto_robots_answer_free(struct gw_robots_answer *a);

/* An application/problem+json answer (RFC 9457) and, for no-page, the
 * outcome it carries; members absent are NULL. CRAWL_ERR_INVALID when it
 * is not a JSON object. */
struct gw_problem {
  char *type, *title, *detail, *outcome;
};
crawl_err gwproto_problem(const char *json, size_t len, struct gw_problem *p);
void      gwproto_problem_free(struct gw_problem *p);

/* POST /v1/results/ack's answer: how many were acknowledged (0 when it
 * does not say). */
crawl_err gwproto_acked(const char *json, size_t len, uint64_t *acked);

/* Whether an answer is a JSON object, and if not, why, in words (why: at
 * least 160 bytes). */
bool      gwproto_is_object(const char *json, size_t len, char *why, size_t n);
/* An answer (a JSON object) for a person: indented by two, keys sorted. */
crawl_err gwproto_indent(const char *json, size_t len, struct buf *out);

/* The sitemaps of a GET /v1/robots answer (heap strings, NULL-ended
 * array; free with gwproto_strv_free). */
crawl_err gwproto_sitemaps(const char *json, size_t len, char ***out);
void      gwproto_strv_free(char **v);

#endif
