/* robots.txt parser (RFC 9309 §2.1-2.4): turns a body into groups of rules.
 * Matching is in robots_query.c, percent-encoding in robots_path.c. */
#include "hlfs/policy/robots.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"
#include "hlfs/policy/robots_int.h"

ERR_DEFINE_TEXT(robots_err_text, robots_err, ROBOTS_ERRORS, ERR_TEXT_OF)

struct robots_limits robots_limits_default(void)
{
  return (struct robots_limits){ ROBOTS_MAX_BYTES_DEFAULT, ROBOTS_CRAWL_DELAY_DEFAULT };
}

/* The keys we act on. Matched exactly and case-insensitively (§2.1); other
 * keys, misspellings included, are counted as unknown. */
#define ROBOTS_KEYS(X)              \
  X(USER_AGENT,  "user-agent")      \
  X(ALLOW,       "allow")           \
  X(DISALLOW,    "disallow")        \
  X(SITEMAP,     "sitemap")         \
  X(CRAWL_DELAY, "crawl-delay")

enum robots_key {
#define X(e, s) ROBOTS_KEY_##e,
  ROBOTS_KEYS(X)
#undef X
  ROBOTS_KEY_UNKNOWN
};

/* Lives only during robots_parse. */
struct robots_parser {
  struct robots *r;
  uint32_t text_max;     /* arena cap: 6 x bytes parsed covers every line */
  bool     in_group;     /* a user-agent line has been seen */
  bool     group_ruled;  /* a rule followed the current group's user-agent lines */
};

