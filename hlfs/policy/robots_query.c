/* robots.txt matching (RFC 9309 §2.2.1-2.2.3): which groups apply to an
 * agent, and which of their rules decides for a path.
 *
 * Cost of a query: two binary searches for the agent; per group, one binary
 * search step per path byte to narrow the rules whose literal prefix is a
 * prefix of the path; then each candidate is matched without backtracking:
 * its literal segments (split at '*') are found left-most first with
 * memmem, which is optimal for '*'-only globs, so a pattern costs at most
 * one pass over the path per segment and hostile "*a*a*a..." patterns stay
 * linear instead of exponential. */
#include "hlfs/policy/robots.h"

#include <assert.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/policy/robots_int.h"

/* Does normalised pattern pat[0..m) match s[0..n)? The pattern is anchored
 * at the start of s; it ends with '$' when it must also reach the end. */
static bool robots_match(const char *pat, size_t m, const char *s, size_t n)
{
  bool anchored = m > 0 && pat[m - 1] == '$';
  if(anchored)
    m--;
  const char *star = memchr(pat, '*', m);
  size_t seg = star ? (size_t)(star - pat) : m;
  if(seg > n || memcmp(pat, s, seg))
    return false;
  if(!star)
    return !anchored || seg == n;
  size_t pos = seg, i = seg + 1;
  for(;;) {
    star = memchr(pat + i, '*', m - i);
    seg = (star ? (size_t)(star - pat) : m) - i;
    if(!star)
      break;
    const char *hit = memmem(s + pos, n - pos, pat + i, seg);
    if(!hit)
      return false;
    pos = (size_t)(hit - s) + seg;
    i += seg + 1;
  }
  if(anchored)  /* the last segment must end the path, after pos */
    return n - pos >= seg && !memcmp(s + n - seg, pat + i, seg);
  return memmem(s + pos, n - pos, pat + i, seg) != NULL;
}

/* §2.2.2: the match with the most octets wins; between equals, allow. The
 * earlier line breaks the last tie, so explanations are stable. */
static bool robots_better(const struct robots_rule *a, const struct robots_rule *b)
{
  if(!b)
    return true;
  if(a->pat_len != b->pat_len)
    return a->pat_len > b->pat_len;
  if(a->allow != b->allow)
    return a->allow;
  return a->line < b->line;
}

static void robots_try(const struct robots *r, const struct robots_rule *ru,
                       const char *path, size_t n, const struct robots_rule **best)
{
  if(!robots_better(ru, *best))
    return;  /* could not win even if it matched */
  const char *pat = r->text + ru->pat;
  uint32_t k = ru->prefix_len;  /* already equal to path[0..k) */
  if(robots_match(pat + k, ru->pat_len - k, path + k, n - k))
    *best = ru;
}

