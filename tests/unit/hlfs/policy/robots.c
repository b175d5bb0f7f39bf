/* hlfs/policy/robots*.c: limits, line ends, the matcher against a brute-force
 * reference, hostile patterns, out-of-memory, and the Google cases that
 * need generated bodies. The RFC 9309 examples and Google's public cases
 * are data: see tests/unit/hlfs/policy/robots_cases.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlfs/policy/robots.c"
#include "common/buf.h"
#include "common/clock.h"
#include "common/mem.h"
#include "hlfs/policy/robots.h"

static struct robots *parse(const char *body, size_t n, const struct robots_limits *lim)
{
  struct robots *r = NULL;
  assert_int_equal(robots_parse(body, n, lim, &r), ROBOTS_OK);
  assert_non_null(r);
  return r;
}

static struct robots_verdict query(const struct robots *r, const char *agent,
                                   const char *path)
{
  struct robots_verdict v;
  assert_int_equal(robots_query(r, agent, strlen(agent), path, strlen(path), &v), ROBOTS_OK);
  return v;
}

static bool allowed(const struct robots *r, const char *agent, const char *path)
{
  return query(r, agent, path).allowed;
}

/* A body of about `size` bytes: a group, comment filler, and rules placed
 * at the offsets asked for. */
static void filler(struct buf *b, size_t upto)
{
  while(b->len + 40 < upto)
    assert_int_equal(buf_adds(b, "# filler filler filler filler filler\n"), CM_OK);
  while(b->len + 1 < upto)
    assert_int_equal(buf_addc(b, '#'), CM_OK);
  if(b->len < upto)
    assert_int_equal(buf_addc(b, '\n'), CM_OK);
}

/* RFC 9309 §2.5: at least 500 KiB parsed, the rest ignored. */
static void test_limit_default_500k(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 2 << 20);
  assert_int_equal(buf_adds(&b, "user-agent: *\n"), CM_OK);
  filler(&b, 500 * 1024 - 100);
  assert_int_equal(buf_adds(&b, "disallow: /before\n"), CM_OK);
  filler(&b, 500 * 1024 + 100);
  assert_int_equal(buf_adds(&b, "disallow: /after\n"), CM_OK);
  struct robots *r = parse(b.data, b.len, NULL);
  assert_false(allowed(r, "bot", "/before"));
  assert_true(allowed(r, "bot", "/after"));
  struct robots_stats st;
  robots_stats(r, &st);
  assert_true(st.truncated);
  assert_true(st.bytes_used <= 500 * 1024);
  assert_true(st.bytes_used >= 500 * 1024 - 100);
  robots_free(&r);

  /* configurable upwards; a smaller limit is raised to the RFC minimum */
  struct robots_limits lim = robots_limits_default();
  lim.max_bytes = 1 << 20;
  r = parse(b.data, b.len, &lim);
  assert_false(allowed(r, "bot", "/after"));
  robots_free(&r);
  lim.max_bytes = 1000;
  r = parse(b.data, b.len, &lim);
  assert_false(allowed(r, "bot", "/before"));
  assert_true(allowed(r, "bot", "/after"));
  robots_free(&r);
  buf_free(&b);
}

/* A line that the limit cuts is dropped, not parsed as a shorter rule. */
static void test_limit_cut_line_dropped(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 2 << 20);
  assert_int_equal(buf_adds(&b, "user-agent: *\nallow: /a\n"), CM_OK);
  filler(&b, ROBOTS_MAX_BYTES_DEFAULT - 6);
  assert_int_equal(buf_adds(&b, "disallow: /abcdef\n"), CM_OK);  /* cut after "disall" */
  struct robots *r = parse(b.data, b.len, NULL);
  assert_true(allowed(r, "bot", "/abcdef"));
  struct robots_stats st;
  robots_stats(r, &st);
  assert_true(st.truncated);
  assert_int_equal(st.bytes_used, ROBOTS_MAX_BYTES_DEFAULT - 6);
  robots_free(&r);
  /* ending exactly at the limit, it is whole */
  buf_reset(&b);
  assert_int_equal(buf_adds(&b, "user-agent: *\nallow: /a\n"), CM_OK);
  filler(&b, ROBOTS_MAX_BYTES_DEFAULT - 18);
  assert_int_equal(buf_adds(&b, "disallow: /abcdef\nmore"), CM_OK);
  r = parse(b.data, b.len, NULL);
  assert_false(allowed(r, "bot", "/abcdef"));
  robots_free(&r);
  buf_free(&b);
}

/* Google's GoogleOnly_LineTooLong: Google cuts lines at 8 x 2083 bytes and
 * matches what is left; RFC 9309 has no line limit and neither do we, so
 * the whole pattern must match (docs/robots.md, divergence). */
