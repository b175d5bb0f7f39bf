/* hlfs/sched/sched_robots.c, the cache: one record per origin with its
 * rules parsed at most once: hits, a record read again keeping its parse,
 * a new fetch replacing it, colliding origins, the bounds on bodies and on
 * parsed sets, the "keep no parse" mode, every allocation failing in turn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/sched/sched_robots.c"
#include "hlfs/sched/sched_robots.h"

static const char body_a[] = "User-agent: *\nDisallow: /a\n";
static const char body_b[] = "User-agent: *\nDisallow: /b\n";
static const struct robots_agent wpfs = { "wpfs", 4 };

static struct sched_robots *book(unsigned slots, size_t bytes, unsigned rules, size_t rbytes)
{
  struct sched_cfg c = { .robots_cache = slots, .robots_cache_bytes = bytes,
                         .robots_rules_max = rules, .robots_rules_bytes = rbytes,
                         .robots_policy = robots_policy_defaults(),
                         .robots_limits = robots_limits_default() };
  return sched_robots_new(&c);
}

static struct state_robots rec_of(const char *body, uint64_t fetched_at)
{
  return (struct state_robots){ .status = ROBOTS_P_OK, .body = body, .body_len = strlen(body),
                                .fetched_at = fetched_at, .expires_at = UINT64_MAX };
}

static bool allowed(const struct robots *r, const char *path)
{
  struct robots_verdict v;
  assert_non_null(r);
  assert_int_equal(robots_query(r, "wpfs", 4, path, strlen(path), &v), ROBOTS_OK);
  return v.allowed;
}

static struct sched_robots_stats stats(const struct sched_robots *b)
{
  struct sched_robots_stats st;
  sched_robots_stats(b, &st);
  return st;
}

static void test_hits_and_keys(void **state)
{
  (void)state;
  struct sched_robots *b = book(64, 1 << 20, 8, 1 << 20);
  struct state_robots a = rec_of(body_a, 1), a2 = rec_of(body_b, 2), got;
  sched_robots_put(b, "http://o.test:80", &a, NULL);
  assert_true(sched_robots_get(b, "http://o.test:80", 0, &got));
  assert_memory_equal(got.body, body_a, strlen(body_a));
  const struct robots *r1 = sched_robots_rules(b, "http://o.test:80", &got);
  assert_false(allowed(r1, "/a/x"));
  assert_ptr_equal(sched_robots_rules(b, "http://o.test:80", &a), r1);  /* no parse */
  sched_robots_put(b, "http://o.test:80", &a, NULL);  /* read again from Redis */
  assert_ptr_equal(sched_robots_rules(b, "http://o.test:80", &a), r1);  /* the parse stays */
  /* a new fetch of the origin is another record */
  sched_robots_put(b, "http://o.test:80", &a2, NULL);
  const struct robots *r2 = sched_robots_rules(b, "http://o.test:80", &a2);
  assert_true(allowed(r2, "/a/x"));
  assert_false(allowed(r2, "/b/x"));
  struct sched_robots_stats st = stats(b);
  assert_int_equal(st.parses, 2);
  assert_int_equal(st.hits, 2);
  assert_int_equal(st.records, 1);
  assert_int_equal(st.rules, 1);
  /* expired: not served (the scheduler fetches robots.txt again) */
  assert_false(sched_robots_get(b, "http://o.test:80", UINT64_MAX, &got));
  sched_robots_free(&b);
  assert_null(b);
}

/* One slot: every origin collides, the newer replaces the older. */
static void test_collisions(void **state)
{
  (void)state;
  struct sched_robots *b = book(1, 1 << 20, 8, 1 << 20);
  struct state_robots a = rec_of(body_a, 1), got;
  sched_robots_put(b, "http://a.test:80", &a, NULL);
  sched_robots_rules(b, "http://a.test:80", &a);
  sched_robots_put(b, "http://b.test:80", &a, NULL);
  assert_false(sched_robots_get(b, "http://a.test:80", 0, &got));
  assert_true(sched_robots_get(b, "http://b.test:80", 0, &got));
  assert_false(sched_robots_allows_now(b, &wpfs, "http://b.test/x"));  /* not parsed */
  assert_int_equal(stats(b).rules, 0);  /* a.test's parse went with its record */
  sched_robots_free(&b);
}

