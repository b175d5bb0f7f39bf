/* llfs/req.c: every invalid FetchRequest gets the right status, problem type
 * and field; a valid one becomes canonical, bounded engine input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "llfs/req.c"
#include "common/mem.h"
#include "llfs/req.h"

static const struct llfs_limits lim = {
  .connect_timeout_ms = 5000, .timeout_ms = 30000, .max_body = 1 << 20,
  .max_decoded = 4 << 20, .max_url_len = 2048,
};

static void expect_err(const char *json, unsigned status, const char *type, const char *field)
{
  struct llfs_req r;
  struct llfs_req_err e;
  json_t *j = json_loads(json, 0, NULL);
  assert_non_null(j);
  assert_int_equal(llfs_req_decode(j, &lim, &r, &e), -1);
  assert_int_equal(e.status, status);
  assert_string_equal(e.type, type);
  assert_string_equal(e.e.field, field);
  assert_null(r.url);
  assert_int_equal(r.nheaders, 0);
  json_decref(j);
}

static void test_valid(void **state)
{
  (void)state;
  struct llfs_req r;
  struct llfs_req_err e;
  json_t *j = json_loads("{\"url\":\"HTTP://Site0.TEST:80/a/../b#x\",\"method\":\"HEAD\","
                         "\"headers\":{\"If-None-Match\":\"\\\"v1\\\"\"},\"timeout_ms\":100,"
                         "\"pin_address\":\"127.10.0.1\",\"hold_us\":1500}", 0, NULL);
  assert_int_equal(llfs_req_decode(j, &lim, &r, &e), 0);
  assert_string_equal(r.url, "http://site0.test/b");
  assert_int_equal(r.method, LLFS_HEAD);
  assert_int_equal(r.nheaders, 1);
  assert_string_equal(r.headers[0], "If-None-Match: \"v1\"");
  assert_int_equal(r.timeout_ms, 100);
  assert_int_equal(r.connect_timeout_ms, 5000);  /* default = service limit */
  assert_int_equal(r.max_body, 1 << 20);
  assert_string_equal(r.pin, "127.10.0.1");
  assert_int_equal(r.hold_us, 1500);
  llfs_req_clear(&r);
  json_decref(j);
}

static void test_invalid(void **state)
{
  (void)state;
  expect_err("{}", 422, "invalid-field", "url");
  expect_err("{\"url\":1}", 422, "invalid-field", "url");
  expect_err("{\"url\":\"ftp://a/\"}", 400, "unsupported-scheme", "url");
  expect_err("{\"url\":\"http://a:99999/\"}", 400, "invalid-url", "url");
  expect_err("{\"url\":\"/relative\"}", 400, "invalid-url", "url");
  expect_err("{\"url\":\"http://a/\",\"x\":1}", 422, "invalid-field", "x");
  expect_err("{\"url\":\"http://a/\",\"method\":\"POST\"}", 422, "invalid-field", "method");
  expect_err("{\"url\":\"http://a/\",\"timeout_ms\":30001}", 422, "invalid-field", "timeout_ms");
  expect_err("{\"url\":\"http://a/\",\"timeout_ms\":\"5\"}", 422, "invalid-field", "timeout_ms");
  expect_err("{\"url\":\"http://a/\",\"max_body_bytes\":-1}", 422, "invalid-field",
             "max_body_bytes");
  expect_err("{\"url\":\"http://a/\",\"pin_address\":\"localhost\"}", 422, "invalid-field",
             "pin_address");
  expect_err("{\"url\":\"http://a/\",\"hold_us\":-1}", 422, "invalid-field", "hold_us");
  expect_err("{\"url\":\"http://a/\",\"hold_us\":10000001}", 422, "invalid-field", "hold_us");
  expect_err("{\"url\":\"http://a/\",\"hold_us\":1.5}", 422, "invalid-field", "hold_us");
  expect_err("{\"url\":\"http://a/\",\"headers\":[]}", 422, "invalid-field", "headers");
  expect_err("{\"url\":\"http://a/\",\"headers\":{\"Host\":\"b\"}}", 422, "invalid-field",
             "headers.Host");
  expect_err("{\"url\":\"http://a/\",\"headers\":{\"Proxy-Authorization\":\"b\"}}", 422,
             "invalid-field", "headers.Proxy-Authorization");
  expect_err("{\"url\":\"http://a/\",\"headers\":{\"X-A\":\"b\\r\\nHost: c\"}}", 422,
             "invalid-field", "headers.X-A");
  expect_err("{\"url\":\"http://a/\",\"headers\":{\"Bad Name\":\"b\"}}", 422, "invalid-field",
             "headers.(name)");
  expect_err("{\"url\":\"http://a/\",\"headers\":{\"X-A\":\"ok\",\"X-B\":1}}", 422,
             "invalid-field", "headers.X-B");
}

static void test_url_too_long(void **state)
{
  (void)state;
  char json[3000];
  char path[2100];
  memset(path, 'a', sizeof path - 1);
  path[sizeof path - 1] = '\0';
  snprintf(json, sizeof json, "{\"url\":\"http://a/%s\"}", path);
  expect_err(json, 400, "url-too-long", "url");
}

static void test_no_leak_on_nomem(void **state)
{
  (void)state;
  json_t *j = json_loads("{\"url\":\"http://a/\",\"headers\":{\"A\":\"1\",\"B\":\"2\"}}", 0, NULL);
  for(unsigned long k = 1;; k++) {
    struct llfs_req r;
    struct llfs_req_err e;
    long before = mem_live();
    mem_fail_at(k);
    int rc = llfs_req_decode(j, &lim, &r, &e);
    mem_fail_at(0);
    if(rc == 0)
      llfs_req_clear(&r);
    assert_int_equal(mem_live(), before);
    if(rc == 0)
      break;
  }
  json_decref(j);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_valid),
    cmocka_unit_test(test_invalid),
    cmocka_unit_test(test_url_too_long),
    cmocka_unit_test(test_no_leak_on_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
