/* hlfs/gw/page_memo.c: the pages kept rendered, by key, bounded by bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/gw/page_memo.c"
#include "hlfs/gw/page_memo.h"

/* page_memo: kept by key, replaced, dropped, bounded by bytes (least
 * recently used first), never without a hash, nothing at max_bytes 0. */
static void test_page_memo(void **state)
{
  (void)state;
  char tail[1000];
  memset(tail, 'x', sizeof tail);
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 200,
                    .fetched_at = 7, .hash = "abc" }, head;
  const char *t;
  size_t tn;
  struct page_memo *m = page_memo_new(3500);  /* three entries of ~1.1 KB */
  assert_false(page_memo_get(m, "k1", &head, &t, &tn));
  assert_true(page_memo_put(m, "k1", &p, tail, 100));
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));
  assert_string_equal(head.url, p.url);
  assert_string_equal(head.hash, "abc");
  assert_int_equal(head.fetched_at, 7);
  assert_int_equal(tn, 100);
  p.hash = "def";
  assert_true(page_memo_put(m, "k1", &p, tail, sizeof tail));  /* replaces */
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));
  assert_string_equal(head.hash, "def");
  assert_int_equal(tn, sizeof tail);
  assert_true(page_memo_put(m, "k2", &p, tail, sizeof tail));
  assert_true(page_memo_put(m, "k3", &p, tail, sizeof tail));
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));  /* k2 is now the oldest */
  assert_true(page_memo_put(m, "k4", &p, tail, sizeof tail));
  assert_false(page_memo_get(m, "k2", &head, &t, &tn));
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));
  assert_int_equal(m->c.lru.n, 3);
  assert_int_equal(m->c.evictions, 1);
  assert_true(m->c.lru.bytes <= 3500);
  page_memo_drop(m, "k1");
  assert_false(page_memo_get(m, "k1", &head, &t, &tn));
  assert_false(page_memo_put(m, "big", &p, tail, 4000));
  p.hash = NULL;
  assert_false(page_memo_put(m, "k5", &p, tail, 10));
  page_memo_free(&m);
  p.hash = "abc";
  m = page_memo_new(0);
  assert_false(page_memo_put(m, "k1", &p, tail, 10));
  assert_false(page_memo_get(m, "k1", &head, &t, &tn));
  page_memo_free(&m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_page_memo),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
