/* The scheduler's robots book (hlfs/sched/sched_robots.c) without a
 * network: how each robots.txt answer becomes the record stored in Redis
 * (status, last good copy, policy state, lifetime, redirects, Crawl-delay
 * from the one parse), and the check of a URL against a record. The policy
 * table itself is tested in test_robots_policy.c, the verdicts in
 * test_robots_decide.c, the cache in test_sched_robots_cache.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/sched/sched_robots.c"
#include "common/clock.h"
#include "hlfs/sched/sched_robots.h"

#define NOW 1700000000000ULL
#define DAY (24ULL * 3600 * 1000)

static const char good[] = "User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n";
static const struct robots_agent wpfs = { "wpfs", 4 };

static struct sched_cfg cfg(void)
{
  return (struct sched_cfg){ .robots_cache = 16, .robots_cache_bytes = 1 << 20,
                             .robots_rules_max = 16, .robots_rules_bytes = 1 << 20,
                             .robots_policy = robots_policy_defaults(),
                             .robots_limits = robots_limits_default() };
}

/* One book per test, freed by the next. */
static struct sched_robots *book_new(void)
{
  static struct sched_robots *b;
  sched_robots_free(&b);
  struct sched_cfg c = cfg();
  return b = sched_robots_new(&c);
}

/* One answer; rec is filled unless the answer is a redirect to follow. The
 * parse the digest made is kept with the record, as the scheduler does. */
static bool digest(struct sched_robots *b, const struct sched_outcome *o, unsigned hops,
                   const struct state_robots *prev, uint64_t now, struct state_robots *rec)
{
  static const struct state_robots none = { 0 };
  struct sched_robots_answer a = { .o = o, .url = "http://o.test/robots.txt", .hops = hops,
                                   .prev = prev ? prev : &none, .now_ms = now };
  struct robots *rules = NULL;
  memset(rec, 0, sizeof *rec);
  bool follow = sched_robots_digest(b, "http://o.test:80", &a, &wpfs, 1, rec, &rules);
  robots_free(&rules);
  return follow;
}

static struct sched_outcome answer(int status, const char *body)
{
  return (struct sched_outcome){ .contacted = true, .http_status = status, .body = body,
                                 .body_len = body ? strlen(body) : 0 };
}

static enum robots_answer check(struct sched_robots *b, const struct state_robots *rec,
                                const char *url)
{
  return sched_robots_check(b, "http://o.test:80", rec, url, &wpfs);
}

static void test_ok_then_outage_then_fallback(void **state)
{
  (void)state;
  struct sched_robots *g = book_new();
  struct state_robots rec, prev;
  struct sched_outcome o = answer(200, good);
  assert_false(digest(g, &o, 0, NULL, NOW, &rec));
  assert_int_equal(rec.status, ROBOTS_P_OK);
  assert_int_equal(rec.good_at, NOW);
  assert_int_equal(rec.crawl_delay_ms, 2000);
  assert_int_equal(rec.ttl_ms, DAY);  /* no caching header: the 24 h cap */
  rec.fetched_at = NOW;
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), ROBOTS_DISALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/public"), ROBOTS_ALLOW);
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
  assert_int_equal(check(g, &rec, "http://o.test/public"), ROBOTS_UNAVAILABLE);
  /* a network error 30 days into the outage: the last good copy */
  prev = rec;
  struct sched_outcome net = { .contacted = true, .transport_err = true };
  assert_false(digest(g, &net, 0, &prev, NOW + 31 * DAY, &rec));
  assert_int_equal(rec.status, ROBOTS_P_STALE_FALLBACK);
  assert_int_equal(rec.error_streak, 2);
  rec.fetched_at = NOW + 31 * DAY;
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), ROBOTS_DISALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/public"), ROBOTS_ALLOW);
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
  struct sched_robots *g = book_new();
  struct state_robots rec, prev;
  struct sched_outcome o = answer(200, good);
  digest(g, &o, 0, NULL, NOW, &rec);
  prev = rec;
  o = answer(404, "gone");
  assert_false(digest(g, &o, 0, &prev, NOW + DAY, &rec));
  assert_int_equal(rec.status, ROBOTS_P_UNAVAILABLE_ALLOW);
  assert_null(rec.body);
  assert_int_equal(rec.good_at, 0);
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), ROBOTS_ALLOW);
  /* an outage with no copy ends in "allow" */
  prev = rec;
  struct sched_outcome net = { .contacted = false, .transport_err = true };
  digest(g, &net, 0, &prev, NOW + DAY, &rec);
  assert_int_equal(rec.status, ROBOTS_P_UNREACHABLE_DISALLOW);
  prev = rec;
  digest(g, &net, 0, &prev, NOW + 31 * DAY, &rec);
  assert_int_equal(rec.status, ROBOTS_P_UNREACHABLE_ALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/private/x"), ROBOTS_ALLOW);
}

static void test_redirects_and_lifetimes(void **state)
{
  (void)state;
  struct sched_robots *g = book_new();
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
  assert_int_equal(rec.ttl_ms, cfg().robots_policy.min_ttl_ms);
  o.cache_control = NULL;
  o.date = "Tue, 14 Nov 2023 22:13:20 GMT";  /* NOW */
  o.expires = "Tue, 14 Nov 2023 23:13:20 GMT";
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.ttl_ms, 3600000);
}

