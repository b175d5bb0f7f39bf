#include "common/mem.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Process-wide, because blocks cross threads (the crawler's disk thread
 * frees what the loop allocated; llfs's HTTP threads hand calls to the
 * engine). Relaxed atomics: only the totals matter, and the common path
 * (no failure armed) is a plain load plus one uncontended-in-practice add. */
static atomic_ulong fail_at;  /* countdown; 0 = off */
static atomic_long  live;

#define LIVE_ADD(d) atomic_fetch_add_explicit(&live, (d), memory_order_relaxed)

static int mem_should_fail(void)
{
  unsigned long k = atomic_load_explicit(&fail_at, memory_order_relaxed);
  while(k != 0 && !atomic_compare_exchange_weak(&fail_at, &k, k - 1))
    ;
  return k == 1;
}

void mem_fail_at(unsigned long k) { atomic_store(&fail_at, k); }
long mem_live(void) { return atomic_load(&live); }

/* Debug builds (WPFS_DEBUG, the sanitizer build) tag every mem_* block
 * with a header: mem_free of a block mem_* did not hand out (xalloc's, a
 * library's) aborts at once, and free() of a mem_* block is a free of an
 * address malloc never returned, which ASan reports. Either mismatch would
 * make mem_live drift, and the tests that compare it would not notice a
 * drift that cancels out. Release builds pay nothing. */
#ifdef WPFS_DEBUG
#define MEM_TAG 0x73667077206d656dull
typedef union {
  max_align_t align;
  unsigned long long tag;
} mem_hdr;
#define HDR sizeof(mem_hdr)
static void *mem_wrap(void *raw)
{
  if(!raw)
    return NULL;
  ((mem_hdr *)raw)->tag = MEM_TAG;
  return (mem_hdr *)raw + 1;
}
static void *mem_unwrap(void *p)
{
  mem_hdr *h = (mem_hdr *)p - 1;
  if(h->tag != MEM_TAG) {
    fputs("wpfs: mem_free/mem_realloc of a block mem_* did not allocate\n", stderr);
    abort();
  }
  h->tag = 0;
  return h;
}
#else
#define HDR 0
static void *mem_wrap(void *raw) { return raw; }
static void *mem_unwrap(void *p) { return p; }
#endif

void *mem_alloc(size_t n)
{
  if(mem_should_fail() || n > SIZE_MAX - HDR - 1)
    return NULL;
  void *p = mem_wrap(malloc((n ? n : 1) + HDR));
  if(p)
    LIVE_ADD(1);
  return p;
}

void *mem_calloc(size_t n, size_t size)
{
  if(mem_should_fail())
    return NULL;
  n = n ? n : 1;
  size = size ? size : 1;
  if(n > (SIZE_MAX - HDR) / size)
    return NULL;
  void *p = mem_wrap(calloc(1, n * size + HDR));
  if(p)
    LIVE_ADD(1);
  return p;
}

void *mem_realloc(void *p, size_t n)
{
  if(mem_should_fail() || n > SIZE_MAX - HDR - 1)
    return NULL;
  void *raw = p ? mem_unwrap(p) : NULL;
  void *q = realloc(raw, (n ? n : 1) + HDR);
  if(!q) {
    if(p)
      mem_wrap(raw);  /* p stays the caller's, tagged again */
    return NULL;
  }
  if(!p)
    LIVE_ADD(1);
  return mem_wrap(q);
}

char *mem_strndup(const char *s, size_t n)
{
  char *d = mem_alloc(n + 1);
  if(!d)
    return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *mem_strdup(const char *s) { return mem_strndup(s, strlen(s)); }

void mem_free(void *p)
{
  if(!p)
    return;
  LIVE_ADD(-1);
  free(mem_unwrap(p));
}

void *xalloc(size_t n)
{
  void *p = calloc(1, n ? n : 1);
  if(!p) {
    fputs("wpfs: out of memory during set-up\n", stderr);
    abort();
  }
  return p;
}

char *xstrdup(const char *s)
{
  size_t n = strlen(s);
  char *d = xalloc(n + 1);
  memcpy(d, s, n);
  return d;
}
