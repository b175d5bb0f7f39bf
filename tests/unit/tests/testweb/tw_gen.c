/* tests/testweb/tw_gen.c: the names and addresses of generated sites,
 * 250 to a /24 of 127.10.0.0/16. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/testweb/tw_gen.c"
#include "tests/testweb/tw_gen.h"
#include "tests/testweb/tw_world.h"

static void test_generated_names(void **state)
{
  (void)state;
  static const struct { size_t i; const char *name, *addr; } tab[] = {
    { 0, "site0.test", "127.10.0.1" },       { 249, "site249.test", "127.10.0.250" },
    { 250, "site250.test", "127.10.1.1" },   { 63999, "site63999.test", "127.10.255.250" },
  };
  for(size_t k = 0; k < 4; k++) {
    char name[32], addr[16];
    uint32_t a;
    tw_gen_name(tab[k].i, name, sizeof name, &a);
    tw_addr_format(a, addr);
    assert_string_equal(name, tab[k].name);
    assert_string_equal(addr, tab[k].addr);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_generated_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