static void test_body_capped(void **state)
{
  (void)state;
  struct sched_robots *g = book_new();
  struct state_robots rec;
  size_t n = cfg().robots_limits.max_bytes + 1000;
  char *big = test_malloc(n + 1);
  memset(big, '#', n);
  memcpy(big, "User-agent: *\nDisallow: /x\n", 27);
  big[n] = '\0';
  struct sched_outcome o = answer(200, big);
  digest(g, &o, 0, NULL, NOW, &rec);
  assert_int_equal(rec.body_len, cfg().robots_limits.max_bytes + 1);
  rec.fetched_at = NOW;
  assert_int_equal(check(g, &rec, "http://o.test/x"), ROBOTS_DISALLOW);
  test_free(big);
}

/* A cache answer without queueing is allowed only under the record kept
 * for the origin, while it is valid for another second, its rules parsed
 * and kept, and only for URLs they allow. */
static void test_allows_now(void **state)
{
  (void)state;
  struct sched_robots *g = book_new();
  uint64_t now = clock_wall_ms();
  const char *o = "http://o.test:80";
  struct state_robots rec = { .status = ROBOTS_P_OK, .body = good, .body_len = strlen(good),
                              .fetched_at = 5, .expires_at = now + DAY };
  assert_false(sched_robots_allows_now(g, &wpfs, "http://o.test/a"));  /* never seen */
  sched_robots_put(g, o, &rec, NULL);
  assert_false(sched_robots_allows_now(g, &wpfs, "http://o.test/a"));  /* not parsed yet */
  assert_int_equal(check(g, &rec, "http://o.test/a"), ROBOTS_ALLOW);  /* parses, keeps */
  assert_true(sched_robots_allows_now(g, &wpfs, "http://o.test/a"));
  assert_true(sched_robots_allows_now(g, &wpfs, "http://o.test/b?c=d"));
  assert_false(sched_robots_allows_now(g, &wpfs, "http://o.test/private/x"));
  assert_false(sched_robots_allows_now(g, &wpfs, "http://other.test/a"));
  assert_false(sched_robots_allows_now(g, &wpfs, "https://o.test/a"));  /* another origin */
  rec.expires_at = now + 500;  /* valid, but not for another second */
  sched_robots_put(g, o, &rec, NULL);
  assert_false(sched_robots_allows_now(g, &wpfs, "http://o.test/a"));
  rec.expires_at = now + DAY;
  rec.fetched_at = 6;  /* a new fetch whose rules are not parsed yet */
  sched_robots_put(g, o, &rec, NULL);
  assert_false(sched_robots_allows_now(g, &wpfs, "http://o.test/a"));
  struct state_robots gone = { .status = ROBOTS_P_UNREACHABLE_DISALLOW, .expires_at = now + DAY };
  sched_robots_put(g, o, &gone, NULL);
  assert_false(sched_robots_allows_now(g, &wpfs, "http://o.test/a"));
  struct state_robots none = { .status = ROBOTS_P_UNAVAILABLE_ALLOW, .expires_at = now + DAY };
  sched_robots_put(g, o, &none, NULL);
  assert_true(sched_robots_allows_now(g, &wpfs, "http://o.test/private/x"));  /* no rules */
}

/* Crawl-delay is the strictest any identity gets, from the digest's one
 * parse, which the record then keeps: the first check parses nothing. */
static void test_delay_of_every_agent_one_parse(void **state)
{
  (void)state;
  struct sched_robots *g = book_new();
  static const char body[] = "User-agent: *\nCrawl-delay: 1\nDisallow: /p/\n\n"
                             "User-agent: newsbot\nCrawl-delay: 5\nDisallow: /n/\n";
  const struct robots_agent two[] = { wpfs, { "newsbot", 7 } };
  struct sched_outcome o = answer(200, body);
  struct sched_robots_answer a = { .o = &o, .url = "http://o.test/robots.txt",
                                   .prev = &(struct state_robots){ 0 }, .now_ms = NOW };
  struct state_robots rec = { 0 };
  struct robots *rules = NULL;
  struct sched_robots_stats st;
  assert_false(sched_robots_digest(g, "http://o.test:80", &a, two, 2, &rec, &rules));
  assert_int_equal(rec.crawl_delay_ms, 5000);
  assert_non_null(rules);
  robots_free(&rules);
  assert_false(sched_robots_digest(g, "http://o.test:80", &a, two, 1, &rec, &rules));
  assert_int_equal(rec.crawl_delay_ms, 1000);  /* wpfs alone */
  rec.fetched_at = NOW;
  rec.expires_at = NOW + DAY;
  sched_robots_put(g, "http://o.test:80", &rec, &rules);
  assert_null(rules);  /* the book took it */
  sched_robots_stats(g, &st);
  assert_int_equal(st.parses, 2);
  assert_int_equal(sched_robots_check(g, "http://o.test:80", &rec, "http://o.test/n/1", &two[1]),
                   ROBOTS_DISALLOW);
  assert_int_equal(check(g, &rec, "http://o.test/n/1"), ROBOTS_ALLOW);
  sched_robots_stats(g, &st);
  assert_int_equal(st.parses, 2);  /* robots.txt is parsed once per fetch, not per check */
  assert_int_equal(st.hits, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ok_then_outage_then_fallback),
    cmocka_unit_test(test_unavailable_drops_copy),
    cmocka_unit_test(test_redirects_and_lifetimes),
    cmocka_unit_test(test_body_capped),
    cmocka_unit_test(test_allows_now),
    cmocka_unit_test(test_delay_of_every_agent_one_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
