#ifndef WPFS_LLFS_MBOX_H
#define WPFS_LLFS_MBOX_H
/* A mailbox between threads: any thread posts items, the thread of one
 * libuv loop takes them, woken by a uv_async (which coalesces: many posts,
 * one wake-up). Items are intrusive (struct mbox_item first in the
 * sender's struct) and keep their order. Once closed, posting is refused
 * and the sender keeps the item. */
#include <pthread.h>
#include <stdbool.h>
#include <uv.h>

struct mbox_item {
  struct mbox_item *next;
};

struct mbox {
  pthread_mutex_t   mu;       /* first, last, closed */
  struct mbox_item *first, *last;
  bool              closed;
  uv_async_t        async;
  void            (*ready)(struct mbox *mb);   /* on the loop: call mbox_take */
  void             *data;
};

/* On loop's thread (or before it runs the loop). */
void mbox_init(struct mbox *mb, uv_loop_t *loop, void (*ready)(struct mbox *mb), void *data);
/* Any thread. false: closed, the item is still the caller's. */
bool mbox_post(struct mbox *mb, struct mbox_item *it);
/* On the loop: every item posted so far, oldest first (NULL: none). */
struct mbox_item *mbox_take(struct mbox *mb);
/* On the loop: refuse further posts, close the async, and return what was
 * still waiting (the caller's to dispose of). */
struct mbox_item *mbox_close(struct mbox *mb);
/* Once no thread can post any more (after mbox_close, when the struct
 * holding mb is released). */
void mbox_fini(struct mbox *mb);

#endif
