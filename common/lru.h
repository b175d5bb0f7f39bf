#ifndef WPFS_COMMON_LRU_H
#define WPFS_COMMON_LRU_H
/* The core of a bounded cache: an intrusive chained hash table for lookups
 * and a list in use order for eviction. A cache embeds struct lru_node in
 * its entries, hashes its own keys and compares them (eq), counts its own
 * bytes in node->bytes, and frees an entry after lru_remove. The table is
 * sized once (lru_init); nothing here allocates per entry. An entry may
 * be in the table without being in the order (the DNS cache's queries in
 * flight: found, never evicted): lru_hash_* and lru_order_* are the two
 * halves, lru_insert and lru_remove both. n and bytes count the order.
 * Not shared between threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lru_node {
  uint64_t         h;             /* the key's hash */
  size_t           bytes;         /* what the entry holds, for the bound */
  struct lru_node *prev, *next;   /* use order: head is the most recent */
  struct lru_node *chain;         /* same bucket */
};

struct lru {
  struct lru_node **tab;
  size_t            nbuckets;     /* a power of two */
  struct lru_node  *head, *tail;
  size_t            n, bytes;
};

typedef bool lru_eq_fn(const struct lru_node *n, const void *key);

/* A table of at least `buckets` buckets (a power of two, at least 16, at
 * most 2^24); -1 on out of memory. */
int  lru_init(struct lru *l, size_t buckets);
/* The table only: remove and free every entry first. */
void lru_fini(struct lru *l);
/* The entry of hash h for which eq(node, key), or NULL; not moved. */
struct lru_node *lru_find(const struct lru *l, uint64_t h, lru_eq_fn *eq, const void *key);
/* Add n (h and bytes set) to the table and as the most recent. */
void lru_insert(struct lru *l, struct lru_node *n);
/* n becomes the most recent. */
void lru_touch(struct lru *l, struct lru_node *n);
/* Take n out of both (the caller frees it). */
void lru_remove(struct lru *l, struct lru_node *n);
void lru_hash_add(struct lru *l, struct lru_node *n);
void lru_hash_del(struct lru *l, struct lru_node *n);
void lru_order_push(struct lru *l, struct lru_node *n);  /* as the most recent */
void lru_order_del(struct lru *l, struct lru_node *n);

/* The entry holding n, from its member named member. */
#define LRU_ENTRY(n, type, member) ((type *)(void *)((char *)(n) - offsetof(type, member)))

#endif
