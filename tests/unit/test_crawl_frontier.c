/* clients/frontier.c, trap.c, linkfilter.c, fpmap.c: priority levels fed
 * by in-links, round robin over hosts within a level, the per-host bound
 * on outstanding URLs, retry and done, the memory budget, checkpoints;
 * every trap defence and filter with its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/fpmap.h"
#include "clients/frontier.h"
#include "clients/linkfilter.h"
#include "clients/trap.h"
#include "common/hash.h"
#include "common/mem.h"

static struct frontier *open_frontier(size_t bytes, unsigned per_host)
{
  struct frontier_opts o = { bytes, per_host };
  struct frontier *f;
  assert_int_equal(frontier_open(&o, &f), CRAWL_OK);
  return f;
}

static void push(struct frontier *f, const char *host, int page, unsigned level)
{
  char url[128];
  snprintf(url, sizeof url, "http://%s/%d", host, page);
  assert_int_equal(frontier_push(f, url, host, 1, level), CRAWL_OK);
}

static uint64_t fp_of(const char *host, int page)
{
  char url[128];
  snprintf(url, sizeof url, "http://%s/%d", host, page);
  return hash_fp64(url, strlen(url));
}

static void test_levels(void **state)
{
  (void)state;
  assert_int_equal(frontier_level_for(0), 0);
  assert_int_equal(frontier_level_for(1), 1);
  assert_int_equal(frontier_level_for(2), 2);
  assert_int_equal(frontier_level_for(3), 2);
  assert_int_equal(frontier_level_for(4), 3);
  assert_int_equal(frontier_level_for(63), 6);
  assert_int_equal(frontier_level_for(64), 7);
  assert_int_equal(frontier_level_for(1u << 30), 7);
}

/* Higher levels first; within a level hosts alternate, each in order. */
static void test_priority_and_round_robin(void **state)
{
  (void)state;
  struct frontier *f = open_frontier(1 << 20, 0);
  for(int i = 0; i < 3; i++)
    push(f, "a.test", i, 1);
  push(f, "b.test", 0, 1);
  push(f, "b.test", 1, 1);
  push(f, "c.test", 0, 1);
  push(f, "seed.test", 0, 7);
  struct frontier_item it[16];
  size_t n = frontier_take(f, 16, it);
  assert_int_equal(n, 7);
  assert_string_equal(it[0].url, "http://seed.test/0");
  assert_int_equal(it[0].level, 7);
  const char *want[] = { "http://a.test/0", "http://b.test/0", "http://c.test/0",
                         "http://a.test/1", "http://b.test/1", "http://a.test/2" };
  for(int i = 0; i < 6; i++)
    assert_string_equal(it[i + 1].url, want[i]);
  struct frontier_stats st;
  frontier_stats(f, &st);
  assert_int_equal(st.queued, 0);
  assert_int_equal(st.outstanding, 7);
  frontier_close(&f);
}

/* In-links raise a queued URL's level. */
static void test_inlinks_promote(void **state)
{
  (void)state;
  struct frontier *f = open_frontier(1 << 20, 0);
  push(f, "a.test", 0, 1);
  push(f, "a.test", 1, 1);
  push(f, "b.test", 0, 1);
  for(int i = 0; i < 7; i++)  /* 1 + 7 = 8 in-links: level 4 */
    assert_true(frontier_bump(f, fp_of("b.test", 0)));
  assert_false(frontier_bump(f, fp_of("z.test", 0)));
  struct frontier_item it[4];
  assert_int_equal(frontier_take(f, 1, it), 1);
  assert_string_equal(it[0].url, "http://b.test/0");
  assert_int_equal(it[0].level, 4);
  struct frontier_stats st;
  frontier_stats(f, &st);
  assert_int_equal(st.promoted, 3);  /* 1 -> 2 -> 3 -> 4 */
  frontier_close(&f);
}

static void test_per_host_bound_retry_done(void **state)
{
  (void)state;
  struct frontier *f = open_frontier(1 << 20, 2);
  for(int i = 0; i < 5; i++)
    push(f, "big.test", i, 3);
  push(f, "small.test", 0, 1);
  struct frontier_item it[10];
  size_t n = frontier_take(f, 10, it);
  assert_int_equal(n, 3);  /* two of big (bound), then the lower level */
  assert_string_equal(it[2].url, "http://small.test/0");
  assert_int_equal(frontier_take(f, 10, it), 0);
  assert_int_equal(frontier_retry(f, fp_of("big.test", 1)), CRAWL_OK);
  uint32_t depth = 0;
  assert_int_equal(frontier_done(f, fp_of("big.test", 0), &depth), CRAWL_OK);
  assert_int_equal(depth, 1);
  assert_int_equal(frontier_done(f, fp_of("big.test", 0), NULL), CRAWL_ERR_NOT_FOUND);
  assert_int_equal(frontier_done(f, fp_of("big.test", 3), NULL), CRAWL_OK);  /* queued */
  n = frontier_take(f, 10, it);
  assert_int_equal(n, 2);  /* the retried one first, then the next */
  assert_string_equal(it[0].url, "http://big.test/1");
  assert_string_equal(it[1].url, "http://big.test/2");
  assert_int_equal(frontier_push(f, "http://big.test/4", "big.test", 1, 1), CRAWL_ERR_INVALID);
  assert_true(frontier_remove(f, fp_of("big.test", 4)));
  assert_true(frontier_remove(f, fp_of("big.test", 1)));
  assert_false(frontier_has(f, fp_of("big.test", 1)));
  frontier_close(&f);
}