static enum robots_key robots_key(const char *k, size_t n)
{
  static const char *const names[] = {
#define X(e, s) s,
    ROBOTS_KEYS(X)
#undef X
  };
  for(size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if(strlen(names[i]) == n && !strncasecmp(k, names[i], n))
      return (enum robots_key)i;
  return ROBOTS_KEY_UNKNOWN;
}

/* Strip RFC 9309 WS (space, tab) from both ends; returns the new length. */
static size_t robots_trim(const char **s, size_t n)
{
  while(n && (**s == ' ' || **s == '\t')) {
    (*s)++;
    n--;
  }
  while(n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
    n--;
  return n;
}

/* Grow *arr to hold need elements. Counts are bounded by the number of
 * lines, which max_bytes bounds, so this is the arrays' cap. */
static robots_err robots_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
  if(need <= *cap)
    return ROBOTS_OK;
  uint32_t n = *cap ? *cap * 2 : 8;
  void *p = mem_realloc(*arr, (size_t)n * elem);
  if(!p)
    return ROBOTS_NOMEM;
  *arr = p;
  *cap = n;
  return ROBOTS_OK;
}

/* Make room for n more arena bytes; never beyond text_max. */
static robots_err robots_text_room(struct robots_parser *p, size_t n)
{
  struct robots *r = p->r;
  assert(n <= p->text_max - r->text_len);
  if(n <= r->text_cap - r->text_len)
    return ROBOTS_OK;
  size_t cap = r->text_cap ? (size_t)r->text_cap * 2 : 256;
  if(cap < r->text_len + n)
    cap = r->text_len + n;
  if(cap > p->text_max)
    cap = p->text_max;
  char *t = mem_realloc(r->text, cap);
  if(!t)
    return ROBOTS_NOMEM;
  r->text = t;
  r->text_cap = (uint32_t)cap;
  return ROBOTS_OK;
}

/* Copy s[0..n) into the arena, lower-cased if asked; *off gets its place. */
static robots_err robots_text_add(struct robots_parser *p, const char *s, size_t n,
                                  bool lower, uint32_t *off)
{
  robots_err e = robots_text_room(p, n + 1);
  if(e)
    return e;
  struct robots *r = p->r;
  char *d = r->text + r->text_len;
  for(size_t i = 0; i < n; i++)
    d[i] = lower && s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
  d[n] = '\0';
  *off = r->text_len;
  r->text_len += (uint32_t)n + 1;
  return ROBOTS_OK;
}

static robots_err robots_group_new(struct robots_parser *p)
{
  struct robots *r = p->r;
  robots_err e = robots_grow((void **)&r->groups, &r->cap_groups, r->ngroups + 1,
                             sizeof *r->groups);
  if(e)
    return e;
  r->groups[r->ngroups++] = (struct robots_group){ r->nrules, 0, -1.0 };
  p->in_group = true;
  p->group_ruled = false;
  return ROBOTS_OK;
}

/* "user-agent: token". Consecutive user-agent lines share one group; one
 * that follows a rule starts the next. Like Google's parser, "* anything"
 * is the catch-all and "Foo Bar" or "Foo/1.0" count as "foo". */
static robots_err robots_on_agent(struct robots_parser *p, const char *v, size_t n)
{
  struct robots *r = p->r;
  if(!p->in_group || p->group_ruled) {
    robots_err e = robots_group_new(p);
    if(e)
      return e;
  }
  bool star = n >= 1 && v[0] == '*' && (n == 1 || v[1] == ' ' || v[1] == '\t');
  size_t tn = star ? 1 : robots_agent_token(v, n);
  if(tn == 0)
    return ROBOTS_OK;  /* still a group start, but it names nobody */
  robots_err e = robots_grow((void **)&r->agents, &r->cap_agents, r->nagents + 1,
                             sizeof *r->agents);
  if(e)
    return e;
  struct robots_agent *a = &r->agents[r->nagents];
  e = robots_text_add(p, v, tn, true, &a->tok);
  if(e)
    return e;
  a->tok_len = (uint32_t)tn;
  a->group = r->ngroups - 1;
  r->nagents++;
  return ROBOTS_OK;
}

/* Literal bytes before the first wildcard or the end anchor. */
static uint32_t robots_prefix_len(const char *pat, uint32_t n)
{
  const char *star = memchr(pat, '*', n);
  if(star)
    return (uint32_t)(star - pat);
  return n && pat[n - 1] == '$' ? n - 1 : n;
}

/* "allow: pattern" / "disallow: pattern" in the current group. An empty
 * pattern matches nothing (§2.2.2, "disallow:" allows all) but still ends
 * the run of user-agent lines. */
static robots_err robots_on_rule(struct robots_parser *p, bool allow, const char *v,
                                 size_t n, uint32_t line)
{
  struct robots *r = p->r;
  if(!p->in_group) {
    r->st.outside_group++;
    return ROBOTS_OK;
  }
  p->group_ruled = true;
  if(n == 0)
    return ROBOTS_OK;
  robots_err e = robots_grow((void **)&r->rules, &r->cap_rules, r->nrules + 1,
                             sizeof *r->rules);
  if(!e)
    e = robots_text_room(p, 4 * n + 2);
  if(e)
    return e;
  struct robots_rule *ru = &r->rules[r->nrules];
  ru->pat = r->text_len;
  ru->pat_len = (uint32_t)robots_path_norm(v, n, true, r->text + ru->pat);
  r->text[ru->pat + ru->pat_len] = '\0';
  r->text_len += ru->pat_len + 1;
  ru->raw = ru->pat;  /* most patterns are already in normal form */
  if(ru->pat_len != n || memcmp(r->text + ru->pat, v, n))
    (void)robots_text_add(p, v, n, false, &ru->raw);  /* room made above */
  ru->prefix_len = robots_prefix_len(r->text + ru->pat, ru->pat_len);
  ru->line = line;
  ru->allow = allow;
  r->nrules++;
  r->groups[r->ngroups - 1].nrules++;
  return ROBOTS_OK;
}

/* Seconds as "10", "2.5" or ".5"; no sign, no exponent, no unit. */
static bool robots_delay_parse(const char *s, size_t n, double *out)
{
  double v = 0, scale = 1;
  size_t i = 0;
  bool digits = false;
  for(; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
    if(v < 1e9)  /* beyond any cap; stop before the double loses meaning */
      v = v * 10 + (s[i] - '0');
  if(i < n && s[i] == '.')
    for(i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true) {
      scale /= 10;
      v += (s[i] - '0') * scale;
    }
  if(!digits || i != n)
    return false;
  *out = v;
  return true;
}

/* "crawl-delay: seconds" (not in RFC 9309). Belongs to the current group and
 * does not end its user-agent lines; if a group states it twice, the larger
 * value holds. */
static void robots_on_delay(struct robots_parser *p, const char *v, size_t n)
{
  struct robots *r = p->r;
  double d;
  if(!p->in_group) {
    r->st.outside_group++;
    return;
  }
  if(!robots_delay_parse(v, n, &d)) {
    r->st.bad_crawl_delay++;
    return;
  }
  struct robots_group *g = &r->groups[r->ngroups - 1];
  if(d > g->crawl_delay)
    g->crawl_delay = d;
}

/* "sitemap: url": global, wherever it appears (§2.2.4: it ends no group). */
static robots_err robots_on_sitemap(struct robots_parser *p, const char *v, size_t n,
                                    uint32_t line)
{
  struct robots *r = p->r;
  if(n == 0)
    return ROBOTS_OK;
  robots_err e = robots_grow((void **)&r->sitemaps, &r->cap_sitemaps, r->nsitemaps + 1,
                             sizeof *r->sitemaps);
  if(e)
    return e;
  struct robots_sitemap *sm = &r->sitemaps[r->nsitemaps];
  e = robots_text_add(p, v, n, false, &sm->off);
  if(e)
    return e;
  sm->line = line;
  r->nsitemaps++;
  return ROBOTS_OK;
}

static robots_err robots_directive(struct robots_parser *p, enum robots_key k,
                                   const char *v, size_t vn, uint32_t line)
{
  if(k == ROBOTS_KEY_UNKNOWN) {
    p->r->st.unknown++;
    return ROBOTS_OK;
  }
  p->r->st.directives++;
  switch(k) {
  case ROBOTS_KEY_USER_AGENT:  return robots_on_agent(p, v, vn);
  case ROBOTS_KEY_ALLOW:       return robots_on_rule(p, true, v, vn, line);
  case ROBOTS_KEY_DISALLOW:    return robots_on_rule(p, false, v, vn, line);
  case ROBOTS_KEY_SITEMAP:     return robots_on_sitemap(p, v, vn, line);
  case ROBOTS_KEY_CRAWL_DELAY: robots_on_delay(p, v, vn); return ROBOTS_OK;
  case ROBOTS_KEY_UNKNOWN:     break;
  }
  return ROBOTS_OK;
}

/* One line, without its end: "key: value # comment". */
static robots_err robots_line(struct robots_parser *p, const char *s, size_t n,
                              uint32_t line)
{
  const char *hash = memchr(s, '#', n);
  if(hash)
    n = (size_t)(hash - s);
  const char *colon = memchr(s, ':', n);
  if(!colon) {
    if(robots_trim(&s, n))
      p->r->st.invalid++;  /* §2.1: no colon, not a line we understand */
    return ROBOTS_OK;
  }
  const char *k = s, *v = colon + 1;
  size_t kn = robots_trim(&k, (size_t)(colon - s));
  size_t vn = robots_trim(&v, n - (size_t)(colon - s) - 1);
  return robots_directive(p, robots_key(k, kn), v, vn, line);
}

/* Lines end at CR, LF or CRLF (§2.2: NL = %x0D / %x0A / %x0D.0A). */
static robots_err robots_lines(struct robots_parser *p, const char *s, size_t n)
{
  uint32_t line = 0;
  size_t i = 0;
  while(i < n) {
    size_t j = i;
    while(j < n && s[j] != '\n' && s[j] != '\r')
      j++;
    robots_err e = robots_line(p, s + i, j - i, ++line);
    if(e)
      return e;
    if(j + 1 < n && s[j] == '\r' && s[j + 1] == '\n')
      j++;
    i = j + 1;
  }
  p->r->st.lines = line;
  return ROBOTS_OK;
}

/* How much of the body to parse: at most max bytes, and not a line that the
 * limit cuts in two (half a rule could allow or forbid far too much). */
static size_t robots_usable(const char *s, size_t n, size_t max)
{
  if(n <= max)
    return n;
  if(s[max] == '\n' || s[max] == '\r')
    return max;
  while(max && s[max - 1] != '\n' && s[max - 1] != '\r')
    max--;
  return max;
}

/* A UTF-8 byte order mark, or a leading part of one, is skipped (as Google's
 * parser does); one anywhere else is part of its line. */
static size_t robots_bom(const char *s, size_t n)
{
  static const char bom[] = "\xEF\xBB\xBF";
  size_t i = 0;
  while(i < 3 && i < n && s[i] == bom[i])
    i++;
  return i;
}

static int robots_rule_cmp(const void *a, const void *b, void *arg)
{
  const char *text = arg;
  const struct robots_rule *x = a, *y = b;
  uint32_t n = x->prefix_len < y->prefix_len ? x->prefix_len : y->prefix_len;
  int c = memcmp(text + x->pat, text + y->pat, n);
  if(c)
    return c;
  if(x->prefix_len != y->prefix_len)
    return x->prefix_len < y->prefix_len ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

static int robots_agent_cmp(const void *a, const void *b, void *arg)
{
  const char *text = arg;
  const struct robots_agent *x = a, *y = b;
  uint32_t n = x->tok_len < y->tok_len ? x->tok_len : y->tok_len;
  int c = memcmp(text + x->tok, text + y->tok, n);
  if(c)
    return c;
  if(x->tok_len != y->tok_len)
    return x->tok_len < y->tok_len ? -1 : 1;
  return x->group < y->group ? -1 : x->group > y->group;
}

/* Give back what doubling left unused; failing to is harmless. */
static void robots_shrink(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
  if(n == 0 || n == *cap)
    return;
  void *q = mem_realloc(*arr, (size_t)n * elem);
  if(q) {
    *arr = q;
    *cap = n;
  }
}

/* Sort for robots_query's binary searches; fill in the totals. */
static void robots_finish(struct robots *r)
{
  robots_shrink((void **)&r->text, &r->text_cap, r->text_len, 1);
  robots_shrink((void **)&r->rules, &r->cap_rules, r->nrules, sizeof *r->rules);
  for(uint32_t g = 0; g < r->ngroups; g++)
    if(r->groups[g].nrules > 1)
      qsort_r(r->rules + r->groups[g].rule0, r->groups[g].nrules, sizeof *r->rules,
              robots_rule_cmp, r->text);
  if(r->nagents > 1)
    qsort_r(r->agents, r->nagents, sizeof *r->agents, robots_agent_cmp, r->text);
  r->st.groups = r->ngroups;
  r->st.rules = r->nrules;
  r->st.agents = r->nagents;
  r->st.mem_bytes = sizeof *r + r->text_cap + (size_t)r->cap_rules * sizeof *r->rules +
                    (size_t)r->cap_groups * sizeof *r->groups +
                    (size_t)r->cap_agents * sizeof *r->agents +
                    (size_t)r->cap_sitemaps * sizeof *r->sitemaps;
}

static struct robots_limits robots_limits_clamp(const struct robots_limits *lim)
{
  struct robots_limits l = lim ? *lim : robots_limits_default();
  if(l.max_bytes < ROBOTS_MAX_BYTES_MIN)
    l.max_bytes = ROBOTS_MAX_BYTES_MIN;
  if(l.max_bytes > ROBOTS_MAX_BYTES_LIMIT)
    l.max_bytes = ROBOTS_MAX_BYTES_LIMIT;
  if(!(l.max_crawl_delay >= 0))  /* also NaN */
    l.max_crawl_delay = 0;
  return l;
}

robots_err robots_parse(const char *body, size_t len, const struct robots_limits *lim,
                        struct robots **out)
{
  if(!out)
    return ROBOTS_INVALID;
  *out = NULL;
  if(!body && len)
    return ROBOTS_INVALID;
  if(!body)
    body = "";
  struct robots *r = mem_calloc(1, sizeof *r);
  if(!r)
    return ROBOTS_NOMEM;
  r->magic = ROBOTS_MAGIC;
  r->lim = robots_limits_clamp(lim);
  size_t bom = robots_bom(body, len);
  size_t used = robots_usable(body, len, r->lim.max_bytes);
  r->st.truncated = used < len;
  r->st.bytes_used = used;
  if(bom > used)
    bom = used;
  struct robots_parser p = { .r = r, .text_max = (uint32_t)(6 * used + 16) };
  robots_err e = robots_lines(&p, body + bom, used - bom);
  if(e) {
    robots_free(&r);
    return e;
  }
  robots_finish(r);
  *out = r;
  return ROBOTS_OK;
}

void robots_free(struct robots **rp)
{
  struct robots *r = rp ? *rp : NULL;
  if(!r)
    return;
  *rp = NULL;
  assert(r->magic == ROBOTS_MAGIC);
  mem_free(r->text);
  mem_free(r->rules);
  mem_free(r->groups);
  mem_free(r->agents);
  mem_free(r->sitemaps);
  r->magic = 0;
  mem_free(r);
}

size_t robots_sitemap_count(const struct robots *r)
{
  return r ? r->nsitemaps : 0;
}

const char *robots_sitemap(const struct robots *r, size_t i, uint32_t *line)
{
  if(!r || i >= r->nsitemaps)
    return NULL;
  if(line)
    *line = r->sitemaps[i].line;
  return r->text + r->sitemaps[i].off;
}

void robots_stats(const struct robots *r, struct robots_stats *st)
{
  if(r)
    *st = r->st;
  else
    memset(st, 0, sizeof *st);
}

static bool robots_token_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

size_t robots_agent_token(const char *ua, size_t len)
{
  size_t i = 0;
  while(i < len && robots_token_char(ua[i]))
    i++;
  return i;
}

bool robots_agent_valid(const char *s, size_t len)
{
  return len > 0 && robots_agent_token(s, len) == len;
}
