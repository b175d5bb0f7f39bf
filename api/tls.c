#include "api/tls.h"

#include <errno.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* A whole file as a NUL-terminated string, at most API_TLS_MAX_BYTES. */
static char *slurp(const char *path, char *err, size_t errlen)
{
  FILE *f = fopen(path, "rb");
  if(!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return NULL;
  }
  char *buf = mem_alloc(API_TLS_MAX_BYTES + 1);
  size_t n = buf ? fread(buf, 1, API_TLS_MAX_BYTES + 1, f) : 0;
  int bad = !buf || ferror(f) || n > API_TLS_MAX_BYTES || n == 0;
  fclose(f);
  if(bad) {
    snprintf(err, errlen, "%s: %s", path, !buf ? "out of memory" : n == 0 ? "empty or unreadable"
                                                  : "larger than 1 MiB");
    mem_free(buf);
    return NULL;
  }
  buf[n] = '\0';
  if(strlen(buf) != n || !strstr(buf, "-----BEGIN ")) {
    snprintf(err, errlen, "%s: not a PEM file", path);
    OPENSSL_cleanse(buf, n);
    mem_free(buf);
    return NULL;
  }
  return buf;
}

int api_tls_load(struct api_tls *t, const char *cert_file, const char *key_file, char *err,
                 size_t errlen)
{
  bool cert = cert_file && *cert_file, key = key_file && *key_file;
  *t = (struct api_tls){ 0 };
  if(!cert && !key)
    return 0;
  if(cert != key) {
    snprintf(err, errlen, "tls_cert_file and tls_key_file go together");
    return -1;
  }
  if(MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
    snprintf(err, errlen, "this libmicrohttpd was built without TLS");
    return -1;
  }
  if(!(t->cert = slurp(cert_file, err, errlen)) || !(t->key = slurp(key_file, err, errlen))) {
    api_tls_free(t);
    return -1;
  }
  return 0;
}

void api_tls_free(struct api_tls *t)
{
  if(t->key)
    OPENSSL_cleanse(t->key, strlen(t->key));
  mem_free(t->key);
  mem_free(t->cert);
  *t = (struct api_tls){ 0 };
}
