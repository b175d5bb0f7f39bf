#include "hlfs/fetch/reqopt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hlfs/state/qenc.h"

/* Headers no client may set, whatever the allow-list says: the fetcher's
 * own (framing, connection reuse, the virtual host the address guard
 * checked), the key's identity, the conditional headers the page cache
 * revalidates with, and the encodings the fetcher decodes. */
static const char *const never[] = {
  "host", "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
  "content-length", "content-type", "expect", "user-agent", "accept-encoding", "x-request-id",
  "forwarded", "x-forwarded-for", "x-forwarded-host", "via", NULL,
};
static const char *const never_prefix[] = { "proxy-", "if-", NULL };
/* Allowed only when named: they are the client's secrets, so a page fetched
 * with them is the client's own (the o item). */
static const char *const secret[] = { "authorization", "cookie", NULL };

static bool in_list(const char *const *l, const char *name)
{
  for(size_t i = 0; l[i]; i++)
    if(!strcasecmp(l[i], name))
      return true;
  return false;
}

static bool never_settable(const char *name)
{
  for(size_t i = 0; never_prefix[i]; i++)
    if(!strncasecmp(name, never_prefix[i], strlen(never_prefix[i])))
      return true;
  return in_list(never, name);
}

/* RFC 9110 token characters. */
static bool name_ok(const char *s, size_t n)
{
  if(n == 0 || n >= REQOPT_NAME_MAX)
    return false;
  for(size_t i = 0; i < n; i++)
    if(!isalnum((unsigned char)s[i]) && !strchr("!#$%&'*+-.^_`|~", s[i]))
      return false;
  return true;
}

int reqopt_allow_parse(const char *list, struct reqopt_allow *a, char *err, size_t errlen)
{
  a->n = 0;
  for(const char *p = list ? list : ""; *p;) {
    size_t n = strcspn(p, ",");
    while(n && *p == ' ')
      p++, n--;
    size_t m = n;
    while(m && p[m - 1] == ' ')
      m--;
    if(m && (!name_ok(p, m) || a->n >= REQOPT_ALLOW_MAX)) {
      snprintf(err, errlen, "client_headers: \"%.*s\": not a header name, or more than %d",
               (int)(m < 64 ? m : 64), p, REQOPT_ALLOW_MAX);
      return -1;
    }
    if(m) {
      for(size_t i = 0; i < m; i++)
        a->names[a->n][i] = (char)tolower((unsigned char)p[i]);
      a->names[a->n][m] = '\0';
      if(never_settable(a->names[a->n])) {
        snprintf(err, errlen, "client_headers: %s is the gateway's own, never a client's",
                 a->names[a->n]);
        return -1;
      }
      a->n++;
    }
    p += n + (p[n] == ',');
  }
  return 0;
}

static bool allowed(const struct reqopt_allow *a, const char *name)
{
  for(size_t i = 0; i < a->n; i++)
    if(!strcasecmp(a->names[i], name))
      return true;
  return false;
}

static bool value_ok(const char *v)
{
  size_t n = strlen(v);
  if(n == 0 || n > REQOPT_VALUE_MAX || v[0] == ' ' || v[n - 1] == ' ')
    return false;
  for(size_t i = 0; i < n; i++)
    if(v[i] < 0x20 || v[i] > 0x7e)
      return false;
  return true;
}

struct hdr {
  char name[REQOPT_NAME_MAX];
  const char *value;
};

static int hdr_cmp(const void *x, const void *y)
{
  return strcmp(((const struct hdr *)x)->name, ((const struct hdr *)y)->name);
}

