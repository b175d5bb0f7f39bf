/* site_mode=ip: a batch's host names resolved through the fetcher, each
 * distinct name once (fetch.h, fetch_resolve). The URLs of one name are
 * chained by index, found through an open-addressed set of the names, so
 * grouping and filling the answers are both linear in the batch. */
#include "hlfs/fetch/fetch.h"

#include <stdio.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"
#include "common/url.h"
#include "hlfs/fetch/llfs_client.h"

#define NONE ((size_t)-1)

struct resolve_op;

struct resolve_host {
  struct resolve_op *op;
  size_t             first;  /* the first URL of this name; next[] chains the rest */
  char               name[URL_HOST_MAX + 1];
};

struct resolve_op {
  char              (*addr)[FETCH_ADDR_MAX];
  size_t             *next;    /* per URL: the next URL of its name, or NONE */
  size_t             *set;     /* open addressing: host index + 1, 0 empty */
  size_t              set_cap; /* a power of two, over twice the URLs */
  struct resolve_host **host;  /* one allocation per distinct name */
  size_t              nhosts;
  size_t              pending; /* answers awaited, plus one while starting */
  fetch_resolved_cb  *cb;
  void               *arg;
};

static void op_free(struct resolve_op *op)
{
  for(size_t h = 0; op->host && h < op->nhosts; h++)
    mem_free(op->host[h]);
  mem_free(op->next);
  mem_free(op->set);
  mem_free(op->host);
  mem_free(op);
}

static void op_release(struct resolve_op *op)
{
  if(--op->pending)
    return;
  op->cb(op->arg);
  op_free(op);
}

static void on_resolved(void *arg, const char *addr)
{
  struct resolve_host *h = arg;
  struct resolve_op *op = h->op;
  for(size_t k = h->first; addr && k != NONE; k = op->next[k])
    snprintf(op->addr[k], FETCH_ADDR_MAX, "%s", addr);
  op_release(op);
}

/* URL i under name: chained to its name's URLs, the name added if new
 * (-1: out of memory). */
static int op_group(struct resolve_op *op, const char *name, size_t i)
{
  size_t len = strlen(name), mask = op->set_cap - 1;
  size_t at = (size_t)hash_fp64(name, len) & mask;
  for(; op->set[at]; at = (at + 1) & mask) {
    struct resolve_host *h = op->host[op->set[at] - 1];
    if(!strcmp(h->name, name)) {
      op->next[i] = h->first;
      h->first = i;
      return 0;
    }
  }
  struct resolve_host *h = mem_alloc(sizeof *h);
  if(!h)
    return -1;
  op->host[op->nhosts++] = h;
  h->op = op;
  h->first = i;
  op->next[i] = NONE;
  memcpy(h->name, name, len + 1);
  op->set[at] = op->nhosts;
  return 0;
}

static struct resolve_op *op_new(size_t n)
{
  struct resolve_op *op = mem_calloc(1, sizeof *op);
  if(!op)
    return NULL;
  op->set_cap = 16;
  while(op->set_cap < 2 * n + 1)
    op->set_cap *= 2;
  op->next = mem_alloc((n ? n : 1) * sizeof *op->next);
  op->set = mem_calloc(op->set_cap, sizeof *op->set);
  op->host = mem_alloc((n ? n : 1) * sizeof *op->host);
  if(!op->next || !op->set || !op->host) {
    op_free(op);
    return NULL;
  }
  return op;
}

int fetch_resolve(struct fetch *fx, const char *const *urls, size_t n,
                  char (*addr)[FETCH_ADDR_MAX], fetch_resolved_cb *cb, void *arg)
{
  struct resolve_op *op = op_new(n);
  if(!op)
    return -1;
  *op = (struct resolve_op){ .addr = addr, .next = op->next, .set = op->set,
                             .set_cap = op->set_cap, .host = op->host, .cb = cb, .arg = arg };
  for(size_t i = 0; i < n; i++) {
    struct url_parts up;
    if(!urls[i] || url_split(urls[i], &up) != URL_OK)
      continue;
    if(up.host_kind != URL_HOST_NAME) {  /* a literal is its own site */
      snprintf(addr[i], FETCH_ADDR_MAX, "%.47s", up.host);
    } else if(op_group(op, up.host, i)) {
      op_free(op);
      return -1;
    }
  }
  op->pending = op->nhosts + 1;  /* held while starting */
  for(size_t h = 0; h < op->nhosts; h++)
    if(llfs_client_resolve(fx->llfs, op->host[h]->name, on_resolved, op->host[h]))
      op->pending--;  /* not asked: its URLs keep their host as the site */
  op_release(op);
  return 0;
}
