/* llfs/guard.c: every denied range on both sides of each boundary, the
 * IPv6 forms that embed IPv4, and the allow-list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "llfs/guard.c"
#include "common/mem.h"
#include "llfs/guard.h"

/* guard_check of a textual address ("10.0.0.1", "::ffff:10.0.0.1");
 * GUARD_BAD_FAMILY when text is not an address (the cases write them so). */
static enum guard_verdict check_str(const struct guard *g, const char *text)
{
  unsigned char b[16];
  if(inet_pton(AF_INET, text, b) == 1)
    return guard_check(g, AF_INET, b);
  if(inet_pton(AF_INET6, text, b) == 1)
    return guard_check(g, AF_INET6, b);
  return GUARD_BAD_FAMILY;
}

struct gcase {
  const char        *addr;
  enum guard_verdict want;
};

/* No allow-list: the production default. */
static const struct gcase deny_cases[] = {
  /* 0.0.0.0/8 */
  { "0.0.0.0", GUARD_UNSPECIFIED }, { "0.255.255.255", GUARD_UNSPECIFIED }, { "1.0.0.0", GUARD_OK },
  /* 10/8 */
  { "9.255.255.255", GUARD_OK }, { "10.0.0.0", GUARD_PRIVATE }, { "10.0.0.1", GUARD_PRIVATE },
  { "10.255.255.255", GUARD_PRIVATE }, { "11.0.0.0", GUARD_OK },
  /* 100.64/10 */
  { "100.63.255.255", GUARD_OK }, { "100.64.0.0", GUARD_CGNAT }, { "100.127.255.255", GUARD_CGNAT },
  { "100.128.0.0", GUARD_OK },
  /* 127/8 */
  { "126.255.255.255", GUARD_OK }, { "127.0.0.0", GUARD_LOOPBACK }, { "127.0.0.1", GUARD_LOOPBACK },
  { "127.255.255.255", GUARD_LOOPBACK }, { "128.0.0.0", GUARD_OK },
  /* 169.254/16 and the metadata host inside it */
  { "169.253.255.255", GUARD_OK }, { "169.254.0.0", GUARD_LINK_LOCAL },
  { "169.254.169.253", GUARD_LINK_LOCAL }, { "169.254.169.254", GUARD_METADATA },
  { "169.254.169.255", GUARD_LINK_LOCAL }, { "169.254.255.255", GUARD_LINK_LOCAL },
  { "169.255.0.0", GUARD_OK },
  { "168.63.129.15", GUARD_OK }, { "168.63.129.16", GUARD_METADATA }, { "168.63.129.17", GUARD_OK },
  /* 172.16/12 */
  { "172.15.255.255", GUARD_OK }, { "172.16.0.0", GUARD_PRIVATE }, { "172.31.255.255", GUARD_PRIVATE },
  { "172.32.0.0", GUARD_OK },
  /* 192.0.0/24, 192.0.2/24 */
  { "191.255.255.255", GUARD_OK }, { "192.0.0.0", GUARD_PROTOCOL }, { "192.0.0.255", GUARD_PROTOCOL },
  { "192.0.1.0", GUARD_OK }, { "192.0.1.255", GUARD_OK }, { "192.0.2.0", GUARD_DOCUMENTATION },
  { "192.0.2.255", GUARD_DOCUMENTATION }, { "192.0.3.0", GUARD_OK },
  /* 192.88.99/24 */
  { "192.88.98.255", GUARD_OK }, { "192.88.99.0", GUARD_TUNNEL }, { "192.88.99.255", GUARD_TUNNEL },
  { "192.88.100.0", GUARD_OK },
  /* 192.168/16 */
  { "192.167.255.255", GUARD_OK }, { "192.168.0.0", GUARD_PRIVATE },
  { "192.168.255.255", GUARD_PRIVATE }, { "192.169.0.0", GUARD_OK },
  /* 198.18/15 */
  { "198.17.255.255", GUARD_OK }, { "198.18.0.0", GUARD_BENCHMARKING },
  { "198.19.255.255", GUARD_BENCHMARKING }, { "198.20.0.0", GUARD_OK },
  /* 198.51.100/24, 203.0.113/24 */
  { "198.51.99.255", GUARD_OK }, { "198.51.100.0", GUARD_DOCUMENTATION },
  { "198.51.100.255", GUARD_DOCUMENTATION }, { "198.51.101.0", GUARD_OK },
  { "203.0.112.255", GUARD_OK }, { "203.0.113.0", GUARD_DOCUMENTATION },
  { "203.0.113.255", GUARD_DOCUMENTATION }, { "203.0.114.0", GUARD_OK },
  /* 224/4, 240/4, broadcast */
  { "223.255.255.255", GUARD_OK }, { "224.0.0.0", GUARD_MULTICAST },
  { "239.255.255.255", GUARD_MULTICAST }, { "240.0.0.0", GUARD_RESERVED },
  { "255.255.255.254", GUARD_RESERVED }, { "255.255.255.255", GUARD_BROADCAST },
  /* public */
  { "8.8.8.8", GUARD_OK }, { "93.184.216.34", GUARD_OK },
  /* IPv6 specials */
  { "::", GUARD_UNSPECIFIED }, { "::1", GUARD_LOOPBACK }, { "::2", GUARD_RESERVED },
  { "::127.0.0.1", GUARD_RESERVED }, { "::8.8.8.8", GUARD_RESERVED },
  /* IPv4-mapped and -translated: the IPv4 decides */
  { "::ffff:127.0.0.1", GUARD_LOOPBACK }, { "::ffff:10.0.0.1", GUARD_PRIVATE },
  { "::ffff:169.254.169.254", GUARD_METADATA }, { "::ffff:8.8.8.8", GUARD_OK },
  { "::ffff:0:10.1.2.3", GUARD_PRIVATE }, { "::ffff:0:8.8.8.8", GUARD_OK },
  { "::fffe:8.8.8.8", GUARD_RESERVED },
  /* NAT64 64:ff9b::/96 and the local-use /48 */
  { "64:ff9b::10.0.0.1", GUARD_PRIVATE }, { "64:ff9b::7f00:1", GUARD_LOOPBACK },
  { "64:ff9b::8.8.8.8", GUARD_OK }, { "64:ff9b:1::1", GUARD_TUNNEL },
  { "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", GUARD_TUNNEL }, { "64:ff9b:2::", GUARD_RESERVED },
  { "64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_RESERVED },
  /* 6to4 2002::/16: embedded IPv4 in bytes 2..5 */
  { "2002:a00:1::", GUARD_PRIVATE }, { "2002:a9fe:a9fe::1", GUARD_METADATA },
  { "2002:7f00:1::", GUARD_LOOPBACK }, { "2002:808:808::1", GUARD_OK },
  { "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_OK }, { "2003::1", GUARD_OK },
  /* 2001::/23, Teredo 2001::/32, benchmarking 2001:2::/48, docs 2001:db8::/32 */
  { "2001::1", GUARD_TUNNEL }, { "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_TUNNEL },
  { "2001:1::1", GUARD_PROTOCOL }, { "2001:1ff:ffff:ffff::", GUARD_PROTOCOL },
  { "2001:200::", GUARD_OK }, { "2001:2::", GUARD_BENCHMARKING },
  { "2001:2:0:ffff:ffff:ffff:ffff:ffff", GUARD_BENCHMARKING }, { "2001:2:1::", GUARD_PROTOCOL },
  { "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_OK }, { "2001:db8::", GUARD_DOCUMENTATION },
  { "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_DOCUMENTATION }, { "2001:db9::", GUARD_OK },
  /* 3fff::/20, 5f00::/16 */
  { "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_OK }, { "3fff::", GUARD_DOCUMENTATION },
  { "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_DOCUMENTATION }, { "3fff:1000::", GUARD_OK },
  { "5f00::", GUARD_RESERVED }, { "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_RESERVED },
  /* 100::/64 discard */
  { "100::", GUARD_RESERVED }, { "100::ffff:ffff:ffff:ffff", GUARD_RESERVED },
  { "100:0:0:1::", GUARD_RESERVED },
  /* global unicast 2000::/3 ends at 3fff:... */
  { "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_RESERVED }, { "2000::", GUARD_OK },
  { "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_OK }, { "4000::", GUARD_RESERVED },
  /* ULA fc00::/7 and AWS metadata inside it */
  { "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_RESERVED }, { "fc00::", GUARD_UNIQUE_LOCAL },
  { "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_UNIQUE_LOCAL },
  { "fd00:ec2::253", GUARD_UNIQUE_LOCAL }, { "fd00:ec2::254", GUARD_METADATA },
  { "fd00:ec2::255", GUARD_UNIQUE_LOCAL },
  /* link-local fe80::/10, site-local fec0::/10, multicast ff00::/8 */
  { "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_RESERVED }, { "fe80::", GUARD_LINK_LOCAL },
  { "fe80::1", GUARD_LINK_LOCAL }, { "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_LINK_LOCAL },
  { "fec0::", GUARD_SITE_LOCAL }, { "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_SITE_LOCAL },
  { "ff00::", GUARD_MULTICAST }, { "ff02::1", GUARD_MULTICAST },
  { "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", GUARD_MULTICAST },
  /* not addresses */
  { "", GUARD_BAD_FAMILY }, { "example.com", GUARD_BAD_FAMILY }, { "10.0.0.256", GUARD_BAD_FAMILY },
};

static void run_cases(const struct guard *g, const struct gcase *c, size_t n)
{
  int bad = 0;
  for(size_t i = 0; i < n; i++) {
    enum guard_verdict v = check_str(g, c[i].addr);
    if(v != c[i].want) {
      print_error("%s: got %s, want %s\n", c[i].addr, guard_verdict_name(v),
                  guard_verdict_name(c[i].want));
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

static void test_deny_ranges(void **state)
{
  (void)state;
  char err[128];
  struct guard *g = guard_new(NULL, err, sizeof err);
  assert_non_null(g);
  run_cases(g, deny_cases, sizeof deny_cases / sizeof deny_cases[0]);
  guard_free(&g);
  assert_null(g);
}

static const struct gcase allow_cases[] = {
  { "127.0.0.1", GUARD_OK }, { "127.10.3.251", GUARD_OK }, { "127.255.255.255", GUARD_OK },
  { "126.255.255.255", GUARD_OK }, { "128.0.0.0", GUARD_OK },
  { "::ffff:127.0.0.1", GUARD_OK },         /* mapped form follows the IPv4 verdict */
  { "64:ff9b::127.0.0.2", GUARD_OK },
  { "10.0.0.1", GUARD_PRIVATE }, { "169.254.169.254", GUARD_METADATA },
  { "192.168.1.1", GUARD_PRIVATE }, { "192.168.2.7", GUARD_OK }, { "192.168.2.8", GUARD_PRIVATE },
  { "::1", GUARD_OK }, { "::2", GUARD_RESERVED },
  { "fd12:3456::1", GUARD_OK }, { "fd12:3456:0:1::", GUARD_UNIQUE_LOCAL },
};

static void test_allow_list(void **state)
{
  (void)state;
  char err[128];
  struct guard *g = guard_new(" 127.0.0.0/8, ::1 ,192.168.2.7,fd12:3456::/64,", err, sizeof err);
  assert_non_null(g);
  run_cases(g, allow_cases, sizeof allow_cases / sizeof allow_cases[0]);
  guard_free(&g);
}

static void test_allow_list_host_bits(void **state)
{
  (void)state;
  char err[128];
  /* bits beyond the prefix are ignored, as routers do */
  struct guard *g = guard_new("10.1.2.3/16", err, sizeof err);
  assert_non_null(g);
  assert_int_equal(check_str(g, "10.1.255.255"), GUARD_OK);
  assert_int_equal(check_str(g, "10.2.0.0"), GUARD_PRIVATE);
  guard_free(&g);
  g = guard_new("0.0.0.0/0", err, sizeof err);
  assert_non_null(g);
  assert_int_equal(check_str(g, "10.0.0.1"), GUARD_OK);
  assert_int_equal(check_str(g, "fe80::1"), GUARD_LINK_LOCAL);
  guard_free(&g);
}

static void test_bad_allow_list(void **state)
{
  (void)state;
  static const char *bad[] = {
    "127.0.0.0/33", "::/129", "127.0.0.0/", "127.0.0.0/8x", "localhost", "10.0.0/8",
    "127.0.0.1/-1", "1.2.3.4,,nope", "0x7f000001",
  };
  char err[128];
  for(size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    struct guard *g = guard_new(bad[i], err, sizeof err);
    if(g)
      print_error("accepted \"%s\"\n", bad[i]);
    assert_null(g);
    assert_true(strstr(err, "bad CIDR") != NULL);
  }
}

static void test_allow_list_cap(void **state)
{
  (void)state;
  char csv[GUARD_MAX_ALLOW * 16 + 64] = "";
  size_t n = 0;
  for(int i = 0; i <= GUARD_MAX_ALLOW; i++)
    n += (size_t)snprintf(csv + n, sizeof csv - n, "%s10.0.%d.%d", i ? "," : "", i / 250,
                          i % 250);
  char err[128];
  assert_null(guard_new(csv, err, sizeof err));
  assert_non_null(strstr(err, "more than"));
}

static void test_binary_api(void **state)
{
  (void)state;
  char err[128];
  struct guard *g = guard_new("", err, sizeof err);
  unsigned char b[16];
  assert_int_equal(inet_pton(AF_INET, "169.254.169.254", b), 1);
  assert_int_equal(guard_check(g, AF_INET, b), GUARD_METADATA);
  assert_int_equal(inet_pton(AF_INET6, "fd00:ec2::254", b), 1);
  assert_int_equal(guard_check(g, AF_INET6, b), GUARD_METADATA);
  assert_int_equal(guard_check(g, AF_UNIX, b), GUARD_BAD_FAMILY);
  assert_string_equal(guard_verdict_name(GUARD_METADATA), "cloud_metadata");
  assert_string_equal(guard_verdict_name(GUARD__COUNT), "unknown");
  guard_free(&g);
}

static void test_nomem(void **state)
{
  (void)state;
  char err[128];
  for(unsigned long k = 1; k < 4; k++) {
    long before = mem_live();
    mem_fail_at(k);
    struct guard *g = guard_new("127.0.0.0/8", err, sizeof err);
    mem_fail_at(0);
    if(g) {
      guard_free(&g);
      break;
    }
    assert_non_null(strstr(err, "out of memory"));
    assert_int_equal(mem_live(), before);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_deny_ranges),
    cmocka_unit_test(test_allow_list),
    cmocka_unit_test(test_allow_list_host_bits),
    cmocka_unit_test(test_bad_allow_list),
    cmocka_unit_test(test_allow_list_cap),
    cmocka_unit_test(test_binary_api),
    cmocka_unit_test(test_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
