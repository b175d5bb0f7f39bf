/* Who may hold a connection: see door.h. Closing is shutdown(2) of the
 * socket: MHD owns the descriptor and has no call to close one of its
 * connections, but it reads the end of the stream at once and closes
 * the connection itself, through its ordinary path. */
#include "api/door.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/hash.h"
#include "common/list.h"
#include "common/mem.h"

#define DOOR_BUCKETS 4096   /* a power of two */

const char *door_reason_name(enum door_reason r)
{
  static const char *n[DOOR__COUNT] = { "address_limit", "conn_limit", "evicted",
                                        "head_timeout" };
  return r < DOOR__COUNT ? n[r] : "other";
}

/* ---- per address ------------------------------------------------------ */

struct door_addr {
  struct door_addr *next;
  uint8_t           key[16];   /* IPv6, or IPv4 as ::ffff:a.b.c.d */
  long              n;
};

struct door_addrs {
  pthread_mutex_t   mu;
  struct door_addr *b[DOOR_BUCKETS];
};

struct door_addrs *door_addrs_new(void)
{
  struct door_addrs *t = xalloc(sizeof *t);
  pthread_mutex_init(&t->mu, NULL);
  return t;
}

void door_addrs_free(struct door_addrs **tp)
{
  struct door_addrs *t = *tp;
  if(!t)
    return;
  *tp = NULL;
  for(size_t i = 0; i < DOOR_BUCKETS; i++)
    for(struct door_addr *a = t->b[i], *next; a; a = next) {
      next = a->next;
      free(a);
    }
  pthread_mutex_destroy(&t->mu);
  free(t);
}

static void door_key(const struct sockaddr *sa, uint8_t key[16])
{
  memset(key, 0, 16);
  if(sa->sa_family == AF_INET6) {
    memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
  } else if(sa->sa_family == AF_INET) {
    key[10] = key[11] = 0xff;
    memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
  }
}

/* The entry of key (under mu), and where its link is. */
static struct door_addr **door_find(struct door_addrs *t, const uint8_t key[16])
{
  struct door_addr **p = &t->b[hash_fp64(key, 16) & (DOOR_BUCKETS - 1)];
  while(*p && memcmp((*p)->key, key, 16))
    p = &(*p)->next;
  return p;
}

bool door_addrs_take(struct door_addrs *t, const struct sockaddr *sa, long max)
{
  uint8_t key[16];
  bool ok = true;
  door_key(sa, key);
  pthread_mutex_lock(&t->mu);
  struct door_addr **p = door_find(t, key);
  if(!*p) {
    /* plain malloc: taken on one thread, released on another */
    struct door_addr *a = calloc(1, sizeof *a);
    if(a)
      memcpy(a->key, key, 16);
    *p = a;
  }
  if(!*p || (max > 0 && (*p)->n >= max))
    ok = false;
  else
    (*p)->n++;
  pthread_mutex_unlock(&t->mu);
  return ok;
}

void door_addrs_put(struct door_addrs *t, const struct sockaddr *sa)
{
  uint8_t key[16];
  door_key(sa, key);
  pthread_mutex_lock(&t->mu);
  struct door_addr **p = door_find(t, key);
  struct door_addr *a = *p;
  if(a && --a->n <= 0) {
    *p = a->next;
    free(a);
  }
  pthread_mutex_unlock(&t->mu);
}

long door_addrs_count(struct door_addrs *t, const struct sockaddr *sa)
{
  uint8_t key[16];
  door_key(sa, key);
  pthread_mutex_lock(&t->mu);
  struct door_addr *a = *door_find(t, key);
  long n = a ? a->n : 0;
  pthread_mutex_unlock(&t->mu);
  return n;
}

/* ---- per connection --------------------------------------------------- */

CLIST_FUNCS(dc, door_conns, struct door_conn, prev, next)

static void door_unlist(struct door *d, struct door_conn *c)
{
  if(c->authed || c->forced)
    return;
  dc_remove(&d->unauth, c);
}

static void door_release_addr(struct door *d, struct door_conn *c)
{
  if(c->holds_addr && d->addrs)
    door_addrs_put(d->addrs, (const struct sockaddr *)&c->sa);
  c->holds_addr = false;
}

static void door_force(struct door *d, struct door_conn *c, enum door_reason why)
{
  door_unlist(d, c);
  c->forced = true;
  d->closed[why]++;
  shutdown(c->fd, SHUT_RDWR);
}

struct door_conn *door_open(struct door *d, struct door_conn *c, uint64_t now_ms)
{
  c->t_open_ms = c->t_wait_ms = now_ms;
  dc_push_back(&d->unauth, c);
  if(d->max_unauth <= 0 || d->unauth.n <= (size_t)d->max_unauth)
    return NULL;
  /* The oldest that is not being answered: a request under way on an
   * unauthenticated connection is answered without waiting for anything. */
  for(struct door_conn *o = d->unauth.first; o && o != c; o = o->next)
    if(!o->busy) {
      door_force(d, o, DOOR_EVICTED);
      return o;
    }
  return NULL;
}

void door_authed(struct door *d, struct door_conn *c)
{
  if(c->authed)
    return;
  door_unlist(d, c);
  c->authed = true;
  door_release_addr(d, c);
}

void door_busy(struct door_conn *c, bool busy, uint64_t now_ms)
{
  c->busy = busy;
  if(!busy)
    c->t_wait_ms = now_ms;
}

void door_closed(struct door *d, struct door_conn *c)
{
  door_unlist(d, c);
  c->forced = true;   /* off every list from here */
  door_release_addr(d, c);
}

unsigned door_sweep(struct door *d, uint64_t now_ms)
{
  unsigned n = 0;
  if(!d->head_timeout_ms)
    return 0;
  for(struct door_conn *c = d->unauth.first, *next; c; c = next) {
    next = c->next;
    if(!c->busy && now_ms - c->t_wait_ms >= d->head_timeout_ms) {
      door_force(d, c, DOOR_HEAD_TIMEOUT);
      n++;
    }
  }
  return n;
}
