/* clients/base/scope.c, scope_surt.c: the scope rule files (parse errors
 * with their line), the decision (the last rule that matches decides),
 * SURT forms and prefixes, the per-rule counters, and the rules inside
 * the crawlers' link filter (clients/crawl/linkfilter.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/base/scope.c"
#include "clients/base/scope.h"
#include "clients/crawl/linkfilter.h"
#include "common/mem.h"

static struct scope *parse_ok(const char *text)
{
  struct scope *s = NULL;
  char err[SCOPE_ERR_MAX];
  crawl_err e = scope_parse(text, strlen(text), NULL, &s, err, sizeof err);
  if(e)
    fail_msg("parse failed: %s", err);
  return s;
}

/* The error of a rule file that must not parse. */
static const char *parse_err(const char *text)
{
  static char err[SCOPE_ERR_MAX];
  struct scope *s = (struct scope *)1;
  assert_int_not_equal(scope_parse(text, strlen(text), NULL, &s, err, sizeof err), CRAWL_OK);
  assert_null(s);
  return err;
}

/* 1 accept, 0 reject; *rule the rule's line (0: none matched). */
static int decide(struct scope *s, const char *url, bool start, unsigned *line)
{
  char *canon = NULL;
  struct url_parts p;
  assert_int_equal(url_canon(url, strlen(url), NULL, &canon), URL_OK);
  assert_int_equal(url_split(canon, &p), URL_OK);
  int rule;
  bool ok = scope_decide(s, &p, start, &rule);
  *line = 0;
  if(rule >= 0)
    assert_int_equal(sscanf(scope_rule_text(s, rule), "line %u:", line), 1);
  mem_free(canon);
  return ok;
}

static void test_last_match_decides(void **state)
{
  (void)state;
  struct scope *s = parse_ok("# only the docs, no PHP\n"
                             "reject all\n"
                             "\n"
                             "accept surt http://(org,example,)/docs/\n"
                             "reject regex .*\\.php(\\?.*)?\n"
                             "  accept\thost   www.example.net  api.example.net\r\n"
                             "reject domain ads.example.org   # and under it\n");
  assert_int_equal(scope_count(s), 5);
  unsigned line;
  assert_int_equal(decide(s, "http://example.org/docs/a.html", false, &line), 1);
  assert_int_equal(line, 4);
  assert_int_equal(decide(s, "https://example.org/docs/", false, &line), 1);  /* https as http */
  assert_int_equal(decide(s, "http://example.org/docs/x.php?a=1", true, &line), 0);
  assert_int_equal(line, 5);
  assert_int_equal(decide(s, "http://example.org/blog/", true, &line), 0);
  assert_int_equal(line, 2);
  assert_int_equal(decide(s, "http://WWW.Example.NET/x.php", false, &line), 1);
  assert_int_equal(line, 6);
  assert_int_equal(decide(s, "http://x.ads.example.org/docs/", true, &line), 0);
  assert_int_equal(line, 7);
  assert_int_equal(decide(s, "http://ads.example.org/", true, &line), 0);
  assert_int_equal(decide(s, "http://badads.example.org/", true, &line), 0);
  assert_int_equal(line, 2);  /* "domain" is on label boundaries: not line 7's */
  assert_int_equal(scope_rejected(s, 0), 2);  /* reject all: /blog/, badads */
  assert_int_equal(scope_accepted(s, 1), 2);  /* the surt */
  assert_int_equal(scope_rejected(s, 2), 1);  /* the regex */
  assert_int_equal(scope_accepted(s, 3), 1);  /* the hosts */
  assert_int_equal(scope_rejected(s, 4), 2);  /* the domain */
  assert_int_equal(scope_accepted(s, 0), 0);
  assert_string_equal(scope_rule_text(s, 3), "line 6: accept host   www.example.net  api.example.net");
  assert_string_equal(scope_rule_text(s, 4), "line 7: reject domain ads.example.org");
  scope_free(&s);
  assert_null(s);
}

static void test_no_match_keeps_start(void **state)
{
  (void)state;
  struct scope *s = parse_ok("reject host other.example\n");
  unsigned line;
  assert_int_equal(decide(s, "http://example.org/", true, &line), 1);
  assert_int_equal(line, 0);
  assert_int_equal(decide(s, "http://example.org/", false, &line), 0);
  assert_int_equal(line, 0);
  scope_free(&s);
  s = parse_ok("");  /* an empty file: the scope alone */
  assert_int_equal(scope_count(s), 0);
  assert_int_equal(decide(s, "http://example.org/", true, &line), 1);
  scope_free(&s);
}

