/* hlfs/policy/rules_cache.c: parsed robots.txt sets by (origin, fetched_at, body
 * length): hits, least-recently-used eviction by entries and by bytes, the
 * "no cache" mode, every allocation failing in turn, and lookups that never
 * parse (peek). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hlfs/policy/rules_cache.c"
#include "common/mem.h"
#include "hlfs/policy/rules_cache.h"

static const char body_a[] = "User-agent: *\nDisallow: /a\n";
static const char body_b[] = "User-agent: *\nDisallow: /b\n";

static bool allowed(const struct robots *r, const char *path)
{
  struct robots_verdict v;
  assert_non_null(r);
  assert_int_equal(robots_query(r, "wpfs", 4, path, strlen(path), &v), ROBOTS_OK);
  return v.allowed;
}

static const struct robots *get(struct rules_cache *c, const char *origin, uint64_t fa,
                                const char *body)
{
  return rules_cache_get(c, origin, fa, body, strlen(body), NULL);
}

static void test_hits_and_keys(void **state)
{
  (void)state;
  struct rules_cache *c = rules_cache_new(8, 1 << 20);
  struct rules_cache_stats st;
  const struct robots *r1 = get(c, "http://o.test:80", 1, body_a);
  assert_false(allowed(r1, "/a/x"));
  assert_ptr_equal(get(c, "http://o.test:80", 1, body_a), r1);  /* same record: no parse */
  /* a new fetch of the origin is another key, even with the same body */
  const struct robots *r2 = get(c, "http://o.test:80", 2, body_b);
  assert_true(allowed(r2, "/a/x"));
  assert_false(allowed(r2, "/b/x"));
  assert_false(allowed(get(c, "http://p.test:80", 1, body_a), "/a"));
  rules_cache_stats(c, &st);
  assert_int_equal(st.parses, 3);
  assert_int_equal(st.hits, 1);
  assert_int_equal(st.entries, 3);
  /* no body: everything allowed */
  assert_true(allowed(rules_cache_get(c, "http://q.test:80", 1, NULL, 0, NULL), "/a"));
  rules_cache_free(&c);
  assert_null(c);
}

static void test_lru_by_entries(void **state)
{
  (void)state;
  struct rules_cache *c = rules_cache_new(3, 1 << 20);
  struct rules_cache_stats st;
  char o[32];
  for(int i = 0; i < 3; i++) {
    snprintf(o, sizeof o, "http://o%d.test:80", i);
    get(c, o, 1, body_a);
  }
  get(c, "http://o0.test:80", 1, body_a);  /* o0 used again: o1 is the oldest */
  get(c, "http://o3.test:80", 1, body_a);  /* evicts o1 */
  rules_cache_stats(c, &st);
  assert_int_equal(st.entries, 3);
  assert_int_equal(st.evictions, 1);
  uint64_t parses = st.parses;
  get(c, "http://o0.test:80", 1, body_a);
  get(c, "http://o2.test:80", 1, body_a);
  rules_cache_stats(c, &st);
  assert_int_equal(st.parses, parses);      /* both still there */
  get(c, "http://o1.test:80", 1, body_a);
  rules_cache_stats(c, &st);
  assert_int_equal(st.parses, parses + 1);  /* o1 was the one evicted */
  rules_cache_free(&c);
}

static void test_bytes_bound(void **state)
{
  (void)state;
  struct rules_cache *c = rules_cache_new(100, 1);  /* nothing fits */
  struct rules_cache_stats st;
  const struct robots *r = get(c, "http://o.test:80", 1, body_a);
  assert_false(allowed(r, "/a"));  /* the set in use is kept until the next call */
  r = get(c, "http://p.test:80", 1, body_b);
  assert_false(allowed(r, "/b"));
  rules_cache_stats(c, &st);
  assert_int_equal(st.entries, 1);
  assert_int_equal(st.evictions, 1);
  rules_cache_free(&c);
}

static void test_no_cache(void **state)
{
  (void)state;
  struct rules_cache *c = rules_cache_new(0, 0);
  struct rules_cache_stats st;
  for(int i = 0; i < 3; i++)
    assert_false(allowed(get(c, "http://o.test:80", 1, body_a), "/a"));
  rules_cache_stats(c, &st);
  assert_int_equal(st.parses, 3);
  assert_int_equal(st.hits, 0);
  rules_cache_free(&c);
}

static void test_nomem(void **state)
{
  (void)state;
  struct rules_cache *c = rules_cache_new(4, 1 << 20);
  long live = mem_live();
  for(unsigned long k = 1;; k++) {
    mem_fail_at(k);
    const struct robots *r = get(c, "http://o.test:80", 1, body_a);
    mem_fail_at(0);
    if(r) {
      assert_false(allowed(r, "/a"));
      break;
    }
    assert_int_equal(mem_live(), live);  /* a failed parse leaves nothing */
  }
  rules_cache_free(&c);
}

/* peek never parses: a miss is NULL (not "no rules, all allowed"). */
static void test_peek(void **state)
{
  (void)state;
  struct rules_cache *c = rules_cache_new(8, 1 << 20);
  struct rules_cache_stats st;
  assert_null(rules_cache_peek(c, "http://o.test:80", 1, strlen(body_a)));
  const struct robots *r = get(c, "http://o.test:80", 1, body_a);
  assert_ptr_equal(rules_cache_peek(c, "http://o.test:80", 1, strlen(body_a)), r);
  assert_null(rules_cache_peek(c, "http://o.test:80", 2, strlen(body_a)));
  assert_null(rules_cache_peek(c, "http://o.test:80", 1, strlen(body_a) + 1));
  rules_cache_stats(c, &st);
  assert_int_equal(st.parses, 1);
  assert_int_equal(st.hits, 1);
  rules_cache_free(&c);
  c = rules_cache_new(0, 0);
  get(c, "http://o.test:80", 1, body_a);
  assert_null(rules_cache_peek(c, "http://o.test:80", 1, strlen(body_a)));
  rules_cache_free(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hits_and_keys),
    cmocka_unit_test(test_lru_by_entries),
    cmocka_unit_test(test_bytes_bound),
    cmocka_unit_test(test_no_cache),
    cmocka_unit_test(test_nomem),
    cmocka_unit_test(test_peek),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
