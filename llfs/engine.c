/* The engine's side of the calls of the HTTP threads (engine.h). */
#include "llfs/engine.h"

#include <stdlib.h>

static void engine_hold(struct llfs_engine *e, struct llfs_xcall *x)
{
  x->hprev = NULL;
  x->hnext = e->held;
  if(e->held)
    e->held->hprev = x;
  e->held = x;
}

static void engine_unhold(struct llfs_engine *e, struct llfs_xcall *x)
{
  if(x->hprev)
    x->hprev->hnext = x->hnext;
  else
    e->held = x->hnext;
  if(x->hnext)
    x->hnext->hprev = x->hprev;
  x->hprev = x->hnext = NULL;
}

static void engine_on_inbox(struct mbox *mb)
{
  struct llfs_engine *e = mb->data;
  struct mbox_item *it = mbox_take(mb);
  while(it) {
    struct llfs_xcall *x = (struct llfs_xcall *)it;
    it = it->next;
    engine_hold(e, x);
    x->run(x);   /* may return x at once */
  }
}

int engine_start(struct llfs_engine *e, uv_loop_t *loop, const struct fetch_cfg *cfg,
                 char *err, size_t errlen)
{
  e->loop = loop;
  e->held = NULL;
  if(!(e->f = fetcher_new(loop, cfg, err, errlen)))
    return -1;
  mbox_init(&e->inbox, loop, engine_on_inbox, e);
  e->open = true;
  return 0;
}

void engine_post(struct llfs_engine *e, struct llfs_xcall *x)
{
  x->e = e;
  x->refused = false;
  if(!mbox_post(&e->inbox, &x->link)) {
    x->refused = true;
    x->done(x);
  }
}

void engine_return(struct llfs_xcall *x)
{
  engine_unhold(x->e, x);
  if(!mbox_post(x->home, &x->link))
    x->drop(x);   /* its HTTP thread has closed */
}

void engine_close(struct llfs_engine *e)
{
  if(!e->open)
    return;
  e->open = false;
  /* Fetches and resolves still running end without their callbacks: the
   * calls waiting for them are dropped here. */
  fetcher_free(&e->f);
  while(e->held) {
    struct llfs_xcall *x = e->held;
    engine_unhold(e, x);
    x->drop(x);
  }
  struct mbox_item *it = mbox_close(&e->inbox);
  while(it) {
    struct llfs_xcall *x = (struct llfs_xcall *)it;
    it = it->next;
    x->drop(x);
  }
}

void engine_fini(struct llfs_engine *e)
{
  if(e->inbox.ready)
    mbox_fini(&e->inbox);
}
