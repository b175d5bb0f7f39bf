#ifndef WPFS_HLFS_DELAY_H
#define WPFS_HLFS_DELAY_H
/* Politeness arithmetic: how long a site must rest after one request.
 * Pure functions (no clock, no I/O): the scheduler feeds them the outcome of
 * a fetch and the site's error streak, and the completion script stores the
 * answer (next_at = completion time on the Redis clock + delay_ms) together
 * with the reason, so `GET /sites/{site}` can say why a site waits. */
#include <stdbool.h>
#include <stdint.h>

/* Why the next request to a site waits; stored in Redis by name.
 * Append only: the names reach the REST API. */
#define DELAY_REASONS(X)                                              \
  X(NONE,          "none")          /* site not contacted */          \
  X(MIN_DELAY,     "min_delay")     /* configured minimum */          \
  X(CRAWL_DELAY,   "crawl_delay")   /* robots.txt Crawl-delay */      \
  X(RESPONSE_TIME, "response_time") /* factor x last response time */ \
  X(RETRY_AFTER,   "retry_after")   /* server asked, 429/503 */       \
  X(BACKOFF,       "backoff")       /* errors: growing delay */

enum delay_reason {
#define X(e, s) DELAY_##e,
  DELAY_REASONS(X)
#undef X
  DELAY__LAST
};

/* What the site did, as far as politeness cares. */
enum delay_event {
  DELAY_EV_NONE,        /* no request reached the site (robots verdict, ...) */
  DELAY_EV_OK,          /* an HTTP response that is not an error */
  DELAY_EV_THROTTLED,   /* 429 or 503: honour Retry-After, else back off */
  DELAY_EV_SERVER_ERR,  /* other 5xx */
  DELAY_EV_CONN_ERR,    /* connect, TLS, reset, timeout */
};

struct delay_cfg {
  uint32_t min_delay_ms;        /* floor between two requests to a site */
  double   factor;              /* x last response time */
  uint32_t max_delay_ms;        /* cap on crawl-delay and response-time delays */
  uint32_t retry_after_max_ms;  /* cap on a server's Retry-After */
  uint32_t backoff_base_ms;     /* first error delay, doubled per error */
  uint32_t backoff_max_ms;      /* cap of the doubling */
  double   backoff_jitter;      /* a backoff grows by up to this fraction, at
                                   random (in.jitter): sites that failed
                                   together are not retried together */
};

struct delay_in {
  enum delay_event ev;
  uint32_t response_ms;     /* request start to last byte */
  uint32_t crawl_delay_ms;  /* robots.txt Crawl-delay for our agent, 0 = none */
  uint32_t streak;          /* consecutive errors before this outcome */
  int64_t  retry_after_ms;  /* parsed Retry-After, < 0 = absent */
  double   jitter;          /* uniform in [0, 1): the caller's random draw */
};

struct delay_out {
  uint64_t delay_ms;         /* 0 with DELAY_NONE: leave next_at alone */
  enum delay_reason reason;  /* the term that won */
  uint32_t streak;           /* error streak to store */
  bool     backoff;          /* the delay is an error penalty (sets backoff_until) */
};

void delay_next(const struct delay_cfg *cfg, const struct delay_in *in,
                struct delay_out *out);
/* Map a fetch outcome onto an event: transport_err for connection-level
 * failures (no HTTP status); contacted false when the site saw nothing. */
enum delay_event delay_classify(bool contacted, bool transport_err, int http_status);
/* Parse a Retry-After value: delay-seconds or an HTTP-date. A date is taken
 * relative to the response's Date header when given (no clock skew), else
 * to now_ms (wall clock). Dates in the past give 0. Returns 0, or -1 when
 * the value is neither. */
int  delay_retry_after(const char *value, const char *date_hdr, uint64_t now_ms,
                       int64_t *out_ms);
const char *delay_reason_name(enum delay_reason r);

#endif
