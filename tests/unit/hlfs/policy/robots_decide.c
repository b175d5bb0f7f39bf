/* hlfs/policy/robots_decide.c: a verdict from a record's policy status and
 * its parsed rules, and the site's one Crawl-delay over every identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hlfs/policy/robots_decide.c"
#include "hlfs/policy/robots_decide.h"
#include "hlfs/policy/robots_policy.h"

static const char body[] = "User-agent: *\nCrawl-delay: 1.5\nDisallow: /private/\n\n"
                           "User-agent: newsbot\nCrawl-delay: 4\nDisallow: /news/\n\n"
                           "User-agent: quietbot\nDisallow: /q\n";

static struct robots *parse(void)
{
  struct robots *r = NULL;
  struct robots_limits lim = robots_limits_default();
  assert_int_equal(robots_parse(body, strlen(body), &lim, &r), ROBOTS_OK);
  return r;
}

static enum robots_answer decide(int status, const struct robots *r, const char *tok,
                                 const char *target)
{
  struct robots_agent a = { tok, strlen(tok) };
  return robots_decide(status, r, &a, target, strlen(target));
}

static void test_verdicts(void **state)
{
  (void)state;
  struct robots *r = parse();
  assert_int_equal(decide(ROBOTS_P_OK, r, "wpfs", "/private/x"), ROBOTS_DISALLOW);
  assert_int_equal(decide(ROBOTS_P_OK, r, "wpfs", "/news/x?a=b"), ROBOTS_ALLOW);
  assert_int_equal(decide(ROBOTS_P_OK, r, "newsbot", "/news/x"), ROBOTS_DISALLOW);
  assert_int_equal(decide(ROBOTS_P_STALE_FALLBACK, r, "wpfs", "/private/x"), ROBOTS_DISALLOW);
  assert_int_equal(decide(ROBOTS_P_NOT_MODIFIED, r, "wpfs", "/private/x"), ROBOTS_DISALLOW);
  /* statuses without rules: the body is not read */
  assert_int_equal(decide(ROBOTS_P_UNAVAILABLE_ALLOW, r, "wpfs", "/private/x"), ROBOTS_ALLOW);
  assert_int_equal(decide(ROBOTS_P_REDIRECT_LIMIT, NULL, "wpfs", "/private/x"), ROBOTS_ALLOW);
  assert_int_equal(decide(ROBOTS_P_UNREACHABLE_ALLOW, NULL, "wpfs", "/x"), ROBOTS_ALLOW);
  assert_int_equal(decide(ROBOTS_P_UNREACHABLE_DISALLOW, r, "wpfs", "/x"), ROBOTS_UNAVAILABLE);
  /* rules that could not be had */
  assert_int_equal(decide(ROBOTS_P_OK, NULL, "wpfs", "/x"), ROBOTS_UNAVAILABLE);
  assert_true(robots_has_rules(ROBOTS_P_OK));
  assert_false(robots_has_rules(ROBOTS_P_UNAVAILABLE_ALLOW));
  robots_free(&r);
}

static void test_delay_strictest(void **state)
{
  (void)state;
  struct robots *r = parse();
  const struct robots_agent ids[] = { { "wpfs", 4 }, { "newsbot", 7 }, { "quietbot", 8 } };
  assert_int_equal(robots_delay_ms(r, ids, 1), 1500);
  assert_int_equal(robots_delay_ms(r, ids, 2), 4000);  /* newsbot's is the site's */
  assert_int_equal(robots_delay_ms(r, ids + 2, 1), 0);  /* its group sets none */
  assert_int_equal(robots_delay_ms(r, ids, 3), 4000);
  assert_int_equal(robots_delay_ms(NULL, ids, 3), 0);
  assert_int_equal(robots_delay_ms(r, ids, 0), 0);
  robots_free(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_verdicts),
    cmocka_unit_test(test_delay_strictest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
