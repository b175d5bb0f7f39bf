/* hlfs/gw/gw_page.c: a stored page as JSON text, written without a JSON tree,
 * must parse as the same members jansson would give: strings escaped
 * (quotes, controls, invalid UTF-8), the stored header list spliced only
 * when it looks like one, the body in base64, the two forms (Page, and
 * the Result of a cache answer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hlfs/gw/gw_page.c"
#include "hlfs/gw/gw.h"
#include "hlfs/state/qenc.h"
#include "hlfs/state/state.h"

/* A page's whole text as the gateway answers it: its head (text_head), then
 * the tail rendered once and kept (text_tail, in the page memo). A Page
 * when rid is NULL, else the Result of a cache answer. */
static cm_err page_text(struct buf *b, const struct page *p, const char *rid, uint64_t now_ms,
                        const char *agent)
{
  cm_err e = text_head(b, p, rid, now_ms);
  return e ? e : text_tail(b, p, agent);
}

static json_t *render(const struct page *p, const char *rid, uint64_t now)
{
  struct buf b;
  json_error_t je;
  buf_init(&b, 1 << 20);
  assert_int_equal(page_text(&b, p, rid, now, NULL), CM_OK);
  json_t *j = json_loadb(b.data, b.len, 0, &je);
  if(!j)
    fail_msg("not JSON (%s): %s", je.text, b.data);
  buf_free(&b);
  return j;
}

static const char *str(json_t *j, const char *k) { return json_string_value(json_object_get(j, k)); }
static json_int_t num(json_t *j, const char *k) { return json_integer_value(json_object_get(j, k)); }

static void test_page_form(void **state)
{
  (void)state;
  static const char body[] = "<p>\x00\xff binary</p>";
  struct page p = { .url = "http://a.test/q?x=\"y\"\\\x01", .outcome = "ok", .status = 200,
                    .fetched_at = 1000, .headers_json = "[[\"ETag\",\"\\\"e\\\"\"]]",
                    .redirect = NULL, .truncated = true, .body = body,
                    .body_len = sizeof body - 1 };
  json_t *j = render(&p, NULL, 62999);
  assert_string_equal(str(j, "url"), p.url);
  assert_string_equal(str(j, "outcome"), "ok");
  assert_int_equal(num(j, "status"), 200);
  assert_int_equal(num(j, "age_s"), 61);
  assert_int_equal(num(j, "fetched_at"), 1000);
  assert_string_equal(json_string_value(json_array_get(json_array_get(json_object_get(j, "headers"), 0), 1)),
                      "\"e\"");
  assert_true(json_is_true(json_object_get(j, "truncated")));
  assert_int_equal(num(j, "body_bytes"), sizeof body - 1);
  assert_string_equal(str(j, "body_base64"), "PHA+AP8gYmluYXJ5PC9wPg==");
  assert_null(json_object_get(j, "redirect"));
  assert_null(json_object_get(j, "id"));
  json_decref(j);
}

/* Freshness to the millisecond: max_age_s N takes copies younger than
 * N s, not up to N + 0.999 s, and 0 takes none (compared in whole seconds,
 * a copy of the last second answered max_age_s 0). */
static void test_page_freshness(void **state)
{
  (void)state;
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 200,
                    .fetched_at = 1000000 };
  assert_false(page_is_fresh(&p, 0, 1000000));
  assert_false(page_is_fresh(&p, 0, 1000400));
  assert_true(page_is_fresh(&p, 1, 1000999));
  assert_false(page_is_fresh(&p, 1, 1001000));
  assert_false(page_is_fresh(&p, 1, 1001500));
  assert_true(page_is_fresh(&p, 60, 1059999));
  assert_false(page_is_fresh(&p, 60, 1060000));
  assert_true(page_is_fresh(&p, UINT64_MAX, 999999999999));  /* any age */
  assert_true(page_is_fresh(&p, 31536000000ull, 999999999));  /* the API's largest */
  assert_true(page_is_fresh(&p, 5, 999000));  /* stored "later" than now: age 0 */
  assert_int_equal(page_age_ms(&p, 1000400), 400);
  assert_int_equal(page_age_s(&p, 1001999), 1);
  p.outcome = "http_error";
  assert_false(page_is_fresh(&p, UINT64_MAX, 1000000));
}

/* X-Robots-Tag lines read for the agent given, both forms alike. */
static void test_robots_tags(void **state)
{
  (void)state;
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 200,
                    .fetched_at = 1000,
                    .headers_json = "[[\"x-robots-tag\",\"otherbot: noindex, wpfs: nofollow\"],"
                                    "[\"X-Robots-Tag\",\"noarchive, unavailable_after: 2010-06-25\"]]",
                    .body = "", .body_len = 0 };
  struct buf b;
  buf_init(&b, 1 << 20);
  assert_int_equal(page_text(&b, &p, NULL, 2000, "wpfs/0.1 (+http://x.test/)"), CM_OK);
  json_t *j = json_loadb(b.data, b.len, 0, NULL);
  assert_non_null(j);
  char *tags = json_dumps(json_object_get(j, "robots_tags"), JSON_COMPACT);
  assert_string_equal(tags, "[\"noindex\",\"nofollow\",\"noarchive\",\"unavailable_after\"]");
  assert_int_equal(num(j, "robots_unavailable_after"), 1277424000000LL);
  free(tags);
  json_decref(j);
  buf_reset(&b);
  p.headers_json = "[[\"X-Robots-Tag\",\"otherbot: noindex\"]]";
  assert_int_equal(page_text(&b, &p, NULL, 2000, "wpfs/0.1"), CM_OK);
  j = json_loadb(b.data, b.len, 0, NULL);
  assert_null(json_object_get(j, "robots_tags"));
  json_decref(j);
  buf_free(&b);
}

static void test_result_form(void **state)
{
  (void)state;
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 301, .fetched_at = 5000,
                    .headers_json = "not json", .redirect = "http://b.test/\xc3(", .body = "",
                    .body_len = 0 };
  json_t *j = render(&p, "req-1", 1000);  /* a clock behind the copy: age 0 */
  assert_string_equal(str(j, "id"), "req-1");
  assert_string_equal(str(j, "outcome"), "cached");
  assert_int_equal(num(j, "attempts"), 0);
  assert_int_equal(num(j, "response_ms"), 0);
  assert_int_equal(num(j, "status"), 301);
  assert_int_equal(num(j, "age_s"), 0);
  assert_int_equal(json_array_size(json_object_get(j, "headers")), 0);
  assert_string_equal(str(j, "redirect"), "http://b.test/\xef\xbf\xbd(");
  assert_string_equal(str(j, "body_base64"), "");
  json_decref(j);
}

static void test_too_large(void **state)
{
  (void)state;
  struct buf b;
  struct page p = { .url = "http://a.test/", .outcome = "ok", .body = "0123456789",
                    .body_len = 10 };
  buf_init(&b, 64);
  assert_int_equal(page_text(&b, &p, NULL, 0, NULL), CM_TOO_LARGE);
  buf_free(&b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_page_form),
    cmocka_unit_test(test_robots_tags),
    cmocka_unit_test(test_page_freshness),
    cmocka_unit_test(test_result_form),
    cmocka_unit_test(test_too_large),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
