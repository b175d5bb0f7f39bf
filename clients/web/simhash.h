#ifndef WPFS_CLIENTS_SIMHASH_H
#define WPFS_CLIENTS_SIMHASH_H
/* SimHash (random-hyperplane fingerprints, STOC 2002; applied to
 * near-duplicate web pages at web scale, WWW 2007): a 64-bit fingerprint
 * of a text in which similar texts differ in few bits. Features are shingles of SIMHASH_SHINGLE consecutive
 * words, each weighted by its count. A word is a run of ASCII letters and
 * digits or of non-ASCII bytes (so UTF-8 scripts form words), lower-cased;
 * everything else separates words, and so do Unicode's space characters
 * (U+00A0 no-break space, U+2000..U+200B, U+2028, U+2029, U+202F, U+205F,
 * U+3000, U+FEFF). Text may be fed in pieces; a piece
 * boundary is a word boundary. */
#include <stddef.h>
#include <stdint.h>

#define SIMHASH_SHINGLE 3
#define SIMHASH_SLICES  16

struct simhash {
  int32_t  v[64];                    /* per bit: shingles with it set minus unset */
  uint64_t slice[SIMHASH_SLICES];    /* per bit, set counts since the last flush, bit-sliced */
  size_t   pending;                  /* shingles since the last flush */
  uint64_t win[SIMHASH_SHINGLE];     /* hashes of the last words */
  uint64_t word;                     /* hash of the word being read */
  size_t   word_len;
  size_t   words, shingles;
};

/* The fingerprint of p[0..n); *shingles (may be NULL) tells how many
 * features made it (a text of fewer words than a shingle is one feature;
 * none is 0). */
uint64_t simhash_text(const char *p, size_t n, size_t *shingles);
unsigned simhash_distance(uint64_t a, uint64_t b);

#endif
