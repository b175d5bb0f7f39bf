/* c-ares on the libuv loop: its sockets are watched with uv_poll (told by
 * the sock-state callback), its retransmits and timeouts with one uv_timer
 * set from ares_timeout(). Only this file sees ARES_* codes. */
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/mem.h"
#include "llfs/dns_int.h"

static enum outcome dns_ares_outcome(int st)
{
  switch(st) {
  case ARES_SUCCESS:     return OUTCOME_OK;
  case ARES_ENOTFOUND:
  case ARES_ENODATA:     return OUTCOME_DNS_NXDOMAIN;
  case ARES_ESERVFAIL:   return OUTCOME_DNS_SERVFAIL;
  case ARES_ETIMEOUT:    return OUTCOME_DNS_TIMEOUT;
  case ARES_ENOMEM:      return OUTCOME_NOMEM;
  case ARES_EBADNAME:    return OUTCOME_BAD_URL;
  case ARES_EDESTRUCTION:
  case ARES_ECANCELLED:  return OUTCOME_SHUTTING_DOWN;
  default:               return OUTCOME_DNS_ERROR;
  }
}

static void dns_ares_on_timer(uv_timer_t *t);

static void dns_ares_timer_update(struct dns *d)
{
  struct timeval tv;
  if(d->freeing)
    return;
  if(!ares_timeout(d->channel, NULL, &tv)) {
    uv_timer_stop(&d->ares_timer);
    return;
  }
  uint64_t ms = (uint64_t)tv.tv_sec * 1000 + ((uint64_t)tv.tv_usec + 999) / 1000;
  uv_timer_start(&d->ares_timer, dns_ares_on_timer, ms, 0);
}

static void dns_ares_on_timer(uv_timer_t *t)
{
  struct dns *d = t->data;
  CHECK(d && d->magic == DNS_MAGIC);
  ares_process_fd(d->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
  dns_ares_timer_update(d);
}

static void dns_ares_on_poll(uv_poll_t *p, int status, int events)
{
  struct dns_sock *s = p->data;
  CHECK(s && s->magic == DNS_SOCK_MAGIC);
  struct dns *d = s->d;
  CHECK(d->magic == DNS_MAGIC);
  int fd = s->fd;
  /* On an error libuv stops the handle: c-ares reads to find out, and the
   * handle is restarted if c-ares keeps the socket (s stays allocated
   * until its close callback, which runs later). */
  bool rd = status < 0 || (events & UV_READABLE);
  bool wr = status < 0 || (events & UV_WRITABLE);
  ares_process_fd(d->channel, rd ? fd : ARES_SOCKET_BAD, wr ? fd : ARES_SOCKET_BAD);
  if(status < 0 && !s->closing)
    uv_poll_start(&s->poll, s->events, dns_ares_on_poll);
  dns_ares_timer_update(d);
}

static struct dns_sock *dns_sock_find(struct dns *d, int fd)
{
  for(struct dns_sock *s = d->socks; s; s = s->next)
    if(s->fd == fd)
      return s;
  return NULL;
}

static struct dns_sock *dns_sock_open(struct dns *d, int fd)
{
  struct dns_sock *s = mem_calloc(1, sizeof *s);
  if(!s)
    return NULL;
  if(uv_poll_init_socket(d->loop, &s->poll, fd)) {
    mem_free(s);
    return NULL;
  }
  s->magic = DNS_SOCK_MAGIC;
  s->fd = fd;
  s->d = d;
  s->poll.data = s;
  s->next = d->socks;
  d->socks = s;
  d->open_handles++;
  return s;
}

static void dns_sock_close(struct dns *d, struct dns_sock *s)
{
  struct dns_sock **pp = &d->socks;
  while(*pp != s)
    pp = &(*pp)->next;
  *pp = s->next;
  s->closing = true;
  uv_poll_stop(&s->poll);
  /* c-ares closes the fd right after this callback; the poll handle is
   * already stopped, and is released once libuv has let go of it. */
  uv_close((uv_handle_t *)&s->poll, dns_handle_closed);
}

static void dns_ares_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
  struct dns *d = data;
  struct dns_sock *s = dns_sock_find(d, fd);
  if(!readable && !writable) {
    if(s)
      dns_sock_close(d, s);
    return;
  }
  if(!s && !(s = dns_sock_open(d, fd)))
    return;   /* out of memory: the query times out */
  s->events = (readable ? UV_READABLE : 0) | (writable ? UV_WRITABLE : 0);
  uv_poll_start(&s->poll, s->events, dns_ares_on_poll);
}

