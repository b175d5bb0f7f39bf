#include "common/mem.h"

#include <stdatomic.h>
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

void *mem_alloc(size_t n)
{
  if(mem_should_fail())
    return NULL;
  void *p = malloc(n ? n : 1);
  if(p)
    LIVE_ADD(1);
  return p;
}

void *mem_calloc(size_t n, size_t size)
{
  if(mem_should_fail())
    return NULL;
  void *p = calloc(n ? n : 1, size ? size : 1);
  if(p)
    LIVE_ADD(1);
  return p;
}

void *mem_realloc(void *p, size_t n)
{
  if(mem_should_fail())
    return NULL;
  void *q = realloc(p, n ? n : 1);
  if(q && !p)
    LIVE_ADD(1);
  return q;
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
  free(p);
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
