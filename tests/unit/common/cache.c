/* common/cache.c: lookups by string (keys of one hash bucket told apart),
 * get moving an entry to the front and find not, put replacing a key,
 * eviction of the least recent by bytes (counted), entries over the bound
 * or missing (out of memory) refused with the old value dropped, a cache
 * of 0 bytes keeping nothing, and every block freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/cache.c"
#include "common/cache.h"
#include "common/mem.h"

struct ent {
  struct cache_ent ce;
  int              v;
  char             key[];
};

/* An entry of key holding v, counted as bytes (at least its block). */
static struct cache_ent *make(const char *key, int v, size_t bytes)
{
  size_t n = strlen(key) + 1, block = sizeof(struct ent) + n;
  struct ent *e = mem_alloc(block);
  assert_non_null(e);
  *e = (struct ent){ .ce = { .node = { .bytes = bytes > block ? bytes : block }, .key = e->key },
                     .v = v };
  memcpy(e->key, key, n);  /* after: the assignment may write the padding key[] starts in */
  return &e->ce;
}

static int val(struct cache_ent *e)
{
  return e ? ((struct ent *)e)->v : -1;
}

static void test_get_put(void **st)
{
  (void)st;
  long live = mem_live();
  struct cache c;
  cache_init(&c, 1000, 10);
  assert_int_equal(c.lru.nbuckets, 1024);
  assert_true(cache_put(&c, "a", make("a", 1, 100)));
  assert_true(cache_put(&c, "b", make("b", 2, 100)));
  assert_int_equal(val(cache_get(&c, "a")), 1);
  assert_int_equal(val(cache_find(&c, "b")), 2);
  assert_null(cache_get(&c, "c"));
  assert_null(cache_get(&c, "ab"));
  assert_true(cache_put(&c, "a", make("a", 3, 100)));  /* replaces */
  assert_int_equal(val(cache_get(&c, "a")), 3);
  assert_int_equal(c.lru.n, 2);
  assert_int_equal(c.lru.bytes, 200);
  assert_int_equal(c.puts, 3);
  assert_int_equal(c.evictions, 0);
  cache_drop(&c, "a");
  cache_drop(&c, "zz");  /* none: nothing happens */
  assert_null(cache_get(&c, "a"));
  assert_int_equal(c.lru.n, 1);
  cache_fini(&c);
  assert_int_equal(mem_live(), live);
}

/* Over the bound the least recent go first: get moves an entry to the
 * front, find does not. */
static void test_evict(void **st)
{
  (void)st;
  long live = mem_live();
  struct cache c;
  cache_init(&c, 300, 10);
  assert_true(cache_put(&c, "a", make("a", 1, 100)));
  assert_true(cache_put(&c, "b", make("b", 2, 100)));
  assert_true(cache_put(&c, "c", make("c", 3, 100)));
  assert_non_null(cache_get(&c, "a"));   /* a is the most recent */
  assert_non_null(cache_find(&c, "b"));  /* b stays the least */
  assert_true(cache_put(&c, "d", make("d", 4, 100)));
  assert_null(cache_find(&c, "b"));
  assert_int_equal(c.evictions, 1);
  assert_true(cache_put(&c, "e", make("e", 5, 200)));  /* c and a go */
  assert_null(cache_find(&c, "c"));
  assert_null(cache_find(&c, "a"));
  assert_int_equal(val(cache_find(&c, "d")), 4);
  assert_int_equal(val(cache_find(&c, "e")), 5);
  assert_int_equal(c.evictions, 3);
  assert_int_equal(c.lru.bytes, 300);
  cache_touch(&c, cache_find(&c, "d"));  /* d the most recent: e goes next */
  assert_true(cache_put(&c, "f", make("f", 6, 100)));
  assert_null(cache_find(&c, "e"));
  assert_non_null(cache_find(&c, "d"));
  cache_fini(&c);
  assert_int_equal(mem_live(), live);
}

/* Too large, or no entry (out of memory): refused, and the key's old
 * value is gone (it would be stale). */
static void test_refused(void **st)
{
  (void)st;
  long live = mem_live();
  struct cache c;
  cache_init(&c, 300, 10);
  assert_true(cache_put(&c, "a", make("a", 1, 100)));
  assert_true(cache_put(&c, "b", make("b", 2, 100)));
  assert_false(cache_put(&c, "a", make("a", 3, 301)));
  assert_null(cache_find(&c, "a"));
  assert_false(cache_put(&c, "b", NULL));
  assert_null(cache_find(&c, "b"));
  assert_int_equal(c.lru.n, 0);
  assert_int_equal(c.evictions, 0);
  assert_true(cache_put(&c, "x", make("x", 9, 300)));  /* exactly the bound */
  cache_fini(&c);
  assert_int_equal(mem_live(), live);
}

/* Nothing kept at 0 bytes, and nothing looked up. */
static void test_zero(void **st)
{
  (void)st;
  long live = mem_live();
  struct cache c;
  cache_init(&c, 0, 4096);
  assert_false(cache_put(&c, "a", make("a", 1, 1)));
  assert_null(cache_find(&c, "a"));
  assert_int_equal(c.lru.n, 0);
  cache_fini(&c);
  assert_int_equal(mem_live(), live);
}

/* Many keys in few buckets: each found by its string. */
static void test_many(void **st)
{
  (void)st;
  struct cache c;
  char key[32];
  cache_init(&c, 1 << 20, 1 << 30);  /* 1,024 buckets for 5,000 keys */
  for(int i = 0; i < 5000; i++) {
    snprintf(key, sizeof key, "http://k%d.test/", i);
    assert_true(cache_put(&c, key, make(key, i, 1)));
  }
  for(int i = 0; i < 5000; i++) {
    snprintf(key, sizeof key, "http://k%d.test/", i);
    assert_int_equal(val(cache_find(&c, key)), i);
  }
  assert_null(cache_find(&c, "http://k5000.test/"));
  cache_fini(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_get_put), cmocka_unit_test(test_evict),
    cmocka_unit_test(test_refused), cmocka_unit_test(test_zero),
    cmocka_unit_test(test_many),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
