/* Several servers on one port, each on its own loop and thread: the group
 * owns the listening socket, accepts on the loop it was made on, and hands
 * each connection to the member with the fewest open connections (rather
 * than leaving the spread to the kernel's wake-up order), through a queue
 * and a uv_async on the member's loop. It also keeps every member's HTTP
 * counters, so that /metrics of any member can add them up even while
 * another member is stopping. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/srv_int.h"
#include "common/log.h"
#include "common/mem.h"

#define GROUP_MAGIC 0x6e0c9a21u
#define GROUP_PAUSE_MS 100   /* accepting pauses this long when out of fds */
#define GROUP_MAX_MEMBERS 256

/* An accepted connection on its way to a member. Allocated on the
 * accepting thread and freed on the member's: plain malloc, so that the
 * per-thread accounting of mem_* stays exact. */
struct group_conn {
  int                     fd;
  socklen_t               len;
  struct sockaddr_storage ss;
  struct group_conn      *next;
};

struct group_slot {
  struct api_srv_group *g;
  unsigned              i;
  struct api_srv       *srv;     /* while joined */
  struct srv_counters   ctr;
  pthread_mutex_t       mu;      /* the queue, joined, left */
  struct group_conn    *first, *last;
  atomic_long           open;    /* connections handed to it, not yet closed */
  uv_async_t            wake;    /* on the member's loop, while joined */
  bool                  joined, left;
};

struct api_srv_group {
  unsigned           magic;
  uv_loop_t         *loop;
  int                listen_fd;
  int                port;
  long               max_conns;
  long               max_per_addr;  /* unauthenticated connections from one address */
  struct door_addrs *addrs;
  atomic_long        live;        /* connections handed out and not closed */
  unsigned           nslots;
  struct group_slot *slots;
  uv_poll_t          poll;
  uv_timer_t         pause;
  bool               accepting, closed;
};

/* ---- the member's side ---- */

static void group_on_wake(uv_async_t *a)
{
  struct group_slot *sl = a->data;
  pthread_mutex_lock(&sl->mu);
  struct group_conn *c = sl->first;
  sl->first = sl->last = NULL;
  pthread_mutex_unlock(&sl->mu);
  while(c) {
    struct group_conn *next = c->next;
    if(srv_add_conn(sl->srv, c->fd, (struct sockaddr *)&c->ss, c->len))
      group_conn_closed(sl->g, sl->i);
    free(c);
    c = next;
  }
}

int api_group_join(struct api_srv_group *g, unsigned i, uv_loop_t *loop,
                   const struct api_srv_cfg *cfg, struct api_srv **out)
{
  if(!g || g->magic != GROUP_MAGIC || i >= g->nslots || g->slots[i].joined)
    abort();
  struct group_slot *sl = &g->slots[i];
  int e = srv_start_member(loop, cfg, g, i, out);
  if(e)
    return e;
  uv_async_init(loop, &sl->wake, group_on_wake);
  sl->wake.data = sl;
  pthread_mutex_lock(&sl->mu);
  sl->srv = *out;
  sl->joined = true;
  pthread_mutex_unlock(&sl->mu);
  return 0;
}

void group_leave(struct api_srv_group *g, unsigned i)
{
  struct group_slot *sl = &g->slots[i];
  pthread_mutex_lock(&sl->mu);
  struct group_conn *c = sl->first;
  sl->first = sl->last = NULL;
  sl->left = true;    /* from here on the acceptor closes instead */
  sl->srv = NULL;
  pthread_mutex_unlock(&sl->mu);
  for(struct group_conn *next; c; c = next) {
    next = c->next;
    close(c->fd);
    door_addrs_put(g->addrs, (struct sockaddr *)&c->ss);
    group_conn_closed(g, i);
    free(c);
  }
  uv_close((uv_handle_t *)&sl->wake, NULL);
}

