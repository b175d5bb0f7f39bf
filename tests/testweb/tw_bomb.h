#ifndef WPFS_TESTWEB_TW_BOMB_H
#define WPFS_TESTWEB_TW_BOMB_H
/* Compression bombs: a small body that inflates to `size` zero bytes.
 * gzip: one 1 MiB block of zeros is deflated once at start-up with a full
 * flush, which makes it independent of what precedes it, so a stream of any
 * size is that block repeated, plus a header and a trailer whose CRC is
 * combined arithmetically. Sizes are rounded up to a whole MiB.
 * brotli: compressed once per distinct size (about 60 ms per GiB), the
 * default size at start-up, others on first use; the first few are kept. */
#include <stddef.h>
#include <stdint.h>

#include "tests/testweb/tw_err.h"
#include "tests/testweb/tw_plan.h"

#define TW_BOMB_CHUNK (1u << 20)
#define TW_BOMB_BR_KEEP 4

struct tw_bomb_br {
  uint64_t size;
  uint8_t *p;
  size_t   len;
};

struct tw_bomb {
  uint8_t *gz_block;      /* raw deflate of TW_BOMB_CHUNK zeros, full-flushed */
  size_t   gz_block_len;
  uint32_t gz_block_crc;  /* CRC-32 of TW_BOMB_CHUNK zeros */
  struct tw_bomb_br br[TW_BOMB_BR_KEEP];
  unsigned nbr;           /* cached entries, never replaced */
};

tw_err tw_bomb_init(struct tw_bomb *b, uint64_t br_size);
void   tw_bomb_free(struct tw_bomb *b);
/* Append the body's segments to pl (header and trailer go in pl->body,
 * which must not be appended to afterwards). */
tw_err tw_bomb_gzip(const struct tw_bomb *b, uint64_t size, struct tw_plan *pl);
tw_err tw_bomb_brotli(struct tw_bomb *b, uint64_t size, struct tw_plan *pl);

#endif
