/* hlfs/policy/robots_policy.c: the table of RFC 9309 §2.3.1 / §2.4 outcomes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/policy/robots_policy.c"
#include "hlfs/policy/robots_policy.h"

#define NOW  1700000000000ULL  /* Tue, 14 Nov 2023 22:13:20 GMT */
#define SEC  1000LL
#define MIN  (60 * SEC)
#define HOUR (60 * MIN)
#define DAY  (24 * HOUR)
#define D_NOW    "Tue, 14 Nov 2023 22:13:20 GMT"
#define D_NOW_M1 "Tue, 14 Nov 2023 21:13:20 GMT"
#define D_NOW_P1 "Tue, 14 Nov 2023 23:13:20 GMT"
#define D_NOW_P2 "Wed, 15 Nov 2023 00:13:20 GMT"
#define NONE     (-1)  /* retry_at_ms / expires_at_ms expected to be 0 */

struct pcase {
  const char         *name;
  struct robots_fetch f;
  struct robots_state prev;
  enum robots_pstatus st;
  enum robots_src     src;
  int64_t             expires;  /* offset from NOW, or NONE */
  int64_t             retry;    /* offset from NOW, or NONE */
  struct robots_state next;
};

#define OK_NEXT   { NOW, 0, 0 }
#define DROP_NEXT { 0, 0, 0 }
#define GOOD      { NOW - 2 * DAY, 0, 0 }
#define F(...)    { .now_ms = NOW, __VA_ARGS__ }

