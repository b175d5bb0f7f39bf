#include "hlfs/policy/delay.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>

static const char *const delay_names[] = {
#define X(e, s) s,
  DELAY_REASONS(X)
#undef X
};

const char *delay_reason_name(enum delay_reason r)
{
  return (unsigned)r < DELAY__LAST ? delay_names[r] : "unknown";
}

enum delay_event delay_classify(bool contacted, bool transport_err, int http_status)
{
  if(!contacted)
    return DELAY_EV_NONE;
  if(transport_err || http_status <= 0)
    return DELAY_EV_CONN_ERR;
  if(http_status == 429 || http_status == 503)
    return DELAY_EV_THROTTLED;
  if(http_status >= 500)
    return DELAY_EV_SERVER_ERR;
  return DELAY_EV_OK;
}

static uint64_t delay_min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The delay every completed request owes, errors or not: the largest of the
 * configured floor, robots' Crawl-delay and factor x response time. Ties go
 * to the earlier term, so a site with no Crawl-delay reads "min_delay". */
static void delay_base(const struct delay_cfg *cfg, const struct delay_in *in,
                       struct delay_out *out)
{
  uint64_t crawl = delay_min64(in->crawl_delay_ms, cfg->max_delay_ms);
  double   rt = cfg->factor * (double)in->response_ms;
  uint64_t resp = rt >= (double)cfg->max_delay_ms ? cfg->max_delay_ms
                  : rt > 0 ? (uint64_t)rt : 0;
  out->delay_ms = cfg->min_delay_ms;
  out->reason = DELAY_MIN_DELAY;
  if(crawl > out->delay_ms) {
    out->delay_ms = crawl;
    out->reason = DELAY_CRAWL_DELAY;
  }
  if(resp > out->delay_ms) {
    out->delay_ms = resp;
    out->reason = DELAY_RESPONSE_TIME;
  }
}

/* base << (streak - 1), capped, without overflowing the shift. */
static uint64_t delay_backoff(const struct delay_cfg *cfg, uint32_t streak)
{
  uint64_t d = cfg->backoff_base_ms;
  for(uint32_t i = 1; i < streak && d < cfg->backoff_max_ms; i++)
    d <<= 1;
  return delay_min64(d, cfg->backoff_max_ms);
}

static void delay_penalty(const struct delay_cfg *cfg, const struct delay_in *in,
                          struct delay_out *out)
{
  uint64_t pen;
  enum delay_reason why;
  out->streak = in->streak + 1;
  if(in->ev == DELAY_EV_THROTTLED && in->retry_after_ms >= 0) {
    pen = delay_min64((uint64_t)in->retry_after_ms, cfg->retry_after_max_ms);
    why = DELAY_RETRY_AFTER;
  }
  else {
    pen = delay_backoff(cfg, out->streak);
    pen += (uint64_t)((double)pen * cfg->backoff_jitter * in->jitter);
    why = DELAY_BACKOFF;
  }
  if(pen > out->delay_ms) {
    out->delay_ms = pen;
    out->reason = why;
    out->backoff = true;
  }
}

void delay_next(const struct delay_cfg *cfg, const struct delay_in *in,
                struct delay_out *out)
{
  out->delay_ms = 0;
  out->reason = DELAY_NONE;
  out->streak = in->streak;
  out->backoff = false;
  if(in->ev == DELAY_EV_NONE)
    return;
  delay_base(cfg, in, out);
  if(in->ev == DELAY_EV_OK)
    out->streak = 0;
  else
    delay_penalty(cfg, in, out);
}

static int delay_seconds(const char *v, int64_t *out_ms)
{
  char *end;
  errno = 0;
  long long s = strtoll(v, &end, 10);
  while(*end == ' ' || *end == '\t')
    end++;
  if(end == v || *end || errno || s < 0)
    return -1;
  /* 10^8 s (three years) is far past any cap: clamp instead of
   * overflowing on absurd values. */
  *out_ms = s > 100000000LL ? 100000000000LL : s * 1000;
  return 0;
}

int delay_retry_after(const char *value, const char *date_hdr, uint64_t now_ms,
                      int64_t *out_ms)
{
  if(!value)
    return -1;
  while(*value == ' ' || *value == '\t')
    value++;
  if(isdigit((unsigned char)*value))
    return delay_seconds(value, out_ms);
  time_t at = curl_getdate(value, NULL);
  if(at < 0)
    return -1;
  int64_t ref = (int64_t)now_ms;
  time_t date = date_hdr ? curl_getdate(date_hdr, NULL) : -1;
  if(date >= 0)
    ref = (int64_t)date * 1000;
  int64_t d = (int64_t)at * 1000 - ref;
  *out_ms = d > 0 ? d : 0;
  return 0;
}