static void test_google_line_too_long(void **state)
{
  (void)state;
  const size_t max_line = 2083 * 8;
  struct buf body, a, bb;
  buf_init(&body, 1 << 20);
  buf_init(&a, 1 << 20);
  buf_init(&bb, 1 << 20);
  assert_int_equal(buf_adds(&a, "/x/"), CM_OK);
  assert_int_equal(buf_adds(&bb, "/x/"), CM_OK);
  while(a.len < max_line - strlen("allow: ") - 3 + 1) {
    assert_int_equal(buf_addc(&a, 'a'), CM_OK);
    assert_int_equal(buf_addc(&bb, 'b'), CM_OK);
  }
  assert_int_equal(buf_addf(&body, "user-agent: FooBot\ndisallow: /\nallow: %s/qux\n"
                                   "allow: %s/qux\n", a.data, bb.data), CM_OK);
  struct robots *r = parse(body.data, body.len, NULL);
  char url[40000];
  assert_false(allowed(r, "FooBot", "/"));
  snprintf(url, sizeof url, "%s/qux", a.data);
  assert_true(allowed(r, "FooBot", url));
  snprintf(url, sizeof url, "%s/fux", bb.data);
  assert_false(allowed(r, "FooBot", url));  /* Google: allowed (cut-off rule) */
  robots_free(&r);
  buf_reset(&body);
  assert_int_equal(buf_addf(&body, "user-agent: FooBot\ndisallow: %s/qux\n", a.data), CM_OK);
  r = parse(body.data, body.len, NULL);
  assert_true(allowed(r, "FooBot", "/fux"));
  snprintf(url, sizeof url, "%s/fux", a.data);
  assert_true(allowed(r, "FooBot", url));  /* Google: disallowed (cut-off rule) */
  robots_free(&r);
  buf_free(&body);
  buf_free(&a);
  buf_free(&bb);
}

/* Reference: '*' any run, final '$' end, anchored at the start; naive
 * recursion is fine for the short strings generated below. */
static bool ref_match(const char *p, const char *s)
{
  if(!*p)
    return true;
  if(p[0] == '$' && !p[1])
    return !*s;
  if(*p == '*')
    return ref_match(p + 1, s) || (*s && ref_match(p, s + 1));
  return *s == *p && ref_match(p + 1, s + 1);
}

struct ref_rule {
  char pat[16];
  size_t len;  /* after collapsing "**" */
  bool allow;
  unsigned line;
};

static unsigned rnd(uint64_t *s, unsigned n)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(*s >> 33) % n;
}

static void ref_pattern(uint64_t *s, struct ref_rule *ru)
{
  static const char alpha[] = "/ab*";
  size_t n = 1 + rnd(s, 7), o = 0;
  ru->pat[o++] = rnd(s, 4) ? '/' : '*';
  for(size_t i = 1; i < n; i++) {
    char c = alpha[rnd(s, 4)];
    if(c != '*' || ru->pat[o - 1] != '*')
      ru->pat[o++] = c;
  }
  if(!rnd(s, 4))
    ru->pat[o++] = '$';
  ru->pat[o] = '\0';
  ru->len = o;
  ru->allow = rnd(s, 2);
}

static const struct ref_rule *ref_best(const struct ref_rule *rules, size_t n,
                                       const bool *mine, const char *path)
{
  const struct ref_rule *best = NULL;
  for(size_t i = 0; i < n; i++) {
    const struct ref_rule *r = &rules[i];
    if(!mine[i] || !ref_match(r->pat, path))
      continue;
    if(!best || r->len > best->len || (r->len == best->len && r->allow && !best->allow))
      best = r;
  }
  return best;
}

/* Random groups of random rules: the indexed matcher must agree with the
 * brute-force reference on every decision and deciding line. */
