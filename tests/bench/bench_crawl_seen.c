/* The URL-seen set under a stream of discovered links: DISTINCT URLs, each
 * found LINKS times on average (popular ones far more, as on the Web: a
 * Zipf-like draw), against memory budgets that force it to disk. Prints
 * per budget: lookups/s, memory and disk bytes per distinct URL, spills,
 * merges and batch passes, and checks the count of new URLs is exact.
 * The baseline is the same stream on a set with no budget (memory only).
 *   bench_crawl_seen DIR [DISTINCT] [LINKS] */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/crawl/seen.h"
#include "clients/out/wq.h"
#include "common/clock.h"

struct count {
  uint64_t news;
};

static void on_new(void *arg, uint64_t fp, const void *rec, size_t len)
{
  (void)fp;
  (void)rec;
  (void)len;
  ((struct count *)arg)->news++;
}

static uint64_t xorshift(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* The k-th link of the stream: a new URL while some are left, else a
 * repeat drawn with a bias to low indexes (the popular pages). */
static uint64_t link_fp(uint64_t *s, uint64_t *next_new, uint64_t distinct, uint64_t k,
                        uint64_t total)
{
  uint64_t i;
  if(*next_new < distinct && xorshift(s) % total < distinct + k / 4)
    i = (*next_new)++;
  else {
    double u = (double)(xorshift(s) >> 11) / 9007199254740992.0;
    i = (uint64_t)((double)(*next_new ? *next_new : 1) * pow(u, 3.0));
  }
  return (i + 1) * 0x9E3779B97F4A7C15ull;
}

static double run(const char *dir, size_t budget, uint64_t distinct, uint64_t links,
                  struct seen_stats *st, uint64_t *news)
{
  struct count c = { 0 };
  struct wq *wq;
  if(wq_open(64u << 20, &wq))
    exit(1);
  struct seen_opts o = { dir, budget, 4, on_new, &c, wq };
  struct seen *s;
  if(seen_open(&o, &s))
    exit(1);
  uint64_t rng = 88172645463325252ull, next_new = 0, total = distinct * links;
  char rec[64];
  memset(rec, 'u', sizeof rec);  /* a URL-sized record for pending entries */
  uint64_t t0 = clock_mono_us();
  for(uint64_t k = 0; k < total; k++) {
    enum seen_answer a;
    if(seen_add(s, link_fp(&rng, &next_new, distinct, k, total), rec, sizeof rec, &a))
      exit(1);
    c.news += a == SEEN_NEW;
  }
  while(next_new < distinct) {  /* the stream ended early: add the rest */
    enum seen_answer a;
    if(seen_add(s, (++next_new) * 0x9E3779B97F4A7C15ull, rec, sizeof rec, &a))
      exit(1);
    c.news += a == SEEN_NEW;
  }
  seen_settle(s);
  double secs = (double)(clock_mono_us() - t0) / 1e6;
  seen_stats(s, st);
  *news = c.news;
  seen_close(&s);
  wq_close(&wq);
  return secs;
}

int main(int argc, char **argv)
{
  if(argc < 2)
    return 2;
  uint64_t distinct = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
  uint64_t links = argc > 3 ? strtoull(argv[3], NULL, 10) : 5;
  size_t budgets[] = { (size_t)1 << 40, 64u << 20, 8u << 20, 1u << 20 };
  double base = 0;
  printf("   %" PRIu64 " distinct URLs, %" PRIu64 " lookups\n", distinct, distinct * links);
  for(size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
    struct seen_stats st;
    uint64_t news;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s", argv[1]);
    double secs = run(sub, budgets[i], distinct, links, &st, &news);
    double rate = (double)st.lookups / secs;
    if(i == 0)
      base = rate;
    printf("   budget %-9s %6.2f M lookups/s (x%.2f of memory only)  memory %6.2f B/URL  "
           "disk %5.2f B/URL  spills %" PRIu64 " merges %" PRIu64 " batch passes %" PRIu64
           "%s\n",
           i == 0 ? "none" : budgets[i] >= (64u << 20) ? "64 MiB" : budgets[i] >= (8u << 20) ? "8 MiB" : "1 MiB",
           rate / 1e6, rate / base, (double)st.mem_bytes / (double)distinct,
           (double)st.disk_bytes / (double)distinct, st.spills, st.merges, st.flushes,
           news == distinct ? "" : "  WRONG COUNT");
    if(news != distinct)
      return 1;
  }
  return 0;
}
