#ifndef WPFS_API_PROBLEM_H
#define WPFS_API_PROBLEM_H
/* RFC 9457 problem details. The type URI is "urn:wpfs:problem:<slug>"; slugs
 * are part of the API contract (openapi.yaml lists them): never rename one. */
#include <jansson.h>

#define PROBLEM_URN "urn:wpfs:problem:"

/* New object {type,title,status,detail,instance,...ext}; ext is consumed. */
json_t *problem_new(unsigned status, const char *slug, const char *title,
                    const char *detail, const char *instance, json_t *ext);

#endif