/* Smallest TTL over the address records and CNAMEs that led to them. */
static long dns_ares_ttl(const struct ares_addrinfo *ai)
{
  long ttl = LONG_MAX;
  for(const struct ares_addrinfo_node *n = ai->nodes; n; n = n->ai_next)
    if(n->ai_ttl < ttl)
      ttl = n->ai_ttl;
  for(const struct ares_addrinfo_cname *c = ai->cnames; c; c = c->next)
    if(c->ttl < ttl)
      ttl = c->ttl;
  return ttl < 0 ? 0 : ttl;
}

/* IPv4 first, then IPv6, each in answer order, at most DNS_MAX_ADDRS. */
static size_t dns_ares_addrs(const struct ares_addrinfo *ai, struct dns_addr *out)
{
  size_t n = 0;
  static const int fam[2] = { AF_INET, AF_INET6 };
  for(int pass = 0; pass < 2; pass++)
    for(const struct ares_addrinfo_node *a = ai->nodes; a && n < DNS_MAX_ADDRS; a = a->ai_next) {
      if(a->ai_family != fam[pass])
        continue;
      out[n].family = a->ai_family;
      if(a->ai_family == AF_INET)
        memcpy(out[n].b, &((const struct sockaddr_in *)(const void *)a->ai_addr)->sin_addr, 4);
      else
        memcpy(out[n].b, &((const struct sockaddr_in6 *)(const void *)a->ai_addr)->sin6_addr, 16);
      n++;
    }
  return n;
}

static void dns_ares_on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *ai)
{
  struct dns_entry *e = arg;
  struct dns_addr addr[DNS_MAX_ADDRS];
  (void)timeouts;
  CHECK(e->magic == DNS_ENTRY_MAGIC);
  enum outcome o = dns_ares_outcome(status);
  size_t n = 0;
  long ttl = 0;
  if(o == OUTCOME_OK && ai) {
    n = dns_ares_addrs(ai, addr);
    ttl = dns_ares_ttl(ai);
  }
  if(o == OUTCOME_OK && n == 0)
    o = OUTCOME_DNS_NXDOMAIN;
  if(ai)
    ares_freeaddrinfo(ai);
  dns_query_done(e, o, addr, n, ttl);
}

void dns_ares_query(struct dns *d, struct dns_entry *e)
{
  char name[DNS_NAME_MAX + 2];
  /* The trailing dot makes the name absolute: no search domains, so one
   * name costs one A and one AAAA question. */
  snprintf(name, sizeof name, "%s.", e->name);
  struct ares_addrinfo_hints hints = { .ai_flags = ARES_AI_NOSORT, .ai_family = AF_UNSPEC };
  ares_getaddrinfo(d->channel, name, NULL, &hints, dns_ares_on_answer, e);
  dns_ares_timer_update(d);
}

int dns_ares_init(struct dns *d, char *err, size_t errlen)
{
  struct ares_options o;
  memset(&o, 0, sizeof o);
  long per_try = d->cfg.timeout_ms / 3;
  o.timeout = per_try > 0 ? (int)per_try : 1;
  o.tries = 2;
  o.ndots = 1;
  /* Take SERVFAIL and REFUSED as answers: c-ares 1.18 otherwise retries
   * and then reports every such failure as "could not contact servers",
   * and a caching resolver has already retried upstream. */
  o.flags = ARES_FLAG_NOCHECKRESP;
  o.lookups = (char *)"b";   /* DNS only: no /etc/hosts */
  o.sock_state_cb = dns_ares_sock_state;
  o.sock_state_cb_data = d;
  int mask = ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_NDOTS | ARES_OPT_LOOKUPS |
             ARES_OPT_SOCK_STATE_CB;
  int rc = ares_init_options(&d->channel, &o, mask);
  if(rc != ARES_SUCCESS) {
    snprintf(err, errlen, "c-ares: %s", ares_strerror(rc));
    return -1;
  }
  d->channel_ok = true;
  const char *servers = d->cfg.servers;
  if(servers && *servers &&
     (rc = ares_set_servers_ports_csv(d->channel, servers)) != ARES_SUCCESS) {
    snprintf(err, errlen, "dns servers \"%.128s\": %s", servers, ares_strerror(rc));
    return -1;
  }
  return 0;
}

void dns_ares_fini(struct dns *d)
{
  if(!d->channel_ok)
    return;
  /* Pending queries end here with ARES_EDESTRUCTION (d->freeing is set:
   * d's own waiters are gone, other resolvers' hear shutting_down) and the
   * sock-state callback closes every poll handle. */
  ares_destroy(d->channel);
  d->channel_ok = false;
}