/* The "headers" object into h (names lower-case); the count or -1. */
static int headers_of(const struct reqopt_allow *a, json_t *o, const char *pre,
                      struct hdr *h, struct jin_err *e)
{
  const char *k;
  json_t *v;
  size_t n = 0;
  char field[96];
  snprintf(field, sizeof field, "%s%sheaders", pre, *pre ? "." : "");
  if(!json_is_object(o) || json_object_size(o) > REQOPT_HEADERS_MAX) {
    jin_set(e, "", field, "must be an object of at most %d headers", REQOPT_HEADERS_MAX);
    return -1;
  }
  json_object_foreach(o, k, v) {
    if(!name_ok(k, strlen(k)) || never_settable(k) || !allowed(a, k)) {
      jin_set(e, field, k, "%s", !name_ok(k, strlen(k)) ? "is not a header name"
                                 : never_settable(k) ? "is the gateway's own header"
                                 : "is not in the gateway's allow-list (--client-headers)");
      return -1;
    }
    if(!json_is_string(v) || !value_ok(json_string_value(v))) {
      jin_set(e, field, k, "must be a string of 1-%d visible ASCII characters",
              REQOPT_VALUE_MAX);
      return -1;
    }
    for(size_t i = 0; k[i]; i++)
      h[n].name[i] = (char)tolower((unsigned char)k[i]), h[n].name[i + 1] = '\0';
    h[n++].value = json_string_value(v);
  }
  qsort(h, n, sizeof *h, hdr_cmp);
  return (int)n;
}

static int add(char *out, size_t outlen, size_t *at, char t, const char *a, const char *b)
{
  int w = snprintf(out + *at, outlen - *at, "%s%c%s%s%s", *at ? QENC_OPT_SEPS : "", t, a,
                   b ? ":" : "", b ? b : "");
  if(w < 0 || (size_t)w >= outlen - *at)
    return -1;
  *at += (size_t)w;
  return 0;
}

int reqopt_decode(const struct reqopt_allow *a, json_t *v, const char *pre, const char *ident,
                  const char *client, char *out, size_t outlen, struct jin_err *e)
{
  struct hdr h[REQOPT_HEADERS_MAX];
  const char *method = "GET";
  json_t *ho = json_object_get(v, "headers");
  int nh = 0;
  size_t at = 0;
  bool priv = false;
  out[0] = '\0';
  if(jin_str(v, pre, "method", false, 8, &method, e))
    return -1;
  if(strcmp(method, "GET") && strcmp(method, "HEAD")) {
    jin_set(e, pre, "method", "must be GET or HEAD");
    return -1;
  }
  if(ho && (nh = headers_of(a, ho, pre, h, e)) < 0)
    return -1;
  int rc = ident ? add(out, outlen, &at, 'k', ident, NULL) : 0;
  if(!strcmp(method, "HEAD"))
    rc |= add(out, outlen, &at, 'm', method, NULL);
  for(int i = 0; i < nh; i++) {
    rc |= add(out, outlen, &at, 'h', h[i].name, h[i].value);
    priv |= in_list(secret, h[i].name);
  }
  if(priv)
    rc |= add(out, outlen, &at, 'o', client, NULL);
  if(rc) {
    jin_set(e, pre, "headers", "more than %d bytes of options", (int)outlen - 1);
    return -1;
  }
  return 0;
}

/* The item starting at p: its length (up to the next separator). */
static size_t item_len(const char *p) { return strcspn(p, QENC_OPT_SEPS); }

static const char *item_next(const char *p)
{
  p += item_len(p);
  return *p ? p + 1 : NULL;
}

bool reqopt_head(const char *opts)
{
  for(const char *p = opts && *opts ? opts : NULL; p; p = item_next(p))
    if(!strncmp(p, "mHEAD", 5) && item_len(p) == 5)
      return true;
  return false;
}

bool reqopt_ident(const char *opts, char *out, size_t outlen)
{
  if(!opts || opts[0] != 'k' || item_len(opts) - 1 >= outlen)
    return false;
  snprintf(out, outlen, "%.*s", (int)item_len(opts) - 1, opts + 1);
  return true;
}

const char *reqopt_variant(const char *opts)
{
  if(opts && opts[0] == 'k')
    opts = item_next(opts);
  return opts && *opts ? opts : NULL;
}

size_t reqopt_headers(const char *opts, char *buf, size_t buflen, const char **out, size_t max)
{
  size_t n = 0, at = 0;
  for(const char *p = opts && *opts ? opts : NULL; p && n < max; p = item_next(p)) {
    size_t len = item_len(p);
    const char *colon = memchr(p, ':', len);
    if(p[0] != 'h' || !colon)
      continue;
    int w = snprintf(buf + at, buflen - at, "%.*s: %.*s", (int)(colon - p - 1), p + 1,
                     (int)(len - (size_t)(colon - p) - 1), colon + 1);
    if(w < 0 || (size_t)w >= buflen - at)
      break;
    out[n++] = buf + at;
    at += (size_t)w + 1;
  }
  return n;
}
