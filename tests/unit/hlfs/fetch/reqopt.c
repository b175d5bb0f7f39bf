/* hlfs/fetch/auth.c: a key's user_agent and product_token (checked, their
 * token derived, absent on an old tokens file), and hlfs/fetch/reqopt.c:
 * the allow-list of client headers, a request's options as the queue
 * carries them, and their readers; hlfs/state/pages.c: a variant's key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlfs/fetch/reqopt.c"
#include "hlfs/state/pages.c"
#include "hlfs/fetch/auth.h"
#include "hlfs/fetch/reqopt.h"
#include "hlfs/state/pages.h"
#include "hlfs/state/qenc.h"
#include "tests/unit/hlfs/fetch/auth_file.h"

static void test_identity(void **state)
{
  (void)state;
  char err[256] = "";
  struct auth *a = load("{\"clients\": ["
                        "{\"name\": \"old\", \"token\": \"token-old-1\"},"
                        "{\"name\": \"ua\", \"token\": \"token-ua-1\","
                        " \"user_agent\": \"newsbot/2.0 (+http://x.test/bot)\"},"
                        "{\"name\": \"pt\", \"token\": \"token-pt-1\","
                        " \"user_agent\": \"Mozilla/5.0 (compatible)\", \"product_token\": \"shop-bot\"},"
                        "{\"name\": \"tk\", \"token\": \"token-tk-1\", \"product_token\": \"tokbot\"}]}",
                        err, sizeof err);
  assert_non_null(a);
  const char *ua = "gw/1", *tok = "gw";
  size_t tlen = 2;
  assert_false(auth_identity(a, auth_find(a, "old"), &ua, &tok, &tlen));  /* the gateway's */
  assert_string_equal(ua, "gw/1");
  assert_true(auth_identity(a, auth_find(a, "ua"), &ua, &tok, &tlen));
  assert_string_equal(ua, "newsbot/2.0 (+http://x.test/bot)");
  assert_int_equal(tlen, 7);
  assert_memory_equal(tok, "newsbot", 7);
  assert_true(auth_identity(a, auth_find(a, "pt"), &ua, &tok, &tlen));
  assert_string_equal(ua, "Mozilla/5.0 (compatible)");
  assert_int_equal(tlen, 8);
  assert_memory_equal(tok, "shop-bot", 8);
  ua = "gw/1";
  assert_true(auth_identity(a, auth_find(a, "tk"), &ua, &tok, &tlen));
  assert_string_equal(ua, "gw/1");  /* a token of its own, the gateway's User-Agent */
  assert_memory_equal(tok, "tokbot", 6);
  assert_false(auth_identity(a, NULL, &ua, &tok, &tlen));
  auth_free(&a);
}

static void test_identity_bad(void **state)
{
  (void)state;
  char err[256];
  static const struct {
    const char *json, *says;
  } bad[] = {
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"user_agent\": \"\"}]}",
      "user_agent" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"user_agent\": \"a\\nb\"}]}",
      "user_agent" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"user_agent\": \"/1.0\"}]}",
      "give product_token" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"product_token\": \"a b\"}]}",
      "product_token" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"product_token\": \"bot2\"}]}",
      "product_token" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"product_token\": 3}]}",
      "clients[0]" },
    { "{\"clients\": [{\"name\": \"a\", \"token\": \"token-a-1\", \"user_agent\": \"x/1\"},"
      "{\"name\": \"a\", \"token\": \"token-a-2\"}]}", "user_agent or product_token" },
  };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    struct auth *a = load(bad[i].json, err, sizeof err);
    if(a)
      fail_msg("loaded: %s", bad[i].json);
    if(!strstr(err, bad[i].says))
      fail_msg("\"%s\" does not say \"%s\"", err, bad[i].says);
  }
}

static void test_allow_list(void **state)
{
  (void)state;
  struct reqopt_allow al;
  char err[160];
  assert_int_equal(reqopt_allow_parse(" Accept-Language , Accept,Cookie", &al, err, sizeof err), 0);
  assert_int_equal(al.n, 3);
  assert_string_equal(al.names[0], "accept-language");
  assert_string_equal(al.names[2], "cookie");
  assert_int_equal(reqopt_allow_parse("", &al, err, sizeof err), 0);
  assert_int_equal(al.n, 0);
  static const char *const refused[] = { "Host", "Connection", "proxy-authorization", "If-Match",
                                       "User-Agent", "Transfer-Encoding", "X-Forwarded-For" };
  for(size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    assert_int_equal(reqopt_allow_parse(refused[i], &al, err, sizeof err), -1);
    assert_non_null(strstr(err, "gateway's own"));
  }
  assert_int_equal(reqopt_allow_parse("Accept,Bad Name", &al, err, sizeof err), -1);
  assert_non_null(strstr(err, "Bad Name"));
}

