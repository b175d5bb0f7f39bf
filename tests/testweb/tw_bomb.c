#include "tests/testweb/tw_bomb.h"

#include <brotli/encode.h>
#include <string.h>
#include <zlib.h>

#include "common/mem.h"
#include "tests/testweb/tw_fill.h"

static tw_err bomb_deflate_block(struct tw_bomb *b)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if(deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    return TW_NOMEM;
  uLong cap = deflateBound(&z, TW_BOMB_CHUNK) + 64;
  b->gz_block = mem_alloc(cap);
  b->gz_block_crc = 0;
  tw_err e = b->gz_block ? TW_OK : TW_NOMEM;
  z.next_out = b->gz_block;
  z.avail_out = (uInt)cap;
  for(size_t done = 0; !e && done < TW_BOMB_CHUNK; done += TW_FILL_LEN) {
    z.next_in = (Bytef *)tw_fill_zeros();
    z.avail_in = TW_FILL_LEN;
    int last = done + TW_FILL_LEN == TW_BOMB_CHUNK;
    if(deflate(&z, last ? Z_FULL_FLUSH : Z_NO_FLUSH) != Z_OK || z.avail_in)
      e = TW_IO;
    b->gz_block_crc = (uint32_t)crc32(b->gz_block_crc, (const Bytef *)tw_fill_zeros(),
                                      TW_FILL_LEN);
  }
  b->gz_block_len = cap - z.avail_out;
  deflateEnd(&z);
  return e;
}

/* CRC-32 of k blocks of zeros, by doubling. */
static uint32_t bomb_crc(const struct tw_bomb *b, uint64_t k)
{
  uint32_t crc = 0, pow = b->gz_block_crc;
  z_off_t powlen = TW_BOMB_CHUNK;
  uint64_t len = 0;
  for(; k; k >>= 1) {
    if(k & 1) {
      crc = len ? (uint32_t)crc32_combine(crc, pow, powlen) : pow;
      len += (uint64_t)powlen;
    }
    if(k > 1) {
      pow = (uint32_t)crc32_combine(pow, pow, powlen);
      powlen *= 2;
    }
  }
  return crc;
}

static void bomb_le32(struct buf *out, uint32_t v)
{
  char b[4] = { (char)(v & 255), (char)(v >> 8 & 255), (char)(v >> 16 & 255),
                (char)(v >> 24 & 255) };
  buf_add(out, b, 4);
}

tw_err tw_bomb_gzip(const struct tw_bomb *b, uint64_t size, struct tw_plan *pl)
{
  static const char head[10] = { 0x1f, (char)0x8b, 8, 0, 0, 0, 0, 0, 2, 3 };
  static const char final_block[2] = { 3, 0 };  /* last, fixed Huffman, empty */
  uint64_t k = (size + TW_BOMB_CHUNK - 1) / TW_BOMB_CHUNK;
  size_t at = pl->body.len;
  if(buf_add(&pl->body, head, sizeof head) || buf_add(&pl->body, final_block, 2))
    return TW_NOMEM;
  bomb_le32(&pl->body, bomb_crc(b, k));
  bomb_le32(&pl->body, (uint32_t)(k * TW_BOMB_CHUNK));  /* ISIZE is modulo 2^32 */
  if(pl->body.len != at + 20)
    return TW_NOMEM;
  const char *p = pl->body.data + at;
  if(!tw_plan_seg(pl, p, 10, 1) ||
     !tw_plan_seg(pl, (const char *)b->gz_block, b->gz_block_len, k) ||
     !tw_plan_seg(pl, p + 10, 10, 1))
    return TW_TOO_LARGE;
  return TW_OK;
}

static tw_err bomb_br_compress(uint64_t size, struct tw_bomb_br *out)
{
  BrotliEncoderState *s = BrotliEncoderCreateInstance(NULL, NULL, NULL);
  struct buf o;
  uint8_t tmp[65536];
  if(!s)
    return TW_NOMEM;
  BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, 1);  /* ~5000:1 and fast */
  BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, 24);
  buf_init(&o, 64u << 20);
  tw_err e = TW_OK;
  uint64_t left = size;
  for(int fin = 0; !e && !BrotliEncoderIsFinished(s);) {
    size_t in = left < TW_FILL_LEN ? (size_t)left : TW_FILL_LEN, in0 = in;
    const uint8_t *np = (const uint8_t *)tw_fill_zeros();
    fin = left == 0;
    size_t avail = sizeof tmp;
    uint8_t *op = tmp;
    if(!BrotliEncoderCompressStream(s, fin ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS,
                                    &in, &np, &avail, &op, NULL))
      e = TW_IO;
    left -= in0 - in;
    if(!e && buf_add(&o, tmp, sizeof tmp - avail))
      e = TW_TOO_LARGE;
  }
  BrotliEncoderDestroyInstance(s);
  out->size = size;
  out->p = (uint8_t *)buf_steal(&o, &out->len);
  return e;
}

tw_err tw_bomb_brotli(struct tw_bomb *b, uint64_t size, struct tw_plan *pl)
{
  for(unsigned i = 0; i < TW_BOMB_BR_KEEP; i++)
    if(b->br[i].p && b->br[i].size == size)
      return tw_plan_seg(pl, (const char *)b->br[i].p, b->br[i].len, 1) ? TW_OK : TW_TOO_LARGE;
  /* Cached bombs are never replaced: a response may be sending one. Past
   * the cache, the bytes belong to the plan. */
  struct tw_bomb_br one;
  tw_err e = bomb_br_compress(size, &one);
  if(e) {
    mem_free(one.p);
    return e;
  }
  if(b->nbr < TW_BOMB_BR_KEEP) {
    b->br[b->nbr++] = one;
    return tw_plan_seg(pl, (const char *)one.p, one.len, 1) ? TW_OK : TW_TOO_LARGE;
  }
  size_t at = pl->body.len;
  e = buf_add(&pl->body, one.p, one.len) ? TW_NOMEM : TW_OK;
  mem_free(one.p);
  if(!e && !tw_plan_seg(pl, pl->body.data + at, one.len, 1))
    e = TW_TOO_LARGE;
  return e;
}

tw_err tw_bomb_init(struct tw_bomb *b, uint64_t br_size)
{
  memset(b, 0, sizeof *b);
  tw_err e = bomb_deflate_block(b);
  if(!e)
    e = bomb_br_compress(br_size, &b->br[0]);
  b->nbr = b->br[0].p ? 1 : 0;
  return e;
}

void tw_bomb_free(struct tw_bomb *b)
{
  mem_free(b->gz_block);
  for(unsigned i = 0; i < TW_BOMB_BR_KEEP; i++)
    mem_free(b->br[i].p);
  memset(b, 0, sizeof *b);
}
