#ifndef WPFS_HLFS_GW_TRIES_H
#define WPFS_HLFS_GW_TRIES_H
/* A result's tries (docs/retries.md) from the attempt log a completion
 * published (`al`: one line per try, "outcome,status,ms,at_ms,counted"),
 * as the JSON array GET /v1/results answers. */
#include <jansson.h>

/* Lines that are not a try (too long, fields missing) are left out. NULL
 * only when out of memory. */
json_t *gw_tries_parse(const char *al);

#endif
