#ifndef WPFS_TESTWEB_TW_RNG_H
#define WPFS_TESTWEB_TW_RNG_H
/* Deterministic pseudo-random numbers (splitmix64): the same seed gives the
 * same world on every machine, so a crawl of it can be compared run to run. */
#include <stdint.h>

struct tw_rng {
  uint64_t s;
};

static inline uint64_t tw_rng_mix(uint64_t x)
{
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A stream for (seed, a, b): e.g. (world seed, site, page). */
static inline struct tw_rng tw_rng_for(uint64_t seed, uint64_t a, uint64_t b)
{
  struct tw_rng r = { tw_rng_mix(seed + 0x9e3779b97f4a7c15ull) };
  r.s = tw_rng_mix(r.s ^ (a * 0x9e3779b97f4a7c15ull + 1));
  r.s = tw_rng_mix(r.s ^ (b * 0xc2b2ae3d27d4eb4full + 2));
  return r;
}

static inline uint64_t tw_rng_next(struct tw_rng *r)
{
  r->s += 0x9e3779b97f4a7c15ull;
  return tw_rng_mix(r->s);
}

/* Uniform in [0, 1). */
static inline double tw_rng_unit(struct tw_rng *r)
{
  return (double)(tw_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t tw_rng_below(struct tw_rng *r, uint64_t n)
{
  return tw_rng_next(r) % n;
}

#endif
