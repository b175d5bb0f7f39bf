/* common/list.h, the counted list (CLIST_HEAD, CLIST_FUNCS): push at
 * either end, insert after an element (in the middle and after the last),
 * remove the first, the last, a middle one and the only one; after each
 * step the walks both ways and the count agree with a plain array of the
 * expected order, and an element off the list has both links NULL. Also
 * the same through members with other names (an element on two lists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/list.h"

struct el {
  int        id;
  struct el *prev, *next;    /* on a */
  struct el *pprev, *pnext;  /* on b */
};

CLIST_HEAD(els, struct el);
CLIST_FUNCS(ea, els, struct el, prev, next)
CLIST_FUNCS(eb, els, struct el, pprev, pnext)

/* The list holds want[0..n) in order, walked from both ends. */
static void expect(const struct els *l, const int *want, size_t n)
{
  assert_int_equal(l->n, n);
  size_t i = 0;
  const struct el *last = NULL;
  for(const struct el *x = l->first; x; x = x->next, i++) {
    assert_true(i < n);
    assert_int_equal(x->id, want[i]);
    assert_ptr_equal(x->prev, last);
    last = x;
  }
  assert_int_equal(i, n);
  assert_ptr_equal(l->last, last);
  for(const struct el *x = l->last; x; x = x->prev)
    assert_int_equal(x->id, want[--i]);
  assert_int_equal(i, 0);
}

static void test_counted(void **st)
{
  (void)st;
  struct el e[6];
  for(int i = 0; i < 6; i++)
    e[i] = (struct el){ .id = i };
  struct els l = { 0 };
  expect(&l, NULL, 0);
  ea_push_back(&l, &e[1]);
  expect(&l, (int[]){ 1 }, 1);
  ea_push_front(&l, &e[0]);
  ea_push_back(&l, &e[3]);
  expect(&l, (int[]){ 0, 1, 3 }, 3);
  ea_insert_after(&l, &e[1], &e[2]);  /* in the middle */
  ea_insert_after(&l, &e[3], &e[4]);  /* after the last: the new last */
  expect(&l, (int[]){ 0, 1, 2, 3, 4 }, 5);
  ea_remove(&l, &e[2]);  /* a middle one */
  assert_null(e[2].prev);
  assert_null(e[2].next);
  expect(&l, (int[]){ 0, 1, 3, 4 }, 4);
  ea_remove(&l, &e[0]);  /* the first */
  ea_remove(&l, &e[4]);  /* the last */
  expect(&l, (int[]){ 1, 3 }, 2);
  ea_remove(&l, &e[1]);
  ea_remove(&l, &e[3]);  /* the only one */
  expect(&l, NULL, 0);
  assert_null(l.first);
  assert_null(l.last);
  ea_push_front(&l, &e[5]);  /* empty again, usable again */
  expect(&l, (int[]){ 5 }, 1);
}

/* One element on two lists through its two pairs of members. */
static void test_two_lists(void **st)
{
  (void)st;
  struct el e[3];
  for(int i = 0; i < 3; i++)
    e[i] = (struct el){ .id = i };
  struct els a = { 0 }, b = { 0 };
  for(int i = 0; i < 3; i++) {
    ea_push_back(&a, &e[i]);
    eb_push_front(&b, &e[i]);
  }
  expect(&a, (int[]){ 0, 1, 2 }, 3);
  assert_int_equal(b.n, 3);
  assert_int_equal(b.first->id, 2);
  assert_int_equal(b.first->pnext->id, 1);
  assert_int_equal(b.last->id, 0);
  eb_remove(&b, &e[1]);
  assert_int_equal(b.n, 2);
  assert_ptr_equal(b.first->pnext, &e[0]);
  expect(&a, (int[]){ 0, 1, 2 }, 3);  /* the other list is untouched */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_counted),
    cmocka_unit_test(test_two_lists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
