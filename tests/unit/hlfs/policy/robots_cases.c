/* hlfs/policy/robots*.c against the case files in tests/data/robots/:
 * every example of RFC 9309 (rfc9309_cases.txt) and the public test cases
 * of Google's robotstxt library (google_cases.txt). The format is described
 * at the top of google_cases.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/mem.h"
#include "hlfs/policy/robots.h"

struct run {
  const char    *file;
  unsigned       lineno;
  struct robots *r;
  unsigned       checks, fails, diverge;
};

static void fail_at(struct run *t, const char *fmt, const char *a, const char *b)
{
  t->fails++;
  print_message("# %s:%u: ", t->file, t->lineno);
  print_message(fmt, a, b);
  print_message("\n");
}

static int hexval(char c)
{
  if(c >= '0' && c <= '9')
    return c - '0';
  if(c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if(c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Decode \r \n \t \\ \xHH in place; a final \c sets *nonl. Returns length.
 * The two characters "" stand for the empty string. */
static size_t unescape(char *s, bool *nonl)
{
  size_t o = 0, n = strlen(s);
  if(nonl)
    *nonl = n >= 2 && !strcmp(s + n - 2, "\\c");
  if(nonl && *nonl)
    n -= 2;
  if(n == 2 && s[0] == '"' && s[1] == '"')
    return s[0] = '\0', 0;
  for(size_t i = 0; i < n; i++) {
    char c = s[i];
    if(c == '\\' && i + 1 < n) {
      char e = s[++i];
      if(e == 'x' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
        c = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
        i += 2;
      } else {
        c = e == 'r' ? '\r' : e == 'n' ? '\n' : e == 't' ? '\t' : e;
      }
    }
    s[o++] = c;
  }
  s[o] = '\0';
  return o;
}

static int split(char *line, char **f, int max)
{
  int n = 0;
  f[n++] = line;
  for(char *p = line; *p && n < max; p++)
    if(*p == '\t') {
      *p = '\0';
      f[n++] = p + 1;
    }
  return n;
}

static void check_verdict(struct run *t, char **f, int nf)
{
  size_t an = unescape(f[1], NULL), un = unescape(f[2], NULL), pn;
  bool want = !strcmp(f[0], "allowed");
  char *path;
  assert_int_equal(robots_url_target(f[2], un, &path, &pn), ROBOTS_OK);
  struct robots_verdict v;
  assert_int_equal(robots_query(t->r, f[1], an, path, pn, &v), ROBOTS_OK);
  mem_free(path);
  t->checks++;
  if(v.allowed != want)
    fail_at(t, "%s: got the opposite of %s", f[2], f[0]);
  for(int i = 3; i < nf; i++) {
    if(!strncmp(f[i], "line=", 5) && v.line != strtoul(f[i] + 5, NULL, 10))
      fail_at(t, "%s: deciding line is not %s", f[2], f[i] + 5);
    if(!strncmp(f[i], "google=", 7))
      t->diverge++;
  }
}

static void check_stat(struct run *t, const char *name, const char *val)
{
  struct robots_stats st;
  robots_stats(t->r, &st);
  static const struct { const char *n; size_t off; } u32[] = {
#define S(x) { #x, offsetof(struct robots_stats, x) }
    S(lines), S(directives), S(unknown), S(invalid), S(outside_group),
    S(bad_crawl_delay), S(groups), S(rules), S(agents),
#undef S
  };
  for(size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++)
    if(!strcmp(name, u32[i].n)) {
      uint32_t got;
      memcpy(&got, (char *)&st + u32[i].off, sizeof got);
      t->checks++;
      if(got != strtoul(val, NULL, 10))
        fail_at(t, "stat %s is not %s", name, val);
      return;
    }
  fail_at(t, "unknown stat %s%s", name, "");
}

static void check_delay(struct run *t, char *agent, const char *want)
{
  struct robots_verdict v;
  size_t an = unescape(agent, NULL);
  assert_int_equal(robots_query(t->r, agent, an, "/", 1, &v), ROBOTS_OK);
  t->checks++;
  char got[32] = "none";
  if(v.crawl_delay >= 0)
    snprintf(got, sizeof got, "%g", v.crawl_delay);
  if(strcmp(got, want))
    fail_at(t, "crawl-delay %s, want %s", got, want);
}

static void check_path(struct run *t, char **f, int nf)
{
  size_t n = unescape(f[1], NULL), pn;
  unescape(f[2], NULL);
  char *got;
  assert_int_equal(robots_url_target(f[1], n, &got, &pn), ROBOTS_OK);
  t->checks++;
  if(strcmp(got, f[2]))
    fail_at(t, "path %s, want %s", got, f[2]);
  mem_free(got);
  if(nf > 3 && !strncmp(f[3], "google=", 7))
    t->diverge++;
}

