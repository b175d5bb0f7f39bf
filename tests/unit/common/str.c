/* common/str.h: each helper against what printf and inet_ntop would write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/str.h"

static void test_copy_truncates(void **state)
{
  (void)state;
  char d[5];
  assert_int_equal(str_copy(d, sizeof d, "abc"), 3);
  assert_string_equal(d, "abc");
  assert_int_equal(str_copy(d, sizeof d, "abcdefgh"), 4);
  assert_string_equal(d, "abcd");
  assert_int_equal(str_copy(d, 1, "x"), 0);
  assert_string_equal(d, "");
}

static void test_numbers_as_printf(void **state)
{
  (void)state;
  static const uint64_t v[] = { 0, 1, 9, 10, 99, 100, 65535, 4294967296ull, UINT64_MAX };
  char got[21], want[32], hex[17];
  for(size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    snprintf(want, sizeof want, "%llu", (unsigned long long)v[i]);
    assert_int_equal(str_u64(got, v[i]), strlen(want));
    assert_string_equal(got, want);
    snprintf(want, sizeof want, "%016llx", (unsigned long long)v[i]);
    str_hex64(hex, v[i]);
    assert_string_equal(hex, want);
  }
}

static void test_ipv4_as_inet_ntop(void **state)
{
  (void)state;
  unsigned char b[4];
  char got[16], want[INET_ADDRSTRLEN];
  uint32_t x = 2463534242u;   /* xorshift32: a spread of addresses, and the edges */
  for(int i = 0; i < 2000; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    uint32_t a = i == 0 ? 0 : i == 1 ? 0xffffffffu : i == 2 ? 0x0a00000au : x;
    memcpy(b, &a, 4);
    inet_ntop(AF_INET, b, want, sizeof want);
    assert_int_equal(str_ipv4(got, b), strlen(want));
    assert_string_equal(got, want);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_copy_truncates),
    cmocka_unit_test(test_numbers_as_printf),
    cmocka_unit_test(test_ipv4_as_inet_ntop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
