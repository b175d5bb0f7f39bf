#ifndef WPFS_COMMON_STR_H
#define WPFS_COMMON_STR_H
/* Bounded string copies and number formatting without printf, for hot
 * paths: snprintf's format parsing costs more than the copy itself
 * (several per fetch added up to 2-3 % of llfs's instructions). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copy src into dst (n > 0 bytes), truncated and NUL-terminated; returns
 * the length copied. */
static inline size_t str_copy(char *dst, size_t n, const char *src)
{
  size_t len = strnlen(src, n - 1);
  memcpy(dst, src, len);
  dst[len] = '\0';
  return len;
}

/* v in decimal into dst (at least 21 bytes), NUL-terminated; returns the
 * length. */
static inline size_t str_u64(char *dst, uint64_t v)
{
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while(v);
  for(size_t i = 0; i < n; i++)
    dst[i] = tmp[n - 1 - i];
  dst[n] = '\0';
  return n;
}

/* The dotted quad of b[0..3] into dst (at least 16 bytes), as inet_ntop
 * writes it (glibc's goes through sprintf); returns the length. */
static inline size_t str_ipv4(char *dst, const unsigned char *b)
{
  size_t n = 0;
  for(int i = 0; i < 4; i++) {
    if(i)
      dst[n++] = '.';
    n += str_u64(dst + n, b[i]);
  }
  return n;
}

/* v as 16 lower-case hex digits into dst (at least 17 bytes). */
static inline void str_hex64(char *dst, uint64_t v)
{
  static const char hex[] = "0123456789abcdef";
  for(int i = 15; i >= 0; i--) {
    dst[i] = hex[v & 15];
    v >>= 4;
  }
  dst[16] = '\0';
}

#endif
