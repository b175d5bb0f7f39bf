#include "llfs/req.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"
#include "common/url.h"


static const char *const known_fields[] = {
  "url", "method", "headers", "connect_timeout_ms", "timeout_ms", "max_body_bytes",
  "max_decoded_bytes", "pin_address", "hold_us", NULL,
};

/* Headers the fetcher owns: letting a caller set them would break framing
 * or connection reuse. */
static const char *const forbidden_headers[] = {
  "host", "content-length", "transfer-encoding", "connection", "upgrade", "te",
  "keep-alive", "trailer", "expect", NULL,
};

static void req_fail(struct llfs_req_err *err, unsigned status, const char *type)
{
  err->status = status;
  err->type = type;
}

static int req_url(json_t *body, const struct llfs_limits *lim, struct llfs_req *out,
                   struct llfs_req_err *err)
{
  const char *url = NULL;
  if(jin_str(body, "", "url", true, 1 << 20, &url, &err->e)) {
    req_fail(err, 422, "invalid-field");
    return -1;
  }
  struct url_opts o = url_opts_default();
  o.max_len = lim->max_url_len;
  url_err ue = url_canon(url, strlen(url), &o, &out->url);
  if(ue == URL_OK)
    return 0;
  err->url_error = url_err_name(ue);
  jin_set(&err->e, "", "url", "%s", url_err_text(ue));
  if(ue == URL_ERR_TOO_LONG)
    req_fail(err, 400, "url-too-long");
  else if(ue == URL_ERR_UNSUPPORTED_SCHEME)
    req_fail(err, 400, "unsupported-scheme");
  else
    req_fail(err, 400, "invalid-url");
  return -1;
}

static bool req_is_token(const char *s)
{
  static const char tchar[] = "!#$%&'*+-.^_`|~0123456789"
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  size_t n = strlen(s);
  return n > 0 && n <= 64 && strspn(s, tchar) == n;
}

static bool req_forbidden(const char *name)
{
  if(!strncasecmp(name, "proxy-", 6))
    return true;
  for(size_t i = 0; forbidden_headers[i]; i++)
    if(!strcasecmp(name, forbidden_headers[i]))
      return true;
  return false;
}

static int req_header(const char *name, json_t *v, struct llfs_req *out, struct jin_err *e)
{
  if(!req_is_token(name)) {
    jin_set(e, "headers", "(name)", "header name is not an HTTP token of 1-64 characters");
    return -1;
  }
  if(req_forbidden(name)) {
    jin_set(e, "headers", name, "is set by the fetcher and cannot be given");
    return -1;
  }
  if(!json_is_string(v)) {
    jin_set(e, "headers", name, "must be a string");
    return -1;
  }
  const char *val = json_string_value(v);
  size_t n = json_string_length(v);
  if(n > LLFS_MAX_HEADER_VALUE || strcspn(val, "\r\n") != n) {
    jin_set(e, "headers", name, "must be at most %d bytes without CR, LF or NUL",
            LLFS_MAX_HEADER_VALUE);
    return -1;
  }
  size_t len = strlen(name) + 2 + n + 1;
  char *h = mem_alloc(len);
  if(!h) {
    jin_set(e, "headers", name, "out of memory");
    return -1;
  }
  snprintf(h, len, "%s: %s", name, val);
  out->headers[out->nheaders++] = h;
  return 0;
}

static int req_headers(json_t *body, struct llfs_req *out, struct jin_err *e)
{
  json_t *hs = json_object_get(body, "headers");
  const char *name;
  json_t *v;
  if(!hs)
    return 0;
  if(!json_is_object(hs)) {
    jin_set(e, "", "headers", "must be an object of header names to string values");
    return -1;
  }
  if(json_object_size(hs) > LLFS_MAX_HEADERS) {
    jin_set(e, "", "headers", "at most %d headers", LLFS_MAX_HEADERS);
    return -1;
  }
  json_object_foreach(hs, name, v) {
    if(req_header(name, v, out, e))
      return -1;
  }
  return 0;
}

static int req_method(json_t *body, struct llfs_req *out, struct jin_err *e)
{
  const char *m = NULL;
  if(jin_str(body, "", "method", false, 8, &m, e))
    return -1;
  if(!m || !strcmp(m, "GET"))
    out->method = LLFS_GET;
  else if(!strcmp(m, "HEAD"))
    out->method = LLFS_HEAD;
  else {
    jin_set(e, "", "method", "must be GET or HEAD");
    return -1;
  }
  return 0;
}

static int req_pin(json_t *body, struct llfs_req *out, struct jin_err *e)
{
  const char *pin = NULL;
  unsigned char bin[16];
  if(jin_str(body, "", "pin_address", false, 45, &pin, e))
    return -1;
  if(!pin)
    return 0;
  if(inet_pton(AF_INET, pin, bin) != 1 && inet_pton(AF_INET6, pin, bin) != 1) {
    jin_set(e, "", "pin_address", "must be an IPv4 or IPv6 address");
    return -1;
  }
  snprintf(out->pin, sizeof out->pin, "%s", pin);
  return 0;
}

static int req_limits(json_t *body, const struct llfs_limits *lim, struct llfs_req *out,
                      struct jin_err *e)
{
  long long ct = lim->connect_timeout_ms, t = lim->timeout_ms;
  long long mb = (long long)lim->max_body, md = (long long)lim->max_decoded, h = 0;
  if(jin_int(body, "", "connect_timeout_ms", false, 1, lim->connect_timeout_ms, &ct, e) ||
     jin_int(body, "", "timeout_ms", false, 1, lim->timeout_ms, &t, e) ||
     jin_int(body, "", "max_body_bytes", false, 0, (long long)lim->max_body, &mb, e) ||
     jin_int(body, "", "max_decoded_bytes", false, 0, (long long)lim->max_decoded, &md, e) ||
     jin_int(body, "", "hold_us", false, 0, LLFS_MAX_HOLD_US, &h, e))
    return -1;
  out->hold_us = (uint64_t)h;
  out->connect_timeout_ms = (long)ct;
  out->timeout_ms = (long)t;
  out->max_body = (size_t)mb;
  out->max_decoded = (size_t)md;
  return 0;
}

int llfs_req_decode(json_t *body, const struct llfs_limits *lim, struct llfs_req *out,
                    struct llfs_req_err *err)
{
  memset(out, 0, sizeof *out);
  memset(err, 0, sizeof *err);
  req_fail(err, 422, "invalid-field");
  if(jin_only(body, "", known_fields, &err->e) || req_url(body, lim, out, err))
    goto fail;
  req_fail(err, 422, "invalid-field");
  if(req_method(body, out, &err->e) || req_headers(body, out, &err->e) ||
     req_pin(body, out, &err->e) || req_limits(body, lim, out, &err->e))
    goto fail;
  return 0;
fail:
  llfs_req_clear(out);
  return -1;
}

void llfs_req_clear(struct llfs_req *r)
{
  mem_free(r->url);
  r->url = NULL;
  for(size_t i = 0; i < r->nheaders; i++)
    mem_free(r->headers[i]);
  r->nheaders = 0;
}
