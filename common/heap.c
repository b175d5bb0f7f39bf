/* The array of common/heap.h: the one part that allocates. */
#include "common/heap.h"

#include "common/mem.h"

cm_err heap_reserve(struct heap *h, size_t need)
{
  if(need <= h->cap)
    return CM_OK;
  if(need >= HEAP_NONE)
    return CM_TOO_LARGE;
  size_t cap = h->cap ? h->cap : 16;
  while(cap < need)
    cap *= 2;
  if(cap >= HEAP_NONE)
    cap = HEAP_NONE - 1;
  struct heap_node **v = mem_realloc(h->v, cap * sizeof *v);
  if(!v)
    return CM_NOMEM;
  h->v = v;
  h->cap = (uint32_t)cap;
  return CM_OK;
}

void heap_free(struct heap *h)
{
  mem_free(h->v);
  *h = (struct heap){ 0 };
}
