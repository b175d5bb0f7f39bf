#ifndef WPFS_CLIENTS_LE_H
#define WPFS_CLIENTS_LE_H
/* Little-endian integers of n bytes (1..8), for the crawler's files
 * (checkpoints, seen runs, frontier segments): the same bytes on any
 * machine. */
#include <stdint.h>

static inline void le_put(uint8_t *p, uint64_t v, int n)
{
  for(int i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t le_get(const uint8_t *p, int n)
{
  uint64_t v = 0;
  for(int i = n - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

#endif
