/* common/heap.h: min first under any order given per call; remove from the
 * middle, fix after a key changed (up and down), dequeue until empty; a
 * node in no heap says so; heap_moved after a copy; ties in a stable order
 * (left child first); heap_reserve's growth, bound and out of memory; and
 * a long random run checked step by step against a sorted array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/heap.c"
#include "common/heap.h"
#include "common/mem.h"

struct ent {
  int              key;
  int              id;
  struct heap_node node;
};

static bool key_less(const struct heap_node *a, const struct heap_node *b)
{
  return HEAP_ENTRY(a, const struct ent, node)->key < HEAP_ENTRY(b, const struct ent, node)->key;
}

static bool key_more(const struct heap_node *a, const struct heap_node *b)
{
  return key_less(b, a);
}

static struct ent *ent_of(struct heap_node *x)
{
  return x ? HEAP_ENTRY(x, struct ent, node) : NULL;
}

/* Every node's slot names it, and no child goes before its parent. */
static void check_heap(const struct heap *h, heap_less_fn *less)
{
  for(uint32_t i = 0; i < h->n; i++) {
    assert_int_equal(h->v[i]->pos, i);
    if(i > 0)
      assert_false(less(h->v[i], h->v[(i - 1) / 2]));
  }
}

static void add(struct heap *h, struct ent *e, heap_less_fn *less)
{
  heap_node_init(&e->node);
  assert_int_equal(heap_reserve(h, h->n + 1), CM_OK);
  heap_insert(h, &e->node, less);
  check_heap(h, less);
}

static void test_order(void **st)
{
  (void)st;
  struct heap h = { 0 };
  struct ent e[10];
  int keys[] = { 5, 3, 8, 1, 9, 2, 7, 4, 6, 0 };
  assert_null(heap_min(&h));
  for(int i = 0; i < 10; i++) {
    e[i] = (struct ent){ .key = keys[i], .id = i };
    add(&h, &e[i], key_less);
  }
  assert_int_equal(h.n, 10);
  assert_int_equal(ent_of(heap_min(&h))->key, 0);
  for(int k = 0; k < 10; k++) {
    struct ent *x = ent_of(heap_dequeue(&h, key_less));
    assert_int_equal(x->key, k);
    assert_false(heap_node_in(&x->node));
    check_heap(&h, key_less);
  }
  assert_null(heap_dequeue(&h, key_less));
  heap_free(&h);
  assert_null(h.v);
}

/* The same nodes under the opposite order: the order is the caller's. */
static void test_max_order(void **st)
{
  (void)st;
  struct heap h = { 0 };
  struct ent e[6];
  for(int i = 0; i < 6; i++) {
    e[i] = (struct ent){ .key = (i * 4) % 7 };
    add(&h, &e[i], key_more);
  }
  int last = 100;
  while(h.n) {
    struct ent *x = ent_of(heap_dequeue(&h, key_more));
    assert_true(x->key <= last);
    last = x->key;
  }
  heap_free(&h);
}

/* A node leaves from the middle; keys changed in both directions. */
static void test_remove_fix(void **st)
{
  (void)st;
  struct heap h = { 0 };
  struct ent e[32];
  for(int i = 0; i < 32; i++) {
    e[i] = (struct ent){ .key = (i * 13) % 32, .id = i };
    add(&h, &e[i], key_less);
  }
  heap_remove(&h, &e[7].node, key_less);  /* key 27: a leaf's neighbour */
  heap_remove(&h, &e[5].node, key_less);  /* key 1: near the top */
  assert_false(heap_node_in(&e[7].node));
  assert_int_equal(h.n, 30);
  check_heap(&h, key_less);
  e[20].key = -5;  /* up to the top */
  heap_fix(&h, &e[20].node, key_less);
  check_heap(&h, key_less);
  assert_ptr_equal(heap_min(&h), &e[20].node);
  e[20].key = 100;  /* down to a leaf */
  heap_fix(&h, &e[20].node, key_less);
  check_heap(&h, key_less);
  e[7].key = -9;  /* in no heap: left alone */
  heap_fix(&h, &e[7].node, key_less);
  assert_int_equal(h.n, 30);
  int last = -100, n = 0;
  for(struct ent *x; (x = ent_of(heap_dequeue(&h, key_less))); n++) {
    assert_true(x->key >= last);
    assert_true(x != &e[5] && x != &e[7]);
    last = x->key;
  }
  assert_int_equal(n, 30);
  assert_int_equal(last, 100);
  heap_free(&h);
}

