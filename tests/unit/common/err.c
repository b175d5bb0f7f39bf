/* common/err.h: the name and text functions ERR_DEFINE_NAME and
 * ERR_DEFINE_TEXT make from each error table (url, crawl, robots, store,
 * the fetch outcome): every row read in enum order, the row put in front
 * for a 0 outside the table, "unknown" outside it; and the one
 * out-of-memory row: nomem in every table, no_memory for the outcome,
 * whose names are its API; and crawl_from_cm, the one mapping of a
 * common-library code into the crawlers'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.c"
#include "clients/base/crawl_err.h"
#include "common/err.h"
#include "common/url.h"
#include "hlfs/policy/robots.h"
#include "hlfs/state/store.h"
#include "llfs/outcome.h"

/* A table of our own, read through the generated functions. */
#define T_ROWS(X)                   \
  X(OK,    ok,    "all well")       \
  ERR_NOMEM(X)                      \
  X(SLOW,  slow,  "took too long")
typedef enum {
#define X(e, name, txt) T_##e,
  T_ROWS(X)
#undef X
  T__LAST
} t_err;
static ERR_DEFINE_NAME(t_err_name, t_err, T_ROWS)
static ERR_DEFINE_TEXT(t_err_text, t_err, T_ROWS, ERR_TEXT_OF)

static void test_generated(void **st)
{
  (void)st;
  const char *names[] = { "ok", "nomem", "slow" };
  const char *texts[] = { "all well", "out of memory", "took too long" };
  for(int i = 0; i < T__LAST; i++) {
    assert_string_equal(t_err_name((t_err)i), names[i]);
    assert_string_equal(t_err_text((t_err)i), texts[i]);
  }
  assert_string_equal(t_err_name(T__LAST), "unknown");
  assert_string_equal(t_err_name((t_err)-1), "unknown");
  assert_string_equal(t_err_text(T__LAST), "unknown error");
}

/* Each table's rows in enum order: the names that reach logs and APIs. */
static void test_tables(void **st)
{
  (void)st;
  assert_string_equal(url_err_name(URL_OK), "ok");
  assert_string_equal(url_err_text(URL_OK), "no error");
  assert_string_equal(url_err_name(URL_ERR_TOO_LONG), "too_long");
  assert_string_equal(url_err_name(URL_ERR_NOT_CANONICAL), "not_canonical");
  assert_string_equal(url_err_text(URL_ERR_NO_HOST), "no host");
  assert_string_equal(crawl_err_name(CRAWL_OK), "ok");
  assert_string_equal(crawl_err_text(CRAWL_OK), "success");
  assert_string_equal(crawl_err_name(CRAWL_ERR_LOCKED), "locked");
  assert_string_equal(crawl_err_text(CRAWL_ERR_FULL), "memory budget exhausted");
  assert_string_equal(crawl_err_name(CRAWL_ERR__LAST), "unknown");
  assert_string_equal(robots_err_text(ROBOTS_INVALID), "invalid argument");
  assert_string_equal(robots_err_text(ROBOTS__LAST), "unknown error");
  assert_string_equal(store_err_text(STORE_CLOSED), "store closed");
  assert_string_equal(store_err_text(STORE_TIMEOUT), "redis did not answer in time");
  assert_string_equal(outcome_name(OUTCOME_BAD_REQUEST), "bad_request");
  assert_string_equal(outcome_text(OUTCOME_OK), "an HTTP response was received");
}

/* Out of memory: one row, the same name and text in every table but the
 * outcome's, which keeps its wire name. */
static void test_nomem(void **st)
{
  (void)st;
  assert_string_equal(url_err_name(URL_ERR_NOMEM), "nomem");
  assert_string_equal(crawl_err_name(CRAWL_ERR_NOMEM), "nomem");
  assert_string_equal(url_err_text(URL_ERR_NOMEM), "out of memory");
  assert_string_equal(crawl_err_text(CRAWL_ERR_NOMEM), "out of memory");
  assert_string_equal(robots_err_text(ROBOTS_NOMEM), "out of memory");
  assert_string_equal(store_err_text(STORE_NOMEM), "out of memory");
  assert_string_equal(outcome_name(OUTCOME_NOMEM), "no_memory");
  assert_string_equal(outcome_text(OUTCOME_NOMEM), "out of memory");
}

/* The one mapping of a common-library code into the crawlers'. */
static void test_crawl_from_cm(void **st)
{
  (void)st;
  assert_int_equal(crawl_from_cm(CM_OK), CRAWL_OK);
  assert_int_equal(crawl_from_cm(CM_NOMEM), CRAWL_ERR_NOMEM);
  assert_int_equal(crawl_from_cm(CM_TOO_LARGE), CRAWL_ERR_TOO_LARGE);
  assert_int_equal(crawl_from_cm(CM_INVALID), CRAWL_ERR_TOO_LARGE);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_generated),
    cmocka_unit_test(test_tables),
    cmocka_unit_test(test_nomem),
    cmocka_unit_test(test_crawl_from_cm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
