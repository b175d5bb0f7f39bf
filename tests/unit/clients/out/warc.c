/* clients/out/warc.c with libdeflate: records written at level 1 and 12
 * read back (warc_read.c inflates them with zlib) to the same body; level
 * 12 writes fewer bytes than level 1 on the same pages; a record larger
 * than the buffer kept between records (64 MiB) is written whole, and the
 * next small one still is. Buffered, records reach the file at warc_flush
 * or when the file rotates, and a failed write is every later flush's
 * error. Record ids (drawn from a pool of random bytes) are version 4
 * UUIDs, all different, across refills of the pool; an id's text parses
 * back to its bytes and a WARC-Date to its time, and what is not one is
 * refused. The first record of every file, across rotation, names that
 * file's warcinfo record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/out/warc.c"
#include "clients/out/warc.h"
#include "clients/out/warc_read.h"
#include "common/mem.h"

static uint64_t write_pages(const char *dir, int level, const char *body, size_t len, int n)
{
  struct warc_opts o = { dir, "t", 1u << 30, "test", NULL, level, false };
  struct warc *w;
  struct warc_loc loc;
  char path[512];
  assert_int_equal(warc_open(&o, &w), CRAWL_OK);
  for(int i = 0; i < n; i++) {
    struct warc_page p = { "http://a.test/", 1700000000000ull, 200, NULL, 0, body, len, false, NULL, NULL };
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

static off_t file_size(const char *dir, const char *name)
{
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 ? st.st_size : -1;
}

static void test_buffered(void **st)
{
  (void)st;
  char d[] = "/tmp/test_warcbXXXXXX";
  assert_non_null(mkdtemp(d));
  const char *body = "<p>buffered</p>";
  struct warc_opts o = { d, "t", 3000, "test", NULL, 1, true };
  struct warc *w;
  struct warc_loc loc, first = { 0 };
  assert_int_equal(warc_open(&o, &w), CRAWL_OK);
  struct warc_page p = { "http://a.test/", 1700000000000ull, 200, NULL, 0, body, 15, false, NULL, NULL };
  assert_int_equal(warc_write_response(w, &p, &loc, NULL), CRAWL_OK);
  first = loc;
  assert_int_equal(file_size(d, loc.file), 0);  /* in the buffer */
  assert_int_equal(warc_flush(w), CRAWL_OK);
  assert_int_equal(file_size(d, loc.file), (off_t)(loc.offset + loc.length));
  /* past 3000 bytes the file rotates: what it held is written then */
  while(!strcmp(loc.file, first.file))
    assert_int_equal(warc_write_response(w, &p, &loc, NULL), CRAWL_OK);
  assert_true(file_size(d, first.file) >= 3000);
  assert_int_equal(file_size(d, loc.file), 0);
  assert_int_equal(warc_flush(w), CRAWL_OK);
  char path[512];
  snprintf(path, sizeof path, "%s/%s", d, loc.file);
  struct warc_record r;
  assert_int_equal(warc_read_at(path, loc.offset, 1u << 20, &r), CRAWL_OK);
  assert_memory_equal(r.body, body, 15);
  warc_record_free(&r);
  /* a file that cannot grow: the flush fails, and so does every later one */
  struct rlimit old, lim;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  lim = old;
  lim.rlim_cur = (rlim_t)file_size(d, loc.file) + 10;
  signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
  assert_int_equal(warc_write_response(w, &p, &loc, NULL), CRAWL_OK);
  assert_int_equal(warc_flush(w), CRAWL_ERR_IO);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
  assert_int_equal(warc_flush(w), CRAWL_ERR_IO);
  warc_close(&w);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", d);
  assert_int_equal(system(cmd), 0);
}

static void test_record_ids(void **st)
{
  (void)st;
  char d[] = "/tmp/test_warcidXXXXXX";
  assert_non_null(mkdtemp(d));
  struct warc_opts o = { d, "t", 1u << 30, "test", NULL, 1, true };
  struct warc *w;
  enum { N = 600 };  /* 16 bytes each: the 4 KiB pool is drawn three times */
  struct warc_loc loc[N];
  assert_int_equal(warc_open(&o, &w), CRAWL_OK);
  struct warc_page p = { "http://a.test/", 1700000000000ull, 200, NULL, 0, "x", 1, false, NULL, NULL };
  for(int i = 0; i < N; i++)
    assert_int_equal(warc_write_response(w, &p, &loc[i], NULL), CRAWL_OK);
  assert_int_equal(warc_flush(w), CRAWL_OK);
  static char ids[N][37];
  char path[512];
  snprintf(path, sizeof path, "%s/%s", d, loc[0].file);
  for(int i = 0; i < N; i++) {
    struct warc_record r;
    assert_int_equal(warc_read_at(path, loc[i].offset, 1u << 20, &r), CRAWL_OK);
    const char *at = strstr(r.raw.data, "WARC-Record-ID: <urn:uuid:");
    assert_non_null(at);
    memcpy(ids[i], at + 26, 36);
    ids[i][36] = '\0';
    assert_int_equal(ids[i][14], '4');                    /* version 4 */
    assert_non_null(strchr("89ab", ids[i][19]));          /* RFC 4122 variant */
    warc_record_free(&r);
    for(int j = 0; j < i; j++)
      assert_string_not_equal(ids[i], ids[j]);
  }
  warc_close(&w);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", d);
  assert_int_equal(system(cmd), 0);
}

