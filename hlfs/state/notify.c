/* Result wake-ups over Redis pub/sub (hlfs/state/notify.h). Channels are few
 * (one per client with a reader waiting here), so a plain array is enough;
 * waiters are one list, walked per message. */
#include "hlfs/state/notify.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/list.h"
#include "common/log.h"
#include "common/mem.h"
#include "hlfs/state/state.h"

#define NOTIFY_MAGIC 0x7e11f0a5u
#define NOTIFY_PREFIX "n:"
#define NOTIFY_CH_MAX (sizeof NOTIFY_PREFIX + STATE_CLIENT_MAX)

struct notify_channel {
  char     name[NOTIFY_CH_MAX];   /* "n:<client>" */
  unsigned waiters;
  uint64_t idle_since;            /* loop time of its last waiter's leaving */
  bool     subscribed;
};

struct notify {
  unsigned               magic;
  uv_loop_t             *loop;
  struct store          *sub;
  struct notify_waiter  *head;
  struct notify_channel *ch;
  unsigned               nch, capch;
  uv_timer_t             sweep;
  struct notify_stats    st;
};

static struct notify_channel *ch_find(struct notify *n, const char *name)
{
  for(unsigned i = 0; i < n->nch; i++)
    if(!strcmp(n->ch[i].name, name))
      return &n->ch[i];
  return NULL;
}

/* The channel of client, added when missing; NULL when the table is full. */
static struct notify_channel *ch_get(struct notify *n, const char *client)
{
  char name[NOTIFY_CH_MAX];
  if(snprintf(name, sizeof name, NOTIFY_PREFIX "%s", client) >= (int)sizeof name)
    return NULL;
  struct notify_channel *c = ch_find(n, name);
  if(c || n->nch >= NOTIFY_CHANNELS_MAX)
    return c;
  if(n->nch == n->capch) {
    unsigned cap = n->capch ? 2 * n->capch : 16;
    struct notify_channel *a = mem_realloc(n->ch, cap * sizeof *a);
    if(!a)
      return NULL;
    n->ch = a;
    n->capch = cap;
  }
  c = &n->ch[n->nch++];
  *c = (struct notify_channel){ .idle_since = uv_now(n->loop) };
  memcpy(c->name, name, sizeof name);
  return c;
}

static void ch_subscribe(struct notify *n, struct notify_channel *c)
{
  if(c->subscribed || store_subscribe(n->sub, c->name, true) != STORE_OK)
    return;  /* down: subscribed again when it comes back */
  c->subscribed = true;
  n->st.subscribes++;
  n->st.channels++;
}

static void w_unlink(struct notify *n, struct notify_waiter *w)
{
  DL_UNLINK(n->head, w, prev, next);
  w->linked = false;
  n->st.waiting--;
}

/* w leaves: its channel's count drops (the channel lingers, see sweep). */
static void w_leave(struct notify *n, struct notify_waiter *w)
{
  char name[NOTIFY_CH_MAX];
  w_unlink(n, w);
  snprintf(name, sizeof name, NOTIFY_PREFIX "%s", w->client);
  struct notify_channel *c = ch_find(n, name);
  if(c && c->waiters && --c->waiters == 0)
    c->idle_since = uv_now(n->loop);
}

void notify_wait(struct notify *n, struct notify_waiter *w)
{
  assert(n->magic == NOTIFY_MAGIC && !w->linked && w->wake && w->client);
  /* at the head: a waiter woken during a walk and registering again is
   * not met again by that walk */
  DL_PUSH_FRONT(n->head, w, prev, next);
  w->linked = true;
  n->st.waiting++;
  struct notify_channel *c = ch_get(n, w->client);
  if(c) {
    c->waiters++;
    ch_subscribe(n, c);
  }
}

void notify_cancel(struct notify *n, struct notify_waiter *w)
{
  if(w->linked)
    w_leave(n, w);
}

/* Wake the waiters of client (every waiter when client is NULL). */
static void wake_all(struct notify *n, const char *client, size_t len)
{
  struct notify_waiter *w = n->head, *next;
  for(; w; w = next) {
    next = w->next;
    if(client && (strncmp(w->client, client, len) || w->client[len]))
      continue;
    w_leave(n, w);
    n->st.wakes++;
    w->wake(w);
  }
}

static void on_message(void *arg, const char *channel, size_t len)
{
  struct notify *n = arg;
  assert(n->magic == NOTIFY_MAGIC);
  size_t pl = sizeof NOTIFY_PREFIX - 1;
  if(len > pl && !strncmp(channel, NOTIFY_PREFIX, pl))
    wake_all(n, channel + pl, len - pl);
}

/* Back up: subscribe again to what has waiters, and wake everyone (a
 * result may have come while nobody listened). Down: nothing subscribed. */
static void on_state(void *arg, bool up)
{
  struct notify *n = arg;
  assert(n->magic == NOTIFY_MAGIC);
  n->st.channels = 0;
  for(unsigned i = 0; i < n->nch; i++)
    n->ch[i].subscribed = false;
  if(!up)
    return;
  for(unsigned i = 0; i < n->nch; i++)
    if(n->ch[i].waiters)
      ch_subscribe(n, &n->ch[i]);
  wake_all(n, NULL, 0);
}

/* Channels without waiters for NOTIFY_LINGER_MS go (their messages would
 * only cost Redis and this replica). */
static void on_sweep(uv_timer_t *t)
{
  struct notify *n = t->data;
  uint64_t now = uv_now(n->loop);
  for(unsigned i = 0; i < n->nch;) {
    struct notify_channel *c = &n->ch[i];
    if(c->waiters || now - c->idle_since < NOTIFY_LINGER_MS) {
      i++;
      continue;
    }
    if(c->subscribed && store_subscribe(n->sub, c->name, false) == STORE_OK) {
      n->st.unsubscribes++;
      n->st.channels--;
    }
    n->ch[i] = n->ch[--n->nch];
  }
}

struct notify *notify_new(uv_loop_t *loop, struct store *sub)
{
  struct notify *n = xalloc(sizeof *n);
  *n = (struct notify){ .magic = NOTIFY_MAGIC, .loop = loop, .sub = sub };
  store_on_state(sub, on_state, n);
  store_on_message(sub, on_message, n);
  uv_timer_init(loop, &n->sweep);
  n->sweep.data = n;
  uv_timer_start(&n->sweep, on_sweep, NOTIFY_LINGER_MS / 2, NOTIFY_LINGER_MS / 2);
  return n;
}

const struct notify_stats *notify_stats(const struct notify *n) { return &n->st; }

static void on_closed(uv_handle_t *h)
{
  struct notify *n = h->data;
  mem_free(n->ch);
  n->magic = 0;
  free(n);  /* xalloc: not counted by mem_live */
}

void notify_free(struct notify **np)
{
  struct notify *n = *np;
  if(!n)
    return;
  *np = NULL;
  assert(n->magic == NOTIFY_MAGIC);
  while(n->head)  /* readers still waiting at exit are never woken */
    w_unlink(n, n->head);
  store_on_state(n->sub, NULL, NULL);
  store_on_message(n->sub, NULL, NULL);
  uv_close((uv_handle_t *)&n->sweep, on_closed);
}
