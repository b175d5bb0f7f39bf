#include "common/lru.h"

#include <stdlib.h>

#include "common/list.h"
#include "common/mem.h"

void lru_init(struct lru *l, size_t buckets)
{
  *l = (struct lru){ 0 };
  l->nbuckets = 16;
  while(l->nbuckets < buckets)
    l->nbuckets *= 2;
  l->tab = xalloc(l->nbuckets * sizeof *l->tab);
}

void lru_fini(struct lru *l)
{
  free(l->tab);  /* xalloc: set-up memory */
  *l = (struct lru){ 0 };
}

struct lru_node *lru_find(const struct lru *l, uint64_t h, lru_eq_fn *eq, const void *key)
{
  for(struct lru_node *n = l->tab[h & (l->nbuckets - 1)]; n; n = n->chain)
    if(n->h == h && eq(n, key))
      return n;
  return NULL;
}

void lru_insert(struct lru *l, struct lru_node *n)
{
  struct lru_node **b = &l->tab[n->h & (l->nbuckets - 1)];
  n->chain = *b;
  *b = n;
  DLT_PUSH_FRONT(l->head, l->tail, n, prev, next);
  l->n++;
  l->bytes += n->bytes;
}

void lru_touch(struct lru *l, struct lru_node *n)
{
  DLT_UNLINK(l->head, l->tail, n, prev, next);
  DLT_PUSH_FRONT(l->head, l->tail, n, prev, next);
}

void lru_remove(struct lru *l, struct lru_node *n)
{
  struct lru_node **pp = &l->tab[n->h & (l->nbuckets - 1)];
  while(*pp != n)
    pp = &(*pp)->chain;
  *pp = n->chain;
  DLT_UNLINK(l->head, l->tail, n, prev, next);
  l->n--;
  l->bytes -= n->bytes;
}
