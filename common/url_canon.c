/* The canonical form of a URL for crawling (the rules: docs/url.md). */
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/url_int.h"

static bool is_unreserved(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

/* gen-delims and sub-delims: they may carry meaning for the server whether
 * encoded or not, so both spellings are kept as they are. */
static bool is_reserved(unsigned char c)
{
  return c != '\0' && strchr(":/?#[]@!$&'()*+,;=", c) != NULL;
}

/* a[0..n) equals b[0..n), a compared case-insensitively. */
static bool ascii_ieq(const char *a, const char *b, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if(x >= 'A' && x <= 'Z')
      x |= 0x20;
    if(x != y)
      return false;
  }
  return true;
}

bool url_canon_char(unsigned char c)
{
  return c != '#' && c != '%' && (is_unreserved(c) || is_reserved(c));
}

static cm_err pct_byte(struct buf *b, unsigned char c)
{
  static const char hex[] = "0123456789ABCDEF";
  char e[3] = { '%', hex[c >> 4], hex[c & 15] };
  return buf_add(b, e, 3);
}

/* Percent-encoding normalization of a path or query (RFC 3986 §6.2.2.2):
 * %XX of an unreserved byte is decoded, other %xx get upper-case digits,
 * bytes that may not appear raw are encoded, a stray '%' becomes %25. */
static cm_err canon_pct(struct buf *b, const char *s, size_t n)
{
  cm_err rc = CM_OK;
  for(size_t i = 0; i < n && rc == CM_OK; i++) {
    unsigned char c = (unsigned char)s[i];
    if(c == '%' && n - i > 2 && url_hex_val((unsigned char)s[i + 1]) >= 0 &&
       url_hex_val((unsigned char)s[i + 2]) >= 0) {
      c = (unsigned char)(url_hex_val((unsigned char)s[i + 1]) * 16 +
                          url_hex_val((unsigned char)s[i + 2]));
      i += 2;
      rc = is_unreserved(c) ? buf_addc(b, (char)c) : pct_byte(b, c);
    } else if(is_unreserved(c) || is_reserved(c)) {
      rc = buf_addc(b, (char)c);
    } else {
      rc = pct_byte(b, c);
    }
  }
  return rc;
}

/* Remove ";jsessionid=..." path parameters, in place. A removal ends at
 * ';' or '/', which cannot start a new match, so one pass is enough. */
static void strip_path_sessions(struct buf *p)
{
  static const char key[] = ";jsessionid=";
  const size_t kn = sizeof key - 1;
  size_t w = 0, r = 0;
  while(r < p->len) {
    if(p->len - r >= kn && ascii_ieq(p->data + r, key, kn)) {
      r += kn;
      while(r < p->len && p->data[r] != ';' && p->data[r] != '/')
        r++;
      continue;
    }
    p->data[w++] = p->data[r++];
  }
  p->len = w;
  if(p->data)
    p->data[w] = '\0';
}

static cm_err canon_path(struct buf *out, const struct url_span *path,
                         const struct url_opts *o, size_t max)
{
  struct buf t;
  buf_init(&t, 3 * max);  /* encoding at most triples the input */
  cm_err rc = canon_pct(&t, path->p, path->n);
  if(rc == CM_OK && o->strip_session_ids)
    strip_path_sessions(&t);
  size_t before = out->len;
  if(rc == CM_OK)
    rc = url_path_remove_dots(out, t.data, t.len);
  if(rc == CM_OK && out->len == before)
    rc = buf_addc(out, '/');
  buf_free(&t);
  return rc;
}

/* --- query parameters (optional rules) ---------------------------------- */

struct qparam {
  const char *p;
  size_t      n, name_n, idx;
};

