/* Paths: RFC 3986 §5.2.4 dot-segment removal, in one pass. */
#include <string.h>

#include "common/url_int.h"

/* Does p[i..n) start with the string lit? */
static bool at(const char *p, size_t i, size_t n, const char *lit)
{
  size_t l = strlen(lit);
  return n - i >= l && memcmp(p + i, lit, l) == 0;
}

static bool rest_is(const char *p, size_t i, size_t n, const char *lit)
{
  return n - i == strlen(lit) && at(p, i, n, lit);
}

/* Drop the last segment and its '/' from the output. Each byte is dropped
 * at most once, so the backward scans cost O(n) in total. */
static void path_pop(struct buf *out, size_t base)
{
  size_t l = out->len;
  while(l > base && out->data[l - 1] != '/')
    l--;
  if(l > base)
    l--;
  out->len = l;
  if(out->data)
    out->data[l] = '\0';
}

/* Move the first segment of p[i..n) (its leading '/' included) to out. */
static cm_err path_move(struct buf *out, const char *p, size_t *i, size_t n)
{
  size_t e = *i + (p[*i] == '/');
  while(e < n && p[e] != '/')
    e++;
  cm_err rc = buf_add(out, p + *i, e - *i);
  *i = e;
  return rc;
}

cm_err url_path_remove_dots(struct buf *out, const char *p, size_t n)
{
  size_t base = out->len, i = 0;
  cm_err rc = CM_OK;
  while(i < n && rc == CM_OK) {
    if(at(p, i, n, "../"))
      i += 3;
    else if(at(p, i, n, "./") || at(p, i, n, "/./"))
      i += 2;
    else if(rest_is(p, i, n, "/.")) {
      rc = buf_addc(out, '/');
      i = n;
    } else if(at(p, i, n, "/../")) {
      path_pop(out, base);
      i += 3;
    } else if(rest_is(p, i, n, "/..")) {
      path_pop(out, base);
      rc = buf_addc(out, '/');
      i = n;
    } else if(rest_is(p, i, n, ".") || rest_is(p, i, n, ".."))
      i = n;
    else
      rc = path_move(out, p, &i, n);
  }
  return rc;
}
