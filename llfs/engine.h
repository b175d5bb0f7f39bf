#ifndef WPFS_LLFS_ENGINE_H
#define WPFS_LLFS_ENGINE_H
/* The fetch engine (llfs/fetch.h) on its loop, for the HTTP threads. The
 * engine stays single-threaded, as it was written: one libcurl multi
 * handle and connection cache (a site's fetches reuse one kept-alive
 * connection whichever HTTP thread asked), one DNS cache, exact
 * max_in_flight and max_queue, no lock on its paths. The HTTP threads do
 * the rest: HTTP, JSON decoding, building the answers.
 *
 * Work crosses over as a struct llfs_xcall: an HTTP thread posts it to the
 * engine's mailbox (engine_post); the engine runs it (x->run) and, once
 * its answer is in the call, sends it back to its home mailbox
 * (engine_return), where x->done runs on the HTTP thread. The call's
 * request never travels: only the call's own fields do. */
#include <stdbool.h>

#include "llfs/fetch.h"
#include "llfs/mbox.h"

struct llfs_engine;

struct llfs_xcall {
  struct mbox_item    link;   /* first: it travels through mailboxes */
  void              (*run)(struct llfs_xcall *x);    /* on the engine's loop */
  void              (*done)(struct llfs_xcall *x);   /* on the home's loop */
  void              (*drop)(struct llfs_xcall *x);   /* free it: no home to go to */
  struct mbox        *home;
  struct llfs_engine *e;      /* set by engine_post */
  bool                refused;  /* the engine was closed: done without run */
  struct llfs_xcall  *hprev, *hnext;   /* on e->held while the engine has it */
};

struct llfs_engine {
  uv_loop_t         *loop;
  struct fetcher    *f;
  struct mbox        inbox;
  struct llfs_xcall *held;    /* run and not yet returned */
  bool               open;
};

/* On loop's thread. 0, or -1 with the reason in err. */
int  engine_start(struct llfs_engine *e, uv_loop_t *loop, const struct fetch_cfg *cfg,
                  char *err, size_t errlen);
/* From an HTTP thread (x->home is its mailbox). If the engine is closed,
 * x->done runs at once, with x->refused set. */
void engine_post(struct llfs_engine *e, struct llfs_xcall *x);
/* On the engine's loop, once x holds its answer: home it goes. */
void engine_return(struct llfs_xcall *x);
/* Once the HTTP threads are gone: free the fetcher (run the loop after)
 * and every call still here, without their done. */
void engine_close(struct llfs_engine *e);
/* After the loop has run: the last of it. */
void engine_fini(struct llfs_engine *e);

#endif
