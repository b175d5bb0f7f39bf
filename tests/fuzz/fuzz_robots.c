/* libFuzzer target for hlfs/policy/robots*.c.
 * Input: BODY [ '\0' AGENT [ '\0' PATH ]... ] - the robots.txt body, then
 * agents and paths to ask about (defaults when absent). Checks:
 *  - parse and query never crash, leak or read out of bounds (ASan);
 *  - every verdict is consistent with its explanation and the stats;
 *  - the matcher agrees with a dynamic-programming reference on a
 *    pattern and a path taken from the input;
 *  - robots_url_target and the fetch policy's header parsing survive it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/policy/robots.h"
#include "hlfs/policy/robots_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REF_MAX 64

/* Reference for a normalised pattern: classic O(m*n) table, '*' = any run,
 * a final '$' = end of path, otherwise a prefix match. */
static int ref_match(const char *p, size_t m, const char *s, size_t n)
{
  static unsigned char ok[3 * REF_MAX + 2][3 * REF_MAX + 3];
  int anchored = m && p[m - 1] == '$';
  if(anchored)
    m--;
  memset(ok, 0, sizeof ok);
  ok[0][0] = 1;
  for(size_t i = 1; i <= m; i++)
    for(size_t j = 0; j <= n; j++)
      ok[i][j] = p[i - 1] == '*' ? (ok[i - 1][j] || (j && ok[i][j - 1]))
                                 : (j && ok[i - 1][j - 1] && p[i - 1] == s[j - 1]);
  if(anchored)
    return ok[m][n];
  for(size_t j = 0; j <= n; j++)
    if(ok[m][j])
      return 1;
  return 0;
}

static void check_verdict(const struct robots *r, const char *agent, size_t an,
                          const char *path, size_t pn)
{
  struct robots_verdict v, w;
  struct robots_stats st;
  robots_stats(r, &st);
  if(robots_query(r, agent, an, path, pn, &v) != ROBOTS_OK)
    abort();
  if(v.why == ROBOTS_WHY_RULE &&
     (!v.rule || v.line < 1 || v.line > st.lines || v.allowed != v.rule_allow))
    abort();
  if(v.why != ROBOTS_WHY_RULE && !v.allowed)
    abort();
  if(v.crawl_delay > ROBOTS_CRAWL_DELAY_DEFAULT)
    abort();
  if(robots_query(r, agent, an, path, pn, &w) != ROBOTS_OK || w.allowed != v.allowed ||
     w.line != v.line)
    abort();
}

/* One "disallow: pattern" for "*", against the reference. */
static void check_matcher(const char *pat, size_t m, const char *path, size_t n)
{
  char body[3 * REF_MAX + 64], np[3 * REF_MAX + 2], ns[3 * REF_MAX + 2];
  size_t k = 0;
  while(k < m && k < REF_MAX && pat[k] && !strchr("\r\n#", pat[k]))
    k++;
  while(k && (pat[k - 1] == ' ' || pat[k - 1] == '\t'))
    k--;
  size_t skip = 0;
  while(skip < k && (pat[skip] == ' ' || pat[skip] == '\t'))
    skip++;
  if(n > REF_MAX)
    n = REF_MAX;
  int bn = snprintf(body, sizeof body, "user-agent: *\ndisallow: %.*s\n", (int)(k - skip),
                    pat + skip);
  struct robots *r;
  if(robots_parse(body, (size_t)bn, NULL, &r) != ROBOTS_OK)
    return;
  struct robots_verdict v;
  if(robots_query(r, "x", 1, path, n, &v) != ROBOTS_OK)
    abort();
  size_t pm = robots_path_norm(pat + skip, k - skip, true, np), sn = 0;
  if(!n || path[0] != '/')
    ns[sn++] = '/';
  sn += robots_path_norm(path, n, false, ns + sn);
  int want = pm && ref_match(np, pm, ns, sn) && !(sn == 11 && !memcmp(ns, "/robots.txt", 11));
  if(want != !v.allowed)
    abort();
  robots_free(&r);
}

static void check_policy(const char *s, size_t n)
{
  char hdr[256];
  size_t k = n < sizeof hdr - 1 ? n : sizeof hdr - 1;
  memcpy(hdr, s, k);
  hdr[k] = '\0';
  struct robots_fetch f = { .status = k ? 100 + (unsigned char)hdr[0] * 2 : 200,
                            .cache_control = hdr, .expires = hdr, .date = hdr,
                            .retry_after = hdr, .now_ms = 1700000000000ULL,
                            .redirects = k, .has_location = true };
  struct robots_state prev = { 1, 1700000000000ULL - 1000ULL * k * 3600, (uint32_t)k };
  struct robots_decision d;
  robots_policy(NULL, &f, &prev, &d);
  if(d.status == ROBOTS_P_NONE || (unsigned)d.status >= ROBOTS_P__LAST)
    abort();
  if(d.status != ROBOTS_P_REDIRECT && d.expires_at_ms < f.now_ms)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *in = (const char *)data;
  const char *nul = memchr(in, '\0', size);
  size_t blen = nul ? (size_t)(nul - in) : size;
  struct robots *r;
  if(robots_parse(in, blen, NULL, &r) != ROBOTS_OK)
    abort();
  const char *agent = "googlebot";
  size_t an = strlen(agent), tail = blen;
  int queries = 0;
  while(tail < size) {  /* fields after the body: agent, then paths */
    const char *f = in + tail + 1;
    const char *e = memchr(f, '\0', size - tail - 1);
    size_t fn = e ? (size_t)(e - f) : size - tail - 1;
    if(queries++ == 0) {
      agent = f;
      an = fn;
    } else {
      check_verdict(r, agent, an, f, fn);
      check_verdict(r, "*", 1, f, fn);
    }
    tail += fn + 1;
  }
  check_verdict(r, agent, an, "/", 1);
  check_verdict(r, agent, an, in, blen < 512 ? blen : 512);
  robots_free(&r);
  size_t half = blen / 2;
  check_matcher(in, half, in + half, blen - half);
  char *t;
  size_t tn;
  if(robots_url_target(in, blen, &t, &tn) == ROBOTS_OK)
    mem_free(t);
  check_policy(in, blen);
  return 0;
}
