/* common/robots_tag.c: X-Robots-Tag values and meta robots contents, per
 * agent, with the dates of unavailable_after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/robots_tag.c"
#include "common/robots_tag.h"

static unsigned hdr(const char *v, const char *agent)
{
  struct robots_tag t = { 0, 0 };
  robots_tag_header(&t, v, strlen(v), agent, agent ? strlen(agent) : 0);
  return t.bits;
}

static void test_plain(void **state)
{
  (void)state;
  assert_int_equal(hdr("noindex", "wpfs"), ROBOTS_TAG_NOINDEX);
  assert_int_equal(hdr("NoFollow", "wpfs"), ROBOTS_TAG_NOFOLLOW);
  assert_int_equal(hdr(" noindex ,nofollow", "wpfs"), ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOFOLLOW);
  assert_int_equal(hdr("none", "wpfs"), ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOFOLLOW);
  assert_int_equal(hdr("noarchive", NULL), ROBOTS_TAG_NOARCHIVE);
  assert_int_equal(hdr("nocache", NULL), ROBOTS_TAG_NOARCHIVE);
  assert_int_equal(hdr("all, index, follow, max-snippet: 20, noindexx, ", "wpfs"), 0);
  assert_int_equal(hdr("", "wpfs"), 0);
  assert_int_equal(hdr(",,,", "wpfs"), 0);
}

static void test_per_agent(void **state)
{
  (void)state;
  assert_int_equal(hdr("wpfs: nofollow", "wpfs"), ROBOTS_TAG_NOFOLLOW);
  assert_int_equal(hdr("WPFS : nofollow", "wpfs"), ROBOTS_TAG_NOFOLLOW);
  assert_int_equal(hdr("googlebot: nofollow", "wpfs"), 0);
  assert_int_equal(hdr("googlebot: nofollow", NULL), 0);
  assert_int_equal(hdr("googlebot: nofollow", "googlebot"), ROBOTS_TAG_NOFOLLOW);
  /* a token that only starts like the agent is another agent */
  assert_int_equal(hdr("wpfs-news: noindex", "wpfs"), 0);
  /* a scope runs until the next name */
  assert_int_equal(hdr("noarchive, otherbot: nofollow, noindex", "wpfs"), ROBOTS_TAG_NOARCHIVE);
  assert_int_equal(hdr("otherbot: nofollow, noindex, wpfs: noarchive", "wpfs"),
                   ROBOTS_TAG_NOARCHIVE);
  assert_int_equal(hdr("otherbot: nofollow, noindex, wpfs: noarchive", "otherbot"),
                   ROBOTS_TAG_NOFOLLOW | ROBOTS_TAG_NOINDEX);
  /* a valued directive is not an agent's name */
  assert_int_equal(hdr("max-snippet: 0, noindex", "wpfs"), ROBOTS_TAG_NOINDEX);
}

static void test_meta(void **state)
{
  (void)state;
  struct robots_tag t = { 0, 0 };
  const char *c = "noindex, googlebot: nofollow";  /* no scopes in a meta */
  robots_tag_meta(&t, c, strlen(c));
  assert_int_equal(t.bits, ROBOTS_TAG_NOINDEX);
  assert_true(robots_tag_meta_for("robots", "wpfs", 4));
  assert_true(robots_tag_meta_for(" ROBOTS", NULL, 0));
  assert_true(robots_tag_meta_for("WpFs", "wpfs", 4));
  assert_false(robots_tag_meta_for("googlebot", "wpfs", 4));
  assert_false(robots_tag_meta_for("wpfs", NULL, 0));
  assert_false(robots_tag_meta_for("description", "wpfs", 4));
}

static int64_t after(const char *v, const char *agent)
{
  struct robots_tag t = { 0, 0 };
  robots_tag_header(&t, v, strlen(v), agent, strlen(agent));
  return (t.bits & ROBOTS_TAG_UNAVAILABLE_AFTER) ? t.unavailable_after : -1;
}

static void test_unavailable_after(void **state)
{
  (void)state;
  const int64_t want = 1277478000;  /* 2010-06-25 15:00:00 UTC */
  assert_int_equal(after("unavailable_after: 25 Jun 2010 15:00:00 GMT", "a"), want);
  assert_int_equal(after("unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT", "a"), want);
  assert_int_equal(after("unavailable_after: Friday, 25-Jun-10 15:00:00 GMT, noindex", "a"),
                   want);
  assert_int_equal(after("unavailable_after: 25 Jun 2010 07:00:00 PST", "a"), want);
  assert_int_equal(after("unavailable_after: 2010-06-25T15:00:00Z", "a"), want);
  assert_int_equal(after("unavailable_after: 2010-06-25T17:00:00+02:00", "a"), want);
  assert_int_equal(after("unavailable_after: 2010-06-25", "a"), want - 15 * 3600);
  assert_int_equal(after("a: unavailable_after: 2010-06-25T15:00:00Z", "a"), want);
  assert_int_equal(after("b: unavailable_after: 2010-06-25T15:00:00Z", "a"), -1);
  assert_int_equal(after("unavailable_after: someday", "a"), -1);
  assert_int_equal(after("unavailable_after:", "a"), -1);
  /* the earliest of two */
  assert_int_equal(after("unavailable_after: 2011-01-01, unavailable_after: 2010-06-25T15:00:00Z",
                         "a"), want);
  struct robots_tag t = { 0, 0 };
  const char *v = "unavailable_after: 2010-06-25T15:00:00Z";
  robots_tag_header(&t, v, strlen(v), "a", 1);
  robots_tag_at(&t, want - 1);
  assert_int_equal(t.bits, ROBOTS_TAG_UNAVAILABLE_AFTER);
  robots_tag_at(&t, want);
  assert_int_equal(t.bits, ROBOTS_TAG_UNAVAILABLE_AFTER | ROBOTS_TAG_NOINDEX);
  /* the weekday-comma rule does not swallow a directive after a full date */
  assert_int_equal(hdr("unavailable_after: 2010-06-25, nofollow", "a"),
                   ROBOTS_TAG_UNAVAILABLE_AFTER | ROBOTS_TAG_NOFOLLOW);
}

static void test_names(void **state)
{
  (void)state;
  for(unsigned b = 1; b <= ROBOTS_TAG_UNAVAILABLE_AFTER; b <<= 1) {
    assert_non_null(robots_tag_name(b));
    assert_int_equal(robots_tag_bit(robots_tag_name(b)), b);
  }
  assert_null(robots_tag_name(3));
  assert_int_equal(robots_tag_bit("none"), 0);
}

static void test_unterminated_input(void **state)
{
  (void)state;
  /* values are read in place: nothing past n */
  char v[] = "noindexXX";
  struct robots_tag t = { 0, 0 };
  robots_tag_header(&t, v, 7, "wpfs", 4);
  assert_int_equal(t.bits, ROBOTS_TAG_NOINDEX);
  t.bits = 0;
  robots_tag_header(&t, v, 6, "wpfs", 4);
  assert_int_equal(t.bits, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_plain),
    cmocka_unit_test(test_per_agent),
    cmocka_unit_test(test_meta),
    cmocka_unit_test(test_unavailable_after),
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_unterminated_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
