#include "api/jin.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void jin_set(struct jin_err *e, const char *prefix, const char *key, const char *fmt, ...)
{
  va_list ap;
  snprintf(e->field, sizeof e->field, "%s%s%s", prefix, *prefix ? "." : "", key);
  va_start(ap, fmt);
  vsnprintf(e->reason, sizeof e->reason, fmt, ap);
  va_end(ap);
}

static bool jin_is_json_ctype(const char *ct)
{
  if(!ct)
    return true;  /* curl -d without -H: be lenient, the body decides */
  size_t n = strcspn(ct, ";");
  while(n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
    n--;
  return (n == 16 && !strncasecmp(ct, "application/json", 16)) ||
         (n == 33 && !strncasecmp(ct, "application/x-www-form-urlencoded", 33));
}

json_t *jin_body(struct api_req *rq)
{
  size_t len;
  const char *body = api_req_body(rq, &len);
  if(!jin_is_json_ctype(api_req_header(rq, "Content-Type"))) {
    api_problem(rq, 415, "unsupported-media-type", "Unsupported media type", NULL,
                "the body must be application/json");
    return NULL;
  }
  json_error_t err;
  json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
  if(!j) {
    json_t *ext = json_pack("{s:i, s:i}", "line", err.line, "column", err.column);
    api_problem(rq, 400, "invalid-json", "Body is not valid JSON", ext, "%s", err.text);
    return NULL;
  }
  if(!json_is_object(j)) {
    json_decref(j);
    api_problem(rq, 400, "invalid-json", "Body is not a JSON object", NULL,
                "the body must be a JSON object");
    return NULL;
  }
  return j;
}

void jin_reply(struct api_req *rq, const struct jin_err *e)
{
  json_t *ext = json_pack("{s:s, s:s}", "field", e->field, "reason", e->reason);
  api_problem(rq, 422, "invalid-field", "Invalid field", ext, "%s: %s", e->field, e->reason);
}

int jin_str(json_t *o, const char *prefix, const char *key, bool required, size_t maxlen,
            const char **out, struct jin_err *e)
{
  json_t *v = json_object_get(o, key);
  if(!v) {
    if(!required)
      return 0;
    jin_set(e, prefix, key, "is required");
    return -1;
  }
  if(!json_is_string(v)) {
    jin_set(e, prefix, key, "must be a string");
    return -1;
  }
  if(json_string_length(v) > maxlen) {
    jin_set(e, prefix, key, "is longer than %zu bytes", maxlen);
    return -1;
  }
  if(strlen(json_string_value(v)) != json_string_length(v)) {
    jin_set(e, prefix, key, "must not contain NUL characters");
    return -1;
  }
  *out = json_string_value(v);
  return 0;
}

int jin_int(json_t *o, const char *prefix, const char *key, bool required, long long min,
            long long max, long long *out, struct jin_err *e)
{
  json_t *v = json_object_get(o, key);
  if(!v) {
    if(!required)
      return 0;
    jin_set(e, prefix, key, "is required");
    return -1;
  }
  if(!json_is_integer(v)) {
    jin_set(e, prefix, key, "must be an integer");
    return -1;
  }
  long long x = json_integer_value(v);
  if(x < min || x > max) {
    jin_set(e, prefix, key, "must be between %lld and %lld", min, max);
    return -1;
  }
  *out = x;
  return 0;
}

int jin_only(json_t *o, const char *prefix, const char *const *allowed, struct jin_err *e)
{
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    size_t i = 0;
    while(allowed[i] && strcmp(allowed[i], k))
      i++;
    if(!allowed[i]) {
      char key[64];
      snprintf(key, sizeof key, "%s", *k ? k : "\"\"");  /* an empty name, shown as "" */
      jin_set(e, prefix, key, "is not a known field");
      return -1;
    }
  }
  return 0;
}
