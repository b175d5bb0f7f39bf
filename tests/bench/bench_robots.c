/* Benchmark of hlfs/policy/robots*.c: parse throughput (MB/s) on a realistic large
 * robots.txt and on a generated 500 KiB one, and matches per second.
 *   bench_robots REALISTIC_LARGE_FILE [TYPICAL_SMALL_FILE]
 * Baseline measured in the same run: counting the lines of the same body
 * with memchr, the least any parser must do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "tests/bench/robots_gen.h"
#include "common/mem.h"
#include "hlfs/policy/robots.h"

#define MIN_US 400000  /* run each measurement at least this long */
#define NPATHS 1024

/* Paths to ask: half shaped like the rules of the body (so that they
 * match or nearly match), half plain article URLs. */
static void gen_paths(const char *body, size_t len, char **paths)
{
  for(int i = 0; i < NPATHS; i++) {
    char p[256];
    const char *at = body + rnd((unsigned)len);
    const char *slash = memchr(at, '/', (size_t)(body + len - at));
    size_t n = slash ? strcspn(slash, "*$\r\n# ") : 0;
    if(i % 2 && n > 1)
      snprintf(p, sizeof p, "%.*s%s", (int)(n > 120 ? 120 : n), slash,
               rnd(2) ? "/page?id=7" : "");
    else
      snprintf(p, sizeof p, "/wiki/Article_%u?from=%u", rnd(1000000), rnd(50));
    paths[i] = strdup(p);
  }
}

static double parse_mbs(const char *body, size_t len, struct robots_stats *st,
                        double *us_per)
{
  uint64_t t0 = clock_mono_us(), t;
  unsigned long n = 0;
  do {
    struct robots *r = NULL;
    if(robots_parse(body, len, NULL, &r)) {
      fputs("bench_robots: parse failed\n", stderr);
      exit(1);
    }
    robots_stats(r, st);
    robots_free(&r);
    n++;
  } while((t = clock_mono_us() - t0) < MIN_US);
  *us_per = (double)t / (double)n;
  return (double)len * (double)n / (double)t;  /* bytes per us = MB/s */
}

static double scan_mbs(const char *body, size_t len)
{
  uint64_t t0 = clock_mono_us(), t;
  unsigned long n = 0, lines = 0;
  do {
    for(const char *p = body; (p = memchr(p, '\n', (size_t)(body + len - p))); p++)
      lines++;
    n++;
  } while((t = clock_mono_us() - t0) < MIN_US);
  if(!lines)
    fputs("bench_robots: no lines\n", stderr);
  return (double)len * (double)n / (double)t;
}

static double match_rate(const struct robots *r, const char *agent, char **paths,
                         double *disallowed)
{
  uint64_t t0 = clock_mono_us(), t;
  unsigned long n = 0, dis = 0;
  size_t an = strlen(agent);
  do {
    for(int i = 0; i < NPATHS; i++) {
      struct robots_verdict v;
      robots_query(r, agent, an, paths[i], strlen(paths[i]), &v);
      dis += !v.allowed;
    }
    n += NPATHS;
  } while((t = clock_mono_us() - t0) < MIN_US);
  *disallowed = (double)dis / (double)n;
  return (double)n * 1e6 / (double)t;
}

static void bench_body(const char *name, const char *body, size_t len, const char *agent)
{
  struct robots_stats st;
  double us, scan = scan_mbs(body, len), mbs = parse_mbs(body, len, &st, &us), dis;
  printf("parse %-10s %7.1f KiB %6u lines %5u rules: %7.1f MB/s, %8.1f us/parse, "
         "%6.1f KiB in memory (line-count baseline %.0f MB/s, ratio %.2f)\n",
         name, (double)len / 1024, st.lines, st.rules, mbs, us, (double)st.mem_bytes / 1024,
         scan, mbs / scan);
  struct robots *r = NULL;
  robots_parse(body, len, NULL, &r);
  char *paths[NPATHS];
  gen_paths(body, len, paths);
  double rate = match_rate(r, agent, paths, &dis);
  printf("match %-10s agent %-6s: %10.0f matches/s, %6.0f ns/match (%.0f%% disallowed)\n",
         name, agent, rate, 1e9 / rate, 100 * dis);
  char *z = malloc(ZSTD_compressBound(len));
  size_t zn = ZSTD_compress(z, ZSTD_compressBound(len), body, len, 3);
  if(!ZSTD_isError(zn))
    printf("store %-10s body %.1f KiB, zstd-3 %.1f KiB\n", name, (double)len / 1024,
           (double)zn / 1024);
  free(z);
  for(int i = 0; i < NPATHS; i++)
    free(paths[i]);
  robots_free(&r);
}

/* Hostile: 1000 rules of 100 wildcards each against 2 KB paths. */
static void bench_hostile(void)
{
  struct buf b;
  buf_init(&b, 1 << 20);
  buf_adds(&b, "user-agent: *\n");
  for(int k = 0; k < 1000; k++) {
    buf_adds(&b, "disallow: /");
    for(int i = 0; i < 100; i++)
      buf_adds(&b, "*a");
    buf_adds(&b, "*b$\n");
  }
  struct robots *r = NULL;
  robots_parse(b.data, b.len, NULL, &r);
  char *paths[NPATHS], p[2048];
  memset(p, 'a', sizeof p - 1);
  p[0] = '/';
  p[sizeof p - 1] = '\0';
  for(int i = 0; i < NPATHS; i++)
    paths[i] = strdup(p);
  double dis, rate = match_rate(r, "x", paths, &dis);
  printf("match hostile    1000 rules x 100 '*', 2 KB paths: %.0f matches/s, %.0f us/match\n",
         rate, 1e6 / rate);
  for(int i = 0; i < NPATHS; i++)
    free(paths[i]);
  robots_free(&r);
  buf_free(&b);
}

int main(int argc, char **argv)
{
  size_t len;
  for(int i = 1; i < argc; i++) {
    char *body = read_file(argv[i], 8 << 20, &len);
    if(!body) {
      fprintf(stderr, "bench_robots: cannot read %s\n", argv[i]);
      return 1;
    }
    bench_body(i == 1 ? "realistic" : "typical", body, len, "wpfs");
    free(body);
  }
  struct buf g;
  buf_init(&g, 1 << 20);
  gen_500k(&g);
  bench_body("gen-500k", g.data, g.len, "wpfs");
  bench_body("gen-500k", g.data, g.len, "bot7");
  buf_free(&g);
  bench_hostile();
  return 0;
}
