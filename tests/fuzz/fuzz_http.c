/* HTTP input: request heads as testweb parses them (the loopback web's
 * parser, which every test depends on) and the framed answers the gateway
 * reads from the fetcher ("JSON line \n body", hlfs/fetch/llfs_client.c).
 * Neither may read past the input or crash; parsed pieces lie inside it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "tests/testweb/tw_http.h"
#include "hlfs/fetch/llfs_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const char *base, size_t n, struct tw_str s)
{
  if(s.p && (s.p < base || s.p + s.n > base + n))
    abort();
}

static void fuzz_head(const char *p, size_t n)
{
  struct tw_req r;
  if(tw_http_parse(p, n, 16384, &r) != TW_OK)
    return;
  if(r.head_len > n)
    abort();
  inside(p, n, r.target);
  inside(p, n, r.host);
  inside(p, n, r.ua);
}

static void fuzz_framed(const char *p, size_t n)
{
  struct llfs_answer a;
  json_t *meta = NULL;
  if(llfs_answer_parse(p, n, -1, &a, &meta) == 0) {
    if(a.body < p || a.body + a.body_len > p + n || !a.outcome)
      abort();
    llfs_answer_header(&a, "Retry-After");
  }
  json_decref(meta);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *p = malloc(size ? size : 1);  /* exact size: ASan sees any over-read */
  if(!p)
    return 0;
  memcpy(p, data, size);
  fuzz_head(p, size);
  fuzz_framed(p, size);
  free(p);
  return 0;
}
