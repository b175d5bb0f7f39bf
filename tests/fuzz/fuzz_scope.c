/* libFuzzer target for clients/base/scope.c and scope_surt.c: the scope
 * rule file parser and the decision.
 * Input: RULES [ '\0' URL ] - a rule file's text (no @PATH lists: there
 * is no directory) and a URL to decide. Checks:
 *  - a file that does not parse gives no scope and an error naming a line
 *    that exists ("line N: ...", 1 <= N <= lines);
 *  - one that parses has at most one rule per line, and its counters
 *    serialize as JSON that jansson reads back, one object per rule;
 *  - the decision of a URL depends on the start only when no rule matched,
 *    and the rule that decided counted it;
 *  - a rule argument read as a SURT prefix is either refused or a prefix
 *    that begins with "http://(".
 * ASan and LeakSanitizer see every path, the refused ones included. */
#include <assert.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/base/scope.h"
#include "common/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t lines_of(const char *t, size_t n)
{
  size_t k = 1;
  for(size_t i = 0; i < n; i++)
    k += t[i] == '\n';
  return k;
}

static void check_json(const struct scope *s)
{
  struct buf b;
  buf_init(&b, 64u << 20);
  assert(scope_json(s, &b) == CM_OK);
  json_t *j = json_loadb(b.data, b.len, 0, NULL);
  assert(j && json_is_array(j) && json_array_size(j) == scope_count(s));
  json_decref(j);
  buf_free(&b);
}

static void check_url(struct scope *s, const char *url, size_t n)
{
  char *canon = NULL;
  struct url_parts p;
  if(url_canon(url, n, NULL, &canon) != URL_OK || url_split(canon, &p) != URL_OK) {
    mem_free(canon);
    return;
  }
  int r1, r2;
  bool a = scope_decide(s, &p, true, &r1), b = scope_decide(s, &p, false, &r2);
  assert(r1 == r2);
  assert(r1 >= 0 || (a && !b));
  if(r1 >= 0) {
    assert(a == b);
    assert(scope_accepted(s, r1) + scope_rejected(s, r1) >= 2);
  }
  char surt[SCOPE_SURT_MAX];
  size_t k = scope_surt(&p, surt, sizeof surt);
  assert(k == 0 || (k == strlen(surt) && !strncmp(surt, "http://(", 8)));
  mem_free(canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data, *nul = memchr(data, '\0', size);
  size_t tn = nul ? (size_t)(nul - text) : size;
  char err[SCOPE_ERR_MAX];
  struct scope *s = NULL;
  crawl_err e = scope_parse(text, tn, NULL, &s, err, sizeof err);
  if(e) {
    unsigned line = 0;
    assert(!s);
    assert(sscanf(err, "line %u:", &line) == 1 && line >= 1 && line <= lines_of(text, tn));
  } else {
    assert(scope_count(s) <= lines_of(text, tn));
    if(nul)
      check_url(s, nul + 1, size - tn - 1);
    check_json(s);
    scope_free(&s);
  }
  char *pre = NULL;
  if(scope_surt_prefix(text, tn, &pre) == CRAWL_OK)
    assert(pre && !strncmp(pre, "http://(", 8));
  mem_free(pre);
  return 0;
}
