#include "common/secret.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int secret_read(const char *file, char *out, char *err, size_t errlen)
{
  char tmp[SECRET_MAX_LEN + 3];
  FILE *f = fopen(file, "r");
  if(!f) {
    snprintf(err, errlen, "%s: %s", file, strerror(errno));
    return -1;
  }
  size_t n = fread(tmp, 1, sizeof tmp, f);
  fclose(f);
  if(n && tmp[n - 1] == '\n')
    n--;
  if(n && tmp[n - 1] == '\r')
    n--;
  if(n > SECRET_MAX_LEN) {
    snprintf(err, errlen, "%s: longer than %d bytes", file, SECRET_MAX_LEN);
    return -1;
  }
  memcpy(out, tmp, n);
  out[n] = '\0';
  return 0;
}

int secret_load(const char *value, const char *file, char *out, char *err, size_t errlen)
{
  out[0] = '\0';
  bool hv = value && *value, hf = file && *file;
  if(hv && hf) {
    snprintf(err, errlen, "given both as a value and as a file");
    return -1;
  }
  if(hf && secret_read(file, out, err, errlen))
    return -1;
  if(hv) {
    if(strlen(value) > SECRET_MAX_LEN) {
      snprintf(err, errlen, "longer than %d bytes", SECRET_MAX_LEN);
      return -1;
    }
    strcpy(out, value);
  }
  size_t n = strlen(out);
  /* a Secret made from a file keeps its final newline in the variable */
  while(n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
    out[--n] = '\0';
  for(size_t i = 0; i < n; i++)
    if(out[i] <= ' ' || out[i] > '~') {
      snprintf(err, errlen, "byte %zu is not printable ASCII (or is a space)", i);
      return -1;
    }
  if(n && n < SECRET_MIN_LEN) {
    snprintf(err, errlen, "shorter than %d bytes", SECRET_MIN_LEN);
    return -1;
  }
  return 0;
}

bool secret_bearer_ok(const char *secret, const char *authorization)
{
  size_t n = strlen(secret);
  if(!n || !authorization || strncasecmp(authorization, "Bearer ", 7))
    return false;
  const char *got = authorization + 7;
  size_t gn = strlen(got);
  /* compared over the secret's length whatever was sent: only the
   * length of a wrong value shows, which tells nothing of the secret */
  char pad[SECRET_MAX_LEN + 1] = { 0 };
  memcpy(pad, got, gn < n ? gn : n);
  return (CRYPTO_memcmp(pad, secret, n) == 0) & (gn == n);
}