/* Decode a JSON object's options; the field of the error, or "" */
static const char *decode(const struct reqopt_allow *al, const char *json, const char *ident,
                          char *out, size_t outlen)
{
  static struct jin_err e;
  json_t *v = json_loads(json, 0, NULL);
  assert_non_null(v);
  memset(&e, 0, sizeof e);
  int rc = reqopt_decode(al, v, "urls[0]", ident, "cl", out, outlen, &e);
  json_decref(v);
  return rc ? e.field : "";
}

static void test_decode(void **state)
{
  (void)state;
  struct reqopt_allow al;
  char err[160], o[REQOPT_MAX], buf[REQOPT_MAX], id[64];
  const char *h[REQOPT_HEADERS_MAX];
  assert_int_equal(reqopt_allow_parse("Accept,Accept-Language,Cookie", &al, err, sizeof err), 0);
  assert_string_equal(decode(&al, "{}", NULL, o, sizeof o), "");
  assert_string_equal(o, "");  /* nothing: the plain request, no options */
  assert_null(reqopt_variant(o));
  assert_string_equal(decode(&al, "{\"method\": \"HEAD\", \"headers\": {\"Accept\": \"text/html\","
                                  " \"accept-language\": \"fr\"}}", "news", o, sizeof o), "");
  assert_string_equal(o, "knews\x1fmHEAD\x1f" "haccept:text/html\x1f" "haccept-language:fr");
  assert_true(reqopt_head(o));
  assert_true(reqopt_ident(o, id, sizeof id));
  assert_string_equal(id, "news");
  assert_string_equal(reqopt_variant(o), "mHEAD\x1f" "haccept:text/html\x1f" "haccept-language:fr");
  assert_int_equal(reqopt_headers(o, buf, sizeof buf, h, REQOPT_HEADERS_MAX), 2);
  assert_string_equal(h[0], "accept: text/html");
  assert_string_equal(h[1], "accept-language: fr");
  /* the same headers in another order and case: the same options */
  char o2[REQOPT_MAX];
  decode(&al, "{\"headers\": {\"Accept-Language\": \"fr\", \"ACCEPT\": \"text/html\"}}", NULL, o2,
         sizeof o2);
  assert_string_equal(o2, "haccept:text/html\x1f" "haccept-language:fr");
  assert_false(reqopt_head(o2));
  assert_false(reqopt_ident(o2, id, sizeof id));
  /* a secret header makes the variant the client's own */
  decode(&al, "{\"headers\": {\"Cookie\": \"a=b\"}}", NULL, o, sizeof o);
  assert_string_equal(o, "hcookie:a=b\x1focl");
  /* refusals name the field */
  assert_string_equal(decode(&al, "{\"headers\": {\"X-Secret\": \"1\"}}", NULL, o, sizeof o),
                      "urls[0].headers.X-Secret");
  assert_string_equal(decode(&al, "{\"headers\": {\"Host\": \"a\"}}", NULL, o, sizeof o),
                      "urls[0].headers.Host");
  assert_string_equal(decode(&al, "{\"headers\": {\"Accept\": \"\"}}", NULL, o, sizeof o),
                      "urls[0].headers.Accept");
  assert_string_equal(decode(&al, "{\"headers\": {\"Accept\": \"a\\r\\nX: y\"}}", NULL, o, sizeof o),
                      "urls[0].headers.Accept");
  assert_string_equal(decode(&al, "{\"headers\": {\"Accept\": 3}}", NULL, o, sizeof o),
                      "urls[0].headers.Accept");
  assert_string_equal(decode(&al, "{\"headers\": [\"Accept\"]}", NULL, o, sizeof o),
                      "urls[0].headers");
  assert_string_equal(decode(&al, "{\"method\": \"POST\"}", NULL, o, sizeof o), "urls[0].method");
  assert_string_equal(decode(&al, "{\"method\": 1}", NULL, o, sizeof o), "urls[0].method");
  char small[8];
  assert_string_equal(decode(&al, "{\"headers\": {\"Accept\": \"text/html\"}}", NULL, small,
                             sizeof small), "urls[0].headers");
}

static void test_variant_key(void **state)
{
  (void)state;
  char plain[PAGE_KEY_MAX], fr[PAGE_KEY_MAX], de[PAGE_KEY_MAX], none[PAGE_KEY_MAX];
  page_key_owned("http://a.test/x", NULL, plain, sizeof plain);
  page_key_variant("http://a.test/x", "haccept-language:fr", NULL, fr, sizeof fr);
  page_key_variant("http://a.test/x", "haccept-language:de", NULL, de, sizeof de);
  page_key_variant("http://a.test/x", NULL, NULL, none, sizeof none);
  assert_string_equal(none, plain);
  assert_string_not_equal(fr, plain);
  assert_string_not_equal(fr, de);
  assert_int_equal(strncmp(fr, "page:{a.test}:", 14), 0);  /* the URL's shard tag */
  assert_null(page_key_owner(fr));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_identity),
    cmocka_unit_test(test_identity_bad),
    cmocka_unit_test(test_allow_list),
    cmocka_unit_test(test_decode),
    cmocka_unit_test(test_variant_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
