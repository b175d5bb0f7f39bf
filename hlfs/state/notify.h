#ifndef WPFS_HLFS_NOTIFY_H
#define WPFS_HLFS_NOTIFY_H
/* Wake-ups for readers waiting on a client's result stream.
 *
 * Every script that appends a result also publishes the client's name on
 * the channel "n:<client>" (hlfs/state/lua/lib.lua, publish), on the Redis of
 * the result's shard. A replica subscribes, on a connection of its own to
 * each state Redis, to the channels of the clients it has readers
 * waiting for, and wakes them when a message comes. So a long-poll answers
 * as soon as a result exists, and a waiting reader costs Redis nothing.
 *
 * Nothing is lost between a reader's last empty read and its wake-up:
 * - a channel's subscription, once confirmed, wakes its waiters (a result
 *   published before the confirmation was not seen by anyone);
 * - when the connection comes back every waiter is woken;
 * - a channel stays subscribed NOTIFY_LINGER_MS after its last waiter, so a
 *   client reading in a loop does not subscribe again for every read.
 * Waiters still re-read on a slow timer of their own (NOTIFY_SAFETY_MS): a
 * notification is a hint, the stream is the truth. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "hlfs/state/store.h"

#define NOTIFY_SAFETY_MS 1000
#define NOTIFY_LINGER_MS 10000
#define NOTIFY_CHANNELS_MAX 4096  /* beyond: readers fall back to NOTIFY_SAFETY_MS */

struct notify;
struct notify_waiter;
/* Called once per registration: the waiter is no longer registered. It may
 * register itself again, and must not remove another waiter. */
typedef void notify_wake_fn(struct notify_waiter *w);

struct notify_waiter {
  struct notify_waiter *prev, *next;
  const char           *client;   /* must live while registered */
  notify_wake_fn       *wake;
  bool                  linked;
};

struct notify_stats {
  uint64_t wakes;          /* waiters woken by a message or a confirmation */
  uint64_t subscribes;
  uint64_t unsubscribes;
  unsigned channels;       /* subscribed now */
};

/* subs: one store per state Redis, used for nothing else (started and
 * closed by the caller; notify takes their state and message callbacks). */
struct notify *notify_new(uv_loop_t *loop, struct store *const *subs, unsigned nsub);
/* Register w (w->client, w->wake set) until its wake or notify_cancel. */
void notify_wait(struct notify *n, struct notify_waiter *w);
/* Unregister w if registered. */
void notify_cancel(struct notify *n, struct notify_waiter *w);
/* Waiters still registered are dropped unwoken. *np is cleared. */
void notify_free(struct notify **np);

#endif
