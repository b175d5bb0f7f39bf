/* clients/crawl/frontier.c, trap.c, linkfilter.c, fpmap.c: priority levels fed
 * by in-links, round robin over hosts within a level, the per-host bound
 * on outstanding URLs, retry and done, the memory budget, checkpoints;
 * every trap defence and filter with its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/crawl/frontier.c"
#include "clients/base/fpmap.h"
#include "clients/crawl/frontier.h"
#include "clients/crawl/frontier_disk.h"
#include "clients/crawl/linkfilter.h"
#include "clients/crawl/trap.h"
#include "common/hash.h"
#include "common/mem.h"

static struct frontier *open_frontier(size_t bytes, unsigned per_host)
{
  struct frontier_opts o = { bytes, per_host, NULL, NULL, 0, false };
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
  assert_null(frontier_url(f, fp_of("big.test", 1)));
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

/* ---- The part on disk -------------------------------------------------------- */

#define DISK_HOSTS 20
#define DISK_PAGES 150

static char ddir[256];

static struct frontier *open_disk(struct wq *wq, size_t bytes)
{
  struct frontier_opts o = { bytes, 0, ddir, wq, 4096, false };  /* small segments: several */
  struct frontier *f;
  assert_int_equal(frontier_open(&o, &f), CRAWL_OK);
  return f;
}

static size_t seg_files(void)
{
  DIR *d = opendir(ddir);
  struct dirent *de;
  size_t n = 0;
  while(d && (de = readdir(d)) != NULL)
    n += !strncmp(de->d_name, "frontier-", 9);
  if(d)
    closedir(d);
  return n;
}

/* Take everything left: each URL once, each host's URLs in the order they
 * were pushed, memory under the budget; URLs come back from disk as the
 * memory empties. seen[host * DISK_PAGES + page] counts takes. */
static void drain(struct frontier *f, struct wq *wq, size_t budget, uint8_t *seen)
{
  struct frontier_item it[32];
  int last[DISK_HOSTS];
  memset(last, -1, sizeof last);
  for(;;) {
    size_t n = frontier_take(f, 32, it);
    struct frontier_stats st;
    frontier_stats(f, &st);
    assert_true(st.bytes <= budget);
    if(n == 0 && st.on_disk == 0)
      break;
    if(n == 0) {
      assert_true(wq_wait(wq));  /* a read back is on its way */
      continue;
    }
    for(size_t i = 0; i < n; i++) {
      int h, p;
      assert_int_equal(sscanf(it[i].url, "http://h%d.test/%d", &h, &p), 2);
      assert_true(h < DISK_HOSTS && p < DISK_PAGES);
      assert_true(p > last[h]);
      last[h] = p;
      seen[h * DISK_PAGES + p]++;
      assert_int_equal(frontier_done(f, it[i].fp, NULL), CRAWL_OK);
    }
  }
}

static void push_all(struct frontier *f)
{
  char url[64], host[16];
  for(int p = 0; p < DISK_PAGES; p++)
    for(int h = 0; h < DISK_HOSTS; h++) {
      snprintf(host, sizeof host, "h%d.test", h);
      snprintf(url, sizeof url, "http://%s/%d", host, p);
      assert_int_equal(frontier_push(f, url, host, 1, 1), CRAWL_OK);
    }
}

/* 3,000 URLs through a 16 KiB frontier: none refused, each taken once, in
 * order per host; the segments read are retired and removed. */
static void test_disk_spill(void **state)
{
  (void)state;
  struct wq *wq;
  static uint8_t seen[DISK_HOSTS * DISK_PAGES];
  memset(seen, 0, sizeof seen);
  assert_int_equal(wq_open(0, &wq), CRAWL_OK);
  struct frontier *f = open_disk(wq, 16u << 10);
  push_all(f);
  struct frontier_stats st;
  frontier_stats(f, &st);
  print_message("# %d URLs: %zu in memory (%zu bytes, %.0f each), %llu on disk "
                "(%llu bytes, %.1f each)\n", DISK_HOSTS * DISK_PAGES, st.queued, st.bytes,
                (double)st.bytes / (double)st.queued, (unsigned long long)st.on_disk,
                (unsigned long long)st.disk_bytes, (double)st.disk_bytes / (double)st.on_disk);
  assert_true(st.on_disk > 2000);
  assert_int_equal(st.queued + st.on_disk, DISK_HOSTS * DISK_PAGES);
  wq_drain(wq);
  assert_true(seg_files() > 3);
  drain(f, wq, 16u << 10, seen);
  for(size_t i = 0; i < sizeof seen; i++)
    assert_int_equal(seen[i], 1);
  frontier_stats(f, &st);
  assert_int_equal(st.refilled, st.spilled);
  char **old = frontier_retired(f);
  assert_non_null(old);
  frontier_disk_remove((const char *const *)old);
  for(size_t i = 0; old[i]; i++)
    mem_free(old[i]);
  mem_free(old);
  assert_int_equal(seg_files(), 0);  /* every segment read and retired */
  frontier_close(&f);
  wq_close(&wq);
}

/* A checkpoint with URLs on disk: after a crash (appends after it, a
 * stray segment) the load cuts and removes what it does not know, and
 * every URL not taken before comes out once; one finished while on disk
 * (forgotten) never does. */
