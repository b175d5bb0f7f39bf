#include "clients/web/simhash.h"

#include <pthread.h>
#include <string.h>

#include "common/hash.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

/* For each byte value, what it adds to eight counters (+1 for a set bit,
 * -1 for a clear one): a feature then costs 16 vector adds of four
 * counters instead of 64 tests of a bit. */
static int32_t bit_delta[256][8];
typedef int32_t v4 __attribute__((vector_size(16)));  /* GCC and clang */
static pthread_once_t delta_once = PTHREAD_ONCE_INIT;

static void delta_init(void)
{
  for(unsigned v = 0; v < 256; v++)
    for(unsigned j = 0; j < 8; j++)
      bit_delta[v][j] = (v >> j) & 1 ? 1 : -1;
}

static void simhash_add(struct simhash *s, uint64_t h)
{
  for(unsigned k = 0; k < 16; k++) {
    v4 d, v;
    memcpy(&d, &bit_delta[(h >> (8 * (k / 2))) & 0xff][4 * (k % 2)], sizeof d);
    memcpy(&v, s->v + 4 * k, sizeof v);
    v += d;
    memcpy(s->v + 4 * k, &v, sizeof v);
  }
  s->shingles++;
}

void simhash_init(struct simhash *s)
{
  pthread_once(&delta_once, delta_init);
  memset(s, 0, sizeof *s);
  s->word = FNV_OFFSET;
}

/* A feature from the last n words of the window (n < SHINGLE only for a
 * text that short). */
static uint64_t shingle_hash(const struct simhash *s, size_t n)
{
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

static int word_byte(unsigned char c)
{
  if(c >= 'A' && c <= 'Z')
    return c + 32;
  if((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80)
    return c;
  return -1;
}

void simhash_feed(struct simhash *s, const char *p, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    int c = word_byte((unsigned char)p[i]);
    if(c < 0) {
      simhash_word_end(s);
      continue;
    }
    s->word = (s->word ^ (uint64_t)c) * FNV_PRIME;
    s->word_len++;
  }
  simhash_word_end(s);
}

uint64_t simhash_final(struct simhash *s, size_t *shingles)
{
  simhash_word_end(s);
  if(s->shingles == 0 && s->words > 0)
    simhash_add(s, shingle_hash(s, s->words));
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
