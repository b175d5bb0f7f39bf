/* The partition map and the Redis functions of a crawl on several
 * processes (clients/part/) against a real redis-server (REDIS_PORT):
 * shares, claims and releases between members, a crawl's N fixed by its
 * first member, fencing (a member whose lease lapsed cannot write a
 * snapshot, before or after another took its partition), links read and
 * counted, and the end of the crawl. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/part/coord.h"
#include "clients/part/part_lua.h"
#include "clients/part/partmap.h"

static char url[64];

static struct coord *open_crawl(const char *name)
{
  struct coord *k;
  assert_int_equal(coord_open(url, name, 2000, &k), CRAWL_OK);
  return k;
}

static redisReply *cmd(struct coord *k, const char *a, const char *b, const char *c)
{
  const char *argv[] = { a, b, c };
  int n = c ? 3 : b ? 2 : 1;
  redisReply *r = coord_cmd(k, n, argv, NULL);
  assert_non_null(r);
  return r;
}

/* rebalance for member m: the partitions it holds (bitmap), their epochs,
 * and the lapsed flags; returns the share, or -1 on an error reply. */
struct held {
  unsigned char has[64], lapsed[64];
  long long     epoch[64];
  unsigned      n, live;
};

static long rebalance(struct coord *k, const char *m, const char *lease, const char *n,
                      const char *claim, struct held *h, char *err, size_t errn)
{
  char km[COORD_KEY_MAX], kt[COORD_KEY_MAX], ko[COORD_KEY_MAX], ke[COORD_KEY_MAX],
       ks[COORD_KEY_MAX];
  const char *argv[] = { coord_key(k, "members", -1, km, sizeof km),
                         coord_key(k, "meta", -1, kt, sizeof kt),
                         coord_key(k, "owner", -1, ko, sizeof ko),
                         coord_key(k, "epoch", -1, ke, sizeof ke),
                         coord_key(k, "stats", -1, ks, sizeof ks), m, lease, n, claim };
  redisReply *r = coord_fcall(k, part_lua_rebalance, 5, 9, argv, NULL);
  assert_non_null(r);
  memset(h, 0, sizeof *h);
  if(r->type == REDIS_REPLY_ERROR) {
    snprintf(err, errn, "%s", r->str);
    freeReplyObject(r);
    return -1;
  }
  assert_int_equal(r->type, REDIS_REPLY_ARRAY);
  h->live = (unsigned)r->element[0]->integer;
  long share = (long)r->element[1]->integer;
  const redisReply *v = r->element[2];
  for(size_t i = 0; i + 2 < v->elements; i += 3) {
    int p = atoi(v->element[i]->str);
    assert_true(p >= 0 && p < 64);
    h->has[p] = 1;
    h->epoch[p] = atoll(v->element[i + 1]->str);
    h->lapsed[p] = v->element[i + 2]->str[0] == '1';
    h->n++;
  }
  freeReplyObject(r);
  return share;
}

static void release(struct coord *k, const char *m, int p, long long epoch, long long want)
{
  char ko[COORD_KEY_MAX], ps[16], es[24];
  snprintf(ps, sizeof ps, "%d", p);
  snprintf(es, sizeof es, "%lld", epoch);
  const char *argv[] = { coord_key(k, "owner", -1, ko, sizeof ko), m, ps, es };
  redisReply *r = coord_fcall(k, part_lua_release, 1, 4, argv, NULL);
  assert_non_null(r);
  assert_int_equal(r->type, REDIS_REPLY_INTEGER);
  assert_int_equal(r->integer, want);
  freeReplyObject(r);
}

/* snap for p with epoch: NULL when written, else the error's text. */
static char snap_err[256];
static const char *snap(struct coord *k, const char *m, int p, long long epoch, const char *data)
{
  char ko[COORD_KEY_MAX], ks[COORD_KEY_MAX], kl[COORD_KEY_MAX], km[COORD_KEY_MAX], ps[16],
       es[24];
  snprintf(ps, sizeof ps, "%d", p);
  snprintf(es, sizeof es, "%lld", epoch);
  const char *argv[] = { coord_key(k, "owner", -1, ko, sizeof ko),
                         coord_key(k, "snap", p, ks, sizeof ks),
                         coord_key(k, "links", p, kl, sizeof kl),
                         coord_key(k, "members", -1, km, sizeof km), m, ps, es, data,
                         COORD_GROUP };
  redisReply *r = coord_fcall(k, part_lua_snap, 4, 9, argv, NULL);
  assert_non_null(r);
  const char *res = NULL;
  if(r->type == REDIS_REPLY_ERROR) {
    snprintf(snap_err, sizeof snap_err, "%s", r->str);
    res = snap_err;
  }
  freeReplyObject(r);
  return res;
}