static void test_disk_checkpoint(void **state)
{
  (void)state;
  struct wq *wq;
  static uint8_t seen[DISK_HOSTS * DISK_PAGES];
  memset(seen, 0, sizeof seen);
  assert_int_equal(wq_open(0, &wq), CRAWL_OK);
  struct frontier *f = open_disk(wq, 64u << 10);
  push_all(f);
  struct frontier_item it[10];
  size_t n = 0, done = 0;
  while(done < 30 || n < 10) {  /* 30 done, then 10 outstanding at the checkpoint */
    size_t k = frontier_take(f, done < 30 ? 1 : 10 - n, it + (done < 30 ? 0 : n));
    if(k == 0) {
      assert_true(wq_wait(wq));
      continue;
    }
    if(done == 30) {
      n += k;
      continue;
    }
    int h, p;
    assert_int_equal(sscanf(it[0].url, "http://h%d.test/%d", &h, &p), 2);
    seen[h * DISK_PAGES + p]++;
    assert_int_equal(frontier_done(f, it[0].fp, NULL), CRAWL_OK);
    done++;
  }
  char path[512];
  snprintf(path, sizeof path, "%s/ck", ddir);
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "TESTFRON"), CRAWL_OK);
  frontier_save(f, &c);
  wq_drain(wq);  /* the checkpoint comes after the appends it counts */
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  /* After the checkpoint: more URLs (appended), then the crash. */
  assert_int_equal(frontier_push(f, "http://h1.test/9999", "h1.test", 1, 1), CRAWL_OK);
  struct ckfile img;
  ckfile_create_image(&img);
  frontier_save(f, &img);  /* hands the buffers to the disk thread */
  ckfile_discard(&img);
  wq_drain(wq);
  frontier_close(&f);
  snprintf(path, sizeof path, "%s/frontier-L1-999999.q", ddir);
  FILE *stray = fopen(path, "w");
  fclose(stray);
  f = open_disk(wq, 64u << 10);
  snprintf(path, sizeof path, "%s/ck", ddir);
  assert_int_equal(ckfile_open(&c, path, "TESTFRON"), CRAWL_OK);
  frontier_load(f, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  snprintf(path, sizeof path, "%s/frontier-L1-999999.q", ddir);
  assert_int_equal(access(path, F_OK), -1);  /* stray removed */
  assert_int_equal(frontier_forget(f, fp_of("h7.test", 140)), CRAWL_OK);
  seen[7 * DISK_PAGES + 140]++;  /* finished while on disk: must not come out */
  drain(f, wq, 64u << 10, seen);
  for(size_t i = 0; i < sizeof seen; i++)
    if(seen[i] != 1)
      fail_msg("h%zu.test/%zu taken %d times in all", i / DISK_PAGES, i % DISK_PAGES, seen[i]);
  frontier_close(&f);
  wq_close(&wq);
}

static int disk_setup(void **state)
{
  (void)state;
  snprintf(ddir, sizeof ddir, "%s/wpfs-frontier.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(ddir) ? 0 : -1;
}

static int disk_teardown(void **state)
{
  (void)state;
  DIR *d = opendir(ddir);
  struct dirent *de;
  char p[512];
  while(d && (de = readdir(d)) != NULL) {
    if(de->d_name[0] == '.')
      continue;
    snprintf(p, sizeof p, "%s/%s", ddir, de->d_name);
    unlink(p);
  }
  if(d)
    closedir(d);
  rmdir(ddir);
  return 0;
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
  struct linkfilter_opts o = { LINKFILTER_HOST, NULL, NULL };
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
  o = (struct linkfilter_opts){ LINKFILTER_DOMAIN, "html", NULL };
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

/* A sitemap's hints: the priority picks 1..3, freshness adds one, age or a
 * rare changefreq takes one; never above FRONTIER_HINT_MAX. */
static void test_hint_level(void **state)
{
  (void)state;
  const int64_t day = 86400;
  static const struct { double p; int64_t age; enum frontier_freq f; unsigned want; } cases[] = {
    { -1, -1, FRONTIER_FREQ_NONE, 2 },      { 0.5, -1, FRONTIER_FREQ_NONE, 2 },
    { 1.0, -1, FRONTIER_FREQ_NONE, 3 },     { 0.1, -1, FRONTIER_FREQ_NONE, 1 },
    { 0.75, 0, FRONTIER_FREQ_NONE, 4 },     { -1, 2, FRONTIER_FREQ_NONE, 3 },
    { -1, -1, FRONTIER_FREQ_OFTEN, 3 },     { 1.0, 3, FRONTIER_FREQ_OFTEN, 4 },
    { -1, 400, FRONTIER_FREQ_NONE, 1 },     { 0.0, -1, FRONTIER_FREQ_RARELY, 0 },
    { -1, 30, FRONTIER_FREQ_SOMETIMES, 2 }, { 0.0, 400, FRONTIER_FREQ_OFTEN, 2 },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct frontier_hint h = { cases[i].p, cases[i].age < 0 ? -1 : cases[i].age * day,
                               cases[i].f };
    if(frontier_hint_level(&h) != cases[i].want)
      fail_msg("case %zu: level %u, want %u", i, frontier_hint_level(&h), cases[i].want);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hint_level),
    cmocka_unit_test(test_levels),
    cmocka_unit_test(test_priority_and_round_robin),
    cmocka_unit_test(test_inlinks_promote),
    cmocka_unit_test(test_per_host_bound_retry_done),
    cmocka_unit_test(test_budget),
    cmocka_unit_test(test_checkpoint),
    cmocka_unit_test_setup_teardown(test_disk_spill, disk_setup, disk_teardown),
    cmocka_unit_test_setup_teardown(test_disk_checkpoint, disk_setup, disk_teardown),
    cmocka_unit_test(test_fpmap_delete_keeps_probes),
    cmocka_unit_test(test_traps),
    cmocka_unit_test(test_linkfilter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