static void check_escape(struct run *t, char *in, char *want)
{
  size_t n = unescape(in, NULL);
  char got[512];
  assert_true(3 * n < sizeof got);
  got[robots_path_norm(in, n, true, got)] = '\0';
  unescape(want, NULL);
  t->checks++;
  if(strcmp(got, want))
    fail_at(t, "escape gives %s, want %s", got, want);
}

static void check_sitemap(struct run *t, char **f)
{
  t->checks++;
  if(!strcmp(f[0], "sitemaps")) {
    if(robots_sitemap_count(t->r) != strtoul(f[1], NULL, 10))
      fail_at(t, "sitemap count is not %s%s", f[1], "");
    return;
  }
  const char *sm = robots_sitemap(t->r, strtoul(f[1], NULL, 10), NULL);
  if(!sm || strcmp(sm, f[2]))
    fail_at(t, "sitemap %s, want %s", sm ? sm : "(none)", f[2]);
}

static void check_valid(struct run *t, const char *yes, char *s)
{
  size_t n = unescape(s, NULL);
  t->checks++;
  if(robots_agent_valid(s, n) != !strcmp(yes, "yes"))
    fail_at(t, "valid-agent \"%s\" is not %s", s, yes);
}

static void record(struct run *t, char *line)
{
  char *f[8];
  int nf = split(line, f, 8);
  if((!strcmp(f[0], "allowed") || !strcmp(f[0], "disallowed")) && nf >= 3)
    check_verdict(t, f, nf);
  else if(!strcmp(f[0], "stat") && nf == 3)
    check_stat(t, f[1], f[2]);
  else if(!strcmp(f[0], "crawl-delay") && nf == 3)
    check_delay(t, f[1], f[2]);
  else if(!strcmp(f[0], "path") && nf >= 3)
    check_path(t, f, nf);
  else if(!strcmp(f[0], "escape") && nf == 3)
    check_escape(t, f[1], f[2]);
  else if((!strcmp(f[0], "sitemap") && nf == 3) || (!strcmp(f[0], "sitemaps") && nf == 2))
    check_sitemap(t, f);
  else if(!strcmp(f[0], "valid-agent") && nf == 3)
    check_valid(t, f[1], f[2]);
  else
    fail_at(t, "bad record \"%s\"%s", f[0], "");
}

/* Body lines up to "end"; then parse it into t->r. */
static void read_body(struct run *t, FILE *fp, char **line, size_t *cap)
{
  struct buf b;
  buf_init(&b, 1 << 20);
  ssize_t n;
  while((n = getline(line, cap, fp)) >= 0) {
    t->lineno++;
    if(n && (*line)[n - 1] == '\n')
      (*line)[--n] = '\0';
    if(!strcmp(*line, "end"))
      break;
    bool nonl;
    size_t k = unescape(*line, &nonl);
    assert_int_equal(buf_add(&b, *line, k), CM_OK);
    if(!nonl)
      assert_int_equal(buf_addc(&b, '\n'), CM_OK);
  }
  robots_free(&t->r);
  assert_int_equal(robots_parse(b.data, b.len, NULL, &t->r), ROBOTS_OK);
  buf_free(&b);
}

static void run_file(const char *name, unsigned min_checks, unsigned want_diverge)
{
  char path[1024];
  const char *root = getenv("WPFS_ROOT");
  snprintf(path, sizeof path, "%s/tests/data/robots/%s", root ? root : ".", name);
  FILE *fp = fopen(path, "r");
  assert_non_null(fp);
  struct run t = { .file = name };
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while((n = getline(&line, &cap, fp)) >= 0) {
    t.lineno++;
    if(n && line[n - 1] == '\n')
      line[--n] = '\0';
    if(!n || line[0] == '#')
      continue;
    if(!strncmp(line, "case\t", 5))
      read_body(&t, fp, &line, &cap);
    else
      record(&t, line);
  }
  free(line);
  fclose(fp);
  robots_free(&t.r);
  print_message("# %s: %u checks, %u failed, %u where Google's library differs\n", name,
                t.checks, t.fails, t.diverge);
  assert_int_equal(t.fails, 0);
  assert_true(t.checks >= min_checks);
  assert_int_equal(t.diverge, want_diverge);
}

static void test_rfc9309_examples(void **state)
{
  (void)state;
  run_file("rfc9309_cases.txt", 100, 0);
}

static void test_google_cases(void **state)
{
  (void)state;
  run_file("google_cases.txt", 200, 15);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rfc9309_examples),
    cmocka_unit_test(test_google_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
