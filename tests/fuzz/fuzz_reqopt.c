/* A request's options (hlfs/fetch/reqopt.h) from arbitrary JSON: the first
 * line of the input is the allow-list, the rest a request object. Aborts
 * unless a decoded options string round-trips through its readers: every
 * header it names was allowed and is well formed, at most
 * REQOPT_HEADERS_MAX of them, no line break anywhere, the identity given
 * back, and the variant a suffix of the string. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hlfs/fetch/reqopt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what)
{
  fprintf(stderr, "fuzz_reqopt: %s\n", what);
  abort();
}

static void check(const struct reqopt_allow *al, const char *o, bool ident)
{
  char buf[REQOPT_MAX + REQOPT_HEADERS_MAX * 2], id[80];
  const char *h[REQOPT_HEADERS_MAX + 1];
  if(strpbrk(o, "\r\n"))
    die("a line break in the options");
  if(reqopt_ident(o, id, sizeof id) != ident || (ident && strcmp(id, "fz")))
    die("the identity not given back");
  const char *v = reqopt_variant(o);
  if(v && (v < o || strcmp(o + strlen(o) - strlen(v), v)))
    die("the variant is not a suffix");
  size_t n = reqopt_headers(o, buf, sizeof buf, h, REQOPT_HEADERS_MAX + 1);
  if(n > REQOPT_HEADERS_MAX)
    die("too many headers");
  for(size_t i = 0; i < n; i++) {
    const char *colon = strstr(h[i], ": ");
    bool ok = false;
    for(size_t k = 0; colon && k < al->n; k++)
      ok |= strlen(al->names[k]) == (size_t)(colon - h[i]) &&
            !strncasecmp(al->names[k], h[i], (size_t)(colon - h[i]));
    if(!ok)
      die("a header outside the allow-list");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1), err[160], o[REQOPT_MAX];
  struct reqopt_allow al;
  struct jin_err e;
  if(!s)
    return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  char *nl = strchr(s, '\n');
  if(nl)
    *nl = '\0';
  if(reqopt_allow_parse(s, &al, err, sizeof err) == 0 && nl) {
    json_t *v = json_loads(nl + 1, JSON_DISABLE_EOF_CHECK, NULL);
    bool ident = size % 2;
    if(json_is_object(v) && reqopt_decode(&al, v, "", ident ? "fz" : NULL, "cl", o, sizeof o, &e) == 0)
      check(&al, o, ident);
    json_decref(v);
  }
  free(s);
  return 0;
}