static const struct pcase cases[] = {
  /* 2xx: parse; lifetime from the headers, within [10 min, 24 h] */
  { "200", F(.status = 200), {0}, ROBOTS_P_OK, ROBOTS_SRC_BODY, DAY, NONE, OK_NEXT },
  { "204 empty", F(.status = 204), {0}, ROBOTS_P_OK, ROBOTS_SRC_BODY, DAY, NONE, OK_NEXT },
  { "max-age 1h", F(.status = 200, .cache_control = "max-age=3600"), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, HOUR, NONE, OK_NEXT },
  { "max-age under floor", F(.status = 200, .cache_control = "max-age=60"), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, 10 * MIN, NONE, OK_NEXT },
  { "max-age over cap", F(.status = 200, .cache_control = "max-age=99999999999999999999"),
    {0}, ROBOTS_P_OK, ROBOTS_SRC_BODY, DAY, NONE, OK_NEXT },
  { "s-maxage beats max-age", F(.status = 200, .cache_control = "public, s-maxage=7200 ,MAX-AGE=60"),
    {0}, ROBOTS_P_OK, ROBOTS_SRC_BODY, 2 * HOUR, NONE, OK_NEXT },
  { "quoted max-age", F(.status = 200, .cache_control = "max-age=\"1800\""), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, 30 * MIN, NONE, OK_NEXT },
  { "bad max-age is stale", F(.status = 200, .cache_control = "max-age=soon"), {0},
    ROBOTS_P_OK, ROBOTS_SRC_BODY, 10 * MIN, NONE, OK_NEXT },
  { "no-cache", F(.status = 200, .cache_control = "no-cache"), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, 10 * MIN, NONE, OK_NEXT },
  { "no-store wins", F(.status = 200, .cache_control = "max-age=3600, no-store"), {0},
    ROBOTS_P_OK, ROBOTS_SRC_BODY, 10 * MIN, NONE, OK_NEXT },
  { "unrelated cc", F(.status = 200, .cache_control = "public, must-revalidate"), {0},
    ROBOTS_P_OK, ROBOTS_SRC_BODY, DAY, NONE, OK_NEXT },
  { "expires +2h", F(.status = 200, .date = D_NOW, .expires = D_NOW_P2), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, 2 * HOUR, NONE, OK_NEXT },
  { "expires +2h no date", F(.status = 200, .expires = D_NOW_P2), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, 2 * HOUR, NONE, OK_NEXT },
  { "expires vs skewed date", F(.status = 200, .date = D_NOW_M1, .expires = D_NOW_P1), {0},
    ROBOTS_P_OK, ROBOTS_SRC_BODY, 2 * HOUR, NONE, OK_NEXT },
  { "expires 0", F(.status = 200, .expires = "0"), {0}, ROBOTS_P_OK, ROBOTS_SRC_BODY,
    10 * MIN, NONE, OK_NEXT },
  { "expires past", F(.status = 200, .date = D_NOW, .expires = D_NOW_M1), {0}, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, 10 * MIN, NONE, OK_NEXT },
  { "cc beats expires", F(.status = 200, .cache_control = "max-age=3600", .expires = D_NOW_P2),
    {0}, ROBOTS_P_OK, ROBOTS_SRC_BODY, HOUR, NONE, OK_NEXT },
  { "200 ends outage", F(.status = 200), { NOW - DAY, NOW - HOUR, 7 }, ROBOTS_P_OK,
    ROBOTS_SRC_BODY, DAY, NONE, OK_NEXT },
  /* 304 to a conditional fetch: the last good copy stays good */
  { "304 with copy", F(.status = 304), GOOD, ROBOTS_P_NOT_MODIFIED, ROBOTS_SRC_LAST_GOOD,
    DAY, NONE, OK_NEXT },
  { "304 without copy", F(.status = 304), {0}, ROBOTS_P_UNREACHABLE_DISALLOW,
    ROBOTS_SRC_DISALLOW_ALL, MIN, MIN, { 0, NOW, 1 } },
  /* 4xx but 429: unavailable, everything allowed; the old copy is dropped */
  { "404", F(.status = 404), GOOD, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, DAY,
    NONE, DROP_NEXT },
  { "401", F(.status = 401), {0}, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, DAY,
    NONE, DROP_NEXT },
  { "403", F(.status = 403), {0}, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, DAY,
    NONE, DROP_NEXT },
  { "410", F(.status = 410), {0}, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, DAY,
    NONE, DROP_NEXT },
  { "404 max-age", F(.status = 404, .cache_control = "max-age=3600"), {0},
    ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, HOUR, NONE, DROP_NEXT },
  { "300", F(.status = 300), {0}, ROBOTS_P_UNAVAILABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, DAY,
    NONE, DROP_NEXT },
  /* 429, 5xx, network errors: unreachable, disallow all, back off */
  { "429", F(.status = 429), {0}, ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL,
    MIN, MIN, { 0, NOW, 1 } },
  { "500", F(.status = 500), {0}, ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL,
    MIN, MIN, { 0, NOW, 1 } },
  { "503 keeps copy", F(.status = 503), GOOD, ROBOTS_P_UNREACHABLE_DISALLOW,
    ROBOTS_SRC_DISALLOW_ALL, MIN, MIN, { NOW - 2 * DAY, NOW, 1 } },
  { "network error", F(.net_error = true), {0}, ROBOTS_P_UNREACHABLE_DISALLOW,
    ROBOTS_SRC_DISALLOW_ALL, MIN, MIN, { 0, NOW, 1 } },
  { "status 0", F(.status = 0), {0}, ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL,
    MIN, MIN, { 0, NOW, 1 } },
  { "status 600", F(.status = 600), {0}, ROBOTS_P_UNREACHABLE_DISALLOW,
    ROBOTS_SRC_DISALLOW_ALL, MIN, MIN, { 0, NOW, 1 } },
  { "503 retry-after secs", F(.status = 503, .retry_after = "120"), {0},
    ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL, 2 * MIN, 2 * MIN, { 0, NOW, 1 } },
  { "429 retry-after date", F(.status = 429, .date = D_NOW, .retry_after = D_NOW_P1), {0},
    ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL, HOUR, HOUR, { 0, NOW, 1 } },
  { "retry-after capped", F(.status = 503, .retry_after = "9999999"), {0},
    ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL, DAY, DAY, { 0, NOW, 1 } },
  { "retry-after shorter than backoff", F(.status = 503, .retry_after = "1"),
    { 0, NOW - HOUR, 3 }, ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL, 8 * MIN,
    8 * MIN, { 0, NOW - HOUR, 4 } },
  { "backoff grows", F(.status = 500), { 0, NOW - HOUR, 3 }, ROBOTS_P_UNREACHABLE_DISALLOW,
    ROBOTS_SRC_DISALLOW_ALL, 8 * MIN, 8 * MIN, { 0, NOW - HOUR, 4 } },
  { "backoff capped", F(.net_error = true), { 0, NOW - DAY, 40 },
    ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL, 6 * HOUR, 6 * HOUR,
    { 0, NOW - DAY, 41 } },
  /* §2.3.1.4: after a long outage, the last good copy, or allow */
  { "outage 29 days", F(.status = 500), { NOW - 40 * DAY, NOW - 29 * DAY, 50 },
    ROBOTS_P_UNREACHABLE_DISALLOW, ROBOTS_SRC_DISALLOW_ALL, 6 * HOUR, 6 * HOUR,
    { NOW - 40 * DAY, NOW - 29 * DAY, 51 } },
  { "outage 30 days, copy", F(.status = 500), { NOW - 40 * DAY, NOW - 30 * DAY, 50 },
    ROBOTS_P_STALE_FALLBACK, ROBOTS_SRC_LAST_GOOD, 6 * HOUR, 6 * HOUR,
    { NOW - 40 * DAY, NOW - 30 * DAY, 51 } },
  { "outage 31 days, no copy", F(.net_error = true), { 0, NOW - 31 * DAY, 60 },
    ROBOTS_P_UNREACHABLE_ALLOW, ROBOTS_SRC_ALLOW_ALL, 6 * HOUR, 6 * HOUR,
    { 0, NOW - 31 * DAY, 61 } },
  /* §2.3.1.2: follow up to five redirects, then unavailable */
  { "301 first hop", F(.status = 301, .has_location = true), GOOD, ROBOTS_P_REDIRECT,
    ROBOTS_SRC_NONE, NONE, NONE, GOOD },
  { "308 fifth hop", F(.status = 308, .has_location = true, .redirects = 4), {0},
    ROBOTS_P_REDIRECT, ROBOTS_SRC_NONE, NONE, NONE, {0} },
  { "302 sixth hop", F(.status = 302, .has_location = true, .redirects = 5), {0},
    ROBOTS_P_REDIRECT_LIMIT, ROBOTS_SRC_ALLOW_ALL, DAY, NONE, DROP_NEXT },
  { "301 no location", F(.status = 301), {0}, ROBOTS_P_UNAVAILABLE_ALLOW,
    ROBOTS_SRC_ALLOW_ALL, DAY, NONE, DROP_NEXT },
};

