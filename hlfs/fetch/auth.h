#ifndef WPFS_HLFS_AUTH_H
#define WPFS_HLFS_AUTH_H
/* API keys: a bearer token names a client with its fair-share weight,
 * quotas, role and page sharing. Loaded once at start from a JSON file
 *   {"clients": [{"name": "discover", "token": "...", "weight": 4,
 *                 "rate": 200, "burst": 2000, "max_queued": 1000000,
 *                 "max_attempts": 3, "role": "crawler", "private": false,
 *                 "user_agent": "newsbot/2.0 (+https://...)", "product_token": "newsbot"}]}
 * and/or one development client from the environment (WPFS_TOKEN).
 * docs/operations.md, "Security", says what each role may do. The keys
 * live in the fetch layer, below the REST handlers that check them,
 * because a key also names who its requests fetch as (auth_identity) and
 * whose pages they read (auth_private), which the fetch path asks. */
#include <stdbool.h>
#include <stddef.h>

#include "hlfs/state/state.h"

#define AUTH_MAX_CLIENTS 1024
#define AUTH_UA_MAX      256  /* bytes of a key's user_agent */
#define AUTH_PTOK_MAX    64   /* bytes of a key's product_token */

struct auth;

/* What a key may do. A key without "role" is an operator: before roles,
 * every key could do everything, and a tokens file that worked must keep
 * working; a deployment restricts its crawlers by naming them so. */
enum auth_role {
  AUTH_ROLE_OPERATOR,  /* everything, every client's figures, purges */
  AUTH_ROLE_CRAWLER,   /* its own requests, results, figures */
  AUTH_ROLE_METRICS,   /* the per-client metrics and /v1/stats only */
};
const char *auth_role_name(enum auth_role r);

/* NULL with a reason in err. file and dev_token may each be NULL. */
struct auth *auth_load(const char *file, const char *dev_token, const struct state_client *dev,
                       char *err, size_t errlen);
/* The client of an "Authorization: Bearer <token>" header value, or NULL.
 * Token comparison takes the same time whatever the token. */
const struct state_client *auth_check(const struct auth *a, const char *authorization);
/* The role of c, a client auth_check or auth_find returned. */
enum auth_role auth_role_of(const struct auth *a, const struct state_client *c);
/* Whether the pages c's requests fetch are its own (not shared with other
 * keys, and it reads no other key's): "private": true. */
bool auth_private(const struct auth *a, const struct state_client *c);
/* The client of that name, or NULL (the synchronous pseudo-clients are
 * none: they are no key). */
const struct state_client *auth_find(const struct auth *a, const char *name);
/* A key's own identity on the Web: true with *ua (left as it was when the
 * key has no user_agent: the caller's default) and its robots.txt product
 * token ptok[0..*ptok_len) (not NUL-terminated when taken from ua); false
 * when the key has neither field (or c is no key): the gateway's identity. */
bool auth_identity(const struct auth *a, const struct state_client *c, const char **ua,
                   const char **ptok, size_t *ptok_len);
/* Whether any key is private (the page owner lookups are skipped otherwise). */
bool auth_any_private(const struct auth *a);
size_t auth_count(const struct auth *a);
/* The i-th client (i < auth_count), for listings. */
const struct state_client *auth_nth(const struct auth *a, size_t i);
void auth_free(struct auth **ap);

#endif