static void test_budget(void **state)
{
  (void)state;
  long live = mem_live();
  struct frontier *f = open_frontier(64 << 10, 0);
  char url[64];
  size_t pushed = 0;
  crawl_err e = CRAWL_OK;
  for(int i = 0; !e; i++) {
    snprintf(url, sizeof url, "http://h%d.test/page", i % 50);
    char host[16];
    snprintf(host, sizeof host, "h%d.test", i % 50);
    snprintf(url, sizeof url, "http://%s/%d", host, i);
    e = frontier_push(f, url, host, 0, 1);
    pushed += !e;
  }
  assert_int_equal(e, CRAWL_ERR_FULL);
  struct frontier_stats st;
  frontier_stats(f, &st);
  assert_true(st.bytes <= 64 << 10);
  print_message("# 64 KiB frontier holds %zu URLs (%zu bytes each with the indexes)\n",
                pushed, st.bytes / pushed);
  /* Draining frees hosts too. */
  struct frontier_item it[64];
  size_t n;
  while((n = frontier_take(f, 64, it)) > 0)
    for(size_t i = 0; i < n; i++)
      assert_int_equal(frontier_done(f, it[i].fp, NULL), CRAWL_OK);
  frontier_stats(f, &st);
  assert_int_equal(st.hosts, 0);
  frontier_close(&f);
  assert_int_equal(mem_live(), live);
}

static void test_checkpoint(void **state)
{
  (void)state;
  struct frontier *f = open_frontier(1 << 20, 0);
  push(f, "a.test", 0, 1);
  push(f, "a.test", 1, 1);
  push(f, "b.test", 0, 5);
  frontier_bump(f, fp_of("a.test", 1));
  frontier_bump(f, fp_of("a.test", 1));
  frontier_bump(f, fp_of("a.test", 1));  /* 4 in-links: level 3 */
  struct frontier_item it[4];
  assert_int_equal(frontier_take(f, 1, it), 1);  /* b.test/0 outstanding */
  char path[] = "/tmp/wpfs-frontier-ck.XXXXXX";
  close(mkstemp(path));
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "TESTFRON"), CRAWL_OK);
  frontier_save(f, &c);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  frontier_close(&f);
  f = open_frontier(1 << 20, 0);
  assert_int_equal(ckfile_open(&c, path, "TESTFRON"), CRAWL_OK);
  frontier_load(f, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  unlink(path);
  assert_int_equal(frontier_take(f, 4, it), 3);
  assert_string_equal(it[0].url, "http://b.test/0");  /* outstanding: again */
  assert_string_equal(it[1].url, "http://a.test/1");
  assert_int_equal(it[1].level, 3);
  assert_string_equal(it[2].url, "http://a.test/0");
  frontier_close(&f);
}

static void test_fpmap_delete_keeps_probes(void **state)
{
  (void)state;
  struct fpmap m;
  fpmap_init(&m, 1 << 20);
  uint64_t *v;
  for(uint64_t k = 0; k < 5000; k++) {
    assert_int_equal(fpmap_put(&m, k * 3, &v, NULL), CRAWL_OK);
    *v = k;
  }
  for(uint64_t k = 0; k < 5000; k += 2)
    assert_true(fpmap_del(&m, k * 3));
  for(uint64_t k = 0; k < 5000; k++) {
    v = fpmap_get(&m, k * 3);
    if(k % 2)
      assert_true(v && *v == k);
    else
      assert_null(v);
  }
  assert_int_equal(m.count, 2500);
  size_t pos = 0, seen = 0;
  uint64_t key, val;
  while(fpmap_next(&m, &pos, &key, &val))
    seen++;
  assert_int_equal(seen, 2500);
  fpmap_free(&m);
}

static enum drop_reason path_check(struct trap *t, const char *url)
{
  struct url_parts p;
  assert_int_equal(url_split(url, &p), URL_OK);
  return trap_check_path(t, &p);
}

static enum drop_reason admit(struct trap *t, const char *url)
{
  struct url_parts p;
  assert_int_equal(url_split(url, &p), URL_OK);
  return trap_admit(t, &p);
}

