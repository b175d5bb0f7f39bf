#ifndef WPFS_API_REQ_H
#define WPFS_API_REQ_H
/* What a handler sees of a request, and how it answers.
 *
 * A handler gets a struct api_req and must answer it exactly once, either
 * before it returns or later from any loop callback (the connection is
 * suspended meanwhile). If the request dies first (server stopping), the
 * abort hook set with api_req_on_abort is called and the handler's pending
 * work must drop its pointer to the request. */
#include <jansson.h>
#include <stddef.h>

struct api_req;

typedef void api_handler(struct api_req *rq, void *arg);

/* Reading the request. Strings live as long as the request. */
const char *api_req_method(const struct api_req *rq);
const char *api_req_header(const struct api_req *rq, const char *name);
const char *api_req_arg(const struct api_req *rq, const char *name);
const char *api_req_param(const struct api_req *rq, unsigned i);
const char *api_req_body(const struct api_req *rq, size_t *len);
const char *api_req_id(const struct api_req *rq);
/* Names the caller (the client an API key stands for) in the request's
 * access log line; copied, truncated to 63 bytes. */
void        api_req_set_client(struct api_req *rq, const char *client);
/* Names the work the request made (a fetch's id) in the same line, so that
 * the lines other services log under that id lead back to this request. */
void        api_req_set_work(struct api_req *rq, const char *id);
void        api_req_on_abort(struct api_req *rq, void (*fn)(void *), void *arg);

/* Answering. Each takes ownership of what it is given; after the call the
 * request must not be touched (it may already be freed). */
void api_reply_header(struct api_req *rq, const char *name, const char *value);
void api_reply(struct api_req *rq, unsigned status, const char *ctype, char *body,
               size_t len);
void api_reply_json(struct api_req *rq, unsigned status, json_t *j);
/* RFC 9457 problem: type is the stable slug ("invalid-url"), turned into
 * "urn:wpfs:problem:<slug>"; ext (may be NULL) adds members. */
void api_problem(struct api_req *rq, unsigned status, const char *type,
                 const char *title, json_t *ext, const char *detail_fmt, ...)
  __attribute__((format(printf, 6, 7)));

#endif