static bool is_session_param(const char *p, size_t n)
{
  static const char *const names[] = { "jsessionid", "phpsessid", "sid",
                                       "sessionid" };
  for(size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if(url_ieq(p, n, names[i]))
      return true;
  /* Classic ASP names it ASPSESSIONID followed by eight letters. */
  return n >= 12 && ascii_ieq(p, "aspsessionid", 12);
}

/* By name only; equal names keep their order (the index breaks ties, which
 * makes qsort stable). */
static int qparam_cmp(const void *a, const void *b)
{
  const struct qparam *x = a, *y = b;
  size_t m = x->name_n < y->name_n ? x->name_n : y->name_n;
  int c = memcmp(x->p, y->p, m);
  if(c == 0 && x->name_n != y->name_n)
    c = x->name_n < y->name_n ? -1 : 1;
  if(c == 0)
    c = x->idx < y->idx ? -1 : 1;
  return c;
}

/* Split q on '&' into v (room for every parameter), dropping session ids
 * when asked; returns the number kept. */
static size_t qparams_split(const char *q, size_t n, bool strip, struct qparam *v)
{
  size_t k = 0, i = 0;
  while(i <= n) {
    size_t e = i;
    while(e < n && q[e] != '&')
      e++;
    const char *eq = memchr(q + i, '=', e - i);
    size_t nn = eq ? (size_t)(eq - (q + i)) : e - i;
    if(!strip || !is_session_param(q + i, nn)) {
      struct qparam qp = { q + i, e - i, nn, k };
      v[k++] = qp;
    }
    i = e + 1;
  }
  return k;
}

static cm_err qparams_join(struct buf *out, const struct qparam *v, size_t k)
{
  cm_err rc = buf_addc(out, '?');
  for(size_t i = 0; i < k && rc == CM_OK; i++) {
    if(i > 0)
      rc = buf_addc(out, '&');
    if(rc == CM_OK)
      rc = buf_add(out, v[i].p, v[i].n);
  }
  return rc;
}

static cm_err canon_params(struct buf *out, const char *q, size_t n,
                           const struct url_opts *o)
{
  size_t cnt = 1;
  for(size_t i = 0; i < n; i++)
    cnt += q[i] == '&';
  struct qparam *v = mem_calloc(cnt, sizeof *v);
  if(!v)
    return CM_NOMEM;
  size_t k = qparams_split(q, n, o->strip_session_ids, v);
  if(o->sort_query)
    qsort(v, k, sizeof *v, qparam_cmp);
  cm_err rc = CM_OK;
  /* A query that lost all its parameters is no query at all. */
  bool empty = k == 0 || (k == 1 && v[0].n == 0);
  if(!empty || k == cnt)
    rc = qparams_join(out, v, k);
  mem_free(v);
  return rc;
}

static cm_err canon_query(struct buf *out, const struct url_span *q,
                          const struct url_opts *o, size_t max)
{
  if(!o->sort_query && !o->strip_session_ids) {
    cm_err rc = buf_addc(out, '?');
    return rc ? rc : canon_pct(out, q->p, q->n);
  }
  struct buf t;
  buf_init(&t, 3 * max);
  cm_err rc = canon_pct(&t, q->p, q->n);
  if(rc == CM_OK)
    rc = canon_params(out, t.data ? t.data : "", t.len, o);
  buf_free(&t);
  return rc;
}

/* --- the whole URL -------------------------------------------------------- */

/* Digits only (the splitter checked); empty and default ports vanish. */
static url_err canon_port(struct buf *out, const struct url_span *port, bool https)
{
  unsigned long v = 0;
  if(!port->has || port->n == 0)
    return URL_OK;
  for(size_t i = 0; i < port->n && v <= 65535; i++)
    v = v * 10 + (unsigned long)(port->p[i] - '0');
  if(v == 0 || v > 65535)
    return URL_ERR_BAD_PORT;
  if(v == (https ? 443u : 80u))
    return URL_OK;
  char d[8];  /* ":65535" at most; by hand: a printf per link was 1.7 % of a crawl */
  size_t i = sizeof d;
  do
    d[--i] = (char)('0' + v % 10);
  while((v /= 10) != 0);
  d[--i] = ':';
  return url_from_cm(buf_add(out, d + i, sizeof d - i));
}

/* Which schemes and authorities a crawler accepts at all. */
static url_err canon_check(const struct url_raw *r, bool *https)
{
  if(!r->scheme.has)
    return URL_ERR_NO_SCHEME;
  *https = url_ieq(r->scheme.p, r->scheme.n, "https");
  if(!*https && !url_ieq(r->scheme.p, r->scheme.n, "http"))
    return URL_ERR_UNSUPPORTED_SCHEME;
  if(!r->auth.has)
    return URL_ERR_NO_HOST;
  /* Credentials would be sent to every server and logged everywhere. */
  if(r->userinfo.has)
    return URL_ERR_USERINFO;
  return URL_OK;
}

static url_err canon_build(struct buf *out, const struct url_raw *r, bool https,
                           const struct url_opts *o, size_t max)
{
  enum url_host_kind kind;
  url_err e = url_from_cm(buf_adds(out, https ? "https://" : "http://"));
  if(e == URL_OK)
    e = url_host_canon(r->host.p, r->host.n, out, &kind);
  if(e == URL_OK)
    e = canon_port(out, &r->port, https);
  if(e == URL_OK)
    e = url_from_cm(canon_path(out, &r->path, o, max));
  if(e == URL_OK && r->query.has)
    e = url_from_cm(canon_query(out, &r->query, o, max));
  return e;
}

url_err url_canon(const char *s, size_t n, const struct url_opts *o, char **out)
{
  *out = NULL;
  struct url_opts def = url_opts_default();
  size_t max = url_max_len(o);
  if(!o)
    o = &def;
  if(n > max)
    return URL_ERR_TOO_LONG;
  url_trim(&s, &n);
  if(n == 0)
    return URL_ERR_EMPTY;
  struct url_raw r;
  bool https = false;
  url_err e = url_raw_split(s, n, &r);
  if(e == URL_OK)
    e = canon_check(&r, &https);
  struct buf res;
  buf_init(&res, max);
  if(e == URL_OK)
    e = canon_build(&res, &r, https, o, max);
  if(e == URL_OK)
    *out = buf_steal(&res, NULL);
  buf_free(&res);
  return e;
}
