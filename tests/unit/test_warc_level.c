/* clients/out/warc.c with libdeflate: records written at level 1 and 12
 * read back (warc_read.c inflates them with zlib) to the same body; level
 * 12 writes fewer bytes than level 1 on the same pages; a record larger
 * than the buffer kept between records (64 MiB) is written whole, and the
 * next small one still is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/out/warc.h"
#include "clients/out/warc_read.h"
#include "common/mem.h"

static uint64_t write_pages(const char *dir, int level, const char *body, size_t len, int n)
{
  struct warc_opts o = { dir, "t", 1u << 30, "test", NULL, level };
  struct warc *w;
  struct warc_loc loc;
  char path[512];
  assert_int_equal(warc_open(&o, &w), CRAWL_OK);
  for(int i = 0; i < n; i++) {
    struct warc_page p = { "http://a.test/", 1700000000000ull, 200, NULL, 0, body, len, false };
    assert_int_equal(warc_write_response(w, &p, &loc, NULL), CRAWL_OK);
    struct warc_record r;
    snprintf(path, sizeof path, "%s/%s", dir, loc.file);
    assert_int_equal(warc_read_at(path, loc.offset, 1u << 30, &r), CRAWL_OK);
    assert_int_equal(r.body_len, len);
    assert_memory_equal(r.body, body, len);
    assert_int_equal(r.member_len, loc.length);
    warc_record_free(&r);
  }
  uint64_t records, bytes;
  unsigned files;
  warc_counts(w, &records, &bytes, &files);
  warc_close(&w);
  return bytes;
}

static void test_levels(void **st)
{
  (void)st;
  char d1[] = "/tmp/test_warc1XXXXXX", d12[] = "/tmp/test_warc12XXXXXX";
  assert_non_null(mkdtemp(d1));
  assert_non_null(mkdtemp(d12));
  char body[8000];
  for(size_t i = 0; i < sizeof body; i++)  /* text with repeats, as pages are */
    body[i] = "<p>crawl fetch page link site robots delay cache</p>\n"[(i * 7 + i / 64) % 53];
  uint64_t b1 = write_pages(d1, 1, body, sizeof body, 20);
  uint64_t b12 = write_pages(d12, 12, body, sizeof body, 20);
  print_message("level 1: %llu bytes, level 12: %llu bytes\n", (unsigned long long)b1,
                (unsigned long long)b12);
  assert_true(b12 < b1);
  /* a 70 MiB record, then a small one */
  size_t big = 70u << 20;
  char *huge = mem_alloc(big);
  assert_non_null(huge);
  for(size_t i = 0; i < big; i++)
    huge[i] = (char)('a' + (i * 2654435761u >> 13) % 26);
  write_pages(d1, 0, huge, big, 1);
  mem_free(huge);
  write_pages(d1, 1, body, 100, 1);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s %s", d1, d12);
  assert_int_equal(system(cmd), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_levels) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
