/* The gateway's robots ops (hlfs/gw/gw_ops.c) without a network: how each
 * robots.txt answer becomes the record stored in Redis (status, last good
 * copy, policy state, lifetime, redirects), and the check of a URL against
 * a record. The policy table itself is tested in tests/unit/hlfs/policy/robots_policy.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/gw/gw_ops.c"
#include "common/clock.h"
#include "hlfs/gw/gw.h"
#include "hlfs/policy/robots_memo.h"
#include "hlfs/policy/rules_cache.h"
#include "hlfs/sched/sched.h"

#define NOW 1700000000000ULL
#define DAY (24ULL * 3600 * 1000)

static const char good[] = "User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n";

static struct gw *gw_new(void)
{
  static struct gw g;
  rules_cache_free(&g.rules);
  robots_memo_free(&g.robots_seen);
  g = (struct gw){ .cfg = { .agent = "wpfs/0.1", .robots = robots_policy_defaults(),
                            .robots_limits = robots_limits_default() } };
  g.rules = rules_cache_new(16, 1 << 20);
  g.robots_seen = robots_memo_new(16);
  return &g;
}

/* One answer; rec is filled unless the answer is a redirect to follow. */
static bool digest(struct gw *g, const struct sched_outcome *o, unsigned hops,
                   const struct state_robots *prev, uint64_t now, struct state_robots *rec)
{
  static const struct state_robots none = { 0 };
  struct sched_robots_answer a = { .o = o, .url = "http://o.test/robots.txt", .hops = hops,
                                   .prev = prev ? prev : &none, .now_ms = now };
  memset(rec, 0, sizeof *rec);
  return gw_robots_ops_proto.digest(g, "http://o.test:80", &a, rec);
}

static struct sched_outcome answer(int status, const char *body)
{
  return (struct sched_outcome){ .contacted = true, .http_status = status, .body = body,
                                 .body_len = body ? strlen(body) : 0 };
}

static enum sched_verdict check(struct gw *g, const struct state_robots *rec, const char *url)
{
  return gw_robots_ops_proto.check(g, "http://o.test:80", rec, url, NULL);
}

static void test_ok_then_outage_then_fallback(void **state)
{
  (void)state;
  struct gw *g = gw_new();
  struct state_robots rec, prev;
  struct sched_outcome o = answer(200, good);
  assert_false(digest(g, &o, 0, NULL, NOW, &rec));
  assert_int_equal(rec.status, ROBOTS_P_OK);
  assert_int_equal(rec.good_at, NOW);
  assert_int_equal(rec.crawl_delay_ms, 2000);
  assert_int_equal(rec.ttl_ms, DAY);  /* no caching header: the 24 h cap */
  rec.fetched_at = NOW;
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), SCHED_DISALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/public"), SCHED_ALLOW);
  /* a 503 a day later: everything disallowed, the copy kept, retry in 1 min */
  prev = rec;
  o = answer(503, "down");
  assert_false(digest(g, &o, 0, &prev, NOW + DAY, &rec));
  assert_int_equal(rec.status, ROBOTS_P_UNREACHABLE_DISALLOW);
  assert_int_equal(rec.good_at, NOW);
  assert_int_equal(rec.outage_since, NOW + DAY);
  assert_int_equal(rec.error_streak, 1);
  assert_int_equal(rec.retry_ms, 60000);
  assert_memory_equal(rec.body, good, strlen(good));
  assert_int_equal(rec.crawl_delay_ms, 2000);
  assert_int_equal(check(g, &rec, "http://o.test/public"), SCHED_UNAVAILABLE);
  /* a network error 30 days into the outage: the last good copy */
  prev = rec;
  struct sched_outcome net = { .contacted = true, .transport_err = true };
  assert_false(digest(g, &net, 0, &prev, NOW + 31 * DAY, &rec));
  assert_int_equal(rec.status, ROBOTS_P_STALE_FALLBACK);
  assert_int_equal(rec.error_streak, 2);
  rec.fetched_at = NOW + 31 * DAY;
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), SCHED_DISALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/public"), SCHED_ALLOW);
  /* back: the state is reset */
  prev = rec;
  o = answer(200, "User-agent: *\nDisallow:\n");
  assert_false(digest(g, &o, 0, &prev, NOW + 32 * DAY, &rec));
  assert_int_equal(rec.status, ROBOTS_P_OK);
  assert_int_equal(rec.outage_since, 0);
  assert_int_equal(rec.error_streak, 0);
  assert_int_equal(rec.crawl_delay_ms, 0);
}

static void test_unavailable_drops_copy(void **state)
{
  (void)state;
  struct gw *g = gw_new();
  struct state_robots rec, prev;
  struct sched_outcome o = answer(200, good);
  digest(g, &o, 0, NULL, NOW, &rec);
  prev = rec;
  o = answer(404, "gone");
  assert_false(digest(g, &o, 0, &prev, NOW + DAY, &rec));
  assert_int_equal(rec.status, ROBOTS_P_UNAVAILABLE_ALLOW);
  assert_null(rec.body);
  assert_int_equal(rec.good_at, 0);
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), SCHED_ALLOW);
  /* an outage with no copy ends in "allow" */
  prev = rec;
  struct sched_outcome net = { .contacted = false, .transport_err = true };
  digest(g, &net, 0, &prev, NOW + DAY, &rec);
  assert_int_equal(rec.status, ROBOTS_P_UNREACHABLE_DISALLOW);
  prev = rec;
  digest(g, &net, 0, &prev, NOW + 31 * DAY, &rec);
  assert_int_equal(rec.status, ROBOTS_P_UNREACHABLE_ALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), SCHED_ALLOW);
}

