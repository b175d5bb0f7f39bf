/* The result of one fetch: its header block, kept as plain
 * "Name: value\n" lines of the final response. */
#include <string.h>
#include <strings.h>

#include "common/mem.h"
#include "llfs/fetch_int.h"

void fetch_res_init(struct fetch_res *r, size_t max_header, size_t max_body)
{
  memset(r, 0, sizeof *r);
  r->detail = "";
  buf_init(&r->headers, max_header);
  buf_init(&r->body, max_body);
}

void fetch_res_clear(struct fetch_res *r)
{
  buf_free(&r->headers);
  buf_free(&r->body);
  mem_free(r->redirect);
  r->redirect = NULL;
}

static bool is_ws(char c) { return c == ' ' || c == '\t'; }

/* One line as libcurl hands it (CRLF included). A status line starts a
 * new block (after 1xx), so only the final response's headers stay; an
 * obsolete folded line joins the previous one. */
size_t fetch_res_header_line(struct fetch_res *r, const char *p, size_t n)
{
  size_t len = n;
  while(len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
    len--;
  if(len >= 5 && !memcmp(p, "HTTP/", 5)) {
    buf_reset(&r->headers);
    return 0;
  }
  if(len == 0)
    return 0;
  if(is_ws(p[0]) && r->headers.len) {
    while(len && is_ws(*p)) { p++; len--; }
    r->headers.len--;   /* drop the '\n': the line goes on */
    cm_err e = buf_addc(&r->headers, ' ');
    if(!e)
      e = buf_add(&r->headers, p, len);
    if(!e)
      e = buf_addc(&r->headers, '\n');
    return e ? 1 : 0;
  }
  cm_err e = buf_add(&r->headers, p, len);
  if(!e)
    e = buf_addc(&r->headers, '\n');
  return e ? 1 : 0;
}

const char *fetch_res_header(const struct fetch_res *res, const char *name, size_t *len)
{
  size_t nl = strlen(name);
  const char *p = res->headers.data, *end = p ? p + res->headers.len : NULL;
  while(p && p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if(!eol)
      eol = end;
    if((size_t)(eol - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
      const char *v = p + nl + 1;
      while(v < eol && is_ws(*v))
        v++;
      const char *ve = eol;
      while(ve > v && is_ws(ve[-1]))
        ve--;
      if(len)
        *len = (size_t)(ve - v);
      return v;
    }
    p = eol + 1;
  }
  return NULL;
}
