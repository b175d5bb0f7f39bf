/* libFuzzer target for common/robots_tag.c.
 * Input: VALUE [ '\0' AGENT ] - an X-Robots-Tag value (also read as a
 * meta content) and the asking agent. Checks:
 *  - nothing is read past the value (ASan: the value is copied to a
 *    buffer of exactly its size, without a NUL);
 *  - only known bits come out, a date only with its bit;
 *  - a value without ':' has no scopes: the header reads as the meta;
 *  - directives for every agent apply whoever asks: the bits without an
 *    agent are a subset of the bits with one. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/robots_tag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KNOWN (ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOFOLLOW | ROBOTS_TAG_NOARCHIVE | \
               ROBOTS_TAG_UNAVAILABLE_AFTER)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *nul = memchr(data, '\0', size);
  size_t vn = nul ? (size_t)(nul - (const char *)data) : size;
  const char *agent = nul ? nul + 1 : "wpfs";
  size_t an = nul ? size - vn - 1 : 4;
  char *v = malloc(vn ? vn : 1);
  if(!v)
    return 0;
  memcpy(v, data, vn);
  struct robots_tag h = { 0, 0 }, none = { 0, 0 }, m = { 0, 0 };
  robots_tag_header(&h, v, vn, agent, an);
  robots_tag_header(&none, v, vn, NULL, 0);
  robots_tag_meta(&m, v, vn);
  assert(!(h.bits & ~KNOWN) && !(m.bits & ~KNOWN));
  assert((none.bits & h.bits) == none.bits);
  if(!memchr(v, ':', vn))
    assert(h.bits == m.bits);
  robots_tag_at(&h, 0);
  for(unsigned b = 1; b <= ROBOTS_TAG_UNAVAILABLE_AFTER; b <<= 1)
    assert(robots_tag_bit(robots_tag_name(b)) == b);
  free(v);
  return 0;
}