static void test_redirects_and_lifetimes(void **state)
{
  (void)state;
  struct gw *g = gw_new();
  struct state_robots rec;
  struct sched_outcome o = answer(301, NULL);
  o.location = "http://www.o.test/robots.txt";
  for(unsigned hops = 0; hops < 5; hops++)
    assert_true(digest(g, &o, hops, NULL, NOW, &rec));  /* follow */
  assert_false(digest(g, &o, 5, NULL, NOW, &rec));
  assert_int_equal(rec.status, ROBOTS_P_REDIRECT_LIMIT);
  assert_int_equal(rec.hops, 5);
  assert_string_equal(rec.final_url, "http://o.test/robots.txt");
  o.location = NULL;  /* a 3xx without a usable Location */
  assert_false(digest(g, &o, 0, NULL, NOW, &rec));
  assert_int_equal(rec.status, ROBOTS_P_UNAVAILABLE_ALLOW);
  assert_null(rec.final_url);
  /* lifetimes from the answer, within [min, max] */
  o = answer(200, good);
  o.cache_control = "public, max-age=3600";
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.ttl_ms, 3600000);
  o.cache_control = "max-age=9999999";
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.ttl_ms, DAY);
  o.cache_control = "no-store";
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.ttl_ms, g->cfg.robots.min_ttl_ms);
  o.cache_control = NULL;
  o.date = "Tue, 14 Nov 2023 22:13:20 GMT";  /* NOW */
  o.expires = "Tue, 14 Nov 2023 23:13:20 GMT";
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.ttl_ms, 3600000);
}

static void test_body_capped(void **state)
{
  (void)state;
  struct gw *g = gw_new();
  struct state_robots rec;
  size_t n = g->cfg.robots_limits.max_bytes + 1000;
  char *big = test_malloc(n + 1);
  memset(big, '#', n);
  memcpy(big, "User-agent: *\nDisallow: /x\n", 27);
  big[n] = '\0';
  struct sched_outcome o = answer(200, big);
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.body_len, g->cfg.robots_limits.max_bytes + 1);
  rec.fetched_at = NOW;
  assert_int_equal(check(g, &rec, "http://o.test/x"), SCHED_DISALLOW);
  test_free(big);
  rules_cache_free(&g->rules);
}

/* A cache answer without queueing is allowed only under the record the
 * last check of the origin used, while it is valid for another second,
 * its rules still parsed in memory, and only for URLs they allow. */
static void test_allows_now(void **state)
{
  (void)state;
  struct gw *g = gw_new();
  uint64_t now = clock_wall_ms();
  struct state_robots rec = { .status = ROBOTS_P_OK, .body = good, .body_len = strlen(good),
                              .fetched_at = 5, .expires_at = now + DAY };
  assert_false(gw_robots_allows_now(g, NULL, "http://o.test/a"));  /* never checked */
  assert_int_equal(check(g, &rec, "http://o.test/a"), SCHED_ALLOW);
  assert_true(gw_robots_allows_now(g, NULL, "http://o.test/a"));
  assert_true(gw_robots_allows_now(g, NULL, "http://o.test/b?c=d"));
  assert_false(gw_robots_allows_now(g, NULL, "http://o.test/private/x"));
  assert_false(gw_robots_allows_now(g, NULL, "http://other.test/a"));
  assert_false(gw_robots_allows_now(g, NULL, "https://o.test/a"));  /* another origin */
  rec.expires_at = now + 500;  /* valid, but not for another second */
  check(g, &rec, "http://o.test/a");
  assert_false(gw_robots_allows_now(g, NULL, "http://o.test/a"));
  rec.expires_at = now + DAY;
  rec.fetched_at = 6;  /* a new fetch whose rules are not parsed yet */
  robots_memo_put(g->robots_seen, "http://o.test:80",
                  &(struct robots_memo_rec){ rec.status, rec.fetched_at, rec.expires_at,
                                             rec.body_len });
  assert_false(gw_robots_allows_now(g, NULL, "http://o.test/a"));
  struct state_robots gone = { .status = ROBOTS_P_UNREACHABLE_DISALLOW, .expires_at = now + DAY };
  check(g, &gone, "http://o.test/a");
  assert_false(gw_robots_allows_now(g, NULL, "http://o.test/a"));
  struct state_robots none = { .status = ROBOTS_P_UNAVAILABLE_ALLOW, .expires_at = now + DAY };
  check(g, &none, "http://o.test/a");
  assert_true(gw_robots_allows_now(g, NULL, "http://o.test/private/x"));  /* no rules: all allowed */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ok_then_outage_then_fallback),
    cmocka_unit_test(test_unavailable_drops_copy),
    cmocka_unit_test(test_redirects_and_lifetimes),
    cmocka_unit_test(test_body_capped),
    cmocka_unit_test(test_allows_now),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