static void expect_at(const char *name, const char *what, uint64_t got, int64_t off)
{
  uint64_t want = off == NONE ? 0 : (uint64_t)((int64_t)NOW + off);
  if(got != want)
    fail_msg("%s: %s is NOW%+lld ms, want NOW%+lld ms", name, what,
             (long long)((int64_t)got - (int64_t)NOW), (long long)off);
}

static void test_policy_table(void **state)
{
  (void)state;
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const struct pcase *c = &cases[i];
    struct robots_decision d;
    robots_policy(NULL, &c->f, &c->prev, &d);
    if(d.status != c->st || d.rules != c->src)
      fail_msg("%s: got %s/%d, want %s/%d", c->name, robots_pstatus_name(d.status), d.rules,
               robots_pstatus_name(c->st), c->src);
    expect_at(c->name, "expires_at", d.expires_at_ms, c->expires);
    expect_at(c->name, "retry_at", d.retry_at_ms, c->retry);
    if(memcmp(&d.next, &c->next, sizeof d.next))
      fail_msg("%s: next state {%llu, %llu, %u}", c->name,
               (unsigned long long)d.next.good_at_ms,
               (unsigned long long)d.next.outage_since_ms, d.next.error_streak);
  }
}

/* A chain as the gateway drives it: each hop's state is the last one's. */
static unsigned follow_chain(unsigned hops, int final_status, enum robots_pstatus *st)
{
  struct robots_state s = { 0, 0, 0 };
  struct robots_decision d;
  unsigned fetches = 0;
  for(unsigned r = 0;; r++) {
    struct robots_fetch f = { .now_ms = NOW, .redirects = r, .has_location = r < hops,
                              .status = r < hops ? 301 : final_status };
    fetches++;
    robots_policy(NULL, &f, &s, &d);
    s = d.next;
    if(d.status != ROBOTS_P_REDIRECT)
      break;
  }
  *st = d.status;
  return fetches;
}

