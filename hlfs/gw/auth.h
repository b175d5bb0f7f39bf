#ifndef WPFS_HLFS_AUTH_H
#define WPFS_HLFS_AUTH_H
/* API keys: a bearer token names a client with its fair-share weight and
 * quotas. Loaded once at start from a JSON file
 *   {"clients": [{"name": "discover", "token": "...", "weight": 4,
 *                 "rate": 200, "burst": 2000, "max_queued": 1000000,
 *                 "max_attempts": 3}]}
 * and/or one development client from the environment (WPFS_TOKEN). */
#include <stddef.h>

#include "hlfs/state/state.h"

#define AUTH_MAX_CLIENTS 1024

struct auth;

/* NULL with a reason in err. file and dev_token may each be NULL. */
struct auth *auth_load(const char *file, const char *dev_token, const struct state_client *dev,
                       char *err, size_t errlen);
/* The client of an "Authorization: Bearer <token>" header value, or NULL.
 * Token comparison takes the same time whatever the token. */
const struct state_client *auth_check(const struct auth *a, const char *authorization);
size_t auth_count(const struct auth *a);
/* The i-th client (i < auth_count), for listings. */
const struct state_client *auth_nth(const struct auth *a, size_t i);
void auth_free(struct auth **ap);

#endif
