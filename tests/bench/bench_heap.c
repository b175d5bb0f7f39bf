/* The binary heaps under a load: the scored frontier (a host's heap of
 * URLs, the heap of hosts, the heap of the worst) and the refresh crawl's
 * heap of pages by due time. Prints CPU nanoseconds per operation and a
 * checksum of the order taken, so that two builds can be compared run
 * against run (bench_heap.sh) and shown to take the same order.
 *   bench_heap [URLS] [HOSTS] [ROUNDS] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/crawl/frontier.h"
#include "clients/refresh/pages.h"
#include "common/hash.h"
#include "tests/bench/args.h"

static uint64_t xorshift(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static double cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* 1/8 of the URLs re-found with a better score; the bound at about 3/4 of
 * what they need, so the heap of the worst drops some; then taken 64 at a
 * time, 4 per host outstanding, each given back done. */
static double frontier_run(long urls, long hosts, uint64_t *sum)
{
  struct frontier_opts o = { (size_t)urls * 96, 4, NULL, NULL, 0, true };
  struct frontier *f;
  if(frontier_open(&o, &f)) {
    fprintf(stderr, "bench_heap: frontier_open failed\n");
    exit(1);
  }
  uint64_t s = 88172645463325252ull, ops = 0;
  char url[96], host[32];
  double t0 = cpu_ns();
  for(long i = 0; i < urls; i++) {
    long h = (long)(xorshift(&s) % (uint64_t)hosts);
    snprintf(host, sizeof host, "h%ld.test", h);
    snprintf(url, sizeof url, "http://%s/%ld", host, i);
    struct frontier_score sc = { (double)(xorshift(&s) % 1000) / 1000.0, NULL, 0 };
    frontier_push_scored(f, url, host, 1, &sc);
    if(i % 8 == 7) {
      long j = (long)(xorshift(&s) % (uint64_t)(i + 1));
      snprintf(url, sizeof url, "http://h%ld.test/%ld", h, j);
      struct frontier_score up = { sc.score + 0.1, NULL, 0 };
      frontier_raise(f, hash_fp64(url, strlen(url)), &up);
    }
    ops++;
  }
  struct frontier_item it[64];
  size_t n;
  while((n = frontier_take(f, 64, it)) > 0)
    for(size_t k = 0; k < n; k++) {
      *sum = *sum * 31 + it[k].fp;
      frontier_done(f, it[k].fp, NULL);
      ops++;
    }
  double t = cpu_ns() - t0;
  frontier_close(&f);
  return t / (double)ops;
}

/* Pages added with due times spread over a day; then each round visits
 * the page due first and plans its next visit a random while later. */
static double refresh_run(long pages, long rounds, uint64_t *sum)
{
  struct rf_pages ps;
  rf_pages_init(&ps, (size_t)pages, 3, 86400);
  uint64_t s = 0x9E3779B97F4A7C15ull, now = 1000;
  char url[64];
  double t0 = cpu_ns();
  for(long i = 0; i < pages; i++) {
    bool added;
    snprintf(url, sizeof url, "http://p%ld.test/", i);
    crawl_err e = rf_pages_add(&ps, url, 1.0, now + xorshift(&s) % 86400000, &added);
    if(e) {
      fprintf(stderr, "bench_heap: page %ld: %s\n", i, crawl_err_text(e));
      exit(1);
    }
  }
  for(long r = 0; r < rounds; r++) {
    struct rf_page *p = rf_pages_top(&ps);
    now = p->due_ms;
    *sum = *sum * 31 + (uint64_t)(p - ps.v);
    rf_pages_set_due(&ps, p, now + 1 + xorshift(&s) % 3600000);
  }
  double t = cpu_ns() - t0;
  rf_pages_free(&ps);
  return t / (double)(pages + rounds);
}

int main(int argc, char **argv)
{
  long urls = 400000, hosts = 2000, rounds = 2000000;
  if((argc > 1 && num_arg(argv[1], 1000, 100000000, &urls)) ||
     (argc > 2 && num_arg(argv[2], 1, 10000000, &hosts)) ||
     (argc > 3 && num_arg(argv[3], 1, 1000000000, &rounds))) {
    fprintf(stderr, "usage: bench_heap [URLS] [HOSTS] [ROUNDS]\n");
    return 2;
  }
  uint64_t fsum = 0, rsum = 0;
  double fns = frontier_run(urls, hosts, &fsum);
  double rns = refresh_run(urls < 150000 ? urls : 150000, rounds, &rsum);  /* rf_pages' index budget */
  printf("frontier_scored_ns_per_op %.1f order %016" PRIx64 "\n", fns, fsum);
  printf("refresh_pages_ns_per_op %.1f order %016" PRIx64 "\n", rns, rsum);
  return 0;
}
