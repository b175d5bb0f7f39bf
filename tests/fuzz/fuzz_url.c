/* URL library on arbitrary bytes (not NUL-terminated): parse, canonicalize
 * with and without the options, resolve against a fixed base and with the
 * input as base. Aborts when a canonical URL is not a fixed point of
 * url_canon, or when url_split refuses what url_canon produced. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *a, const char *b)
{
  fprintf(stderr, "fuzz_url: %s\n  first:  %s\n  second: %s\n", what, a, b ? b : "");
  abort();
}

/* canon(s) succeeded with out: check idempotence and url_split. */
static void check_canon(const char *out, const struct url_opts *o)
{
  char *again = NULL;
  url_err e = url_canon(out, strlen(out), o, &again);
  if(e != URL_OK)
    die(url_err_name(e), out, "(canon of a canonical URL failed)");
  if(strcmp(out, again) != 0)
    die("canon(canon(x)) != canon(x)", out, again);
  mem_free(again);
  struct url_parts p;
  if(url_split(out, &p) != URL_OK)
    die("url_split refused a canonical URL", out, NULL);
  if(url_registrable_domain(p.host) == NULL)
    die("no site for a host", p.host, NULL);
}

static void try_canon(const char *s, size_t n, const struct url_opts *o)
{
  char *out = NULL;
  if(url_canon(s, n, o, &out) == URL_OK) {
    check_canon(out, o);
    mem_free(out);
  } else if(out) {
    die("output on error", out, NULL);
  }
}

static void try_resolve(const char *b, size_t bn, const char *r, size_t rn)
{
  char *out = NULL;
  if(url_resolve(b, bn, r, rn, &out) == URL_OK) {
    try_canon(out, strlen(out), NULL);
    mem_free(out);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char base[] = "http://a/b/c/d;p?q";
  const char *s = (const char *)data;
  struct url u;
  long live = mem_live();
  if(url_parse(s, size, &u) == URL_OK)
    url_free(&u);
  struct url_opts o = url_opts_default();
  try_canon(s, size, &o);
  o.sort_query = o.strip_session_ids = true;
  try_canon(s, size, &o);
  try_resolve(base, sizeof base - 1, s, size);
  try_resolve(s, size, "../g?x#y", 8);
  if(mem_live() != live)
    die("leak", "mem_live changed", NULL);
  return 0;
}
