/* llfs/dns*.c without a DNS server: the cache's LRU and expiry bookkeeping,
 * literals, name checks, deferred callbacks, and out-of-memory at every
 * allocation (nothing leaks, no callback is lost or doubled). Queries go
 * to 127.0.0.1:9, where nothing answers (refused at once). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <string.h>

#include "llfs/dns.c"
#include "common/hash.h"
#include "common/mem.h"
#include "llfs/dns_int.h"

static uv_loop_t *loop;

static struct dns_entry *add(struct dns *d, const char *name)
{
  struct dns_entry *e = dns_cache_add(d, name, hash_fp64(name, strlen(name)));
  assert_non_null(e);
  return e;
}

static struct dns_entry *find(struct dns *d, const char *name)
{
  return dns_cache_find(&d->sh->cache, name, hash_fp64(name, strlen(name)));
}

static void answer(struct dns *d, struct dns_entry *e)
{
  e->st = DNS_ENT_POSITIVE;
  d->sh->st.evictions += dns_cache_answered(&d->sh->cache, e);
}

static void test_cache_lru(void **state)
{
  (void)state;
  struct dns_shared sh;
  struct dns d;
  memset(&sh, 0, sizeof sh);
  memset(&d, 0, sizeof d);
  d.magic = DNS_MAGIC;
  d.sh = &sh;
  struct dns_cache *c = &sh.cache;
  assert_int_equal(dns_cache_init(c, 3), 0);
  const char *names[] = { "a.test", "b.test", "c.test", "d.test" };
  for(int i = 0; i < 3; i++)
    answer(&d, add(&d, names[i]));
  assert_int_equal(c->lru.n, 3);
  dns_cache_touch(c, find(&d, "a.test"));   /* b is now the oldest */
  struct dns_entry *e = add(&d, "d.test");
  assert_int_equal(c->pending.n, 1);
  assert_ptr_equal(c->pending.first, e);
  answer(&d, e);
  assert_int_equal(sh.st.evictions, 1);
  assert_null(c->pending.first);
  assert_null(find(&d, "b.test"));
  assert_non_null(find(&d, "a.test"));
  /* a pending entry is not counted and not evicted */
  dns_cache_requery(c, find(&d, "c.test"), &d);
  assert_int_equal(c->lru.n, 2);
  assert_int_equal(c->pending.n, 1);
  assert_ptr_equal(c->pending.first, find(&d, "c.test"));
  answer(&d, add(&d, "e.test"));
  answer(&d, add(&d, "f.test"));
  assert_non_null(find(&d, "c.test"));
  assert_int_equal(c->lru.n, 3);
  dns_cache_remove(c, find(&d, "c.test"));
  assert_int_equal(c->pending.n, 0);
  assert_null(c->pending.first);
  dns_cache_fini(c);
  assert_int_equal(mem_live(), 0);
}

struct got {
  int calls;
  enum outcome o;
};

static bool inside;
static int reentered;

static void on_result(const struct dns_result *r, void *arg)
{
  struct got *g = arg;
  reentered += inside;
  g->calls++;
  g->o = r->outcome;
}

static struct dns *make(void)
{
  struct dns_cfg c = { "127.0.0.1:9", 1, 60, 5, 300, 16 };
  char err[128];
  struct dns *d = dns_new(loop, &c, err, sizeof err);
  assert_non_null(d);
  return d;
}

static void drain(struct dns **d)
{
  dns_free(d);
  uv_run(loop, UV_RUN_DEFAULT);
}

static void test_literals_and_names(void **state)
{
  (void)state;
  struct dns *d = make();
  struct got g[3] = { { 0 } };
  inside = true;
  assert_int_equal(dns_resolve(d, "192.0.2.1", on_result, &g[0], NULL), OUTCOME_OK);
  assert_int_equal(dns_resolve(d, "[2001:db8::1]", on_result, &g[1], NULL), OUTCOME_OK);
  assert_int_equal(dns_resolve(d, "name.test", on_result, &g[2], NULL), OUTCOME_OK);
  assert_int_equal(dns_resolve(d, "a b", on_result, &g[2], NULL), OUTCOME_BAD_URL);
  assert_int_equal(dns_resolve(d, "", on_result, &g[2], NULL), OUTCOME_BAD_URL);
  inside = false;
  assert_int_equal(g[0].calls + g[1].calls + g[2].calls, 0);
  while(g[2].calls == 0)
    uv_run(loop, UV_RUN_ONCE);
  assert_int_equal(g[0].o, OUTCOME_OK);
  assert_int_equal(g[1].o, OUTCOME_OK);
  assert_int_equal(g[2].o, OUTCOME_DNS_ERROR);   /* nobody on port 9 */
  assert_int_equal(reentered, 0);
  struct dns_addr a;
  char txt[64];
  assert_int_equal(dns_addr_parse("[::ffff:1.2.3.4]", 16, &a), 0);
  dns_addr_format(&a, txt, sizeof txt);
  assert_string_equal(txt, "::ffff:1.2.3.4");
  assert_int_equal(dns_addr_parse("1.2.3", 5, &a), -1);
  drain(&d);
  assert_int_equal(mem_live(), 0);
}

/* Every allocation of dns_resolve and of the queries it starts fails in
 * turn (the last rounds fail none): either a resolve refuses with
 * no_memory and never calls back, or it calls back exactly once; a lost
 * socket watcher makes its query time out. Nothing leaks. */
static void test_nomem_each_allocation(void **state)
{
  (void)state;
  int all = 0;
  for(unsigned long k = 1; k <= 30; k++) {
    struct dns *d = make();
    long base = mem_live();
    struct got g[4] = { { 0 } };
    const char *hosts[4] = { "x.test", "x.test", "127.0.0.1", "y.test" };
    int accepted[4] = { 0 };
    mem_fail_at(k);
    for(int i = 0; i < 4; i++) {
      enum outcome o = dns_resolve(d, hosts[i], on_result, &g[i], NULL);
      assert_true(o == OUTCOME_OK || o == OUTCOME_NOMEM);
      accepted[i] = o == OUTCOME_OK;
    }
    mem_fail_at(0);
    for(int spins = 0; spins < 1000; spins++) {
      int pending = 0;
      for(int i = 0; i < 4; i++)
        pending += accepted[i] && !g[i].calls;
      if(!pending)
        break;
      uv_run(loop, UV_RUN_ONCE);
    }
    all = 1;
    for(int i = 0; i < 4; i++) {
      assert_int_equal(g[i].calls, accepted[i]);
      all &= accepted[i] && g[i].o != OUTCOME_NOMEM;
    }
    drain(&d);
    assert_true(mem_live() <= base);
    assert_int_equal(mem_live(), 0);
  }
  assert_true(all);   /* 30 is past the last allocation */
}

int main(void)
{
  loop = uv_default_loop();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cache_lru),
    cmocka_unit_test(test_literals_and_names),
    cmocka_unit_test(test_nomem_each_allocation),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  uv_loop_close(loop);
  return rc;
}