/* As Heritrix's MatchesRegexDecideRule: the whole URL must match; Perl
 * syntax (\d, (?i), lazy quantifiers). */
static void test_regex(void **state)
{
  (void)state;
  struct scope *s = parse_ok("reject regex .*/page/\\d+/?\n"
                             "reject regex (?i).*\\.ASPX\n"
                             "reject regex example\n");
  unsigned line;
  assert_int_equal(decide(s, "http://example.org/page/12/", true, &line), 0);
  assert_int_equal(decide(s, "http://example.org/page/x/", true, &line), 1);
  assert_int_equal(decide(s, "http://example.org/a.aspx", true, &line), 0);
  assert_int_equal(line, 2);
  /* "example" is in the URL but is not the URL */
  assert_int_equal(decide(s, "http://example.org/", true, &line), 1);
  assert_int_equal(line, 0);
  scope_free(&s);
}

/* A pattern that backtracks catastrophically stops at the match limit:
 * no match, counted, and the crawl goes on. */
static void test_match_limit(void **state)
{
  (void)state;
  /* a "y" in the host, so that PCRE2's quick check does not refuse it first */
  struct scope *s = parse_ok("reject regex .*/(x+x+)+y\n");
  unsigned line;
  assert_int_equal(decide(s, "http://y.org/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", true,
                          &line), 1);
  assert_int_equal(line, 0);
  struct buf b;
  buf_init(&b, 4096);
  assert_int_equal(scope_json(s, &b), CM_OK);
  assert_non_null(strstr(b.data, "\"match_errors\":1"));
  buf_free(&b);
  assert_int_equal(decide(s, "http://e.org/xxy", true, &line), 0);  /* it still matches */
  scope_free(&s);
}

static void test_surt_form(void **state)
{
  (void)state;
  static const struct { const char *url, *surt; } cases[] = {
    { "http://www.example.org/a/b?q=1", "http://(org,example,www,)/a/b?q=1" },
    { "https://Example.ORG:8443/", "http://(org,example,:8443)/" },
    { "https://example.org:443/", "http://(org,example,)/" },
    { "http://127.0.0.1:8080/x", "http://(127.0.0.1:8080)/x" },
    { "http://[::1]/", "http://([::1])/" },
    { "http://localhost/", "http://(localhost,)/" },
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *canon = NULL, out[256];
    struct url_parts p;
    assert_int_equal(url_canon(cases[i].url, strlen(cases[i].url), NULL, &canon), URL_OK);
    assert_int_equal(url_split(canon, &p), URL_OK);
    assert_int_equal(scope_surt(&p, out, sizeof out), strlen(cases[i].surt));
    assert_string_equal(out, cases[i].surt);
    assert_int_equal(scope_surt(&p, out, 10), 0);  /* does not fit */
    mem_free(canon);
  }
}

static void test_surt_prefix(void **state)
{
  (void)state;
  static const struct { const char *arg, *prefix; } cases[] = {
    { "http://(org,example,)/docs/", "http://(org,example,)/docs/" },
    { "HTTPS://(ORG,Example,", "http://(org,example," },
    { "http://example.org", "http://(org,example," },            /* and subdomains */
    { "http://example.org/", "http://(org,example," },
    { "example.org/docs/x.html", "http://(org,example,)/docs/" }, /* the last segment cut */
    { "http://example.org/docs", "http://(org,example,)/" },
    { "http://example.org:8080/", "http://(org,example,:8080)/" },
    { "http://10.0.0.1/", "http://(10.0.0.1)/" },                 /* not 10.0.0.10 */
  };
  for(size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *p;
    assert_int_equal(scope_surt_prefix(cases[i].arg, strlen(cases[i].arg), &p), CRAWL_OK);
    assert_string_equal(p, cases[i].prefix);
    mem_free(p);
  }
  char *p;
  /* "://(" later in a plain URL does not make it a SURT (fuzz_scope) */
  static const char later[] = "https://a.org/x?q=://(";
  assert_int_equal(scope_surt_prefix(later, sizeof later - 1, &p), CRAWL_OK);
  assert_string_equal(p, "http://(org,a,)/");
  mem_free(p);
  assert_int_equal(scope_surt_prefix("ftp://(org,", 11, &p), CRAWL_ERR_INVALID);
  assert_null(p);
  assert_int_equal(scope_surt_prefix("http://", 7, &p), CRAWL_ERR_INVALID);
}