void group_conn_closed(struct api_srv_group *g, unsigned i)
{
  atomic_fetch_sub_explicit(&g->live, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit(&g->slots[i].open, 1, memory_order_relaxed);
}

long group_conns(const struct api_srv_group *g, unsigned i)
{
  return i < g->nslots ? atomic_load_explicit(&g->slots[i].open, memory_order_relaxed) : 0;
}

unsigned group_members(const struct api_srv_group *g) { return g->nslots; }

/* ---- the accepting side ---- */

/* The member with the fewest open connections among those not tried yet
 * (the first of them on a tie), or -1. */
static int group_pick(const struct api_srv_group *g, const bool *tried)
{
  int best = -1;
  long best_open = 0;
  for(unsigned i = 0; i < g->nslots; i++) {
    long open = atomic_load_explicit(&g->slots[i].open, memory_order_relaxed);
    if(!tried[i] && (best < 0 || open < best_open)) {
      best = (int)i;
      best_open = open;
    }
  }
  return best;
}

/* To the member with the fewest open connections: connections of any
 * lifetime stay balanced, and a client that opens one connection at a
 * time keeps landing on the same member (and on the connections to the
 * sites that member keeps alive). 0, or -1 when no member takes any. */
static int group_hand(struct api_srv_group *g, struct group_conn *c)
{
  bool tried[GROUP_MAX_MEMBERS] = { false };
  int i;
  while((i = group_pick(g, tried)) >= 0) {
    struct group_slot *sl = &g->slots[i];
    tried[i] = true;
    pthread_mutex_lock(&sl->mu);
    bool open = sl->joined && !sl->left;
    if(open) {
      atomic_fetch_add_explicit(&sl->open, 1, memory_order_relaxed);
      c->next = NULL;
      if(sl->last)
        sl->last->next = c;
      else
        sl->first = c;
      sl->last = c;
      uv_async_send(&sl->wake);   /* under mu: leaving closes it after */
    }
    pthread_mutex_unlock(&sl->mu);
    if(open)
      return 0;
  }
  return -1;
}

static void group_on_listen(uv_poll_t *p, int status, int events);

static void group_on_pause(uv_timer_t *t)
{
  struct api_srv_group *g = t->data;
  if(g->accepting && g->listen_fd >= 0)
    uv_poll_start(&g->poll, UV_READABLE, group_on_listen);
}

/* Out of descriptors or memory: the socket stays readable, so stop
 * watching it for a moment rather than spin. */
static void group_pause(struct api_srv_group *g, int err)
{
  LOG(LOG_WARN, "accept: %s; not accepting for %d ms", strerror(err), GROUP_PAUSE_MS);
  uv_poll_stop(&g->poll);
  uv_timer_start(&g->pause, group_on_pause, GROUP_PAUSE_MS, 0);
}

/* One accept; false once there is nothing more to take now. */
static bool group_accept_one(struct api_srv_group *g)
{
  struct group_conn c = { .len = sizeof c.ss };
  c.fd = accept4(g->listen_fd, (struct sockaddr *)&c.ss, &c.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if(c.fd < 0) {
    if(errno == EINTR || errno == ECONNABORTED)
      return true;
    if(errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
      group_pause(g, errno);
    return false;
  }
  struct group_conn *h = NULL;
  enum door_reason why = DOOR_CONN_LIMIT;
  if(atomic_load_explicit(&g->live, memory_order_relaxed) < g->max_conns) {
    why = DOOR_ADDR_LIMIT;
    if(door_addrs_take(g->addrs, (struct sockaddr *)&c.ss, g->max_per_addr)) {
      if((h = malloc(sizeof *h)))
        why = DOOR__COUNT;
      else
        door_addrs_put(g->addrs, (struct sockaddr *)&c.ss);
    }
  }
  if(!h) {
    close(c.fd);   /* at a limit: refused, as one server would */
    if(why < DOOR__COUNT)
      srv_counters_door(&g->slots[0].ctr, why);
    return true;
  }
  *h = c;
  atomic_fetch_add_explicit(&g->live, 1, memory_order_relaxed);
  if(group_hand(g, h)) {
    close(h->fd);
    door_addrs_put(g->addrs, (struct sockaddr *)&h->ss);
    atomic_fetch_sub_explicit(&g->live, 1, memory_order_relaxed);
    free(h);
  }
  return true;
}

static void group_on_listen(uv_poll_t *p, int status, int events)
{
  struct api_srv_group *g = p->data;
  (void)status;
  (void)events;
  while(g->listen_fd >= 0 && group_accept_one(g))
    ;
}

void api_group_accept(struct api_srv_group *g)
{
  if(g->accepting || g->listen_fd < 0)
    return;
  g->accepting = true;
  uv_poll_start(&g->poll, UV_READABLE, group_on_listen);
}

static void group_closed(uv_handle_t *h);

void api_group_quiesce(struct api_srv_group *g)
{
  if(g->listen_fd < 0)
    return;
  uv_timer_stop(&g->pause);
  /* Out of epoll before the fd number can be taken by another socket. */
  uv_close((uv_handle_t *)&g->poll, group_closed);
  close(g->listen_fd);
  g->listen_fd = -1;
}

/* ---- life of the group ---- */

int api_group_new(uv_loop_t *loop, const struct api_srv_cfg *cfg, unsigned members,
                  struct api_srv_group **out)
{
  struct api_srv_group *g = xalloc(sizeof *g);
  int e = srv_listen(cfg->listen_addr, cfg->port, &g->listen_fd, &g->port);
  if(e) {
    LOG(LOG_ERROR, "cannot listen on %s:%ld: %s", cfg->listen_addr, cfg->port, strerror(e));
    free(g);
    return e;
  }
  g->magic = GROUP_MAGIC;
  g->loop = loop;
  g->max_conns = cfg->max_conns;
  g->max_per_addr = cfg->max_conns_per_addr;
  g->addrs = door_addrs_new();
  g->nslots = members < 1 ? 1 : members > GROUP_MAX_MEMBERS ? GROUP_MAX_MEMBERS : members;
  g->slots = xalloc(g->nslots * sizeof *g->slots);
  for(unsigned i = 0; i < g->nslots; i++) {
    g->slots[i].g = g;
    g->slots[i].i = i;
    pthread_mutex_init(&g->slots[i].mu, NULL);
    srv_counters_init(&g->slots[i].ctr, cfg->nroutes);
  }
  uv_poll_init_socket(loop, &g->poll, g->listen_fd);
  uv_timer_init(loop, &g->pause);
  g->poll.data = g->pause.data = g;
  *out = g;
  return 0;
}

int api_group_port(const struct api_srv_group *g) { return g->port; }

struct door_addrs *group_addrs(struct api_srv_group *g) { return g->addrs; }

struct srv_counters *group_counters(struct api_srv_group *g, unsigned i)
{
  return &g->slots[i].ctr;
}

void group_sum(struct api_srv_group *g, struct srv_counters *acc)
{
  for(unsigned i = 0; i < g->nslots; i++)
    srv_counters_add(acc, &g->slots[i].ctr);
}

static void group_closed(uv_handle_t *h)
{
  struct api_srv_group *g = h->data;
  if(!g->closed) {   /* the first of the two handles */
    g->closed = true;
    return;
  }
  for(unsigned i = 0; i < g->nslots; i++) {
    pthread_mutex_destroy(&g->slots[i].mu);
    srv_counters_fini(&g->slots[i].ctr);
  }
  free(g->slots);
  door_addrs_free(&g->addrs);
  g->magic = 0;
  free(g);
}

void api_group_free(struct api_srv_group **gp)
{
  struct api_srv_group *g = *gp;
  if(!g)
    return;
  *gp = NULL;
  api_group_quiesce(g);
  uv_close((uv_handle_t *)&g->pause, group_closed);
}
