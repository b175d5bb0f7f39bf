/* URLs waiting for their host's robots.txt (robots_wait.h). */
#include "clients/crawl/robots_wait.h"

#include <string.h>

#include "clients/base/fpmap.h"
#include "common/mem.h"

#define RWAIT_MAX_HOSTS (1u << 24)  /* a checkpoint's count past this is damage */

struct rw_host {
  uint64_t  key;
  uint64_t  due;      /* end of the round under way; 0: none */
  unsigned  rounds;   /* rounds started */
  uint64_t *fp;       /* its waiting URLs */
  size_t    n, cap;
};

struct rwait {
  struct rwait_opts o;
  struct fpmap      idx;      /* host key -> index in h */
  struct fpmap      parked;   /* waiting URL -> its host's index */
  struct rw_host   *h;
  size_t            nh, caph;
  size_t            bytes;    /* h and the URL lists */
  size_t            waiting, busy;  /* URLs waiting, hosts with a round under way */
  uint64_t          next_due; /* no round ends before this (0: none under way) */
};

/* Causes that say robots.txt could not be read for now, not for good
 * (docs/crawler.md has the table and why). Everything else is final:
 * dns_nxdomain, connect_refused, blocked_address, tls_error, ... */
static const char *const transient[] = {
  "timeout", "connect_timeout", "reset", "connect_error", "dns_servfail", "dns_timeout",
  "robots_5xx", "robots_429", "fetcher_unavailable", "robots_hop_busy", "robots_hop_timeout",
};

bool rwait_transient(const char *cause)
{
  for(size_t i = 0; cause && i < sizeof transient / sizeof transient[0]; i++)
    if(!strcmp(cause, transient[i]))
      return true;
  return false;
}

/* The wait of a host's round'th round (1 first): base doubled, capped. */
static uint64_t rwait_delay(const struct rwait_opts *o, unsigned round)
{
  uint64_t d = o->base_ms;
  for(unsigned i = 1; i < round && d < o->max_ms; i++)
    d *= 2;
  return d < o->max_ms ? d : o->max_ms;
}

crawl_err rwait_open(const struct rwait_opts *o, struct rwait **out)
{
  struct rwait *r = mem_calloc(1, sizeof *r);
  *out = NULL;
  if(!r)
    return CRAWL_ERR_NOMEM;
  r->o = *o;
  fpmap_init(&r->idx, o->max_bytes / 4);
  fpmap_init(&r->parked, o->max_bytes / 4);
  *out = r;
  return CRAWL_OK;
}

void rwait_close(struct rwait **rp)
{
  struct rwait *r = *rp;
  if(!r)
    return;
  *rp = NULL;
  for(size_t i = 0; i < r->nh; i++)
    mem_free(r->h[i].fp);
  mem_free(r->h);
  fpmap_free(&r->idx);
  fpmap_free(&r->parked);
  mem_free(r);
}

/* v (of *cap elements of size sz, n used) with room for one more, within
 * the byte budget: v itself, or moved; NULL when there is no room (v is
 * left as it was). */
static void *grow(struct rwait *r, void *v, size_t *cap, size_t n, size_t sz)
{
  if(n < *cap)
    return v;
  size_t ncap = *cap ? *cap * 2 : 8;
  size_t more = (ncap - *cap) * sz;
  if(r->bytes + more > r->o.max_bytes / 2)
    return NULL;
  void *p = mem_realloc(v, ncap * sz);
  if(!p)
    return NULL;
  *cap = ncap;
  r->bytes += more;
  return p;
}

static struct rw_host *host_get(struct rwait *r, uint64_t key, bool make)
{
  uint64_t *v = fpmap_get(&r->idx, key);
  if(v)
    return &r->h[*v];
  struct rw_host *grown = make ? grow(r, r->h, &r->caph, r->nh, sizeof *r->h) : NULL;
  if(!grown)
    return NULL;
  r->h = grown;
  bool added;
  if(fpmap_put(&r->idx, key, &v, &added) != CRAWL_OK)
    return NULL;
  *v = r->nh;
  struct rw_host *h = &r->h[r->nh++];
  memset(h, 0, sizeof *h);
  h->key = key;
  return h;
}

