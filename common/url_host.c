/* Hosts: the canonical spelling of a name, an IPv4 or an IPv6 address.
 * The fetcher's address guard trusts this file: every spelling a browser
 * would take as an IPv4 address ("2130706433", "0177.1", "0x7f.0.0.1",
 * "127.0.0.%31") comes out as a dotted quad, never as a name that a resolver
 * might interpret differently. */
#include <arpa/inet.h>
#include <idn2.h>
#include <libpsl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/url_int.h"

#define HOST_NAME_MAX_LEN  253
#define HOST_LABEL_MAX_LEN 63

/* The bytes a canonical host name may hold: lower-case LDH, '_' (found in
 * real names) and the label separator. Anything else cannot be looked up. */
static bool host_char_ok(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

/* --- IPv4, after the WHATWG URL standard's IPv4 parser ---------------- */

/* One part: decimal, octal ("0" prefix) or hex ("0x" prefix, maybe no
 * digits). Values saturate above 2^32 so that long inputs cannot wrap. */
static bool ipv4_number(const char *s, size_t n, uint64_t *v)
{
  unsigned radix = 10;
  if(n == 0)
    return false;
  if(n >= 2 && s[0] == '0' && (s[1] | 0x20) == 'x') {
    radix = 16;
    s += 2, n -= 2;
  } else if(n >= 2 && s[0] == '0') {
    radix = 8;
    s++, n--;
  }
  uint64_t acc = 0;
  for(size_t i = 0; i < n; i++) {
    int d = url_hex_val((unsigned char)s[i]);
    if(d < 0 || (unsigned)d >= radix)
      return false;
    acc = acc * radix + (unsigned)d;
    if(acc > UINT32_MAX)
      acc = (uint64_t)UINT32_MAX + 1;
  }
  *v = acc;
  return true;
}

/* The last label (h has no trailing dot) is a number: then the whole host
 * must be an IPv4 address. */
bool url_host_ends_in_number(const char *h, size_t n)
{
  size_t i = n;
  bool digits = true;
  while(i > 0 && h[i - 1] != '.') {
    i--;
    if(h[i] < '0' || h[i] > '9')
      digits = false;
  }
  uint64_t v;
  return (i < n && digits) || ipv4_number(h + i, n - i, &v);
}

static url_err ipv4_parse(const char *h, size_t n, uint32_t *addr)
{
  uint64_t part[4], v;
  size_t np = 0, i = 0;
  while(i <= n) {
    size_t e = i;
    while(e < n && h[e] != '.')
      e++;
    if(np == 4 || !ipv4_number(h + i, e - i, &part[np]))
      return URL_ERR_BAD_IPV4;
    np++;
    i = e + 1;
  }
  for(size_t k = 0; k + 1 < np; k++)
    if(part[k] > 255)
      return URL_ERR_BAD_IPV4;
  /* The last part fills the bytes the others left: "127.1" = 127.0.0.1. */
  if(part[np - 1] >= (uint64_t)1 << (8 * (5 - np)))
    return URL_ERR_BAD_IPV4;
  v = part[np - 1];
  for(size_t k = 0; k + 1 < np; k++)
    v += part[k] << (8 * (3 - k));
  *addr = (uint32_t)v;
  return URL_OK;
}

static url_err ipv4_canon(const char *h, size_t n, struct buf *out)
{
  uint32_t a;
  url_err e = ipv4_parse(h, n, &a);
  if(e)
    return e;
  return url_from_cm(buf_addf(out, "%u.%u.%u.%u", (unsigned)(a >> 24),
                              (unsigned)(a >> 16) & 255u,
                              (unsigned)(a >> 8) & 255u, (unsigned)a & 255u));
}

/* --- IPv6 -------------------------------------------------------------- */

/* h is "[...]"; the result is inet_ntop's compressed lower-case form. */
static url_err ipv6_canon(const char *h, size_t n, struct buf *out)
{
  char in[INET6_ADDRSTRLEN], txt[INET6_ADDRSTRLEN];
  unsigned char a[16];
  if(n < 2 || h[n - 1] != ']' || n - 2 >= sizeof in)
    return URL_ERR_BAD_IPV6;
  memcpy(in, h + 1, n - 2);
  in[n - 2] = '\0';
  if(inet_pton(AF_INET6, in, a) != 1 || !inet_ntop(AF_INET6, a, txt, sizeof txt))
    return URL_ERR_BAD_IPV6;
  cm_err rc = buf_addc(out, '[');
  if(rc == CM_OK)
    rc = buf_adds(out, txt);
  return url_from_cm(rc ? rc : buf_addc(out, ']'));
}

/* --- names ------------------------------------------------------------- */

/* Percent-decode h into d (lower-casing ASCII). A '%' not followed by two
 * hex digits stays, and is then refused as a forbidden character. */
static cm_err host_decode(struct buf *d, const char *h, size_t n, bool *ascii)
{
  *ascii = true;
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)h[i];
    if(c == '%' && n - i > 2 && url_hex_val((unsigned char)h[i + 1]) >= 0 &&
       url_hex_val((unsigned char)h[i + 2]) >= 0) {
      c = (unsigned char)(url_hex_val((unsigned char)h[i + 1]) * 16 +
                          url_hex_val((unsigned char)h[i + 2]));
      i += 2;
    }
    if(c >= 'A' && c <= 'Z')
      c |= 0x20;
    if(c >= 0x80)
      *ascii = false;
    cm_err rc = buf_addc(d, (char)c);
    if(rc)
      return rc;
  }
  return CM_OK;
}