static void test_matcher_vs_reference(void **state)
{
  (void)state;
  uint64_t seed = 42;
  for(int round = 0; round < 3000; round++) {
    struct ref_rule rules[18];
    bool for_x[18], for_y[18];
    size_t n = 0;
    struct buf b;
    buf_init(&b, 4096);
    static const char *const agent[] = { "x", "y", "X" };
    for(int g = 0; g < 3; g++) {
      assert_int_equal(buf_addf(&b, "user-agent: %s\n", agent[g]), CM_OK);
      for(unsigned k = 1 + rnd(&seed, 6); k; k--, n++) {
        ref_pattern(&seed, &rules[n]);
        rules[n].line = (unsigned)(n + g + 2);
        for_x[n] = g != 1;
        for_y[n] = g == 1;
        assert_int_equal(buf_addf(&b, "%s: %s\n", rules[n].allow ? "allow" : "disallow",
                                  rules[n].pat), CM_OK);
      }
    }
    struct robots *r = parse(b.data, b.len, NULL);
    for(int q = 0; q < 20; q++) {
      char path[16] = "/";
      for(unsigned i = 1, len = rnd(&seed, 10); i <= len; i++)
        path[i] = "/ab"[rnd(&seed, 3)];
      const struct ref_rule *want = ref_best(rules, n, q & 1 ? for_y : for_x, path);
      struct robots_verdict v = query(r, q & 1 ? "y" : "x", path);
      if(v.allowed != (!want || want->allow) || v.line != (want ? want->line : 0))
        fail_msg("%s: path %s got %d line %u want line %u", b.data, path, v.allowed,
                 v.line, want ? want->line : 0);
    }
    assert_true(allowed(r, "z", "/a"));  /* no group, no "*" */
    robots_free(&r);
    buf_free(&b);
  }
}

/* Many '*' must not make matching exponential: a backtracking matcher needs
 * about C(600, 300) steps for one of these queries. */
static void test_hostile_patterns_linear(void **state)
{
  (void)state;
  struct buf b, path;
  buf_init(&b, 8 << 20);
  buf_init(&path, 1 << 20);
  assert_int_equal(buf_adds(&b, "user-agent: *\n"), CM_OK);
  for(int k = 0; k < 200; k++) {
    assert_int_equal(buf_adds(&b, "disallow: /"), CM_OK);
    for(int i = 0; i < 300; i++)
      assert_int_equal(buf_adds(&b, "*a"), CM_OK);
    assert_int_equal(buf_adds(&b, "*b$\n"), CM_OK);
  }
  assert_int_equal(buf_addc(&path, '/'), CM_OK);
  for(int i = 0; i < 600; i++)
    assert_int_equal(buf_addc(&path, 'a'), CM_OK);
  struct robots *r = parse(b.data, b.len, NULL);
  uint64_t t0 = clock_mono_us();
  for(int q = 0; q < 10; q++)
    assert_true(allowed(r, "bot", path.data));
  assert_int_equal(buf_addc(&path, 'b'), CM_OK);
  assert_false(allowed(r, "bot", path.data));
  uint64_t us = clock_mono_us() - t0;
  print_message("# 11 queries x 200 rules of 301 wildcards: %llu us\n", (unsigned long long)us);
  assert_true(us < 5 * 1000 * 1000);
  robots_free(&r);
  buf_free(&b);
  buf_free(&path);
}

/* Longer paths than the stack buffer go through the heap, same answer. */
static void test_long_path(void **state)
{
  (void)state;
  static const char body[] = "user-agent: *\ndisallow: /*x$\nallow: /*ツ\n";
  struct robots *r = parse(body, sizeof body - 1, NULL);
  char path[3 * ROBOTS_QUERY_STACK];
  memset(path, 'a', sizeof path - 2);
  path[0] = '/';
  path[sizeof path - 2] = 'x';
  path[sizeof path - 1] = '\0';
  struct robots_verdict v = query(r, "bot", path);
  assert_false(v.allowed);
  assert_int_equal(v.line, 2);
  memcpy(path + 10, "\xE3\x83\x84", 3);  /* raw UTF-8 in the path, encoded to match */
  v = query(r, "bot", path);
  assert_true(v.allowed);
  assert_string_equal(v.rule, "/*ツ");  /* explanations show the rule as written */
  robots_free(&r);
}

static void test_agent_token(void **state)
{
  (void)state;
  static const char ua[] = "wpfs/1.0 (+https://example.com/bot)";
  assert_int_equal(robots_agent_token(ua, strlen(ua)), 4);
  assert_int_equal(robots_agent_token("Foo-Bar_baz9", 12), 11);
  assert_int_equal(robots_agent_token("/x", 2), 0);
  static const char body[] = "user-agent: WPFS/2.0\ndisallow: /w\n"
                             "user-agent: * wildcard with words\ndisallow: /s\n"
                             "user-agent: *x\ndisallow: /\n";
  struct robots *r = parse(body, sizeof body - 1, NULL);
  assert_false(allowed(r, "wpfs", "/w"));
  assert_true(allowed(r, "wpfs", "/s"));
  assert_false(allowed(r, "other", "/s"));  /* "* wildcard..." is the catch-all */
  assert_true(allowed(r, "other", "/x"));   /* "*x" names nobody */
  robots_free(&r);
}

