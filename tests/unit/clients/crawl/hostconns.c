/* clients/crawl/hostconns.c: each host keeps the largest count its results
 * gave (a lower one, from a result that came late, changes nothing), hosts
 * are told apart by host name (not port or path), results that said
 * nothing are not counted, the totals follow every change, a full map
 * counts the hosts it could not take, the summary's members, and a
 * checkpoint that gives back the map and its totals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clients/crawl/hostconns.c"
#include "common/buf.h"

static void note(struct hostconns *h, const char *url, uint64_t n) { hostconns_note(h, url, n); }

static void test_largest_per_host(void **state)
{
  (void)state;
  struct hostconns h;
  hostconns_init(&h, 1u << 20);
  note(&h, "http://a.test/", 1);
  note(&h, "http://a.test/p/1.html", 1);  /* the same connection */
  note(&h, "http://b.test/", 2);
  note(&h, "http://b.test/x", 1);         /* late: an older count */
  note(&h, "http://c.test/", 0);          /* not contacted: no count */
  note(&h, "not a url", 7);               /* not canonical: ignored */
  assert_int_equal(h.map.count, 2);
  assert_int_equal(h.opened, 3);
  assert_int_equal(h.max, 2);
  assert_int_equal(h.over_one, 1);
  note(&h, "http://a.test:8080/q?x=1", 4);  /* the host, whatever the port */
  note(&h, "http://b.test/y", 5);
  assert_int_equal(h.map.count, 2);
  assert_int_equal(h.opened, 9);
  assert_int_equal(h.max, 5);
  assert_int_equal(h.over_one, 2);  /* b was over one already: counted once */
  assert_int_equal(h.untracked, 0);
  hostconns_free(&h);
}

static void test_budget(void **state)
{
  (void)state;
  struct hostconns h;
  char url[64];
  hostconns_init(&h, 1024);  /* 64 slots of 16 bytes: 48 hosts at most */
  for(int i = 0; i < 100; i++) {
    snprintf(url, sizeof url, "http://h%d.test/", i);
    note(&h, url, 1);
  }
  assert_true(h.map.count > 0 && h.map.count < 100);
  assert_int_equal(h.untracked, 100 - h.map.count);
  assert_int_equal(h.opened, h.map.count);
  assert_true(fpmap_bytes(&h.map) <= 1024);
  hostconns_free(&h);
}

static void test_json(void **state)
{
  (void)state;
  struct hostconns h;
  struct buf b;
  hostconns_init(&h, 1u << 20);
  buf_init(&b, 4096);
  assert_int_equal(hostconns_json(&h, &b), CM_OK);
  assert_string_equal(b.data, ",\"connections\":{\"hosts\":0,\"opened\":0,\"max_per_host\":0,"
                              "\"hosts_over_one\":0,\"untracked\":0}");
  note(&h, "https://a.test/", 3);
  note(&h, "https://b.test/", 1);
  buf_reset(&b);
  assert_int_equal(hostconns_json(&h, &b), CM_OK);
  assert_string_equal(b.data, ",\"connections\":{\"hosts\":2,\"opened\":4,\"max_per_host\":3,"
                              "\"hosts_over_one\":1,\"untracked\":0}");
  buf_free(&b);
  hostconns_free(&h);
}

static void test_checkpoint(void **state)
{
  (void)state;
  static const char magic[8] = { 'T', 'H', 'C', 'O', 'N', 'N', '0', '1' };
  char path[64];
  snprintf(path, sizeof path, "/tmp/test_hostconns_%d", (int)getpid());
  struct hostconns h;
  hostconns_init(&h, 1u << 20);
  note(&h, "http://a.test/", 1);
  note(&h, "http://b.test/", 6);
  note(&h, "http://c.test/", 2);
  h.untracked = 3;
  struct ckfile ck;
  assert_int_equal(ckfile_create(&ck, path, magic), CRAWL_OK);
  hostconns_save(&h, &ck);
  assert_int_equal(ckfile_commit(&ck), CRAWL_OK);
  hostconns_free(&h);

  hostconns_init(&h, 1u << 20);
  assert_int_equal(ckfile_open(&ck, path, magic), CRAWL_OK);
  hostconns_load(&h, &ck);
  assert_int_equal(ckfile_close(&ck), CRAWL_OK);
  unlink(path);
  assert_int_equal(h.map.count, 3);
  assert_int_equal(h.opened, 9);
  assert_int_equal(h.max, 6);
  assert_int_equal(h.over_one, 2);
  assert_int_equal(h.untracked, 3);
  note(&h, "http://a.test/", 2);  /* the crawl goes on from there */
  assert_int_equal(h.opened, 10);
  assert_int_equal(h.over_one, 3);
  hostconns_free(&h);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_largest_per_host),
    cmocka_unit_test(test_budget),
    cmocka_unit_test(test_json),
    cmocka_unit_test(test_checkpoint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