/* First rule in [lo, hi) whose byte at `at` is >= c (or > c if upper). */
static uint32_t robots_bound(const struct robots *r, uint32_t lo, uint32_t hi, size_t at,
                             unsigned c, bool upper)
{
  while(lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    unsigned b = (unsigned char)r->text[r->rules[mid].pat + at];
    if(upper ? b <= c : b < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Rules are sorted by literal prefix. Invariant: every rule in [lo, hi)
 * has a prefix that starts with path[0..at); those whose prefix is exactly
 * that sort first and are candidates; the rest are narrowed by one byte. */
static void robots_group_best(const struct robots *r, const struct robots_group *g,
                              const char *path, size_t n, const struct robots_rule **best)
{
  uint32_t lo = g->rule0, hi = g->rule0 + g->nrules;
  for(size_t at = 0; lo < hi; at++) {
    while(lo < hi && r->rules[lo].prefix_len == at)
      robots_try(r, &r->rules[lo++], path, n, best);
    if(at == n)
      break;
    unsigned c = (unsigned char)path[at];
    lo = robots_bound(r, lo, hi, at, c, false);
    hi = robots_bound(r, lo, hi, at, c, true);
  }
}

/* Compare lower-case token tok with agent a, case-insensitively. */
static int robots_agent_cmp(const char *tok, size_t tn, const char *a, size_t an)
{
  size_t n = tn < an ? tn : an;
  for(size_t i = 0; i < n; i++) {
    unsigned x = (unsigned char)tok[i], y = (unsigned char)a[i];
    if(y >= 'A' && y <= 'Z')
      y += 32;
    if(x != y)
      return x < y ? -1 : 1;
  }
  return tn < an ? -1 : tn > an;
}

/* agents[*lo .. *hi) name agent a[0..an). */
static void robots_agent_range(const struct robots *r, const char *a, size_t an,
                               uint32_t *lo, uint32_t *hi)
{
  uint32_t l = 0, h = r->nagents;
  while(l < h) {
    uint32_t mid = l + (h - l) / 2;
    const struct robots_agent *x = &r->agents[mid];
    if(robots_agent_cmp(r->text + x->tok, x->tok_len, a, an) < 0)
      l = mid + 1;
    else
      h = mid;
  }
  *lo = h = l;
  while(h < r->nagents &&
        !robots_agent_cmp(r->text + r->agents[h].tok, r->agents[h].tok_len, a, an))
    h++;
  *hi = h;
}

static void robots_delay(const struct robots *r, double d, struct robots_verdict *v)
{
  if(d < 0 || d <= v->crawl_delay)
    return;
  v->crawl_delay_capped = d > r->lim.max_crawl_delay;
  v->crawl_delay = v->crawl_delay_capped ? r->lim.max_crawl_delay : d;
}

/* §2.2.1: every group naming the agent applies (merged); only when none
 * does, the "*" groups apply. */
static void robots_decide(const struct robots *r, const char *agent, size_t an,
                          const char *path, size_t n, struct robots_verdict *v)
{
  const struct robots_rule *best = NULL;
  uint32_t lo = 0, hi = 0;
  if(an)
    robots_agent_range(r, agent, an, &lo, &hi);
  if(lo == hi)
    robots_agent_range(r, "*", 1, &lo, &hi);
  for(uint32_t i = lo; i < hi; i++) {
    const struct robots_group *g = &r->groups[r->agents[i].group];
    robots_delay(r, g->crawl_delay, v);
    robots_group_best(r, g, path, n, &best);
  }
  if(n == 11 && !memcmp(path, "/robots.txt", 11)) {
    v->why = ROBOTS_WHY_ROBOTS_TXT;  /* §2.2.2: implicitly allowed */
    return;
  }
  if(!best)
    return;
  v->allowed = best->allow;
  v->why = ROBOTS_WHY_RULE;
  v->rule_allow = best->allow;
  v->rule = r->text + best->raw;
  v->line = best->line;
}

robots_err robots_query(const struct robots *r, const char *agent, size_t agent_len,
                        const char *path, size_t path_len, struct robots_verdict *v)
{
  if(!v || (!agent && agent_len) || (!path && path_len) || path_len > (SIZE_MAX - 2) / 3)
    return ROBOTS_INVALID;
  *v = (struct robots_verdict){ .allowed = true, .why = ROBOTS_WHY_DEFAULT,
                                .crawl_delay = -1.0 };
  if(!r)
    return ROBOTS_OK;
  assert(r->magic == ROBOTS_MAGIC);
  char stack[ROBOTS_QUERY_STACK];
  char *norm = stack;
  size_t need = 3 * path_len + 1;
  if(need > sizeof stack && !(norm = mem_alloc(need)))
    return ROBOTS_NOMEM;
  size_t n = 0;
  if(!path_len || path[0] != '/')
    norm[n++] = '/';
  n += robots_path_norm(path, path_len, false, norm + n);
  robots_decide(r, agent, agent_len, norm, n, v);
  if(norm != stack)
    mem_free(norm);
  return ROBOTS_OK;
}
