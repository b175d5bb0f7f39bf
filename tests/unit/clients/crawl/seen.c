/* clients/crawl/seen.c, seen_run.c, fpset.c, ckfile.c: the URL-seen test is
 * exact across spills and merges (no false "seen", no false "new"), stays
 * under its memory budget, hands pending records back intact and in
 * order, and survives a checkpoint and a crash. Prints bytes per URL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/crawl/seen.c"
#include "clients/base/ckfile.h"
#include "clients/base/fpset.h"
#include "clients/crawl/seen.h"
#include "clients/crawl/seen_run.h"
#include "clients/out/wq.h"
#include "common/mem.h"

static char tmpdir[256];

static int setup(void **state)
{
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "%s/wpfs-seen.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
  (void)state;
  DIR *d = opendir(tmpdir);
  struct dirent *de;
  char p[512];
  while(d && (de = readdir(d)) != NULL) {
    if(de->d_name[0] == '.')
      continue;
    snprintf(p, sizeof p, "%s/%s", tmpdir, de->d_name);
    unlink(p);
  }
  if(d)
    closedir(d);
  rmdir(tmpdir);
  return 0;
}

static size_t count_files(const char *prefix)
{
  DIR *d = opendir(tmpdir);
  struct dirent *de;
  size_t n = 0;
  while(d && (de = readdir(d)) != NULL)
    n += !strncmp(de->d_name, prefix, strlen(prefix));
  if(d)
    closedir(d);
  return n;
}

/* A reference: how many times each value was answered new. */
#define NVALUES 60000u
struct ref {
  uint8_t  news[NVALUES];
  uint64_t last_seq;      /* records arrive in the order they were added */
  size_t   news_total;
  bool     order_ok, record_ok;
};

static uint64_t value_fp(uint32_t i)
{
  /* Spread, with 0 and small values in the mix. */
  return i < 3 ? i : (uint64_t)i * 0x9E3779B97F4A7C15ull;
}

static void on_new(void *arg, uint64_t fp, const void *rec, size_t len)
{
  struct ref *r = arg;
  uint64_t seq;
  uint32_t idx;
  if(len != 12) {
    r->record_ok = false;
    return;
  }
  memcpy(&seq, rec, 8);
  memcpy(&idx, (const char *)rec + 8, 4);
  if(value_fp(idx) != fp)
    r->record_ok = false;
  if(seq <= r->last_seq)
    r->order_ok = false;
  r->last_seq = seq;
  r->news[idx]++;
  r->news_total++;
}

static uint64_t seq_counter;

static void add(struct seen *s, struct ref *r, uint32_t idx, size_t budget)
{
  uint8_t rec[12];
  uint64_t seq = ++seq_counter;
  memcpy(rec, &seq, 8);
  memcpy(rec + 8, &idx, 4);
  enum seen_answer a;
  assert_int_equal(seen_add(s, value_fp(idx), rec, sizeof rec, &a), CRAWL_OK);
  if(a == SEEN_NEW) {
    r->news[idx]++;
    r->news_total++;
  }
  struct seen_stats st;
  seen_stats(s, &st);
  assert_true(st.mem_bytes <= budget);
}

static uint32_t rng_next(uint64_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return (uint32_t)(*x >> 16);
}

static struct wq *wq;

static struct seen *open_set(struct ref *r, size_t budget, unsigned max_runs)
{
  if(!wq)
    assert_int_equal(wq_open(0, &wq), CRAWL_OK);
  struct seen_opts o = { tmpdir, budget, max_runs, on_new, r, wq };
  struct seen *s;
  assert_int_equal(seen_open(&o, &s), CRAWL_OK);
  return s;
}

static void close_set(struct seen **s)
{
  seen_close(s);
  wq_close(&wq);
}