/* At most rules_max parsed sets are kept; the records stay. */
static void test_rules_bound(void **state)
{
  (void)state;
  struct sched_robots *b = book(64, 1 << 20, 2, 1 << 20);
  struct state_robots a = rec_of(body_a, 1);
  char o[32];
  for(int i = 0; i < 5; i++) {
    snprintf(o, sizeof o, "http://o%d.test:80", i);
    sched_robots_put(b, o, &a, NULL);
    assert_false(allowed(sched_robots_rules(b, o, &a), "/a"));
  }
  struct sched_robots_stats st = stats(b);
  assert_int_equal(st.records, 5);
  assert_int_equal(st.rules, 2);
  assert_int_equal(st.parses, 5);
  sched_robots_free(&b);
  /* and at most rules_bytes: a set larger is used, never kept */
  b = book(64, 1 << 20, 8, 1);
  sched_robots_put(b, "http://o.test:80", &a, NULL);
  assert_false(allowed(sched_robots_rules(b, "http://o.test:80", &a), "/a"));
  assert_int_equal(stats(b).rules, 0);
  sched_robots_free(&b);
}

/* Bodies over robots_cache_bytes: the record is not kept, but the check
 * still parses it (and keeps nothing). */
static void test_body_bound(void **state)
{
  (void)state;
  struct sched_robots *b = book(64, 8, 8, 1 << 20);
  struct state_robots a = rec_of(body_a, 1), got;
  sched_robots_put(b, "http://o.test:80", &a, NULL);
  assert_false(sched_robots_get(b, "http://o.test:80", 0, &got));
  assert_int_equal(sched_robots_check(b, "http://o.test:80", &a, "http://o.test/a", &wpfs),
                   ROBOTS_DISALLOW);
  assert_int_equal(stats(b).rules, 0);
  sched_robots_free(&b);
}

/* rules_max 0: every check parses (the figure before a parse was kept). */
static void test_no_rules_kept(void **state)
{
  (void)state;
  struct sched_robots *b = book(64, 1 << 20, 0, 0);
  struct state_robots a = rec_of(body_a, 1);
  sched_robots_put(b, "http://o.test:80", &a, NULL);
  for(int i = 0; i < 3; i++)
    assert_int_equal(sched_robots_check(b, "http://o.test:80", &a, "http://o.test/a", &wpfs),
                     ROBOTS_DISALLOW);
  struct sched_robots_stats st = stats(b);
  assert_int_equal(st.parses, 3);
  assert_int_equal(st.hits, 0);
  assert_false(sched_robots_allows_now(b, &wpfs, "http://o.test/b"));
  sched_robots_free(&b);
}

static void test_nomem(void **state)
{
  (void)state;
  long live = mem_live();
  struct sched_robots *b = book(64, 1 << 20, 8, 1 << 20);
  struct state_robots a = rec_of(body_a, 1), got;
  for(unsigned long k = 1;; k++) {
    mem_fail_at(k);
    sched_robots_put(b, "http://o.test:80", &a, NULL);
    const struct robots *r = sched_robots_rules(b, "http://o.test:80", &a);
    mem_fail_at(0);
    if(r && sched_robots_get(b, "http://o.test:80", 0, &got)) {
      assert_false(allowed(r, "/a"));
      break;
    }
    sched_robots_free(&b);  /* whatever failed, nothing is left behind */
    assert_int_equal(mem_live(), live);
    b = book(64, 1 << 20, 8, 1 << 20);
  }
  sched_robots_free(&b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hits_and_keys),
    cmocka_unit_test(test_collisions),
    cmocka_unit_test(test_rules_bound),
    cmocka_unit_test(test_body_bound),
    cmocka_unit_test(test_no_rules_kept),
    cmocka_unit_test(test_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
