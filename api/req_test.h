#ifndef WPFS_API_REQ_TEST_H
#define WPFS_API_REQ_TEST_H
#include "api/req.h"

/* For unit tests of handlers: a request with no connection behind it.
 * The answer is kept: its status read with api_req_test_status, its body
 * by a test that includes api/req.c (resp_body). */
struct api_req *api_req_test_new(const char *method, const char *path, const char *body);
unsigned        api_req_test_status(const struct api_req *rq);
void            api_req_test_set_header(struct api_req *rq, const char *name, const char *value);
void            api_req_test_free(struct api_req **rq);

#endif