static void test_id_and_date_text(void **st)
{
  (void)st;
  struct warc_ids ids;
  warc_ids_init(&ids);
  unsigned char raw[WARC_ID_RAW], back[WARC_ID_RAW];
  char text[WARC_ID_LEN];
  for(int i = 0; i < 300; i++) {
    warc_id_new(&ids, raw);
    warc_id_text(raw, text);
    assert_int_equal(strlen(text), 47);
    assert_true(warc_id_parse(text, back));
    assert_memory_equal(raw, back, WARC_ID_RAW);
  }
  assert_true(warc_id_parse("<urn:uuid:0C3D6B02-3e38-4dcc-a068-fc6e1ef2d124>", back));
  assert_int_equal(back[0], 0x0c);
  static const char *bad[] = { NULL, "", "<urn:uuid:>", "urn:uuid:0c3d6b02-3e38-4dcc-a068-fc6e1ef2d124",
                               "<urn:uuid:0c3d6b02-3e38-4dcc-a068-fc6e1ef2d124",
                               "<urn:uuid:0c3d6b02-3e38-4dcc-a068-fc6e1ef2d12>",
                               "<urn:uuid:0c3d6b023e38-4dcc-a068-fc6e1ef2d1240>",
                               "<urn:uuid:0c3d6b02-3e38-4dcc-a068-fc6e1ef2d12g>",
                               "<urn:uuid:0c3d6b02-3e38-4dcc-a068-fc6e1ef2d124>x" };
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_false(warc_id_parse(bad[i], back));
  char date[21];
  warc_date(1700000001999ull, date);
  assert_string_equal(date, "2023-11-14T22:13:21Z");
  assert_int_equal(warc_date_ms(date), 1700000001000ull);
  assert_int_equal(warc_date_ms(NULL), 0);
  assert_int_equal(warc_date_ms("2023-11-14T22:13:21"), 0);
  assert_int_equal(warc_date_ms("2023-11-14T22:13:21Zx"), 0);
  assert_int_equal(warc_date_ms("yesterday"), 0);
}

/* Read a file's records in order: each names the file's warcinfo. */
static void check_warcinfo_ids(const char *dir, const char *name, size_t *records)
{
  char path[512];
  struct stat sb;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  assert_int_equal(stat(path, &sb), 0);
  char *info = NULL;
  for(uint64_t off = 0; off < (uint64_t)sb.st_size;) {
    struct warc_record r;
    assert_int_equal(warc_read_at(path, off, 1u << 20, &r), CRAWL_OK);
    if(!off) {
      assert_string_equal(r.type, "warcinfo");
      info = warc_record_field(&r, "WARC-Record-ID");
      assert_non_null(info);
    } else {
      char *named = warc_record_field(&r, "WARC-Warcinfo-ID");
      assert_non_null(named);
      assert_string_equal(named, info);
      mem_free(named);
      (*records)++;
    }
    off += r.member_len;
    warc_record_free(&r);
  }
  mem_free(info);
}

static void test_warcinfo_ids(void **st)
{
  (void)st;
  char d[] = "/tmp/test_warciXXXXXX";
  assert_non_null(mkdtemp(d));
  struct warc_opts o = { d, "t", 4096, "test", NULL, 1, false };
  struct warc *w;
  assert_int_equal(warc_open(&o, &w), CRAWL_OK);
  struct warc_loc loc;
  char files[16][WARC_NAME_MAX];
  size_t nfiles = 0;
  char body[1500];
  memset(body, 'b', sizeof body);
  for(int i = 0; i < 20; i++) {
    struct warc_page p = { "http://a.test/", 1700000000000ull, 200, NULL, 0, body, sizeof body,
                           false, NULL, NULL };
    assert_int_equal(warc_write_response(w, &p, &loc, NULL), CRAWL_OK);
    if(!nfiles || strcmp(files[nfiles - 1], loc.file)) {
      assert_true(nfiles < 16);
      snprintf(files[nfiles++], WARC_NAME_MAX, "%s", loc.file);
    }
  }
  warc_close(&w);
  assert_true(nfiles >= 3);
  size_t records = 0;
  for(size_t i = 0; i < nfiles; i++)
    check_warcinfo_ids(d, files[i], &records);
  assert_int_equal(records, 40);  /* a request and a response per page */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", d);
  assert_int_equal(system(cmd), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_levels),
                                      cmocka_unit_test(test_buffered),
                                      cmocka_unit_test(test_record_ids),
                                      cmocka_unit_test(test_id_and_date_text),
                                      cmocka_unit_test(test_warcinfo_ids) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
