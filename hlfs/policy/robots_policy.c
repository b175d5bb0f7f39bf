/* robots.txt fetch policy: RFC 9309 §2.3.1 (access results) and §2.4
 * (caching), plus the retry schedule. See robots_policy.h. */
#include "hlfs/policy/robots_policy.h"

#include <curl/curl.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define ROBOTS_SECONDS_MAX 31536000000ULL  /* 1000 years: saturate, never overflow */

const char *robots_pstatus_name(enum robots_pstatus s)
{
  static const char *const names[] = {
#define X(e, name, txt) #name,
    ROBOTS_POLICY_STATUS(X)
#undef X
  };
  return (unsigned)s < ROBOTS_P__LAST ? names[s] : "unknown";
}

struct robots_policy_cfg robots_policy_defaults(void)
{
  return (struct robots_policy_cfg){
    .max_ttl_ms = 24ULL * 3600 * 1000,
    .min_ttl_ms = 10ULL * 60 * 1000,
    .outage_ms = 30ULL * 24 * 3600 * 1000,
    .backoff_base_ms = 60ULL * 1000,
    .backoff_max_ms = 6ULL * 3600 * 1000,
    .max_redirects = 5,
  };
}

/* RFC 9111 delta-seconds, optionally quoted; saturating. */
static bool robots_policy_secs(const char *s, size_t n, uint64_t *out)
{
  if(n >= 2 && s[0] == '"' && s[n - 1] == '"') {
    s++;
    n -= 2;
  }
  uint64_t v = 0;
  for(size_t i = 0; i < n; i++) {
    if(s[i] < '0' || s[i] > '9')
      return false;
    if(v < ROBOTS_SECONDS_MAX)
      v = v * 10 + (uint64_t)(s[i] - '0');
  }
  *out = v < ROBOTS_SECONDS_MAX ? v : ROBOTS_SECONDS_MAX;
  return n > 0;
}

/* One Cache-Control directive "name[=value]", already trimmed. Updates the
 * lifetime candidates: no-store/no-cache mean 0, s-maxage beats max-age. */
static void robots_policy_directive(const char *s, size_t n, int64_t *maxage,
                                    int64_t *smaxage, bool *nocache)
{
  const char *eq = memchr(s, '=', n);
  size_t kn = eq ? (size_t)(eq - s) : n;
  uint64_t v = 0;
  bool num = eq && robots_policy_secs(eq + 1, n - kn - 1, &v);
  if((kn == 8 && !strncasecmp(s, "no-store", 8)) || (kn == 8 && !strncasecmp(s, "no-cache", 8)))
    *nocache = true;
  else if(kn == 7 && !strncasecmp(s, "max-age", 7))
    *maxage = num ? (int64_t)v : 0;  /* RFC 9111 §4.2.1: invalid means stale */
  else if(kn == 8 && !strncasecmp(s, "s-maxage", 8))
    *smaxage = num ? (int64_t)v : 0;
}