/* Many prefixes in one rule: sorted, covered ones dropped, looked up by
 * bisection, same answers as trying each. */
static void test_surt_set(void **state)
{
  (void)state;
  struct scope *s = parse_ok("reject all\n"
                             "accept surt http://(org,example,)/b/ http://(org,example,)/a/ "
                             "http://(org,example,)/a/deep/ http://(org,other, "
                             "http://(org,example,)/c/x\n");
  unsigned line;
  assert_int_equal(decide(s, "http://example.org/a/deep/x", false, &line), 1);
  assert_int_equal(decide(s, "http://example.org/a/", false, &line), 1);
  assert_int_equal(decide(s, "http://example.org/b/1", false, &line), 1);
  assert_int_equal(decide(s, "http://example.org/c/xyz", false, &line), 1);
  assert_int_equal(decide(s, "http://example.org/c/", false, &line), 0);
  assert_int_equal(decide(s, "http://example.org/ab", false, &line), 0);
  assert_int_equal(decide(s, "http://www.other.org/", false, &line), 1);
  assert_int_equal(decide(s, "http://otherx.org/", false, &line), 0);
  scope_free(&s);
}

static void test_errors_name_the_line(void **state)
{
  (void)state;
  assert_string_equal(parse_err("reject all\nallow host x.org\n"),
                      "line 2: a rule begins with accept or reject, not \"allow\"");
  assert_string_equal(parse_err("# c\n\nreject hots x.org\n"),
                      "line 3: unknown kind \"hots\" (all, regex, host, domain, surt)");
  assert_string_equal(parse_err("accept\n"),
                      "line 1: a rule is DECISION KIND [ARGUMENT...], e.g. \"reject regex "
                      ".*\\.php\"");
  assert_string_equal(parse_err("reject all x\n"), "line 1: \"all\" takes no argument");
  assert_string_equal(parse_err("reject regex\n"), "line 1: regex needs an argument");
  assert_string_equal(parse_err("reject regex a b\n"),
                      "line 1: regex takes one pattern without blanks (write \\x20 or \\s "
                      "for one)");
  assert_string_equal(parse_err("reject all\nreject regex (a\n"),
                      "line 2: regex (a: missing closing parenthesis at offset 2");
  assert_string_equal(parse_err("accept host a.org b/c\n"), "line 1: not a host name: b/c");
  assert_string_equal(parse_err("accept host a.org:80\n"), "line 1: not a host name: a.org:80");
  assert_string_equal(parse_err("accept surt ftp://(org,\n"),
                      "line 1: not a SURT prefix nor an http(s) URL: ftp://(org,");
  assert_string_equal(parse_err("accept host @\n"),
                      "line 1: @ needs a file name (@hosts.txt)");
  assert_string_equal(parse_err("accept host @list.txt\n"),
                      "line 1: @list.txt: lists are read only from a rule file");
  static const char nul[] = "reject all\nreject\0all\n";
  char err[SCOPE_ERR_MAX];
  struct scope *s;
  assert_int_equal(scope_parse(nul, sizeof nul - 1, NULL, &s, err, sizeof err),
                   CRAWL_ERR_INVALID);
  assert_string_equal(err, "line 2: a NUL byte: not a text file");
}

/* The text is read to its length only, never to a NUL past it (fuzz_scope
 * found a host name read on past the end; ASan, make test SANITIZE=1,
 * sees a read past this buffer, which has no NUL). */