/* Elements copied to a new array: heap_moved points the slots at them. */
static void test_moved(void **st)
{
  (void)st;
  struct heap h = { 0 };
  struct ent *a = calloc(20, sizeof *a);
  for(int i = 0; i < 20; i++) {
    a[i] = (struct ent){ .key = 20 - i, .id = i };
    add(&h, &a[i], key_less);
  }
  heap_remove(&h, &a[3].node, key_less);
  struct ent *b = malloc(20 * sizeof *b);
  memcpy(b, a, 20 * sizeof *b);
  memset(a, 0xff, 20 * sizeof *a);  /* the old copy is garbage now */
  free(a);
  for(int i = 0; i < 20; i++)
    heap_moved(&h, &b[i].node);
  check_heap(&h, key_less);
  for(int k = 1; k <= 20; k++) {
    if(k == 17)
      continue;  /* a[3] was removed */
    struct ent *x = ent_of(heap_dequeue(&h, key_less));
    assert_ptr_equal(x, &b[20 - k]);
  }
  assert_int_equal(h.n, 0);
  free(b);
  heap_free(&h);
}

/* Equal keys come out in one order, fixed by the calls: inserted in id
 * order, with nothing else happening, the first inserted is the first out
 * while it sits at the top, and the same calls give the same order. */
static void test_ties(void **st)
{
  (void)st;
  int order[2][12];
  for(int run = 0; run < 2; run++) {
    struct heap h = { 0 };
    struct ent e[12];
    for(int i = 0; i < 12; i++) {
      e[i] = (struct ent){ .key = i % 3, .id = i };
      add(&h, &e[i], key_less);
    }
    assert_int_equal(ent_of(heap_min(&h))->id, 0);
    for(int k = 0; k < 12; k++)
      order[run][k] = ent_of(heap_dequeue(&h, key_less))->id;
    heap_free(&h);
  }
  assert_memory_equal(order[0], order[1], sizeof order[0]);
  /* keys 0 first (ids 0 3 6 9 in some order), then 1s, then 2s */
  for(int k = 0; k < 12; k++)
    assert_int_equal(order[0][k] % 3, k / 4);
}

static void test_reserve(void **st)
{
  (void)st;
  struct heap h = { 0 };
  assert_int_equal(heap_reserve(&h, 1), CM_OK);
  assert_int_equal(h.cap, 16);
  assert_int_equal(heap_reserve(&h, 16), CM_OK);
  assert_int_equal(h.cap, 16);
  assert_int_equal(heap_reserve(&h, 17), CM_OK);
  assert_int_equal(h.cap, 32);
  assert_int_equal(heap_reserve(&h, 1000), CM_OK);
  assert_int_equal(h.cap, 1024);
  assert_int_equal(heap_reserve(&h, (size_t)UINT32_MAX), CM_TOO_LARGE);
  assert_int_equal(h.cap, 1024);
  mem_fail_at(1);
  assert_int_equal(heap_reserve(&h, 2000), CM_NOMEM);
  mem_fail_at(0);
  assert_int_equal(h.cap, 1024);  /* unchanged on failure */
  assert_non_null(h.v);
  heap_free(&h);
  assert_int_equal(h.cap, 0);
  assert_int_equal(h.n, 0);
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* 20,000 random inserts, removals from anywhere, key changes and dequeues,
 * the minimum checked against a sorted copy of the keys in the heap. */
static void test_random(void **st)
{
  (void)st;
  enum { N = 512 };
  struct heap h = { 0 };
  struct ent e[N];
  int keys[N];
  uint64_t s = 12345;
  for(int i = 0; i < N; i++)
    heap_node_init(&e[i].node);
  for(int step = 0; step < 20000; step++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    int i = (int)((s >> 33) % N), op = (int)((s >> 20) % 4), key = (int)((s >> 40) % 1000);
    if(!heap_node_in(&e[i].node)) {
      e[i].key = key;
      assert_int_equal(heap_reserve(&h, h.n + 1), CM_OK);
      heap_insert(&h, &e[i].node, key_less);
    } else if(op == 0) {
      heap_remove(&h, &e[i].node, key_less);
    } else if(op == 1) {
      e[i].key = key;
      heap_fix(&h, &e[i].node, key_less);
    } else if(op == 2) {
      heap_dequeue(&h, key_less);
    }
    size_t n = 0;
    for(int k = 0; k < N; k++)
      if(heap_node_in(&e[k].node))
        keys[n++] = e[k].key;
    assert_int_equal(n, h.n);
    qsort(keys, n, sizeof *keys, cmp_int);
    if(n)
      assert_int_equal(ent_of(heap_min(&h))->key, keys[0]);
    if(step % 97 == 0)
      check_heap(&h, key_less);
  }
  heap_free(&h);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_order),       cmocka_unit_test(test_max_order),
    cmocka_unit_test(test_remove_fix),  cmocka_unit_test(test_moved),
    cmocka_unit_test(test_ties),        cmocka_unit_test(test_reserve),
    cmocka_unit_test(test_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
