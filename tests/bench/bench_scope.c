/* Scope rules' regular expressions (clients/base/scope.c): ns per URL
 * for five typical regex rules through scope_decide (PCRE2, JIT), against
 * the baseline the choice was made over, glibc's POSIX ERE (regexec) on
 * the same patterns and URLs, measured in the same run in CPU time.
 *   bench_scope [URLS]   (default 200000) */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/base/scope.h"
#include "common/mem.h"
#include "tests/bench/args.h"

static const char *const pats[] = {
  "https?://([a-z0-9-]+\\.)*example\\.org/docs/.*", ".*\\.(php|asp|aspx)(\\?.*)?",
  ".*[?&](sessionid|sid|jsessionid)=.*", ".*/(calendar|events)/[0-9]{4}/[0-9]{1,2}/.*",
  ".*/page/[0-9]+/?",
};
#define NPATS (sizeof pats / sizeof pats[0])

static double cpu_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char **make_urls(long n)
{
  char **v = mem_alloc((size_t)n * sizeof *v);
  for(long i = 0; v && i < n; i++) {
    char raw[160], *canon = NULL;
    snprintf(raw, sizeof raw, "http://www%ld.example.org/docs/s-%ld/page/%ld/a-%ld.html?x=%ld",
             i % 50, i % 97, i % 13, i, i % 7);
    if(url_canon(raw, strlen(raw), NULL, &canon) != URL_OK)
      abort();
    v[i] = canon;
  }
  return v;
}

static double run_scope(char **urls, long n, long *kept)
{
  char text[1024] = "";
  for(size_t k = 0; k < NPATS; k++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "reject regex %s\n", pats[k]);
  /* every rule tried: none matches last, so each URL runs all five */
  snprintf(text + strlen(text), sizeof text - strlen(text), "accept regex nothing\n");
  struct scope *s;
  char err[SCOPE_ERR_MAX];
  if(scope_parse(text, strlen(text), NULL, &s, err, sizeof err)) {
    fprintf(stderr, "bench_scope: %s\n", err);
    exit(1);
  }
  double t = cpu_s();
  for(long i = 0; i < n; i++) {
    struct url_parts p;
    int rule;
    url_split(urls[i], &p);
    *kept += scope_decide(s, &p, true, &rule);
  }
  t = cpu_s() - t;
  scope_free(&s);
  return t;
}

static double run_glibc(char **urls, long n, long *kept)
{
  regex_t re[NPATS];
  for(size_t k = 0; k < NPATS; k++) {
    char anchored[256];
    snprintf(anchored, sizeof anchored, "^(%s)$", pats[k]);  /* the whole URL, as scope's */
    if(regcomp(&re[k], anchored, REG_EXTENDED | REG_NOSUB))
      abort();
  }
  double t = cpu_s();
  for(long i = 0; i < n; i++) {
    int keep = 1;
    for(size_t k = 0; k < NPATS; k++)  /* the last that matches decides: all are tried */
      if(regexec(&re[k], urls[i], 0, NULL, 0) == 0)
        keep = 0;
    *kept += keep;
  }
  t = cpu_s() - t;
  for(size_t k = 0; k < NPATS; k++)
    regfree(&re[k]);
  return t;
}

int main(int argc, char **argv)
{
  long n = 200000, kept_s = 0, kept_g = 0;
  if(argc > 1 && num_arg(argv[1], 1, 100000000, &n)) {
    fprintf(stderr, "usage: bench_scope [URLS]\n");
    return 1;
  }
  char **urls = make_urls(n);
  if(!urls)
    return 1;
  double g = run_glibc(urls, n, &kept_g), s = run_scope(urls, n, &kept_s);
  printf("%zu regex rules, %ld URLs (each through every rule)\n", NPATS, n);
  printf("glibc regexec (POSIX ERE): %8.0f ns/URL\n", g / (double)n * 1e9);
  printf("scope_decide (PCRE2 JIT):  %8.0f ns/URL\n", s / (double)n * 1e9);
  printf("ratio glibc/scope: %.1f (the same decisions: %s)\n", s > 0 ? g / s : 0,
         kept_s == kept_g ? "yes" : "NO");
  for(long i = 0; i < n; i++)
    mem_free(urls[i]);
  mem_free(urls);
  return kept_s == kept_g ? 0 : 1;
}
