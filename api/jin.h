#ifndef WPFS_API_JIN_H
#define WPFS_API_JIN_H
/* JSON input: decode a request body and read typed fields with errors that
 * name the offending field. Syntax errors answer 400 invalid-json; a field
 * of the wrong type, out of range, missing or unknown answers 422
 * invalid-field with {"field": "...", "reason": "..."}. */
#include <jansson.h>
#include <stdbool.h>

#include "api/srv.h"

struct jin_err {
  char field[96];    /* "timeout_ms", "urls[3].priority" */
  char reason[192];
};

/* Decode the body as a JSON object. On failure answers the request
 * (415, 400) and returns NULL: the caller must not touch rq again. */
json_t *jin_body(struct api_req *rq);
/* Answer 422 for e. */
void jin_reply(struct api_req *rq, const struct jin_err *e);

/* Each returns 0 and sets *out when present and valid, 0 leaving *out as
 * it is when absent and optional, -1 with e filled otherwise (a null is
 * not absent: no member of the contract is nullable, and a client that
 * sends one has a bug worth telling). prefix names
 * the enclosing object in messages ("" at the top level). */
int jin_str(json_t *o, const char *prefix, const char *key, bool required, size_t maxlen,
            const char **out, struct jin_err *e);
int jin_int(json_t *o, const char *prefix, const char *key, bool required, long long min,
            long long max, long long *out, struct jin_err *e);
/* Reject members not listed in allowed (NULL-terminated). */
int jin_only(json_t *o, const char *prefix, const char *const *allowed, struct jin_err *e);
void jin_set(struct jin_err *e, const char *prefix, const char *key, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

#endif
