#include "common/lru.h"

#include "common/err.h"
#include "common/list.h"
#include "common/mem.h"

#define LRU_MAX_BUCKETS ((size_t)1 << 24)

int lru_init(struct lru *l, size_t buckets)
{
  *l = (struct lru){ 0 };
  l->nbuckets = 16;
  while(l->nbuckets < buckets && l->nbuckets < LRU_MAX_BUCKETS)
    l->nbuckets *= 2;
  l->tab = mem_calloc(l->nbuckets, sizeof *l->tab);
  return l->tab ? 0 : -1;
}

void lru_fini(struct lru *l)
{
  mem_free(l->tab);
  *l = (struct lru){ 0 };
}

struct lru_node *lru_find(const struct lru *l, uint64_t h, lru_eq_fn *eq, const void *key)
{
  for(struct lru_node *n = l->tab[h & (l->nbuckets - 1)]; n; n = n->chain)
    if(n->h == h && eq(n, key))
      return n;
  return NULL;
}

void lru_hash_add(struct lru *l, struct lru_node *n)
{
  struct lru_node **b = &l->tab[n->h & (l->nbuckets - 1)];
  n->chain = *b;
  *b = n;
}

void lru_hash_del(struct lru *l, struct lru_node *n)
{
  struct lru_node **pp = &l->tab[n->h & (l->nbuckets - 1)];
  while(*pp != n) {
    CHECK(*pp);
    pp = &(*pp)->chain;
  }
  *pp = n->chain;
  n->chain = NULL;
}

void lru_order_push(struct lru *l, struct lru_node *n)
{
  DLT_PUSH_FRONT(l->head, l->tail, n, prev, next);
  l->n++;
  l->bytes += n->bytes;
}

void lru_order_del(struct lru *l, struct lru_node *n)
{
  DLT_UNLINK(l->head, l->tail, n, prev, next);
  l->n--;
  l->bytes -= n->bytes;
}

void lru_insert(struct lru *l, struct lru_node *n)
{
  lru_hash_add(l, n);
  lru_order_push(l, n);
}

void lru_touch(struct lru *l, struct lru_node *n)
{
  if(l->head == n)
    return;
  DLT_UNLINK(l->head, l->tail, n, prev, next);
  DLT_PUSH_FRONT(l->head, l->tail, n, prev, next);
}

void lru_remove(struct lru *l, struct lru_node *n)
{
  lru_hash_del(l, n);
  lru_order_del(l, n);
}
