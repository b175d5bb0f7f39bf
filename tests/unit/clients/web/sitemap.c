/* clients/web/sitemap.c: a lastmod in every W3C Datetime form, and what
 * is not one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "clients/web/sitemap.c"
#include "clients/web/sitemap.h"

static void test_sitemap_date(void **state)
{
  (void)state;
  static const struct { const char *s; int64_t want; } cases[] = {
    { "2024", 1704067200 }, { "2024-02", 1706745600 }, { "2024-01-02", 1704153600 },
    { "2024-01-02T00:00Z", 1704153600 }, { "2024-01-02T01:30:15.25Z", 1704159015 },
    { "2024-01-02T00:00:00-01:00", 1704157200 }, { " 2024-01-02 ", 1704153600 },
    { "2024-13-01", -1 }, { "2024-1-02", -1 }, { "24-01-02", -1 }, { "2024-01-02T", -1 },
    { "2024-01-02T00:00:00+0100", -1 }, { "", -1 }, { "2024-01-02x", -1 },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t got = sitemap_date(cases[i].s, strlen(cases[i].s));
    if(got != cases[i].want)
      fail_msg("%s: %lld, want %lld", cases[i].s, (long long)got, (long long)cases[i].want);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sitemap_date),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