/* Seconds Cache-Control allows, or -1 if it says nothing about lifetime. */
static int64_t robots_policy_cc(const char *cc)
{
  int64_t maxage = -1, smaxage = -1;
  bool nocache = false;
  while(cc && *cc) {
    size_t n = strcspn(cc, ",");
    const char *s = cc;
    size_t k = n;
    while(k && (*s == ' ' || *s == '\t')) {
      s++;
      k--;
    }
    while(k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
      k--;
    robots_policy_directive(s, k, &maxage, &smaxage, &nocache);
    cc += n + (cc[n] == ',');
  }
  if(nocache)
    return 0;
  return smaxage >= 0 ? smaxage : maxage;
}

/* HTTP-date in seconds since the epoch, or -1. */
static int64_t robots_policy_date(const char *s)
{
  if(!s)
    return -1;
  time_t t = curl_getdate(s, NULL);
  return t < 0 ? -1 : (int64_t)t;
}

static int64_t robots_policy_base_s(const struct robots_fetch *f)
{
  int64_t d = robots_policy_date(f->date);
  return d >= 0 ? d : (int64_t)(f->now_ms / 1000);
}

/* Lifetime the answer's headers allow, in ms, before the floor and cap;
 * -1 when they say nothing. */
static int64_t robots_policy_server_ttl(const struct robots_fetch *f)
{
  int64_t s = robots_policy_cc(f->cache_control);
  if(s >= 0)
    return s * 1000;
  if(!f->expires)
    return -1;
  int64_t exp = robots_policy_date(f->expires);  /* invalid: already expired */
  int64_t left = exp - robots_policy_base_s(f);
  return exp < 0 || left < 0 ? 0 : left * 1000;
}

/* Retry-After in ms from now, or 0 when absent or unreadable. */
static uint64_t robots_policy_retry_after(const struct robots_fetch *f)
{
  uint64_t v;
  if(!f->retry_after)
    return 0;
  if(robots_policy_secs(f->retry_after, strlen(f->retry_after), &v))
    return v * 1000;
  int64_t t = robots_policy_date(f->retry_after);
  int64_t left = t - robots_policy_base_s(f);
  return t < 0 || left <= 0 ? 0 : (uint64_t)left * 1000;
}

static uint64_t robots_policy_ttl(const struct robots_policy_cfg *c,
                                  const struct robots_fetch *f)
{
  int64_t s = robots_policy_server_ttl(f);
  uint64_t ttl = s < 0 ? c->max_ttl_ms : (uint64_t)s;
  if(ttl > c->max_ttl_ms)
    ttl = c->max_ttl_ms;
  return ttl < c->min_ttl_ms ? c->min_ttl_ms : ttl;
}

/* A usable answer (robots.txt, 304, or "there is none"): the outage ends. */
static void robots_policy_fresh(const struct robots_policy_cfg *c,
                                const struct robots_fetch *f, enum robots_pstatus st,
                                enum robots_src src, struct robots_decision *d)
{
  d->status = st;
  d->rules = src;
  d->expires_at_ms = f->now_ms + robots_policy_ttl(c, f);
  d->retry_at_ms = 0;
  bool good = src == ROBOTS_SRC_BODY || src == ROBOTS_SRC_LAST_GOOD;
  d->next = (struct robots_state){ good ? f->now_ms : 0, 0, 0 };
}

static uint64_t robots_policy_backoff(const struct robots_policy_cfg *c, uint32_t streak,
                                      const struct robots_fetch *f)
{
  uint64_t b = c->backoff_base_ms;
  for(uint32_t i = 1; i < streak && b < c->backoff_max_ms; i++)
    b *= 2;
  if(b > c->backoff_max_ms)
    b = c->backoff_max_ms;
  uint64_t ra = robots_policy_retry_after(f);
  if(ra > b)  /* the server asked for longer; honour it up to the cache cap */
    b = ra < c->max_ttl_ms ? ra : c->max_ttl_ms;
  return b;
}

/* §2.3.1.4: unreachable means complete disallow, retried with growing
 * backoff; after outage_ms the last good copy, or nothing, applies. */
static void robots_policy_error(const struct robots_policy_cfg *c,
                                const struct robots_fetch *f,
                                const struct robots_state *p, struct robots_decision *d)
{
  uint32_t streak = p->error_streak < UINT32_MAX ? p->error_streak + 1 : UINT32_MAX;
  uint64_t since = p->outage_since_ms ? p->outage_since_ms : f->now_ms;
  bool long_outage = f->now_ms > since && f->now_ms - since >= c->outage_ms;
  d->retry_at_ms = f->now_ms + robots_policy_backoff(c, streak, f);
  d->expires_at_ms = d->retry_at_ms;
  d->next = (struct robots_state){ p->good_at_ms, since, streak };
  if(!long_outage) {
    d->status = ROBOTS_P_UNREACHABLE_DISALLOW;
    d->rules = ROBOTS_SRC_DISALLOW_ALL;
  } else if(p->good_at_ms) {
    d->status = ROBOTS_P_STALE_FALLBACK;
    d->rules = ROBOTS_SRC_LAST_GOOD;
  } else {
    d->status = ROBOTS_P_UNREACHABLE_ALLOW;
    d->rules = ROBOTS_SRC_ALLOW_ALL;
  }
}

static bool robots_policy_is_redirect(int s)
{
  return s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
}

/* §2.3.1.2: follow up to max_redirects hops (the caller fetches each one
 * under the target's politeness and keeps the initial authority's rules);
 * past that, or without a Location, the file is unavailable. */
static void robots_policy_redirect(const struct robots_policy_cfg *c,
                                   const struct robots_fetch *f,
                                   const struct robots_state *p, struct robots_decision *d)
{
  if(!f->has_location) {
    robots_policy_fresh(c, f, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, d);
  } else if(f->redirects >= c->max_redirects) {
    robots_policy_fresh(c, f, ROBOTS_P_REDIRECT_LIMIT, ROBOTS_SRC_ALLOW_ALL, d);
  } else {
    d->status = ROBOTS_P_REDIRECT;
    d->rules = ROBOTS_SRC_NONE;
    d->next = *p;
  }
}

void robots_policy(const struct robots_policy_cfg *cfg, const struct robots_fetch *f,
                   const struct robots_state *prev, struct robots_decision *d)
{
  struct robots_policy_cfg c = cfg ? *cfg : robots_policy_defaults();
  struct robots_state p = prev ? *prev : (struct robots_state){ 0, 0, 0 };
  int s = f->status;
  memset(d, 0, sizeof *d);
  if(f->net_error)
    robots_policy_error(&c, f, &p, d);
  else if(s >= 200 && s < 300)
    robots_policy_fresh(&c, f, ROBOTS_P_OK, ROBOTS_SRC_BODY, d);
  else if(s == 304 && p.good_at_ms)
    robots_policy_fresh(&c, f, ROBOTS_P_NOT_MODIFIED, ROBOTS_SRC_LAST_GOOD, d);
  else if(robots_policy_is_redirect(s))
    robots_policy_redirect(&c, f, &p, d);
  else if((s >= 300 && s < 400 && s != 304) || (s >= 400 && s < 500 && s != 429))
    robots_policy_fresh(&c, f, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, d);
  else  /* 429, 5xx, 304 without a copy, and anything outside HTTP's range */
    robots_policy_error(&c, f, &p, d);
}