static void test_redirect_chains(void **state)
{
  (void)state;
  enum robots_pstatus st;
  assert_int_equal(follow_chain(0, 200, &st), 1);
  assert_int_equal(st, ROBOTS_P_OK);
  assert_int_equal(follow_chain(3, 200, &st), 4);
  assert_int_equal(st, ROBOTS_P_OK);
  assert_int_equal(follow_chain(5, 200, &st), 6);  /* five redirects are followed */
  assert_int_equal(st, ROBOTS_P_OK);
  assert_int_equal(follow_chain(5, 503, &st), 6);
  assert_int_equal(st, ROBOTS_P_UNREACHABLE_DISALLOW);
  assert_int_equal(follow_chain(100, 200, &st), 6);  /* a loop stops at the sixth */
  assert_int_equal(st, ROBOTS_P_REDIRECT_LIMIT);
}

/* An outage seen fetch after fetch: disallow, growing retries, then the
 * fallback once it has lasted outage_ms; a 200 ends it. */
static void test_outage_sequence(void **state)
{
  (void)state;
  struct robots_policy_cfg cfg = robots_policy_defaults();
  cfg.outage_ms = 3 * DAY;
  struct robots_state s = { NOW - DAY, 0, 0 };
  struct robots_decision d;
  uint64_t t = NOW, last_gap = 0;
  int fetches = 0;
  do {
    struct robots_fetch f = { .now_ms = t, .net_error = true };
    robots_policy(&cfg, &f, &s, &d);
    assert_true(d.retry_at_ms - t >= last_gap);
    last_gap = d.retry_at_ms - t;
    s = d.next;
    t = d.retry_at_ms;
    fetches++;
  } while(d.status == ROBOTS_P_UNREACHABLE_DISALLOW);
  assert_int_equal(d.status, ROBOTS_P_STALE_FALLBACK);
  assert_true(t - NOW >= 3 * DAY);
  assert_true(fetches < 30);
  struct robots_fetch ok = { .now_ms = t, .status = 200 };
  robots_policy(&cfg, &ok, &s, &d);
  assert_int_equal(d.status, ROBOTS_P_OK);
  assert_int_equal(d.next.error_streak, 0);
  assert_int_equal(d.next.outage_since_ms, 0);
}

static void test_config_and_defaults(void **state)
{
  (void)state;
  struct robots_policy_cfg cfg = robots_policy_defaults();
  assert_int_equal(cfg.max_redirects, 5);
  assert_int_equal(cfg.max_ttl_ms, DAY);
  assert_int_equal(cfg.outage_ms, 30 * DAY);
  cfg.max_ttl_ms = HOUR;
  cfg.min_ttl_ms = MIN;
  cfg.max_redirects = 1;
  struct robots_fetch f = { .now_ms = NOW, .status = 200, .cache_control = "max-age=30" };
  struct robots_decision d;
  robots_policy(&cfg, &f, NULL, &d);
  assert_int_equal(d.expires_at_ms, NOW + MIN);
  f.cache_control = NULL;
  robots_policy(&cfg, &f, NULL, &d);
  assert_int_equal(d.expires_at_ms, NOW + HOUR);
  f = (struct robots_fetch){ .now_ms = NOW, .status = 301, .has_location = true, .redirects = 1 };
  robots_policy(&cfg, &f, NULL, &d);
  assert_int_equal(d.status, ROBOTS_P_REDIRECT_LIMIT);
  f.cache_control = "max-age=0";
  assert_int_equal(robots_policy_server_ttl(&f), 0);
  f.cache_control = NULL;
  assert_int_equal(robots_policy_server_ttl(&f), -1);
}

/* The names reach the API and metrics: they must never change. */
static void test_status_names_stable(void **state)
{
  (void)state;
  static const char *const text[] = {  /* each status described in the table */
#define X(e, name, txt) txt,
    ROBOTS_POLICY_STATUS(X)
#undef X
  };
  static const char *const want[] = {
    "none", "ok", "not_modified", "redirect", "unavailable_allow", "redirect_limit",
    "unreachable_disallow", "stale_fallback", "unreachable_allow",
  };
  assert_int_equal(ROBOTS_P__LAST, sizeof want / sizeof want[0]);
  for(int i = 0; i < ROBOTS_P__LAST; i++) {
    assert_string_equal(robots_pstatus_name((enum robots_pstatus)i), want[i]);
    assert_true(strlen(text[i]) > 10);
  }
  assert_string_equal(robots_pstatus_name(ROBOTS_P__LAST), "unknown");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_policy_table),
    cmocka_unit_test(test_redirect_chains),
    cmocka_unit_test(test_outage_sequence),
    cmocka_unit_test(test_config_and_defaults),
    cmocka_unit_test(test_status_names_stable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
