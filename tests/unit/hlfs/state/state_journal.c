/* hlfs/state/state_journal.c: what a replica keeps of its recent
 * politeness writes, to write again after a failover. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hlfs/state/state_journal.c"
#include "common/clock.h"
#include "hlfs/state/state_int.h"

struct seen {
  size_t n;
  char   site[8][32], token[8][32];
  uint64_t ll[8], nl[8];
};

static int collect(void *arg, const char *site, const char *token, uint64_t ll, uint64_t nl)
{
  struct seen *s = arg;
  if(s->n < 8) {
    snprintf(s->site[s->n], sizeof s->site[0], "%s", site);
    snprintf(s->token[s->n], sizeof s->token[0], "%s", token);
    s->ll[s->n] = ll;
    s->nl[s->n] = nl;
  }
  s->n++;
  return 0;
}

static const struct seen *find(const struct seen *s, const char *site, size_t *i)
{
  for(*i = 0; *i < s->n && *i < 8; (*i)++)
    if(!strcmp(s->site[*i], site))
      return s;
  return NULL;
}

/* A lease, then its end: the token goes, the next allowed time stays until
 * it has passed; a later write never moves it earlier. */
static void test_journal_lease_then_end(void **state)
{
  (void)state;
  struct sj j;
  uint64_t now = clock_mono_ms();
  assert_int_equal(sj_init(&j, 16), 0);
  sj_lease(&j, "a.test", "r1:1", now + 2000);
  sj_lease(&j, "b.test", "r1:2", now + 2000);
  sj_end(&j, "b.test", now + 10000);
  sj_end(&j, "b.test", now + 5000);  /* an earlier time does not replace a later one */
  struct seen s = { 0 };
  size_t i;
  assert_int_equal(sj_each(&j, collect, &s), 2);
  assert_non_null(find(&s, "a.test", &i));
  assert_string_equal(s.token[i], "r1:1");
  assert_in_range(s.ll[i], 1900, 2000);
  assert_int_equal(s.nl[i], 0);
  assert_non_null(find(&s, "b.test", &i));
  assert_string_equal(s.token[i], "");
  assert_int_equal(s.ll[i], 0);
  assert_in_range(s.nl[i], 9900, 10000);
  assert_true(sj_whole(&j));
  sj_fini(&j);
}

/* What has passed is dropped; what is evicted for room before it passed
 * leaves a gap: the journal is not whole until then, and a roll call must
 * not be answered from it. */
static void test_journal_gap(void **state)
{
  (void)state;
  struct sj j;
  uint64_t now = clock_mono_ms();
  assert_int_equal(sj_init(&j, 2), 0);
  sj_end(&j, "old.test", now - 1);  /* passed: dropped at once */
  struct seen s = { 0 };
  assert_int_equal(sj_each(&j, collect, &s), 0);
  assert_true(sj_whole(&j));
  sj_end(&j, "a.test", now + 60000);
  sj_end(&j, "b.test", now + 60000);
  sj_end(&j, "c.test", now + 60000);  /* a.test goes for room, 60 s early */
  memset(&s, 0, sizeof s);
  assert_int_equal(sj_each(&j, collect, &s), 2);
  size_t i;
  assert_null(find(&s, "a.test", &i));
  assert_false(sj_whole(&j));
  sj_fini(&j);
}

/* No journal (failover_journal 0): nothing kept, never whole. */
static void test_journal_off(void **state)
{
  (void)state;
  struct sj j;
  assert_int_equal(sj_init(&j, 0), 0);
  sj_lease(&j, "a.test", "t", clock_mono_ms() + 1000);
  struct seen s = { 0 };
  assert_int_equal(sj_each(&j, collect, &s), 0);
  assert_false(sj_whole(&j));
  sj_fini(&j);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_journal_lease_then_end),
    cmocka_unit_test(test_journal_gap),
    cmocka_unit_test(test_journal_off),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
