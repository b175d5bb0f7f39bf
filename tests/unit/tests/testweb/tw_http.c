/* tests/testweb/tw_http.c: the request-head parser testweb speaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/testweb/tw_http.c"
#include "common/mem.h"
#include "tests/testweb/tw_http.h"

static tw_err parse(const char *s, struct tw_req *r)
{
  return tw_http_parse(s, strlen(s), 4096, r);
}

static void test_complete_request(void **state)
{
  (void)state;
  struct tw_req r;
  const char *s = "GET /a?b=1 HTTP/1.1\r\nHost: site1.test:8080\r\nUser-Agent: crawler/1\r\n"
                  "If-None-Match: \"x\"\r\nIf-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
                  "\r\nNEXT";
  assert_int_equal(parse(s, &r), TW_OK);
  assert_int_equal(r.method, TW_M_GET);
  assert_true(tw_str_ieq(r.target, "/a?b=1"));
  assert_true(tw_str_ieq(r.host, "site1.test:8080"));
  assert_true(tw_str_ieq(r.ua, "crawler/1"));
  assert_true(tw_str_ieq(r.inm, "\"x\""));
  assert_true(tw_str_ieq(r.ims, "Mon, 01 Jan 2024 00:00:00 GMT"));
  assert_int_equal(r.head_len, strlen(s) - 4);
  assert_true(r.keep_alive);
  assert_int_equal(r.content_length, -1);
}

static void test_incomplete_and_too_large(void **state)
{
  (void)state;
  struct tw_req r;
  const char *s = "GET / HTTP/1.1\r\nHost: x\r\n";
  assert_int_equal(parse(s, &r), TW_AGAIN);
  assert_int_equal(tw_http_parse(s, strlen(s), 10, &r), TW_TOO_LARGE);
  /* The end of the head beyond max does not count. */
  const char *t = "GET / HTTP/1.1\r\n\r\n";
  assert_int_equal(tw_http_parse(t, strlen(t), 17, &r), TW_TOO_LARGE);
  assert_int_equal(tw_http_parse(t, strlen(t), 18, &r), TW_OK);
}

static void test_bad_heads(void **state)
{
  (void)state;
  struct tw_req r;
  assert_int_equal(parse("GET /\r\n\r\n", &r), TW_BAD_REQUEST);
  assert_int_equal(parse("GET / HTTP/2.0\r\n\r\n", &r), TW_BAD_REQUEST);
  assert_int_equal(parse(" / HTTP/1.1\r\n\r\n", &r), TW_BAD_REQUEST);
  assert_int_equal(parse("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", &r), TW_BAD_REQUEST);
  assert_int_equal(parse("GET / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", &r),
                   TW_BAD_REQUEST);
  assert_int_equal(parse("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &r), TW_BAD_REQUEST);
  assert_int_equal(parse("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", &r), TW_BAD_REQUEST);
}

static void test_keep_alive_rules(void **state)
{
  (void)state;
  struct tw_req r;
  assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n", &r), TW_OK);
  assert_false(r.keep_alive);
  assert_int_equal(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &r), TW_OK);
  assert_true(r.keep_alive);
  assert_int_equal(parse("GET / HTTP/1.1\r\nconnection: Close\r\n\r\n", &r), TW_OK);
  assert_false(r.keep_alive);
}

static void test_lf_only_and_leading_crlf(void **state)
{
  (void)state;
  struct tw_req r;
  const char *s = "\r\n\r\nHEAD /x HTTP/1.1\nHost: a\n\n";
  assert_int_equal(parse(s, &r), TW_OK);
  assert_int_equal(r.method, TW_M_HEAD);
  assert_true(tw_str_ieq(r.host, "a"));
  assert_int_equal(r.head_len, strlen(s));
}

static void test_body_headers(void **state)
{
  (void)state;
  struct tw_req r;
  assert_int_equal(parse("POST /p HTTP/1.1\r\nContent-Length: 12\r\n\r\n", &r), TW_OK);
  assert_int_equal(r.method, TW_M_POST);
  assert_int_equal(r.content_length, 12);
  assert_int_equal(parse("PUT /p HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", &r), TW_OK);
  assert_true(r.chunked);
  assert_int_equal(parse("BREW /pot HTTP/1.1\r\n\r\n", &r), TW_OK);
  assert_int_equal(r.method, TW_M_OTHER);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_complete_request),
    cmocka_unit_test(test_incomplete_and_too_large),
    cmocka_unit_test(test_bad_heads),
    cmocka_unit_test(test_keep_alive_rules),
    cmocka_unit_test(test_lf_only_and_leading_crlf),
    cmocka_unit_test(test_body_headers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
