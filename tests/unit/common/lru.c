/* common/lru.c: lookups through colliding hashes, use order (insert and
 * touch make the most recent, the tail is the least), removal from the
 * middle of a chain and of the order, the counts of entries and bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/lru.c"
#include "common/lru.h"

struct ent {
  int             id;
  struct lru_node node;
};

static bool eq(const struct lru_node *n, const void *key)
{
  return LRU_ENTRY(n, const struct ent, node)->id == *(const int *)key;
}

static int id_of(const struct lru_node *n)
{
  return n ? LRU_ENTRY(n, const struct ent, node)->id : -1;
}

static void test_lru(void **st)
{
  (void)st;
  struct lru l;
  struct ent e[40];
  lru_init(&l, 10);
  assert_int_equal(l.nbuckets, 16);
  for(int i = 0; i < 40; i++) {
    e[i] = (struct ent){ .id = i, .node = { .h = (uint64_t)(i % 3) * 16, .bytes = 10 } };
    lru_insert(&l, &e[i].node);  /* three hashes, one bucket: long chains */
  }
  assert_int_equal(l.n, 40);
  assert_int_equal(l.bytes, 400);
  for(int i = 0; i < 40; i++) {
    uint64_t h = (uint64_t)(i % 3) * 16;
    assert_ptr_equal(lru_find(&l, h, eq, &i), &e[i].node);
    assert_null(lru_find(&l, h + 16 * 3, eq, &i));  /* same bucket, other hash */
  }
  assert_int_equal(id_of(l.head), 39);
  assert_int_equal(id_of(l.tail), 0);
  lru_touch(&l, &e[0].node);
  assert_int_equal(id_of(l.head), 0);
  assert_int_equal(id_of(l.tail), 1);
  lru_remove(&l, &e[20].node);  /* the middle of a chain and of the order */
  int k = 20;
  assert_null(lru_find(&l, (20 % 3) * 16, eq, &k));
  k = 23;
  assert_ptr_equal(lru_find(&l, (23 % 3) * 16, eq, &k), &e[23].node);
  assert_int_equal(l.n, 39);
  assert_int_equal(l.bytes, 390);
  int seen = 0;
  for(struct lru_node *n = l.head; n; n = n->next)
    seen++;
  assert_int_equal(seen, 39);
  while(l.tail)
    lru_remove(&l, l.tail);
  assert_null(l.head);
  assert_int_equal(l.n, 0);
  assert_int_equal(l.bytes, 0);
  lru_fini(&l);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_lru) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
