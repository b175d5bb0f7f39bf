/* The gateway's two string-keyed page caches (common/cache.h under them):
 * the rendered-page memo (hlfs/gw/page_memo.h) and the fresh pages
 * (hlfs/fetch/fresh_pages.h). KEYS pages of about 4 KiB against a bound that
 * holds a third of them; then OPS lookups with a bias to low keys (the
 * popular pages), each miss followed by a put, as the gateway does. Prints
 * CPU ns per lookup and the hits, which two builds must agree on
 * (bench_memo.sh).
 *   bench_memo [KEYS] [OPS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hlfs/fetch/fresh_pages.h"
#include "hlfs/gw/page_memo.h"
#include "tests/bench/args.h"

#define BODY 4000

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

/* A key drawn with a bias to low numbers. */
static long draw(uint64_t *s, long keys)
{
  double u = (double)(xorshift(s) >> 11) / 9007199254740992.0;
  return (long)((double)keys * pow(u, 3.0));
}

static struct page page_of(const char *url, const char *body)
{
  return (struct page){ .url = url, .outcome = "ok", .status = 200, .fetched_at = 1,
                        .headers_json = "[]", .body = body, .body_len = BODY,
                        .hash = "0123456789abcdef" };
}

static double memo_run(long keys, long ops, const char *body, long *hits)
{
  struct page_memo *m = page_memo_new((size_t)keys * (BODY + 300) / 3);
  uint64_t s = 88172645463325252ull;
  char key[64];
  double t0 = cpu_ns();
  for(long i = 0; i < ops; i++) {
    long k = draw(&s, keys);
    snprintf(key, sizeof key, "p:{h%ld.test}:http://h%ld.test/", k % 97, k);
    struct page head;
    const char *tail;
    size_t tail_len;
    if(page_memo_get(m, key, &head, &tail, &tail_len))
      (*hits)++;
    else {
      struct page p = page_of(key, body);
      page_memo_put(m, key, &p, body, BODY);
    }
  }
  double t = cpu_ns() - t0;
  page_memo_free(&m);
  return t / (double)ops;
}

static double fresh_run(long keys, long ops, const char *body, long *hits)
{
  struct fresh_pages *f = fresh_pages_new((size_t)keys * (BODY + 400) / 3);
  uint64_t s = 0x9E3779B97F4A7C15ull;
  char key[64];
  double t0 = cpu_ns();
  for(long i = 0; i < ops; i++) {
    snprintf(key, sizeof key, "p:{h.test}:http://h.test/%ld", draw(&s, keys));
    struct page out;
    if(fresh_pages_get(f, key, "rid-1", &out))
      (*hits)++;
    else {
      struct page p = page_of(key, body);
      fresh_pages_put(f, key, "rid-1", &p);
    }
  }
  double t = cpu_ns() - t0;
  fresh_pages_free(&f);
  return t / (double)ops;
}

int main(int argc, char **argv)
{
  long keys = 20000, ops = 2000000;
  if((argc > 1 && num_arg(argv[1], 10, 10000000, &keys)) ||
     (argc > 2 && num_arg(argv[2], 1, 1000000000, &ops))) {
    fprintf(stderr, "usage: bench_memo [KEYS] [OPS]\n");
    return 2;
  }
  static char body[BODY + 1];
  memset(body, 'x', BODY);
  long mh = 0, fh = 0;
  double mns = memo_run(keys, ops, body, &mh);
  double fns = fresh_run(keys, ops, body, &fh);
  printf("page_memo_ns_per_op %.1f hits %ld\n", mns, mh);
  printf("fresh_pages_ns_per_op %.1f hits %ld\n", fns, fh);
  return 0;
}
