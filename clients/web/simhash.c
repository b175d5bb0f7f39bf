#include "clients/web/simhash.h"

#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/hash.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

/* The counters are bit-sliced: slice[k] holds bit k of the count of
 * features with each of the 64 bits set, so adding a feature is a ripple
 * carry through the slices instead of 64 counter updates. It runs through
 * all of them: stopping when no counter carries saved steps but cost a
 * mispredicted branch per feature (x0.88 of the time without it). v takes
 * the counts over before a slice could overflow, and at the end. */
static void simhash_flush(struct simhash *s)
{
  for(unsigned b = 0; b < 64; b++) {
    int32_t set = 0;
    for(unsigned k = 0; k < SIMHASH_SLICES; k++)
      set |= (int32_t)((s->slice[k] >> b) & 1) << k;
    s->v[b] += 2 * set - (int32_t)s->pending;
  }
  memset(s->slice, 0, sizeof s->slice);
  s->pending = 0;
}

static void simhash_add(struct simhash *s, uint64_t h)
{
  for(unsigned k = 0; k < SIMHASH_SLICES; k++) {
    uint64_t carry = s->slice[k] & h;
    s->slice[k] ^= h;
    h = carry;
  }
  s->shingles++;
  if(++s->pending == (1u << SIMHASH_SLICES) - 1)
    simhash_flush(s);
}

static void simhash_init(struct simhash *s)
{
  memset(s, 0, sizeof *s);
  s->word = FNV_OFFSET;
}

/* A feature from the last n words of the window (n < SHINGLE only for a
 * text that short). The window's length is fixed, so XXH3 is compiled in
 * here, specialised for it, rather than called through the library: the
 * same function, the same bits (common/hash.h), a third of the cost. */
static uint64_t shingle_hash(const struct simhash *s, size_t n)
{
  if(n == SIMHASH_SHINGLE)
    return XXH3_64bits(s->win, sizeof s->win);
  return hash_fp64(s->win + SIMHASH_SHINGLE - n, n * sizeof s->win[0]);
}

static void simhash_word_end(struct simhash *s)
{
  if(!s->word_len)
    return;
  memmove(s->win, s->win + 1, (SIMHASH_SHINGLE - 1) * sizeof s->win[0]);
  s->win[SIMHASH_SHINGLE - 1] = s->word;
  s->words++;
  if(s->words >= SIMHASH_SHINGLE)
    simhash_add(s, shingle_hash(s, SIMHASH_SHINGLE));
  s->word = FNV_OFFSET;
  s->word_len = 0;
}

/* The length of the UTF-8 space character at u (0: none): U+00A0 (no-break
 * space, which &nbsp; gives), U+2000..U+200B, U+2028, U+2029, U+202F,
 * U+205F, U+3000, U+FEFF. They separate words as ASCII spaces do: read as
 * word bytes, runs of &nbsp; (indentation in code listings) became words,
 * and the few shingles of such words, repeated hundreds of times, outweighed
 * the rest of the text: on cppreference's pages, unrelated ones came out 0
 * to 3 bits apart (tests/bench/bench_neardup.c, docs/crawler.md). */
__attribute__((noinline)) static size_t utf8_space(const unsigned char *u, const unsigned char *end)
{
  size_t left = (size_t)(end - u);
  if(left >= 2 && u[0] == 0xC2 && u[1] == 0xA0)
    return 2;
  if(left < 3)
    return 0;
  if(u[0] == 0xE2 && u[1] == 0x80 &&
     ((u[2] >= 0x80 && u[2] <= 0x8B) || u[2] == 0xA8 || u[2] == 0xA9 || u[2] == 0xAF))
    return 3;
  if((u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F) ||
     (u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80) ||
     (u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF))
    return 3;
  return 0;
}

/* The word being read stays in locals: p is a char pointer, which may
 * alias *s, so s->word would otherwise be stored and reloaded per byte. */
static void simhash_feed(struct simhash *s, const char *p, size_t n)
{
  const unsigned char *u = (const unsigned char *)p, *end = u + n;
  uint64_t w = s->word;
  size_t   len = s->word_len;
  for(; u < end; u++) {
    unsigned c = *u, lc = c + ((c - 'A' < 26u) << 5);
    size_t sp = 0;
    if(lc - 'a' < 26u || c - '0' < 10u || (c >= 0x80 && !(sp = utf8_space(u, end)))) {
      w = (w ^ lc) * FNV_PRIME;
      len++;
      continue;
    }
    u += sp ? sp - 1 : 0;
    if(len) {
      s->word = w;
      s->word_len = len;
      simhash_word_end(s);
      w = FNV_OFFSET;
      len = 0;
    }
  }
  s->word = w;
  s->word_len = len;
  simhash_word_end(s);
}

static uint64_t simhash_final(struct simhash *s, size_t *shingles)
{
  simhash_word_end(s);
  if(s->shingles == 0 && s->words > 0)
    simhash_add(s, shingle_hash(s, s->words));
  simhash_flush(s);
  uint64_t h = 0;
  for(unsigned b = 0; b < 64; b++)
    if(s->v[b] > 0)
      h |= 1ull << b;
  if(shingles)
    *shingles = s->shingles;
  return h;
}

uint64_t simhash_text(const char *p, size_t n, size_t *shingles)
{
  struct simhash s;
  simhash_init(&s);
  simhash_feed(&s, p, n);
  return simhash_final(&s, shingles);
}

unsigned simhash_distance(uint64_t a, uint64_t b)
{
  return (unsigned)__builtin_popcountll(a ^ b);
}