static void test_crawl_delay_cap(void **state)
{
  (void)state;
  static const char body[] = "user-agent: a\ncrawl-delay: 7.25\n"
                             "user-agent: b\ncrawl-delay: 3\n";
  struct robots_limits lim = robots_limits_default();
  lim.max_crawl_delay = 5;
  struct robots *r = parse(body, sizeof body - 1, &lim);
  struct robots_verdict v = query(r, "a", "/");
  assert_true(v.crawl_delay == 5.0);
  assert_true(v.crawl_delay_capped);
  robots_free(&r);
  static const char b2[] = "user-agent: b\ncrawl-delay: 3\ndisallow: /\n";
  r = parse(b2, sizeof b2 - 1, &lim);
  v = query(r, "b", "/");
  assert_true(v.crawl_delay == 3.0);
  assert_false(v.crawl_delay_capped);
  v = query(r, "c", "/");
  assert_true(v.crawl_delay < 0);
  robots_free(&r);
}

static void test_null_and_invalid(void **state)
{
  (void)state;
  struct robots_verdict v;
  assert_int_equal(robots_query(NULL, "a", 1, "/x", 2, &v), ROBOTS_OK);
  assert_true(v.allowed);
  assert_int_equal(v.why, ROBOTS_WHY_DEFAULT);
  assert_int_equal(robots_query(NULL, NULL, 1, "/x", 2, &v), ROBOTS_INVALID);
  struct robots *r = (struct robots *)1;
  assert_int_equal(robots_parse(NULL, 3, NULL, &r), ROBOTS_INVALID);
  assert_null(r);
  r = parse(NULL, 0, NULL);
  assert_true(allowed(r, "a", "/"));
  robots_free(&r);
  robots_free(&r);  /* NULL-safe */
  assert_string_equal(robots_err_text(ROBOTS_NOMEM), "out of memory");
}

/* L13: each allocation failing in turn gives ROBOTS_NOMEM and leaks nothing. */
static void test_nomem_every_allocation(void **state)
{
  (void)state;
  struct buf b;
  buf_init(&b, 1 << 20);
  for(int g = 0; g < 30; g++)
    assert_int_equal(buf_addf(&b, "user-agent: bot%d\nuser-agent: *\ncrawl-delay: 1\n"
                                  "disallow: /p%d/*x$\nallow: /p%d/ツ\nsitemap: /s%d\n",
                              g, g, g, g), CM_OK);
  char path[3 * ROBOTS_QUERY_STACK];
  memset(path, 'p', sizeof path - 1);
  path[0] = '/';
  path[sizeof path - 1] = '\0';
  unsigned long k;
  for(k = 1;; k++) {
    long before = mem_live();
    struct robots *r = NULL;
    struct robots_verdict v;
    mem_fail_at(k);
    robots_err e = robots_parse(b.data, b.len, NULL, &r);
    if(!e)
      e = robots_query(r, "bot3", 4, path, strlen(path), &v);
    mem_fail_at(0);
    robots_free(&r);
    assert_int_equal(mem_live(), before);
    if(e == ROBOTS_OK)
      break;
    assert_int_equal(e, ROBOTS_NOMEM);
  }
  assert_true(k > 5);  /* the loop really failed some allocations */
  buf_free(&b);
}

static void test_stats_and_lines(void **state)
{
  (void)state;
  static const char body[] = "\xEF\xBB\xBF# c\r\n\r\nuser-agent: a\r\nno colon here\r"
                             "disallow: /x\nfoo: bar\nallow:\nsitemap: s1\n";
  struct robots *r = parse(body, sizeof body - 1, NULL);
  struct robots_stats st;
  robots_stats(r, &st);
  assert_int_equal(st.lines, 8);
  assert_int_equal(st.directives, 4);
  assert_int_equal(st.unknown, 1);
  assert_int_equal(st.invalid, 1);
  assert_int_equal(st.rules, 1);  /* "allow:" (empty) keeps no rule */
  assert_int_equal(st.groups, 1);
  assert_int_equal(st.agents, 1);
  assert_false(st.truncated);
  assert_true(st.mem_bytes > 0);
  struct robots_verdict v = query(r, "A", "/x/y");
  assert_false(v.allowed);
  assert_int_equal(v.line, 5);
  assert_false(v.rule_allow);
  assert_string_equal(v.rule, "/x");
  robots_free(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_limit_default_500k),
    cmocka_unit_test(test_limit_cut_line_dropped),
    cmocka_unit_test(test_google_line_too_long),
    cmocka_unit_test(test_matcher_vs_reference),
    cmocka_unit_test(test_hostile_patterns_linear),
    cmocka_unit_test(test_long_path),
    cmocka_unit_test(test_agent_token),
    cmocka_unit_test(test_crawl_delay_cap),
    cmocka_unit_test(test_null_and_invalid),
    cmocka_unit_test(test_nomem_every_allocation),
    cmocka_unit_test(test_stats_and_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
