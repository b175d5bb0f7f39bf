/* hlfs/fetch/fresh_pages.c: the copy a fetch made, for its own result only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/fetch/fresh_pages.c"
#include "hlfs/fetch/fresh_pages.h"

/* fresh_pages: a copy given only to the result of the fetch that made it,
 * byte for byte (a body with NULs too), replaced by a newer fetch,
 * dropped, bounded by bytes (least recently used first), nothing at
 * max_bytes 0. */
static void test_fresh_pages(void **state)
{
  (void)state;
  char body[1000];
  memset(body, 'b', sizeof body);
  body[10] = '\0';
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 200, .fetched_at = 7,
                    .headers_json = "[[\"a\",\"b\"]]", .body = body, .body_len = sizeof body },
              out;
  struct fresh_pages *f = fresh_pages_new(4000);  /* three entries of ~1.2 KB */
  assert_false(fresh_pages_get(f, "k1", "0-1", &out));
  fresh_pages_put(f, "k1", "0-1", &p);
  assert_false(fresh_pages_get(f, "k1", "0-2", &out));  /* another request's result */
  assert_false(fresh_pages_get(f, "k1", NULL, &out));
  assert_true(fresh_pages_get(f, "k1", "0-1", &out));
  assert_string_equal(out.url, p.url);
  assert_string_equal(out.headers_json, p.headers_json);
  assert_null(out.redirect);
  assert_true(out.verified);
  assert_int_equal(out.fetched_at, 7);
  assert_int_equal(out.body_len, sizeof body);
  assert_memory_equal(out.body, body, sizeof body);
  fresh_pages_put(f, "k1", "0-3", &p);  /* a newer fetch of the URL */
  assert_false(fresh_pages_get(f, "k1", "0-1", &out));
  assert_true(fresh_pages_get(f, "k1", "0-3", &out));
  fresh_pages_put(f, "k2", "0-4", &p);
  fresh_pages_put(f, "k3", "0-5", &p);
  assert_true(fresh_pages_get(f, "k1", "0-3", &out));  /* k2 is now the oldest */
  fresh_pages_put(f, "k4", "0-6", &p);
  assert_false(fresh_pages_get(f, "k2", "0-4", &out));
  assert_int_equal(f->c.lru.n, 3);
  assert_int_equal(f->c.evictions, 1);
  assert_true(f->c.lru.bytes <= 4000);
  fresh_pages_drop(f, "k1");
  assert_false(fresh_pages_get(f, "k1", "0-3", &out));
  p.body_len = 4100;  /* larger than the bound: not kept, nothing evicted for it */
  char big[4100] = { 0 };
  p.body = big;
  fresh_pages_put(f, "k5", "0-7", &p);
  assert_false(fresh_pages_get(f, "k5", "0-7", &out));
  assert_true(fresh_pages_get(f, "k3", "0-5", &out));
  fresh_pages_free(&f);
  assert_null(f);
  f = fresh_pages_new(0);
  fresh_pages_put(f, "k1", "0-1", &p);
  assert_false(fresh_pages_get(f, "k1", "0-1", &out));
  fresh_pages_free(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fresh_pages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
