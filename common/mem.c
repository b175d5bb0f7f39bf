#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local unsigned long fail_at;  /* countdown; 0 = off */
static _Thread_local long live;

static int mem_should_fail(void)
{
  if(fail_at == 0)
    return 0;
  return --fail_at == 0;
}

void mem_fail_at(unsigned long k) { fail_at = k; }
long mem_live(void) { return live; }

void *mem_alloc(size_t n)
{
  if(mem_should_fail())
    return NULL;
  void *p = malloc(n ? n : 1);
  if(p)
    live++;
  return p;
}

void *mem_calloc(size_t n, size_t size)
{
  if(mem_should_fail())
    return NULL;
  void *p = calloc(n ? n : 1, size ? size : 1);
  if(p)
    live++;
  return p;
}

void *mem_realloc(void *p, size_t n)
{
  if(mem_should_fail())
    return NULL;
  void *q = realloc(p, n ? n : 1);
  if(q && !p)
    live++;
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
  live--;
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
