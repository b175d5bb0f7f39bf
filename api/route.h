#ifndef WPFS_API_ROUTE_H
#define WPFS_API_ROUTE_H
/* Matching a method and path against the route table. "{}" in a pattern
 * captures one non-empty path segment. */
#include <stddef.h>

#include "api/srv.h"

enum route_rc { ROUTE_FOUND = 0, ROUTE_NOT_FOUND, ROUTE_BAD_METHOD, ROUTE_NOMEM };

/* On ROUTE_FOUND *idx is the route and params[0..*nparams) are captures
 * (mem_alloc'd, the caller frees). On ROUTE_BAD_METHOD allow gets the
 * methods that exist for the path ("GET, POST"). */
enum route_rc route_match(const struct api_route *r, size_t n, const char *method,
                          const char *path, size_t *idx, char **params,
                          unsigned maxparams, unsigned *nparams, char *allow,
                          size_t allowlen);

#endif