static void test_partmap(void **state)
{
  (void)state;
  unsigned count[1024] = { 0 };
  char host[64];
  for(int i = 0; i < 20000; i++) {
    snprintf(host, sizeof host, "site%d.example", i);
    unsigned p = partmap_of_host(host, 1024);
    assert_true(p < 1024);
    assert_int_equal(p, partmap_of_host(host, 1024));  /* the same every time */
    count[p]++;
  }
  unsigned lo = 20000, hi = 0;
  for(int i = 0; i < 1024; i++) {
    lo = count[i] < lo ? count[i] : lo;
    hi = count[i] > hi ? count[i] : hi;
  }
  assert_true(lo >= 3 && hi <= 45);  /* about 19.5 each: no partition empty or crowded */
  assert_int_equal(partmap_of_url("http://Site1.example/a", 1024), 1024);  /* not canonical */
  assert_int_equal(partmap_of_url("http://site1.example/a", 1024),
                   partmap_of_host("site1.example", 1024));
  assert_int_equal(partmap_of_url("http://site1.example:8080/b?x", 1024),
                   partmap_of_host("site1.example", 1024));
  assert_int_equal(partmap_share(1024, 3), 342);
  assert_int_equal(partmap_share(1024, 1), 1024);
  assert_int_equal(partmap_share(1024, 0), 1024);
  assert_int_equal(partmap_share(5, 2), 3);
  assert_true(coord_name_ok("crawl-1.a_b"));
  assert_false(coord_name_ok("a b"));
  assert_false(coord_name_ok("a}b"));
  assert_false(coord_name_ok(""));
}

static void test_shares(void **state)
{
  (void)state;
  struct coord *k = open_crawl("shares");
  struct held a, b, c;
  char err[256];
  assert_int_equal(rebalance(k, "a", "10000", "16", "1", &a, err, sizeof err), 16);
  assert_int_equal(a.n, 16);
  assert_int_equal(a.live, 1);
  /* b joins: share 8 each, but a holds all until it gives some back */
  assert_int_equal(rebalance(k, "b", "10000", "16", "1", &b, err, sizeof err), 8);
  assert_int_equal(b.n, 0);
  assert_int_equal(rebalance(k, "a", "10000", "16", "1", &a, err, sizeof err), 8);
  assert_int_equal(a.n, 16);  /* renewed, all of them: giving back is its own step */
  for(int p = 8; p < 16; p++)
    release(k, "a", p, a.epoch[p], 1);
  release(k, "a", 0, a.epoch[0] + 1, 0);  /* a wrong epoch releases nothing */
  release(k, "b", 1, a.epoch[1], 0);      /* nor another member */
  assert_int_equal(rebalance(k, "b", "10000", "16", "1", &b, err, sizeof err), 8);
  assert_int_equal(b.n, 8);
  for(int p = 8; p < 16; p++) {
    assert_true(b.has[p]);
    assert_false(b.lapsed[p]);  /* given back, not lapsed */
    assert_true(b.epoch[p] > a.epoch[15]);  /* every claim a new epoch */
  }
  assert_int_equal(rebalance(k, "a", "10000", "16", "1", &a, err, sizeof err), 8);
  assert_int_equal(a.n, 8);
  /* a third: share ceil(16/3) = 6; nothing free yet */
  assert_int_equal(rebalance(k, "c", "10000", "16", "0", &c, err, sizeof err), 6);
  assert_int_equal(c.n, 0);
  /* another N is refused, and changes nothing */
  assert_int_equal(rebalance(k, "d", "10000", "32", "1", &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "PARTITIONS"));
  assert_non_null(strstr(err, "16"));
  coord_close(&k);
}

static void test_fencing(void **state)
{
  (void)state;
  struct coord *k = open_crawl("fence");
  struct held a, b;
  char err[256];
  assert_int_equal(rebalance(k, "a", "300", "4", "1", &a, err, sizeof err), 4);
  assert_null(snap(k, "a", 2, a.epoch[2], "WCS1-a"));
  assert_non_null(snap(k, "b", 2, a.epoch[2], "WCS1-b"));  /* not b's */
  assert_non_null(snap(k, "a", 2, a.epoch[2] - 1, "WCS1-x"));  /* an old epoch */
  usleep(400 * 1000);  /* a's lease lapses */
  const char *e = snap(k, "a", 2, a.epoch[2], "WCS1-late");
  assert_non_null(e);
  assert_non_null(strstr(e, "FENCED"));
  /* b joins and takes the lapsed partitions (share 2 of 4: the two it
   * takes first), each with a new epoch and marked lapsed */
  assert_int_equal(rebalance(k, "b", "10000", "4", "1", &b, err, sizeof err), 4);
  assert_int_equal(b.n, 4);  /* a is not live any more: all four */
  assert_true(b.lapsed[2]);
  assert_true(b.epoch[2] > a.epoch[3]);
  e = snap(k, "a", 2, a.epoch[2], "WCS1-a2");
  assert_non_null(e);
  assert_non_null(strstr(e, "FENCED"));
  assert_null(snap(k, "b", 2, b.epoch[2], "WCS1-b"));
  char ks[COORD_KEY_MAX];
  redisReply *r = cmd(k, "GET", coord_key(k, "snap", 2, ks, sizeof ks), NULL);
  assert_string_equal(r->str, "WCS1-b");  /* only the owner's snapshot is kept */
  freeReplyObject(r);
  /* a comes back: its own partitions are b's now, and stay b's */
  assert_int_equal(rebalance(k, "a", "10000", "4", "1", &a, err, sizeof err), 2);
  assert_int_equal(a.n, 0);
  release(k, "a", 2, b.epoch[2], 0);
  coord_close(&k);
}

