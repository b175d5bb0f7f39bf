#ifndef WPFS_COMMON_HASH_H
#define WPFS_COMMON_HASH_H
#include <stddef.h>
#include <stdint.h>
/* Fingerprints: XXH3-64 (fast, for URL-seen sets, cache keys, shard choice)
 * and SHA-256 (content identity that leaves the process). */
#define HASH_SHA256_LEN 32
uint64_t hash_fp64(const void *p, size_t n);
void     hash_sha256(const void *p, size_t n, uint8_t out[HASH_SHA256_LEN]);
/* Lower-case hex of in[0..n) into out, which holds 2n+1 bytes. */
void     hash_hex(const uint8_t *in, size_t n, char *out);
#endif
