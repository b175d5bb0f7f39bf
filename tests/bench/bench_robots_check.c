/* The gateway's robots check (sched_robots_check, what the scheduler calls
 * for every claimed URL) with parsed rules kept and without (robots_rules_cache
 * 0: the body is parsed on every check, as before they were kept). Checks per second on a generated 500 KiB robots.txt and
 * on a typical small one, and across many origins.
 *   bench_robots_check [TYPICAL_SMALL_FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/clock.h"
#include "hlfs/sched/sched_robots.h"
#include "tests/bench/robots_gen.h"

#define MIN_US 400000  /* run each measurement at least this long */

/* Checks per second of URLs on norigins origins sharing one body. */
static const struct robots_agent wpfs = { "wpfs", 4 };

static double check_rate(struct sched_robots *g, const char *body, size_t len, unsigned norigins)
{
  static const char *const urls[] = { "http://a.test/wiki/Article_1?from=2",
                                      "http://a.test/shop/cart/123", "http://a.test/news/",
                                      "http://a.test/img/v2/9.png" };
  struct state_robots rec = { .status = ROBOTS_P_OK, .body = body, .body_len = len,
                              .fetched_at = 1700000000000ULL, .expires_at = UINT64_MAX };
  char origin[64];
  for(unsigned i = 0; i < norigins; i++) {  /* as claims' lookups keep them */
    snprintf(origin, sizeof origin, "http://o%u.test:80", i);
    sched_robots_put(g, origin, &rec, NULL);
    if(i < 100)  /* first parses out of the timing */
      sched_robots_check(g, origin, &rec, urls[0], &wpfs);
  }
  uint64_t t0 = clock_mono_us(), t;
  unsigned long n = 0;
  do {
    snprintf(origin, sizeof origin, "http://o%u.test:80", (unsigned)(n % norigins));
    if(sched_robots_check(g, origin, &rec, urls[n % 4], &wpfs) == ROBOTS_UNAVAILABLE) {
      fputs("bench_robots_check: check failed\n", stderr);
      exit(1);
    }
    n++;
  } while((t = clock_mono_us() - t0) < MIN_US);
  return (double)n * 1e6 / (double)t;
}

/* A book as hlfs/main.c sets one up, keeping rules_max parsed sets. */
static struct sched_robots *book(unsigned rules_max)
{
  struct sched_cfg c = { .robots_cache = 10000, .robots_cache_bytes = 64u << 20,
                         .robots_rules_max = rules_max, .robots_rules_bytes = 64u << 20,
                         .robots_policy = robots_policy_defaults(),
                         .robots_limits = robots_limits_default() };
  return sched_robots_new(&c);
}

static void run(const char *what, const char *body, size_t len)
{
  struct sched_robots *g = book(0);
  double before = check_rate(g, body, len, 1);
  sched_robots_free(&g);
  g = book(4096);
  double after = check_rate(g, body, len, 1);
  double some = check_rate(g, body, len, 64);
  double many = check_rate(g, body, len, 1000);
  struct sched_robots_stats st;
  sched_robots_stats(g, &st);
  sched_robots_free(&g);
  printf("   %-24s %8.0f checks/s parsing each time; kept: %8.0f (x%.0f), "
         "%8.0f over 64 origins, %8.0f over 1,000 in turn (%zu kept in %.1f MiB)\n",
         what, before, after, after / before, some, many, st.rules,
         (double)st.rules_bytes / 1048576.0);
}

int main(int argc, char **argv)
{
  struct buf b;
  buf_init(&b, 1 << 20);
  gen_500k(&b);
  run("generated 500 KiB file:", b.data, b.len);
  size_t slen = 0;
  char *small = argc > 1 ? read_file(argv[1], 1 << 20, &slen) : NULL;
  if(small)
    run("typical file:", small, slen);
  free(small);
  buf_free(&b);
  return 0;
}
