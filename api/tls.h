#ifndef WPFS_API_TLS_H
#define WPFS_API_TLS_H
/* HTTPS for a service's API: a certificate chain and its key, PEM files
 * read once at start (libmicrohttpd with GnuTLS does the rest). Both
 * services take them as tls_cert_file and tls_key_file; without them the
 * API is plain HTTP, as inside a network policy. */
#include <stddef.h>

#define API_TLS_MAX_BYTES (1u << 20)  /* a PEM file larger than this is refused */

struct api_tls {
  char *cert;  /* PEM text, NUL-terminated; NULL: no TLS */
  char *key;
};

/* Read both files (both or neither given); 0, or -1 with err filled. A key
 * that does not match the certificate is found when the server starts. */
int  api_tls_load(struct api_tls *t, const char *cert_file, const char *key_file, char *err,
                  size_t errlen);
/* Wipe the key and free both. */
void api_tls_free(struct api_tls *t);

#endif
