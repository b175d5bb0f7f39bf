/* common/buf.c: caps, JSON escaping, failure leaves the buffer unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/buf.c"
#include "common/buf.h"
#include "common/mem.h"

static void test_cap_is_hard(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 8);
  assert_int_equal(buf_adds(&b, "12345678"), CM_OK);
  assert_int_equal(buf_addc(&b, '9'), CM_TOO_LARGE);
  assert_int_equal(b.len, 8);
  assert_string_equal(b.data, "12345678");
  assert_int_equal(buf_addf(&b, "%d", 1), CM_TOO_LARGE);
  buf_free(&b);
}

/* No cap at all (SIZE_MAX): the NUL's room must not wrap the capacity to
 * nothing (it did: the first add wrote past a 0-byte allocation). */
static void test_uncapped(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, SIZE_MAX);
  for(int i = 0; i < 100; i++)
    assert_int_equal(buf_adds(&b, "0123456789"), CM_OK);
  assert_int_equal(b.len, 1000);
  assert_true(b.cap > b.len);
  assert_int_equal(b.data[1000], '\0');
  buf_free(&b);
}

static void test_json_escape(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 1024);
  const char in[] = "a\"b\\c\n\x01\xc3\xa9\xff";
  assert_int_equal(buf_add_json_str(&b, in, sizeof in - 1), CM_OK);
  assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\xef\xbf\xbd\"");
  buf_free(&b);
}

static void test_json_escape_over_cap_unchanged(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 6);
  assert_int_equal(buf_adds(&b, "x"), CM_OK);
  assert_int_equal(buf_add_json_str(&b, "abcdef", 6), CM_TOO_LARGE);
  assert_string_equal(b.data, "x");
  buf_free(&b);
}

static void test_nomem_every_allocation(void **state)
{
  (void)state;
  for(unsigned long k = 1;; k++) {
    struct buf b;
    long before = mem_live();
    buf_init(&b, 1 << 20);
    mem_fail_at(k);
    cm_err e = CM_OK;
    for(int i = 0; i < 100 && !e; i++)
      e = buf_addf(&b, "%d-%s,", i, "payload payload payload");
    mem_fail_at(0);
    buf_free(&b);
    assert_int_equal(mem_live(), before);
    if(e == CM_OK)
      break;
    assert_int_equal(e, CM_NOMEM);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cap_is_hard),
    cmocka_unit_test(test_uncapped),
    cmocka_unit_test(test_json_escape),
    cmocka_unit_test(test_json_escape_over_cap_unchanged),
    cmocka_unit_test(test_nomem_every_allocation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
