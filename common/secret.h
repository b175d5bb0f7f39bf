#ifndef WPFS_COMMON_SECRET_H
#define WPFS_COMMON_SECRET_H
/* The shared secret between the gateway and the fetchers: given as a
 * value (the environment, from a secret store) or as a file (a mounted
 * secret), never both; compared in constant time. */
#include <stdbool.h>
#include <stddef.h>

#define SECRET_MIN_LEN 16
#define SECRET_MAX_LEN 512

/* The secret from value or file (one line; a final newline is dropped)
 * into out (SECRET_MAX_LEN + 1 bytes); "" when neither is set. -1 with a
 * reason in err: both set, file unreadable, too short or too long, or not
 * printable ASCII without spaces (it travels in a header). */
int  secret_load(const char *value, const char *file, char *out, char *err, size_t errlen);
/* Is the header value "Bearer <secret>"? Its time does not depend on where
 * a wrong value differs. An empty secret matches nothing. */
bool secret_bearer_ok(const char *secret, const char *authorization);

#endif