static void test_length_not_nul(void **state)
{
  (void)state;
  static const char text[] = "accept host a.org";
  char *exact = malloc(sizeof text - 1);
  assert_non_null(exact);
  memcpy(exact, text, sizeof text - 1);
  struct scope *s;
  char err[SCOPE_ERR_MAX];
  assert_int_equal(scope_parse(exact, sizeof text - 1, NULL, &s, err, sizeof err), CRAWL_OK);
  unsigned line;
  assert_int_equal(decide(s, "http://a.org/", false, &line), 1);
  scope_free(&s);
  free(exact);
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
  char *path = mem_alloc(strlen(dir) + strlen(name) + 2);
  sprintf(path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* A rule file on disk, with @lists beside it; errors inside a list name
 * its line too. */
static void test_load_and_lists(void **state)
{
  (void)state;
  char dir[] = "/tmp/test_scope.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *hosts = write_tmp(dir, "deny.txt", "# deny\nads.example.org\n\n  Tracker.Example.ORG  \n");
  char *rules = write_tmp(dir, "rules", "reject host @deny.txt www.spam.test\n");
  struct scope *s;
  char err[SCOPE_ERR_MAX];
  assert_int_equal(scope_load(rules, &s, err, sizeof err), CRAWL_OK);
  unsigned line;
  assert_int_equal(decide(s, "http://tracker.example.org/", true, &line), 0);
  assert_int_equal(decide(s, "http://ads.example.org/", true, &line), 0);
  assert_int_equal(decide(s, "http://www.spam.test/", true, &line), 0);
  assert_int_equal(decide(s, "http://example.org/", true, &line), 1);
  scope_free(&s);
  char *bad = write_tmp(dir, "bad.txt", "ok.example\n\nnot/a/host\n");
  char *rules2 = write_tmp(dir, "rules2", "# two\nreject domain @bad.txt\n");
  assert_int_equal(scope_load(rules2, &s, err, sizeof err), CRAWL_ERR_INVALID);
  char want[512];
  snprintf(want, sizeof want, "line 2: @%s line 3: not a host name: not/a/host", bad);
  assert_string_equal(err, want);
  char *rules3 = write_tmp(dir, "rules3", "reject surt @missing.txt\n");
  assert_int_equal(scope_load(rules3, &s, err, sizeof err), CRAWL_ERR_IO);
  snprintf(want, sizeof want, "line 1: @%s/missing.txt: cannot be read", dir);
  assert_string_equal(err, want);
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none", dir);
  assert_int_equal(scope_load(missing, &s, err, sizeof err), CRAWL_ERR_IO);
  assert_string_equal(err, "cannot be read");
  char *all[] = { hosts, rules, bad, rules2, rules3 };
  for(size_t i = 0; i < 5; i++) {
    unlink(all[i]);
    mem_free(all[i]);
  }
  rmdir(dir);
}

static void test_json_and_counts(void **state)
{
  (void)state;
  struct scope *s = parse_ok("reject regex .*\"q\".*\naccept all\n");
  unsigned line;
  decide(s, "http://example.org/%22q%22", true, &line);
  decide(s, "http://example.org/", false, &line);
  decide(s, "http://example.org/b", false, &line);
  struct buf b;
  buf_init(&b, 4096);
  assert_int_equal(scope_json(s, &b), CM_OK);
  assert_string_equal(b.data, "[{\"line\":1,\"rule\":\"reject regex .*\\\"q\\\".*\",\"rejected\":0,"
                              "\"accepted\":0},{\"line\":2,\"rule\":\"accept all\","
                              "\"rejected\":0,\"accepted\":3}]");
  buf_reset(&b);
  assert_int_equal(scope_json(NULL, &b), CM_OK);
  assert_string_equal(b.data, "[]");
  buf_free(&b);
  scope_free(&s);
}

/* Checkpoints: a resumed crawl keeps the counters of the rules that are
 * the same (line and text); a rule changed starts from zero. */
static void test_checkpoint(void **state)
{
  (void)state;
  char path[] = "/tmp/test_scope_ck.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  static const char magic[8] = { 'T', 'S', 'C', 'O', 'P', 'E', '0', '1' };
  struct scope *s = parse_ok("reject all\nreject regex .*/a/.*\naccept host x.org\n");
  unsigned line;
  decide(s, "http://y.org/a/1", true, &line);
  decide(s, "http://y.org/a/2", true, &line);
  decide(s, "http://x.org/", false, &line);
  decide(s, "http://z.org/", true, &line);
  struct ckfile ck;
  assert_int_equal(ckfile_create(&ck, path, magic), CRAWL_OK);
  scope_save(s, &ck);
  ckfile_put_u64(&ck, 77);  /* what follows is read in its place */
  assert_int_equal(ckfile_commit(&ck), CRAWL_OK);
  scope_free(&s);
  s = parse_ok("reject all\nreject regex .*/a/.*\naccept host x.org y.org\n");
  assert_int_equal(ckfile_open(&ck, path, magic), CRAWL_OK);
  scope_load_counts(s, &ck);
  assert_int_equal(ckfile_get_u64(&ck), 77);
  assert_int_equal(ckfile_close(&ck), CRAWL_OK);
  assert_int_equal(scope_rejected(s, 1), 2);
  assert_int_equal(scope_accepted(s, 2), 0);  /* changed: from zero */
  assert_int_equal(scope_rejected(s, 0), 1);
  scope_free(&s);
  assert_int_equal(ckfile_open(&ck, path, magic), CRAWL_OK);
  scope_load_counts(NULL, &ck);  /* no rules now: the counters are read past */
  assert_int_equal(ckfile_get_u64(&ck), 77);
  assert_int_equal(ckfile_close(&ck), CRAWL_OK);
  unlink(path);
}

/* Out of memory at each allocation in turn: an error, never a leak or a
 * half-made scope. */
static void test_oom(void **state)
{
  (void)state;
  static const char text[] = "reject all\naccept surt http://(org,example,)/a/ example.net\n"
                             "reject regex .*\\.php\naccept host a.example b.example\n";
  long live = mem_live();
  for(unsigned long k = 1;; k++) {
    struct scope *s = NULL;
    char err[SCOPE_ERR_MAX];
    mem_fail_at(k);
    crawl_err e = scope_parse(text, sizeof text - 1, NULL, &s, err, sizeof err);
    mem_fail_at(0);
    if(e == CRAWL_OK) {
      assert_int_equal(scope_count(s), 4);
      scope_free(&s);
      break;
    }
    assert_int_equal(e, CRAWL_ERR_NOMEM);
    assert_null(s);
    assert_int_equal(mem_live(), live);
  }
  assert_int_equal(mem_live(), live);
}

static enum drop_reason filter(struct linkfilter *lf, const char *url)
{
  struct url_parts p;
  assert_int_equal(url_split(url, &p), URL_OK);
  return linkfilter_check(lf, &p);
}

/* In the link filter: the scope's answer is where the rules start; a rule
 * can take back a URL the scope left out, and one it rejects is
 * DROP_RULE, not DROP_SCOPE. The extension denylist comes first. */
static void test_linkfilter_rules(void **state)
{
  (void)state;
  struct scope *s = parse_ok("accept host cdn.example.com\n"
                             "reject regex .*/private/.*\n");
  struct linkfilter_opts o = { LINKFILTER_HOST, NULL, s };
  struct linkfilter *lf;
  assert_int_equal(linkfilter_open(&o, &lf), CRAWL_OK);
  assert_int_equal(linkfilter_add_seed(lf, "http://www.example.com/"), CRAWL_OK);
  assert_int_equal(filter(lf, "http://www.example.com/a.html"), DROP_NONE);
  assert_int_equal(filter(lf, "http://cdn.example.com/a"), DROP_NONE);
  assert_int_equal(filter(lf, "http://other.example.com/a"), DROP_SCOPE);
  assert_int_equal(filter(lf, "http://www.example.com/private/a"), DROP_RULE);
  assert_string_equal(linkfilter_rule(lf), "line 2: reject regex .*/private/.*");
  assert_int_equal(filter(lf, "http://www.example.com/private/a.png"), DROP_EXTENSION);
  assert_int_equal(scope_rejected(s, 1), 1);
  assert_string_equal(drop_name(DROP_RULE), "rule");
  linkfilter_close(&lf);
  scope_free(&s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_last_match_decides),
    cmocka_unit_test(test_no_match_keeps_start),
    cmocka_unit_test(test_regex),
    cmocka_unit_test(test_match_limit),
    cmocka_unit_test(test_surt_form),
    cmocka_unit_test(test_surt_prefix),
    cmocka_unit_test(test_surt_set),
    cmocka_unit_test(test_errors_name_the_line),
    cmocka_unit_test(test_length_not_nul),
    cmocka_unit_test(test_load_and_lists),
    cmocka_unit_test(test_json_and_counts),
    cmocka_unit_test(test_checkpoint),
    cmocka_unit_test(test_oom),
    cmocka_unit_test(test_linkfilter_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
