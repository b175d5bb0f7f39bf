/* hlfs/gw/gw_page.c: a stored page as JSON text, written without a JSON tree,
 * must parse as the same members jansson would give: strings escaped
 * (quotes, controls, invalid UTF-8), the stored header list spliced only
 * when it looks like one, the body in base64, the two forms (Page, and
 * the Result of a cache answer). Also hlfs/gw/page_memo.c and
 * hlfs/fetch/fresh_pages.c. */
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
#include "hlfs/fetch/fresh_pages.h"
#include "hlfs/gw/page_memo.h"
#include "hlfs/state/qenc.h"
#include "hlfs/state/state.h"

static json_t *render(const struct page *p, const char *rid, uint64_t now)
{
  struct buf b;
  json_error_t je;
  buf_init(&b, 1 << 20);
  assert_int_equal(gw_page_text(&b, p, rid, now, NULL), CM_OK);
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
  assert_int_equal(gw_page_text(&b, &p, NULL, 2000, "wpfs/0.1 (+http://x.test/)"), CM_OK);
  json_t *j = json_loadb(b.data, b.len, 0, NULL);
  assert_non_null(j);
  char *tags = json_dumps(json_object_get(j, "robots_tags"), JSON_COMPACT);
  assert_string_equal(tags, "[\"noindex\",\"nofollow\",\"noarchive\",\"unavailable_after\"]");
  assert_int_equal(num(j, "robots_unavailable_after"), 1277424000000LL);
  free(tags);
  json_decref(j);
  buf_reset(&b);
  p.headers_json = "[[\"X-Robots-Tag\",\"otherbot: noindex\"]]";
  assert_int_equal(gw_page_text(&b, &p, NULL, 2000, "wpfs/0.1"), CM_OK);
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
  assert_int_equal(gw_page_text(&b, &p, NULL, 0, NULL), CM_TOO_LARGE);
  buf_free(&b);
}

/* page_memo: kept by key, replaced, dropped, bounded by bytes (least
 * recently used first), never without a hash, nothing at max_bytes 0. */
static void test_page_memo(void **state)
{
  (void)state;
  char tail[1000];
  memset(tail, 'x', sizeof tail);
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 200,
                    .fetched_at = 7, .hash = "abc" }, head;
  const char *t;
  size_t tn;
  struct page_memo_stats st;
  struct page_memo *m = page_memo_new(3500);  /* three entries of ~1.1 KB */
  assert_false(page_memo_get(m, "k1", &head, &t, &tn));
  assert_true(page_memo_put(m, "k1", &p, tail, 100));
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));
  assert_string_equal(head.url, p.url);
  assert_string_equal(head.hash, "abc");
  assert_int_equal(head.fetched_at, 7);
  assert_int_equal(tn, 100);
  p.hash = "def";
  assert_true(page_memo_put(m, "k1", &p, tail, sizeof tail));  /* replaces */
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));
  assert_string_equal(head.hash, "def");
  assert_int_equal(tn, sizeof tail);
  assert_true(page_memo_put(m, "k2", &p, tail, sizeof tail));
  assert_true(page_memo_put(m, "k3", &p, tail, sizeof tail));
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));  /* k2 is now the oldest */
  assert_true(page_memo_put(m, "k4", &p, tail, sizeof tail));
  assert_false(page_memo_get(m, "k2", &head, &t, &tn));
  assert_true(page_memo_get(m, "k1", &head, &t, &tn));
  page_memo_stats(m, &st);
  assert_int_equal(st.entries, 3);
  assert_int_equal(st.evictions, 1);
  assert_true(st.bytes <= 3500);
  page_memo_drop(m, "k1");
  assert_false(page_memo_get(m, "k1", &head, &t, &tn));
  assert_false(page_memo_put(m, "big", &p, tail, 4000));
  p.hash = NULL;
  assert_false(page_memo_put(m, "k5", &p, tail, 10));
  page_memo_free(&m);
  p.hash = "abc";
  m = page_memo_new(0);
  assert_false(page_memo_put(m, "k1", &p, tail, 10));
  assert_false(page_memo_get(m, "k1", &head, &t, &tn));
  page_memo_free(&m);
}

/* fresh_pages: a copy given only to the result of the fetch that made it,
 * byte for byte (a body with NULs too), replaced by a newer fetch,
 * dropped, bounded by bytes (least recently used first), nothing at
 * max_bytes 0. */
static void test_fresh_pages(void **state)
{
  (void)state;
  char body[1000];
  memset(body, 'b', sizeof body);
  body[10] = '\0';
  struct page p = { .url = "http://a.test/", .outcome = "ok", .status = 200, .fetched_at = 7,
                    .headers_json = "[[\"a\",\"b\"]]", .body = body, .body_len = sizeof body },
              out;
  struct fresh_pages_stats st;
  struct fresh_pages *f = fresh_pages_new(4000);  /* three entries of ~1.2 KB */
  assert_false(fresh_pages_get(f, "k1", "0-1", &out));
  fresh_pages_put(f, "k1", "0-1", &p);
  assert_false(fresh_pages_get(f, "k1", "0-2", &out));  /* another request's result */
  assert_false(fresh_pages_get(f, "k1", NULL, &out));
  assert_true(fresh_pages_get(f, "k1", "0-1", &out));
  assert_string_equal(out.url, p.url);
  assert_string_equal(out.headers_json, p.headers_json);
  assert_null(out.redirect);
  assert_true(out.verified);
  assert_int_equal(out.fetched_at, 7);
  assert_int_equal(out.body_len, sizeof body);
  assert_memory_equal(out.body, body, sizeof body);
  fresh_pages_put(f, "k1", "0-3", &p);  /* a newer fetch of the URL */
  assert_false(fresh_pages_get(f, "k1", "0-1", &out));
  assert_true(fresh_pages_get(f, "k1", "0-3", &out));
  fresh_pages_put(f, "k2", "0-4", &p);
  fresh_pages_put(f, "k3", "0-5", &p);
  assert_true(fresh_pages_get(f, "k1", "0-3", &out));  /* k2 is now the oldest */
  fresh_pages_put(f, "k4", "0-6", &p);
  assert_false(fresh_pages_get(f, "k2", "0-4", &out));
  fresh_pages_stats(f, &st);
  assert_int_equal(st.entries, 3);
  assert_int_equal(st.evictions, 1);
  assert_true(st.bytes <= 4000);
  fresh_pages_drop(f, "k1");
  assert_false(fresh_pages_get(f, "k1", "0-3", &out));
  p.body_len = 4100;  /* larger than the bound: not kept, nothing evicted for it */
  char big[4100] = { 0 };
  p.body = big;
  fresh_pages_put(f, "k5", "0-7", &p);
  assert_false(fresh_pages_get(f, "k5", "0-7", &out));
  assert_true(fresh_pages_get(f, "k3", "0-5", &out));
  fresh_pages_free(&f);
  assert_null(f);
  f = fresh_pages_new(0);
  fresh_pages_put(f, "k1", "0-1", &p);
  assert_false(fresh_pages_get(f, "k1", "0-1", &out));
  fresh_pages_free(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_page_form),
    cmocka_unit_test(test_robots_tags),
    cmocka_unit_test(test_fresh_pages),
    cmocka_unit_test(test_page_freshness),
    cmocka_unit_test(test_result_form),
    cmocka_unit_test(test_too_large),
    cmocka_unit_test(test_page_memo),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
