#include "common/hash.h"

#include <openssl/sha.h>
#include <xxhash.h>

uint64_t hash_fp64(const void *p, size_t n) { return XXH3_64bits(p, n); }

void hash_sha256(const void *p, size_t n, uint8_t out[HASH_SHA256_LEN])
{
  SHA256(p, n, out);
}

void hash_hex(const uint8_t *in, size_t n, char *out)
{
  static const char hex[] = "0123456789abcdef";
  for(size_t i = 0; i < n; i++) {
    out[2 * i] = hex[in[i] >> 4];
    out[2 * i + 1] = hex[in[i] & 15];
  }
  out[2 * n] = '\0';
}
