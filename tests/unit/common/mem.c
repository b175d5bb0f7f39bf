/* The allocation counter and its checks: mem_live counts exactly the
 * blocks mem_* handed out and mem_free took back, and in debug builds
 * (the sanitizer build) a block freed by the wrong family stops the
 * program instead of making the count drift. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/mem.c"
#include "common/mem.h"

static void test_live_count(void **state)
{
  (void)state;
  long before = mem_live();
  char *a = mem_alloc(10), *b = mem_calloc(3, 7), *c = mem_strdup("abc");
  assert_int_equal(mem_live(), before + 3);
  a = mem_realloc(a, 1000);
  b = mem_realloc(b, 1);
  assert_int_equal(mem_live(), before + 3);
  char *d = mem_realloc(NULL, 5);
  assert_int_equal(mem_live(), before + 4);
  mem_free(a);
  mem_free(b);
  mem_free(c);
  mem_free(d);
  mem_free(NULL);
  assert_int_equal(mem_live(), before);
}

static void test_contents_and_alignment(void **state)
{
  (void)state;
  unsigned char *p = mem_calloc(100, 1);
  for(int i = 0; i < 100; i++)
    assert_int_equal(p[i], 0);
  assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
  for(int i = 0; i < 100; i++)
    p[i] = (unsigned char)i;
  p = mem_realloc(p, 100000);
  for(int i = 0; i < 100; i++)
    assert_int_equal(p[i], i);
  mem_free(p);
}

static void test_overflow_refused(void **state)
{
  (void)state;
  long before = mem_live();
  assert_null(mem_calloc(SIZE_MAX / 2, 3));
  assert_null(mem_alloc(SIZE_MAX));
  assert_int_equal(mem_live(), before);
}

static void test_failure_injection(void **state)
{
  (void)state;
  mem_fail_at(2);
  void *a = mem_alloc(1);
  void *b = mem_alloc(1);
  void *c = mem_alloc(1);
  assert_non_null(a);
  assert_null(b);
  assert_non_null(c);
  mem_free(a);
  mem_free(c);
}

#ifdef WPFS_DEBUG
/* What the child does decides how it ends. */
static int run_child(void (*fn)(void))
{
  pid_t pid = fork();
  if(pid == 0) {
    fn();
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return st;
}

static void mismatch_xalloc_mem_free(void)
{
  /* Called through a volatile pointer: with mem.c included, gcc inlines
   * both and rightly sees the tag read out of bounds, which is the
   * mismatch this test wants to happen at run time. */
  void (*volatile free_as_request)(void *) = mem_free;
  void *p = xalloc(16);
  free_as_request(p);  /* set-up memory freed as request memory */
}
#endif

#ifdef WPFS_DEBUG
/* Release builds carry no tag: the sanitizer build runs this one. */
static void test_mismatch_stops_debug_builds(void **state)
{
  (void)state;
  /* The tag check aborts; under ASan, reading the missing header is
   * itself reported first. Either way the program does not go on. */
  int st = run_child(mismatch_xalloc_mem_free);
  assert_false(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
#endif

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_live_count),
    cmocka_unit_test(test_contents_and_alignment),
    cmocka_unit_test(test_overflow_refused),
    cmocka_unit_test(test_failure_injection),
#ifdef WPFS_DEBUG
    cmocka_unit_test(test_mismatch_stops_debug_builds),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