static void round_start(struct rwait *r, struct rw_host *h, uint64_t now, uint64_t gw_at)
{
  h->rounds++;
  h->due = now + rwait_delay(&r->o, h->rounds);
  uint64_t gw_due = gw_at ? gw_at + RWAIT_GW_MARGIN_MS : 0;
  uint64_t cap = now + r->o.max_ms;
  if(gw_due > h->due)
    h->due = gw_due < cap ? gw_due : (cap > h->due ? cap : h->due);
  r->busy++;
  if(!r->next_due || h->due < r->next_due)
    r->next_due = h->due;
}

enum rwait_verdict rwait_park(struct rwait *r, uint64_t host, uint64_t fp, uint64_t now,
                              uint64_t gw_retry_at, unsigned *round, bool *started,
                              uint64_t *due)
{
  bool s = false;
  if(started)
    *started = false;
  struct rw_host *h = r->o.rounds ? host_get(r, host, true) : NULL;
  if(!h)
    return RWAIT_FULL;
  if(!h->due && h->rounds >= r->o.rounds)
    return RWAIT_SPENT;
  uint64_t *fps = grow(r, h->fp, &h->cap, h->n, sizeof *h->fp);
  if(!fps)
    return RWAIT_FULL;
  h->fp = fps;
  uint64_t *v;
  bool added;
  if(fpmap_put(&r->parked, fp, &v, &added) != CRAWL_OK)
    return RWAIT_FULL;
  if(!h->due) {
    round_start(r, h, now, gw_retry_at);
    s = true;
  }
  if(added) {
    *v = (uint64_t)(h - r->h);
    h->fp[h->n++] = fp;
    r->waiting++;
  }
  if(round)
    *round = h->rounds;
  if(started)
    *started = s;
  if(due)
    *due = h->due;
  return RWAIT_WAITS;
}

/* Up to max of h's URLs into out; its round ends with the last. */
static size_t host_release(struct rwait *r, struct rw_host *h, uint64_t *out, size_t max)
{
  size_t k = 0;
  while(h->n && k < max) {
    uint64_t fp = h->fp[--h->n];
    fpmap_del(&r->parked, fp);
    out[k++] = fp;
  }
  r->waiting -= k;
  if(!h->n) {  /* the round is over; its list's memory goes back to the budget */
    h->due = 0;
    r->busy--;
    r->bytes -= h->cap * sizeof *h->fp;
    mem_free(h->fp);
    h->fp = NULL;
    h->cap = 0;
  }
  return k;
}

size_t rwait_due(struct rwait *r, uint64_t now, uint64_t *out, size_t max)
{
  if(!r->next_due || now < r->next_due || !max)
    return 0;
  size_t k = 0;
  uint64_t next = 0;
  for(size_t i = 0; i < r->nh; i++) {
    struct rw_host *h = &r->h[i];
    if(h->due && h->due <= now && k < max)
      k += host_release(r, h, out + k, max - k);
    if(h->due && (!next || h->due < next))
      next = h->due;
  }
  r->next_due = next;
  return k;
}

void rwait_stats(const struct rwait *r, struct rwait_stats *st)
{
  st->waiting = r->waiting;
  st->hosts = r->busy;
  st->next_due = r->next_due;
  st->bytes = r->bytes;
}

void rwait_save(const struct rwait *r, struct ckfile *c)
{
  ckfile_put_u64(c, r->nh);
  for(size_t i = 0; i < r->nh; i++) {
    ckfile_put_u64(c, r->h[i].key);
    ckfile_put_u64(c, r->h[i].rounds);
    ckfile_put_u64(c, r->h[i].due);
  }
}

void rwait_load(struct rwait *r, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  if(n > RWAIT_MAX_HOSTS) {
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
    return;
  }
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t key = ckfile_get_u64(c), rounds = ckfile_get_u64(c), due = ckfile_get_u64(c);
    struct rw_host *h = host_get(r, key, true);
    if(!h) {
      ckfile_fail(c, CRAWL_ERR_TOO_LARGE);
      return;
    }
    h->rounds = rounds > r->o.rounds ? r->o.rounds : (unsigned)rounds;
    if(due && !h->due) {  /* its URLs are queued again: they rejoin it if they fail */
      h->due = due;
      r->busy++;
      if(!r->next_due || due < r->next_due)
        r->next_due = due;
    }
  }
}