static url_err host_check_chars(const char *h, size_t n)
{
  for(size_t i = 0; i < n; i++)
    if((unsigned char)h[i] < 0x80 && !host_char_ok((unsigned char)h[i]))
      return URL_ERR_BAD_HOST;
  return URL_OK;
}

/* UTS #46 processing, non-transitional first (so "faß.de" keeps its ß),
 * transitional when that fails, as browsers do. */
static url_err host_idna(const char *u8, struct buf *out)
{
  char *a = NULL;
  int rc = idn2_to_ascii_8z(u8, &a, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
  if(rc != IDN2_OK && rc != IDN2_MALLOC)
    rc = idn2_to_ascii_8z(u8, &a, IDN2_NFC_INPUT | IDN2_TRANSITIONAL);
  switch(rc) {
  case IDN2_OK:              break;
  case IDN2_MALLOC:          return URL_ERR_NOMEM;
  case IDN2_TOO_BIG_LABEL:   /* fall through: an A-label over 63 octets */
  case IDN2_PUNYCODE_BIG_OUTPUT: return URL_ERR_LABEL_TOO_LONG;
  case IDN2_TOO_BIG_DOMAIN:  return URL_ERR_HOST_TOO_LONG;
  default:                   return URL_ERR_BAD_IDN;
  }
  if(strlen(a) > HOST_NAME_MAX_LEN + 1) {  /* + 1: a trailing dot */
    idn2_free(a);
    return URL_ERR_HOST_TOO_LONG;
  }
  buf_reset(out);
  url_err e = url_from_cm(buf_adds(out, a));
  idn2_free(a);
  return e;
}

static url_err host_check_labels(const char *h, size_t n)
{
  if(n > HOST_NAME_MAX_LEN)
    return URL_ERR_HOST_TOO_LONG;
  size_t i = 0;
  while(i <= n) {
    size_t e = i;
    while(e < n && h[e] != '.')
      e++;
    if(e == i)
      return URL_ERR_EMPTY_LABEL;
    if(e - i > HOST_LABEL_MAX_LEN)
      return URL_ERR_LABEL_TOO_LONG;
    i = e + 1;
  }
  return URL_OK;
}

/* The host name in d (decoded, lower-case), finished and appended to out. */
static url_err host_name(struct buf *d, bool ascii, struct buf *out,
                         enum url_host_kind *kind)
{
  url_err e = host_check_chars(d->data, d->len);
  if(e == URL_OK && !ascii)
    e = host_idna(d->data, d);
  if(e == URL_OK && d->len && d->data[d->len - 1] == '.')
    d->data[--d->len] = '\0';  /* "a.example." is the same DNS name */
  if(e == URL_OK && d->len == 0)
    e = URL_ERR_NO_HOST;
  if(e == URL_OK)
    e = host_check_chars(d->data, d->len);
  if(e)
    return e;
  if(url_host_ends_in_number(d->data, d->len)) {
    *kind = URL_HOST_IPV4;
    return ipv4_canon(d->data, d->len, out);
  }
  e = host_check_labels(d->data, d->len);
  *kind = URL_HOST_NAME;
  return e ? e : url_from_cm(buf_add(out, d->data, d->len));
}

url_err url_host_canon(const char *h, size_t n, struct buf *out,
                       enum url_host_kind *kind)
{
  if(n == 0)
    return URL_ERR_NO_HOST;
  if(h[0] == '[') {
    *kind = URL_HOST_IPV6;
    return ipv6_canon(h, n, out);
  }
  struct buf d;
  bool ascii;
  buf_init(&d, n > HOST_NAME_MAX_LEN + 1 ? n : HOST_NAME_MAX_LEN + 1);
  url_err e = url_from_cm(host_decode(&d, h, n, &ascii));
  if(e == URL_OK && memchr(d.data, '\0', d.len))
    e = URL_ERR_BAD_HOST;
  if(e == URL_OK)
    e = host_name(&d, ascii, out, kind);
  buf_free(&d);
  return e;
}

/* --- sites --------------------------------------------------------------- */

const char *url_registrable_domain(const char *host)
{
  size_t n = strlen(host);
  if(n == 0 || strchr(host, ':') || url_host_ends_in_number(host, n))
    return host;
  const char *d = psl_registrable_domain(psl_builtin(), host);
  return d ? d : host;
}
