/* api/: routing, JSON input validation and problem answers, driven through
 * test requests (no socket), as handlers see them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/route.c"
#include "api/req.c"
#include "api/jin.h"
#include "api/metrics.h"
#include "api/route.h"
#include "api/req_test.h"
#include "api/srv.h"
#include "common/mem.h"

static void h_dummy(struct api_req *rq, void *arg) { (void)rq; (void)arg; }

static const struct api_route routes[] = {
  { "POST", "/v1/fetch", h_dummy, "fetch" },
  { "GET", "/v1/sites/{}", h_dummy, "site" },
  { "DELETE", "/v1/sites/{}", h_dummy, "site_delete" },
  { "GET", "/v1/sites/{}/robots", h_dummy, "robots" },
};
#define NR (sizeof routes / sizeof routes[0])

static void test_route_match(void **state)
{
  (void)state;
  size_t idx;
  char *p[4];
  unsigned np;
  char allow[64];
  assert_int_equal(route_match(routes, NR, "GET", "/v1/sites/a.test", &idx, p, 4, &np, allow,
                               sizeof allow), ROUTE_FOUND);
  assert_int_equal(idx, 1);
  assert_int_equal(np, 1);
  assert_string_equal(p[0], "a.test");
  mem_free(p[0]);
  assert_int_equal(route_match(routes, NR, "GET", "/v1/sites/a.test/robots", &idx, p, 4, &np,
                               allow, sizeof allow), ROUTE_FOUND);
  assert_int_equal(idx, 3);
  mem_free(p[0]);
}

static void test_route_errors(void **state)
{
  (void)state;
  size_t idx;
  char *p[4];
  unsigned np;
  char allow[64];
  assert_int_equal(route_match(routes, NR, "PUT", "/v1/sites/x", &idx, p, 4, &np, allow,
                               sizeof allow), ROUTE_BAD_METHOD);
  assert_string_equal(allow, "GET, DELETE");
  assert_int_equal(route_match(routes, NR, "GET", "/v1/sites/", &idx, p, 4, &np, allow,
                               sizeof allow), ROUTE_NOT_FOUND);
  assert_int_equal(route_match(routes, NR, "GET", "/v1/fetchx", &idx, p, 4, &np, allow,
                               sizeof allow), ROUTE_NOT_FOUND);
}

/* A handler reading {"url": string, "timeout_ms": 1..60000}. */
static void h_fetch(struct api_req *rq, void *arg)
{
  (void)arg;
  static const char *const known[] = { "url", "timeout_ms", NULL };
  struct jin_err e;
  const char *url = NULL;
  long long t = 1000;
  json_t *j = jin_body(rq);
  if(!j)
    return;
  if(jin_only(j, "", known, &e) || jin_str(j, "", "url", true, 2048, &url, &e) ||
     jin_int(j, "", "timeout_ms", false, 1, 60000, &t, &e)) {
    jin_reply(rq, &e);
    json_decref(j);
    return;
  }
  api_reply_json(rq, 200, json_pack("{s:s, s:I}", "url", url, "timeout_ms", (json_int_t)t));
  json_decref(j);
}

static json_t *run(const char *body, unsigned want_status)
{
  struct api_req *rq = api_req_test_new("POST", "/v1/fetch", body);
  api_req_test_set_header(rq, "Content-Type", "application/json");
  h_fetch(rq, NULL);
  assert_int_equal(api_req_test_status(rq), want_status);
  json_t *j = json_loads(rq->resp_body, 0, NULL);
  assert_non_null(j);
  api_req_test_free(&rq);
  return j;
}

static void test_jin_ok(void **state)
{
  (void)state;
  json_t *j = run("{\"url\":\"http://a/\",\"timeout_ms\":5}", 200);
  assert_int_equal(json_integer_value(json_object_get(j, "timeout_ms")), 5);
  json_decref(j);
}

static void expect_field(const char *body, unsigned status, const char *type, const char *field)
{
  json_t *j = run(body, status);
  assert_string_equal(json_string_value(json_object_get(j, "type")), type);
  assert_int_equal(json_integer_value(json_object_get(j, "status")), status);
  if(field)
    assert_string_equal(json_string_value(json_object_get(j, "field")), field);
  json_decref(j);
}

static void test_jin_errors(void **state)
{
  (void)state;
  expect_field("{\"url\":", 400, "urn:wpfs:problem:invalid-json", NULL);
  expect_field("[1]", 400, "urn:wpfs:problem:invalid-json", NULL);
  expect_field("{}", 422, "urn:wpfs:problem:invalid-field", "url");
  expect_field("{\"url\":5}", 422, "urn:wpfs:problem:invalid-field", "url");
  expect_field("{\"url\":\"x\",\"timeout_ms\":0}", 422, "urn:wpfs:problem:invalid-field",
               "timeout_ms");
  expect_field("{\"url\":\"x\",\"timeout_ms\":1.5}", 422, "urn:wpfs:problem:invalid-field",
               "timeout_ms");
  expect_field("{\"url\":\"x\",\"bogus\":1}", 422, "urn:wpfs:problem:invalid-field", "bogus");
  expect_field("{\"url\":\"x\",\"url\":\"y\"}", 400, "urn:wpfs:problem:invalid-json", NULL);
  /* null is not "absent": no member of the contract is nullable */
  expect_field("{\"url\":null}", 422, "urn:wpfs:problem:invalid-field", "url");
  expect_field("{\"url\":\"x\",\"timeout_ms\":null}", 422, "urn:wpfs:problem:invalid-field",
               "timeout_ms");
}

static void test_jin_media_type(void **state)
{
  (void)state;
  struct api_req *rq = api_req_test_new("POST", "/v1/fetch", "{}");
  api_req_test_set_header(rq, "Content-Type", "text/plain");
  h_fetch(rq, NULL);
  assert_int_equal(api_req_test_status(rq), 415);
  api_req_test_free(&rq);
}

static void test_metrics_histogram(void **state)
{
  (void)state;
  struct metrics_lat h = { 0 };
  struct buf b;
  buf_init(&b, 1 << 16);
  metrics_lat_add(&h, 300);      /* 0.3 ms: first bucket */
  metrics_lat_add(&h, 20000000); /* 20 s: +Inf */
  metrics_lat_write(&b, "x_seconds", "r=\"a\"", &h);
  assert_non_null(strstr(b.data, "x_seconds_bucket{r=\"a\",le=\"0.0005\"} 1\n"));
  assert_non_null(strstr(b.data, "x_seconds_bucket{r=\"a\",le=\"10\"} 1\n"));
  assert_non_null(strstr(b.data, "x_seconds_bucket{r=\"a\",le=\"+Inf\"} 2\n"));
  assert_non_null(strstr(b.data, "x_seconds_count{r=\"a\"} 2\n"));
  buf_free(&b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_route_match),
    cmocka_unit_test(test_route_errors),
    cmocka_unit_test(test_jin_ok),
    cmocka_unit_test(test_jin_errors),
    cmocka_unit_test(test_jin_media_type),
    cmocka_unit_test(test_metrics_histogram),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
