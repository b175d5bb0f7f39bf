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
  uint32_t subscribed;            /* bit k: on subs[k] */
};

/* One subscribed connection per state Redis: a result is published on the
 * Redis of its shard. */
struct notify_sub {
  struct notify *n;
  struct store  *s;
  uint32_t       bit;
};

CLIST_HEAD(notify_waiters, struct notify_waiter);
CLIST_FUNCS(nw, notify_waiters, struct notify_waiter, prev, next)

struct notify {
  unsigned               magic;
  uv_loop_t             *loop;
  struct notify_sub      sub[STATE_STORES_MAX];
  unsigned               nsub;
  struct notify_waiters  waiting;
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

static void ch_subscribe_on(struct notify *n, struct notify_channel *c, struct notify_sub *u)
{
  if((c->subscribed & u->bit) || store_subscribe(u->s, c->name, true) != STORE_OK)
    return;  /* down: subscribed again when it comes back */
  c->subscribed |= u->bit;
  n->st.subscribes++;
  n->st.channels++;
}

static void ch_subscribe(struct notify *n, struct notify_channel *c)
{
  for(unsigned k = 0; k < n->nsub; k++)
    ch_subscribe_on(n, c, &n->sub[k]);
}

static void w_unlink(struct notify *n, struct notify_waiter *w)
{
  nw_remove(&n->waiting, w);
  w->linked = false;
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
  nw_push_front(&n->waiting, w);
  w->linked = true;
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
  struct notify_waiter *w = n->waiting.first, *next;
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
  struct notify *n = ((struct notify_sub *)arg)->n;
  assert(n->magic == NOTIFY_MAGIC);
  size_t pl = sizeof NOTIFY_PREFIX - 1;
  if(len > pl && !strncmp(channel, NOTIFY_PREFIX, pl))
    wake_all(n, channel + pl, len - pl);
}

/* Back up: subscribe again to what has waiters, and wake everyone (a
 * result may have come while nobody listened). Down: nothing subscribed. */
static void on_state(void *arg, bool up)
{
  struct notify_sub *u = arg;
  struct notify *n = u->n;
  assert(n->magic == NOTIFY_MAGIC);
  for(unsigned i = 0; i < n->nch; i++)
    if(n->ch[i].subscribed & u->bit) {
      n->ch[i].subscribed &= ~u->bit;
      n->st.channels--;
    }
  if(!up)
    return;
  for(unsigned i = 0; i < n->nch; i++)
    if(n->ch[i].waiters)
      ch_subscribe_on(n, &n->ch[i], u);
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
    for(unsigned k = 0; k < n->nsub; k++)
      if((c->subscribed & n->sub[k].bit)
         && store_subscribe(n->sub[k].s, c->name, false) == STORE_OK) {
        n->st.unsubscribes++;
        n->st.channels--;
      }
    n->ch[i] = n->ch[--n->nch];
  }
}

struct notify *notify_new(uv_loop_t *loop, struct store *const *subs, unsigned nsub)
{
  assert(nsub >= 1 && nsub <= STATE_STORES_MAX);
  struct notify *n = xalloc(sizeof *n);
  *n = (struct notify){ .magic = NOTIFY_MAGIC, .loop = loop, .nsub = nsub };
  for(unsigned k = 0; k < nsub; k++) {
    n->sub[k] = (struct notify_sub){ n, subs[k], 1u << k };
    store_on_state(subs[k], on_state, &n->sub[k]);
    store_on_message(subs[k], on_message, &n->sub[k]);
  }
  uv_timer_init(loop, &n->sweep);
  n->sweep.data = n;
  uv_timer_start(&n->sweep, on_sweep, NOTIFY_LINGER_MS / 2, NOTIFY_LINGER_MS / 2);
  return n;
}


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
  while(n->waiting.first)  /* readers still waiting at exit are never woken */
    w_unlink(n, n->waiting.first);
  for(unsigned k = 0; k < n->nsub; k++) {
    store_on_state(n->sub[k].s, NULL, NULL);
    store_on_message(n->sub[k].s, NULL, NULL);
  }
  uv_close((uv_handle_t *)&n->sweep, on_closed);
}