static void test_traps(void **state)
{
  (void)state;
  struct trap_opts o = trap_opts_default();
  o.max_path_depth = 8;
  o.site_budget = 5;
  o.max_query_variants = 3;
  o.max_domain_hosts = 2;
  struct trap *t;
  assert_int_equal(trap_open(&o, &t), CRAWL_OK);
  assert_int_equal(path_check(t, "http://a.test/1/2/3/4/5/6/7/8/"), DROP_NONE);
  assert_int_equal(path_check(t, "http://a.test/1/2/3/4/5/6/7/8/9"), DROP_PATH_DEPTH);
  assert_int_equal(path_check(t, "http://a.test/a/b/a/b/a/b"), DROP_REPEATED_SEGMENTS);
  assert_int_equal(path_check(t, "http://a.test/x/x/x"), DROP_REPEATED_SEGMENTS);
  assert_int_equal(path_check(t, "http://a.test/x/y/x/?x/x/x"), DROP_NONE);
  assert_int_equal(path_check(t, "http://a.test/_b/trap/a/b/c/b/a/c/"), DROP_NONE);
  assert_int_equal(path_check(t, "http://a.test/_b/trap/a/b/c/b/a/c/a/"), DROP_PATH_DEPTH);
  /* Query variants of one path. */
  assert_int_equal(admit(t, "http://a.test/cal?m=1"), DROP_NONE);
  assert_int_equal(admit(t, "http://a.test/cal?m=2"), DROP_NONE);
  assert_int_equal(admit(t, "http://a.test/cal?m=3"), DROP_NONE);
  assert_int_equal(admit(t, "http://a.test/cal?m=4"), DROP_QUERY_EXPLOSION);
  assert_int_equal(admit(t, "http://a.test/other?m=4"), DROP_NONE);
  /* Site budget: 5 admitted on a.test (the refused one did not count). */
  assert_int_equal(admit(t, "http://a.test/p"), DROP_NONE);
  assert_int_equal(admit(t, "http://a.test/q"), DROP_SITE_BUDGET);
  assert_int_equal(admit(t, "http://b.test/q"), DROP_NONE);
  /* Hosts per registrable domain. */
  assert_int_equal(admit(t, "http://x1.wild.example.com/"), DROP_NONE);
  assert_int_equal(admit(t, "http://x2.wild.example.com/"), DROP_NONE);
  assert_int_equal(admit(t, "http://x3.wild.example.com/"), DROP_DOMAIN_HOSTS);
  assert_int_equal(admit(t, "http://x1.wild.example.com/2"), DROP_NONE);
  assert_string_equal(drop_name(DROP_QUERY_EXPLOSION), "query_explosion");
  assert_true(drop_is_trap(DROP_SITE_BUDGET));
  assert_false(drop_is_trap(DROP_EXTENSION));
  trap_close(&t);
}

static enum drop_reason filter(struct linkfilter *lf, const char *url)
{
  struct url_parts p;
  assert_int_equal(url_split(url, &p), URL_OK);
  return linkfilter_check(lf, &p);
}

static void test_linkfilter(void **state)
{
  (void)state;
  struct linkfilter_opts o = { LINKFILTER_HOST, NULL };
  struct linkfilter *lf;
  assert_int_equal(linkfilter_open(&o, &lf), CRAWL_OK);
  assert_int_equal(linkfilter_add_seed(lf, "http://www.example.com/"), CRAWL_OK);
  assert_int_equal(linkfilter_add_seed(lf, "not canonical"), CRAWL_ERR_INVALID);
  assert_int_equal(filter(lf, "http://www.example.com/a.html"), DROP_NONE);
  assert_int_equal(filter(lf, "http://www.example.com/a.JPG"), DROP_EXTENSION);
  assert_int_equal(filter(lf, "http://www.example.com/doc.pdf?x=1"), DROP_EXTENSION);
  assert_int_equal(filter(lf, "http://www.example.com/v1.2/"), DROP_NONE);
  assert_int_equal(filter(lf, "http://www.example.com/a?f=x.png"), DROP_NONE);
  assert_int_equal(filter(lf, "http://cdn.example.com/a"), DROP_SCOPE);
  linkfilter_close(&lf);
  o = (struct linkfilter_opts){ LINKFILTER_DOMAIN, "html" };
  assert_int_equal(linkfilter_open(&o, &lf), CRAWL_OK);
  assert_int_equal(linkfilter_add_seed(lf, "http://www.example.co.uk/"), CRAWL_OK);
  assert_int_equal(filter(lf, "http://cdn.example.co.uk/a.pdf"), DROP_NONE);
  assert_int_equal(filter(lf, "http://cdn.example.co.uk/a.html"), DROP_EXTENSION);
  assert_int_equal(filter(lf, "http://other.co.uk/"), DROP_SCOPE);
  linkfilter_close(&lf);
  enum linkfilter_scope s;
  assert_true(linkfilter_scope_parse("any", &s) && s == LINKFILTER_ANY);
  assert_false(linkfilter_scope_parse("all", &s));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_levels),
    cmocka_unit_test(test_priority_and_round_robin),
    cmocka_unit_test(test_inlinks_promote),
    cmocka_unit_test(test_per_host_bound_retry_done),
    cmocka_unit_test(test_budget),
    cmocka_unit_test(test_checkpoint),
    cmocka_unit_test(test_fpmap_delete_keeps_probes),
    cmocka_unit_test(test_traps),
    cmocka_unit_test(test_linkfilter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
