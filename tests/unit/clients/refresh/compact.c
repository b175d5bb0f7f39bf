/* clients/refresh/compact.c: the change log compacted replays to the same
 * history as the log it replaces (observations, Last-Modified, failures,
 * retirement, redirect targets), and a process killed with SIGKILL at any
 * step of a compaction (after any page's line, before the rename, after
 * it) leaves a log that replays to that same history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clients/refresh/compact.c"
#include "clients/refresh/refresh.h"

#define T0 1700000000000ull

static char dir[64], path[96];

/* A log as the crawler writes it: first visits, changes with and without
 * a Last-Modified, a 304, a 404, a move to a new URL, a refusal. */
static void write_log(void)
{
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for(int j = 0; j < 12; j++) {
    uint64_t fp = 100 + (uint64_t)j;
    fprintf(f, "{\"url\":\"http://s%d.test/p%d\",\"status\":200,\"outcome\":\"ok\","
            "\"seen\":\"first\",\"time_ms\":%llu,\"fp\":\"%016llx\",\"lm\":%llu}\n", j % 3, j,
            T0 + (unsigned long long)j, (unsigned long long)fp,
            j % 2 ? T0 - 60000 : 0ull);
    for(int v = 1; v <= 20 + j; v++) {
      bool changed = (v * 7 + j) % 3 == 0;
      fp += changed;
      uint64_t at = T0 + 10000ull * (uint64_t)v + (uint64_t)j;
      fprintf(f, "{\"url\":\"http://s%d.test/p%d\",\"status\":200,\"outcome\":\"%s\","
              "\"seen\":\"%s\",\"time_ms\":%llu,\"fp\":\"%016llx\",\"lm\":%llu}\n", j % 3, j,
              changed ? "ok" : "not_modified", changed ? "changed" : "unchanged",
              (unsigned long long)at, (unsigned long long)fp,
              j % 2 ? (unsigned long long)(at - 3000 * (uint64_t)changed) : 0ull);
    }
  }
  fprintf(f, "{\"url\":\"http://s0.test/p0\",\"status\":404,\"outcome\":\"ok\",\"seen\":\"gone\","
             "\"time_ms\":%llu,\"fp\":\"0000000000000000\"}\n", T0 + 900000);
  fprintf(f, "{\"url\":\"http://s1.test/p1\",\"status\":301,\"outcome\":\"ok\",\"seen\":\"moved\","
             "\"time_ms\":%llu,\"fp\":\"0000000000000000\",\"redirect\":\"http://s1.test/new\"}\n",
          T0 + 900000);
  fprintf(f, "{\"url\":\"http://s2.test/p2\",\"outcome\":\"rejected\",\"reason\":\"not_allowed\","
             "\"seen\":\"failed\",\"time_ms\":%llu,\"fp\":\"0000000000000000\"}\n", T0 + 900000);
  fclose(f);
}

static void load(struct rf_pages *ps)
{
  uint64_t lines;
  rf_pages_init(ps, 100, 3, 86400);
  assert_int_equal(refresh_replay(ps, path, &lines), CRAWL_OK);
}

/* Every page the same, field by field. */
static void same(const struct rf_pages *a, const struct rf_pages *b)
{
  size_t dated = 0;  /* pages with a first Last-Modified: the field is carried */
  assert_int_equal(a->n, b->n);
  for(size_t i = 0; i < a->n; i++) {
    const struct rf_page *p = &a->v[i], *q = &b->v[i];
    assert_string_equal(p->url, q->url);
    assert_int_equal(p->nobs, q->nobs);
    assert_memory_equal(p->obs, q->obs, sizeof p->obs[0] * p->nobs);
    assert_memory_equal(p->age, q->age, sizeof p->age[0] * p->nobs);
    assert_true(p->last_ms == q->last_ms && p->base_ms == q->base_ms);
    assert_true(p->digest == q->digest && p->lm_ms == q->lm_ms);
    assert_true(p->lm_first_ms == q->lm_first_ms);
    dated += p->lm_first_ms != 0;
    assert_true(p->lm_bad == q->lm_bad && p->gone == q->gone && p->retired == q->retired);
    assert_true(p->visits == q->visits && p->changes == q->changes);
    assert_true(p->weight == q->weight);
    assert_true(fabs(p->lambda - q->lambda) <= 1e-12 * p->lambda);
  }
  assert_true(dated > 0);
}

static void setup_dir(void)
{
  snprintf(dir, sizeof dir, "/tmp/test_refresh_compact.%d", (int)getpid());
  mkdir(dir, 0700);
  snprintf(path, sizeof path, "%s/changes.jsonl", dir);
}

static void cleanup_dir(void)
{
  char tmp[128];
  unlink(path);
  snprintf(tmp, sizeof tmp, "%s.compact", path);
  unlink(tmp);
  rmdir(dir);
}

static void test_compact_replays(void **st)
{
  (void)st;
  setup_dir();
  write_log();
  struct rf_pages a, b;
  load(&a);
  struct stat s0, s1;
  stat(path, &s0);
  uint64_t bytes;
  assert_int_equal(refresh_compact(&a, path, &bytes), CRAWL_OK);
  stat(path, &s1);
  print_message("log %lld bytes, compacted %lld\n", (long long)s0.st_size, (long long)s1.st_size);
  assert_true(s1.st_size < s0.st_size / 2);
  assert_int_equal((uint64_t)s1.st_size, bytes);
  load(&b);
  same(&a, &b);
  assert_true(a.v[2].retired && a.v[0].gone == 1);
  assert_non_null(rf_pages_find(&b, "http://s1.test/new"));
  /* a line appended after a compaction replays on top of it */
  FILE *f = fopen(path, "a");
  fprintf(f, "{\"url\":\"http://s0.test/p3\",\"status\":200,\"outcome\":\"ok\",\"seen\":"
             "\"changed\",\"time_ms\":%llu,\"fp\":\"00000000000000ff\"}\n", T0 + 950000);
  fclose(f);
  rf_pages_free(&b);
  load(&b);
  assert_int_equal(b.v[3].visits, a.v[3].visits + 1);
  rf_pages_free(&a);
  rf_pages_free(&b);
  cleanup_dir();
}

static unsigned kill_at;

static void killer(unsigned step)
{
  if(step == kill_at)
    raise(SIGKILL);
}

/* kill -9 at each step of a compaction: the log left replays to the same
 * history, whether the rename happened or not. */
static void test_compact_killed(void **st)
{
  (void)st;
  setup_dir();
  write_log();
  struct rf_pages want;
  load(&want);
  const unsigned steps[] = { 0, 5, 12, ~0u - 1, ~0u };
  for(size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if(pid == 0) {
      struct rf_pages ps;
      uint64_t lines, bytes;
      rf_pages_init(&ps, 100, 3, 86400);
      refresh_replay(&ps, path, &lines);
      kill_at = steps[k];
      rf_compact_test_hook = killer;
      refresh_compact(&ps, path, &bytes);
      _exit(0);  /* not reached: killed */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    struct rf_pages got;
    load(&got);
    same(&want, &got);
    rf_pages_free(&got);
  }
  rf_pages_free(&want);
  cleanup_dir();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compact_replays),
    cmocka_unit_test(test_compact_killed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