static void test_exact_across_spills(void **state)
{
  (void)state;
  static struct ref r;
  memset(&r, 0, sizeof r);
  r.order_ok = r.record_ok = true;
  const size_t budget = 48u << 10;  /* ~3,000 fingerprints in memory */
  struct seen *s = open_set(&r, budget, 3);
  uint64_t x = 88172645463325252ull;
  /* Every value added three times, in random order: each must be new once. */
  for(uint32_t round = 0; round < 3 * NVALUES; round++) {
    uint32_t idx = round < NVALUES ? round : rng_next(&x) % NVALUES;
    add(s, &r, idx, budget);
  }
  for(uint32_t i = 0; i < NVALUES; i++)
    add(s, &r, i, budget);
  assert_int_equal(seen_settle(s), CRAWL_OK);
  struct seen_stats st;
  seen_stats(s, &st);
  for(uint32_t i = 0; i < NVALUES; i++)
    assert_int_equal(r.news[i], 1);
  assert_int_equal(r.news_total, NVALUES);
  assert_int_equal(st.distinct, NVALUES);
  assert_true(r.order_ok);
  assert_true(r.record_ok);
  assert_true(st.spills > 10);
  assert_true(st.merges > 2);
  assert_true(st.runs <= 3);
  print_message("# %u URLs, budget %zu KiB: %" PRIu64 " spills, %" PRIu64 " merges, "
                "%" PRIu64 " flushes; memory %.2f bytes/URL, disk %.2f bytes/URL\n",
                NVALUES, budget >> 10, st.spills, st.merges, st.flushes,
                (double)st.mem_bytes / NVALUES, (double)st.disk_bytes / NVALUES);
  close_set(&s);
}

static void test_no_disk_while_it_fits(void **state)
{
  (void)state;
  static struct ref r;
  memset(&r, 0, sizeof r);
  struct seen *s = open_set(&r, 1u << 20, 0);
  for(uint32_t i = 0; i < 10000; i++)
    add(s, &r, i, 1u << 20);
  struct seen_stats st;
  seen_stats(s, &st);
  assert_int_equal(st.spills, 0);
  assert_int_equal(st.pending, 0);
  assert_int_equal(r.news_total, 10000);
  assert_int_equal(count_files("seen-"), 0);
  print_message("# in memory only: %.2f bytes/URL at 10,000 URLs\n",
                (double)st.mem_bytes / 10000);
  close_set(&s);
}

static void test_checkpoint_and_crash(void **state)
{
  (void)state;
  static struct ref r;
  memset(&r, 0, sizeof r);
  const size_t budget = 32u << 10;
  struct seen *s = open_set(&r, budget, 2);
  for(uint32_t i = 0; i < 20000; i++)
    add(s, &r, i, budget);
  char path[512];
  snprintf(path, sizeof path, "%s/ck", tmpdir);
  /* As a checkpoint does it: the loop's image, then on the disk thread
   * (here: after the writes before it) the run list, the image, commit. */
  struct ckfile c, img;
  static uint8_t answered[NVALUES];
  ckfile_create_image(&img);
  seen_save(s, &img);
  uint64_t pending_at_checkpoint = seen_pending(s);
  memcpy(answered, r.news, sizeof answered);
  wq_drain(wq);
  assert_int_equal(ckfile_create(&c, path, "TESTSEEN"), CRAWL_OK);
  seen_disk_save(seen_disk_of(s), &c);
  ckfile_put_image(&c, &img);
  ckfile_discard(&img);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  seen_disk_commit(seen_disk_of(s));
  size_t runs_at_checkpoint = count_files("seen-");
  /* Work after the checkpoint, then a crash (no save). */
  for(uint32_t i = 20000; i < 40000; i++)
    add(s, &r, i, budget);
  assert_int_equal(seen_settle(s), CRAWL_OK);
  assert_true(count_files("seen-") != runs_at_checkpoint);
  close_set(&s);

  /* The URLs pending at the checkpoint are answered after the load (the
   * crash lost their answers); the others were answered before it. */
  memset(&r, 0, sizeof r);
  s = open_set(&r, budget, 2);
  assert_int_equal(ckfile_open(&c, path, "TESTSEEN"), CRAWL_OK);
  assert_int_equal(seen_disk_load(seen_disk_of(s), &c), CRAWL_OK);
  assert_int_equal(seen_load(s, &c), CRAWL_OK);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  assert_int_equal(seen_pending(s), pending_at_checkpoint);
  assert_int_equal(count_files("seen-"), runs_at_checkpoint);  /* strays gone */
  for(uint32_t i = 0; i < 40000; i++)
    add(s, &r, i, budget);
  assert_int_equal(seen_settle(s), CRAWL_OK);
  size_t again = 0;
  for(uint32_t i = 0; i < 40000; i++) {
    assert_int_equal(r.news[i], i < 20000 ? !answered[i] : 1);
    again += i < 20000 && !answered[i];
  }
  assert_int_equal(again, pending_at_checkpoint);
  print_message("# %" PRIu64 " URLs pending at the checkpoint, answered after the load\n",
                pending_at_checkpoint);
  close_set(&s);
}

