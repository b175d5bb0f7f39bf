#ifndef WPFS_COMMON_HEAP_H
#define WPFS_COMMON_HEAP_H
/* A binary min-heap of intrusive nodes, in the shape of libuv's
 * src/heap-inl.h: an element embeds struct heap_node, the caller passes
 * the order (less: a goes before b) to every call that moves nodes, and
 * insert, remove, dequeue and min are the operations; nothing is
 * allocated per element.
 *
 * Unlike libuv's tree of pointers, the nodes sit in an array of pointers
 * and each node knows its slot: 4 bytes in the element instead of three
 * pointers, no walk down a path to find the last slot, and a node whose
 * key changed is put back in place in O(log n) (heap_fix). The array
 * grows only through heap_reserve, the one call that can fail, so that an
 * element joining several heaps gets room in all of them before any is
 * changed. Ties go to the left child, then stay where they are: the same
 * keys in the same calls give the same order.
 *
 * The moving functions are static inline so that less, a constant at
 * each call, is inlined: the heap costs what one written per use does.
 * An element moved in memory (a realloc) calls heap_moved. Not shared
 * between threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define HEAP_NONE UINT32_MAX  /* a node's slot when it is in no heap */

struct heap_node {
  uint32_t pos;  /* its slot in the heap's array, or HEAP_NONE */
};

struct heap {
  struct heap_node **v;
  uint32_t           n, cap;
};

typedef bool heap_less_fn(const struct heap_node *a, const struct heap_node *b);

/* Room for need nodes (the array doubles from 16); CM_TOO_LARGE past
 * 2^32 - 1 of them, CM_NOMEM; the heap is unchanged on failure. */
cm_err heap_reserve(struct heap *h, size_t need);
/* The array; the elements are the caller's. The heap is empty after. */
void   heap_free(struct heap *h);

/* The element holding node x, from its member named member. */
#define HEAP_ENTRY(x, type, member) ((type *)(void *)((char *)(x) - offsetof(type, member)))

static inline void heap_node_init(struct heap_node *x)
{
  x->pos = HEAP_NONE;
}

static inline bool heap_node_in(const struct heap_node *x)
{
  return x->pos != HEAP_NONE;
}

static inline struct heap_node *heap_min(const struct heap *h)
{
  return h->n ? h->v[0] : NULL;
}

static inline void heap_set_(struct heap *h, uint32_t i, struct heap_node *x)
{
  h->v[i] = x;
  x->pos = i;
}

/* x, at its slot, goes up while it goes before its parent: the hole
 * moves, x is written once. */
static inline void heap_up_(struct heap *h, struct heap_node *x, heap_less_fn *less)
{
  uint32_t i = x->pos;
  while(i > 0 && less(x, h->v[(i - 1) / 2])) {
    heap_set_(h, i, h->v[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  heap_set_(h, i, x);
}

static inline void heap_down_(struct heap *h, struct heap_node *x, heap_less_fn *less)
{
  size_t i = x->pos;
  for(;;) {
    size_t c = 2 * i + 1;
    if(c >= h->n)
      break;
    if(c + 1 < h->n && less(h->v[c + 1], h->v[c]))
      c++;
    if(!less(h->v[c], x))
      break;
    heap_set_(h, (uint32_t)i, h->v[c]);
    i = c;
  }
  heap_set_(h, (uint32_t)i, x);
}

/* x (in no heap) joins h; heap_reserve made room for it. */
static inline void heap_insert(struct heap *h, struct heap_node *x, heap_less_fn *less)
{
  CHECK(h->n < h->cap && x->pos == HEAP_NONE);
  heap_set_(h, h->n++, x);
  heap_up_(h, x, less);
}

/* x (in h) leaves it; the last node takes its slot. */
static inline void heap_remove(struct heap *h, struct heap_node *x, heap_less_fn *less)
{
  uint32_t i = x->pos;
  CHECK(i < h->n && h->v[i] == x);
  struct heap_node *last = h->v[--h->n];
  x->pos = HEAP_NONE;
  if(last == x)
    return;
  heap_set_(h, i, last);
  heap_up_(h, last, less);
  heap_down_(h, last, less);
}

/* The first node, out of h; NULL when h is empty. */
static inline struct heap_node *heap_dequeue(struct heap *h, heap_less_fn *less)
{
  struct heap_node *x = heap_min(h);
  if(x)
    heap_remove(h, x, less);
  return x;
}

/* x's key changed: back in its place (a node in no heap is left alone). */
static inline void heap_fix(struct heap *h, struct heap_node *x, heap_less_fn *less)
{
  if(x->pos == HEAP_NONE)
    return;
  heap_up_(h, x, less);
  heap_down_(h, x, less);
}

/* x was copied to a new address: its slot points at it again. */
static inline void heap_moved(struct heap *h, struct heap_node *x)
{
  if(x->pos != HEAP_NONE)
    h->v[x->pos] = x;
}

#endif