static void test_links_and_end(void **state)
{
  (void)state;
  struct coord *k = open_crawl("links");
  struct held a;
  char err[256], kl[COORD_KEY_MAX], kst[COORD_KEY_MAX], kid[COORD_KEY_MAX];
  char km[COORD_KEY_MAX], ko[COORD_KEY_MAX], kp[COORD_KEY_MAX];
  assert_int_equal(rebalance(k, "a", "10000", "2", "1", &a, err, sizeof err), 2);
  coord_key(k, "links", 1, kl, sizeof kl);
  coord_key(k, "stats", -1, kst, sizeof kst);
  coord_key(k, "idle", -1, kid, sizeof kid);
  coord_key(k, "members", -1, km, sizeof km);
  coord_key(k, "owner", -1, ko, sizeof ko);
  coord_key(k, "progress", -1, kp, sizeof kp);
  const char *mk[] = { "XGROUP", "CREATE", kl, COORD_GROUP, "0", "MKSTREAM" };
  freeReplyObject(coord_cmd(k, 6, mk, NULL));
  const char *add[] = { "XADD", kl, "*", "b", "1 2 p http://x.test/\n0 6 s http://x.test/s.xml\n" };
  freeReplyObject(coord_cmd(k, 5, add, NULL));
  const char *sent[] = { "HSET", kst, "sent", "1" };
  freeReplyObject(coord_cmd(k, 4, sent, NULL));
  /* idle a, but a link sent is not read: not over */
  const char *rep[] = { km, ko, kid, kst, kp, "a", "1", "{}", "2" };
  redisReply *r = coord_fcall(k, part_lua_report, 5, 9, rep, NULL);
  assert_int_equal(r->integer, 0);
  freeReplyObject(r);
  const char *rd[] = { kst, kid, kl, COORD_GROUP, "a", "100" };
  r = coord_fcall(k, part_lua_read, 3, 6, rd, NULL);
  assert_int_equal(r->type, REDIS_REPLY_ARRAY);
  assert_int_equal(r->elements, 1);
  assert_int_equal(r->element[0]->element[1]->elements, 1);  /* the entry */
  freeReplyObject(r);
  r = cmd(k, "HGET", kid, "a");
  assert_string_equal(r->str, "0");  /* reading made a busy */
  freeReplyObject(r);
  r = cmd(k, "HGET", kst, "recv");
  assert_string_equal(r->str, "1");
  freeReplyObject(r);
  r = coord_fcall(k, part_lua_read, 3, 6, rd, NULL);
  assert_int_equal(r->elements, 0);  /* read once */
  freeReplyObject(r);
  /* a second member, busy: not over; idle: over, and said from then on */
  struct held b;
  rebalance(k, "b", "10000", "2", "0", &b, err, sizeof err);
  const char *repb[] = { km, ko, kid, kst, kp, "b", "0", "{}", "2" };
  freeReplyObject(coord_fcall(k, part_lua_report, 5, 9, repb, NULL));
  r = coord_fcall(k, part_lua_report, 5, 9, rep, NULL);
  assert_int_equal(r->integer, 0);
  freeReplyObject(r);
  repb[6] = "1";
  r = coord_fcall(k, part_lua_report, 5, 9, repb, NULL);
  assert_int_equal(r->integer, 1);
  freeReplyObject(r);
  rep[6] = "0";
  r = coord_fcall(k, part_lua_report, 5, 9, rep, NULL);
  assert_int_equal(r->integer, 1);
  freeReplyObject(r);
  /* over: a's partitions, once it left, are taken by nobody */
  const char *leave[] = { "ZREM", km, "a" };
  freeReplyObject(coord_cmd(k, 3, leave, NULL));
  assert_int_equal(rebalance(k, "b", "10000", "2", "1", &b, err, sizeof err), 2);
  assert_int_equal(b.n, 0);
  coord_close(&k);
}

int main(void)
{
  const char *port = getenv("REDIS_PORT");
  if(!port) {
    fprintf(stderr, "REDIS_PORT is not set\n");
    return 1;
  }
  snprintf(url, sizeof url, "redis://127.0.0.1:%s", port);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_partmap),
    cmocka_unit_test(test_shares),
    cmocka_unit_test(test_fencing),
    cmocka_unit_test(test_links_and_end),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