static void test_run_files(void **state)
{
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/seen-x.run", tmpdir);
  uint64_t v[] = { 0, 1, 1, 5, 1ull << 63 };
  assert_int_equal(seen_run_write(path, v, 5), CRAWL_OK);
  struct seen_run_r rd;
  uint64_t count, got, expect[] = { 0, 1, 5, 1ull << 63 };
  assert_int_equal(seen_run_open(&rd, path, &count), CRAWL_OK);
  assert_int_equal(count, 4);
  for(int i = 0; i < 4; i++) {
    assert_true(seen_run_next(&rd, &got));
    assert_true(got == expect[i]);
  }
  assert_false(seen_run_next(&rd, &got));
  seen_run_close(&rd);
  assert_int_equal(truncate(path, 20), 0);
  assert_int_equal(seen_run_open(&rd, path, &count), CRAWL_ERR_CORRUPT);
  unlink(path);
  assert_int_equal(seen_run_open(&rd, path, &count), CRAWL_ERR_NOT_FOUND);
}

static void test_ckfile(void **state)
{
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/ckf", tmpdir);
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "MAGIC123"), CRAWL_OK);
  ckfile_put_u64(&c, 42);
  ckfile_put_str(&c, "hello");
  ckfile_put_str(&c, NULL);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  assert_int_equal(ckfile_open(&c, path, "MAGIC123"), CRAWL_OK);
  assert_int_equal(ckfile_get_u64(&c), 42);
  char *s = ckfile_get_str(&c, 100);
  assert_string_equal(s, "hello");
  mem_free(s);
  assert_null(ckfile_get_str(&c, 100));
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  /* Wrong magic, short read, a flipped byte: refused before any value. */
  assert_int_equal(ckfile_open(&c, path, "OTHERMAG"), CRAWL_ERR_CORRUPT);
  assert_int_equal(ckfile_open(&c, path, "MAGIC123"), CRAWL_OK);
  assert_int_equal(ckfile_get_u64(&c), 42);
  assert_int_equal(ckfile_close(&c), CRAWL_ERR_CORRUPT);  /* not all read */
  FILE *f = fopen(path, "r+b");
  fseek(f, 10, SEEK_SET);
  fputc('X', f);
  fclose(f);
  assert_int_equal(ckfile_open(&c, path, "MAGIC123"), CRAWL_ERR_CORRUPT);
  /* A discarded write leaves the old file. */
  assert_int_equal(ckfile_create(&c, path, "MAGIC123"), CRAWL_OK);
  ckfile_discard(&c);
  assert_int_equal(ckfile_open(&c, path, "MAGIC123"), CRAWL_ERR_CORRUPT);
  unlink(path);
  assert_int_equal(ckfile_open(&c, path, "MAGIC123"), CRAWL_ERR_NOT_FOUND);
}

static void test_fpset_budget(void **state)
{
  (void)state;
  struct fpset s;
  fpset_init(&s, 4096);
  bool added;
  size_t n = 0;
  for(uint64_t v = 0;; v++) {
    crawl_err e = fpset_add(&s, v * 7, &added);
    if(e) {
      assert_int_equal(e, CRAWL_ERR_FULL);
      assert_true(fpset_full(&s));
      break;
    }
    assert_true(added);
    n++;
  }
  assert_int_equal(n, 4096 / 8 * 3 / 4 + 1);  /* 0 is kept outside the table */
  assert_true(fpset_bytes(&s) <= 4096);
  assert_true(fpset_has(&s, 0) && fpset_has(&s, 7) && !fpset_has(&s, 8));
  assert_int_equal(fpset_add(&s, 7, &added), CRAWL_OK);
  assert_false(added);
  fpset_free(&s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_exact_across_spills, setup, teardown),
    cmocka_unit_test_setup_teardown(test_no_disk_while_it_fits, setup, teardown),
    cmocka_unit_test_setup_teardown(test_checkpoint_and_crash, setup, teardown),
    cmocka_unit_test_setup_teardown(test_run_files, setup, teardown),
    cmocka_unit_test_setup_teardown(test_ckfile, setup, teardown),
    cmocka_unit_test(test_fpset_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
