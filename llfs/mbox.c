#include "llfs/mbox.h"

static void mbox_on_async(uv_async_t *a)
{
  struct mbox *mb = a->data;
  mb->ready(mb);
}

void mbox_init(struct mbox *mb, uv_loop_t *loop, void (*ready)(struct mbox *mb), void *data)
{
  pthread_mutex_init(&mb->mu, NULL);
  mb->first = mb->last = NULL;
  mb->closed = false;
  mb->ready = ready;
  mb->data = data;
  uv_async_init(loop, &mb->async, mbox_on_async);
  mb->async.data = mb;
}

bool mbox_post(struct mbox *mb, struct mbox_item *it)
{
  it->next = NULL;
  pthread_mutex_lock(&mb->mu);
  bool open = !mb->closed;
  if(open) {
    if(mb->last)
      mb->last->next = it;
    else
      mb->first = it;
    mb->last = it;
    /* Under the mutex: mbox_close closes the async only after it. */
    uv_async_send(&mb->async);
  }
  pthread_mutex_unlock(&mb->mu);
  return open;
}

struct mbox_item *mbox_take(struct mbox *mb)
{
  pthread_mutex_lock(&mb->mu);
  struct mbox_item *it = mb->first;
  mb->first = mb->last = NULL;
  pthread_mutex_unlock(&mb->mu);
  return it;
}

struct mbox_item *mbox_close(struct mbox *mb)
{
  pthread_mutex_lock(&mb->mu);
  mb->closed = true;
  struct mbox_item *it = mb->first;
  mb->first = mb->last = NULL;
  pthread_mutex_unlock(&mb->mu);
  uv_close((uv_handle_t *)&mb->async, NULL);
  return it;
}

void mbox_fini(struct mbox *mb)
{
  pthread_mutex_destroy(&mb->mu);
}
