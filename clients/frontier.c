#include "clients/frontier.h"

#include <string.h>

#include "clients/fpmap.h"
#include "common/hash.h"
#include "common/mem.h"

#define L FRONTIER_LEVELS

struct fhost;

/* A URL. Queued: in its host's list for its level. Outstanding: in no list. */
struct fentry {
  struct fentry *prev, *next;
  struct fhost  *host;
  uint64_t       fp;
  uint32_t       depth, inlinks;
  uint8_t        level, base, outstanding;
  char           url[];
};

struct fqueue {
  struct fentry *head, *tail;
};

/* A host: its queues, and its place in each level's ring of hosts that
 * have URLs queued at that level. */
struct fhost {
  struct fhost *rnext[L], *rprev[L];
  struct fqueue q[L];
  uint64_t      key;
  uint32_t      queued, outstanding;
  char          name[];
};

struct frontier {
  struct frontier_opts  o;
  struct fpmap          entries;  /* url fp -> struct fentry * */
  struct fpmap          hosts;    /* host hash -> struct fhost * */
  struct fhost         *cursor[L];  /* next host to serve, per level */
  size_t                ring_n[L];
  size_t                bytes;      /* entries and hosts */
  struct frontier_stats st;
};

unsigned frontier_level_for(uint32_t inlinks)
{
  if(inlinks == 0)
    return 0;
  unsigned lvl = 1;
  while(inlinks > 1 && lvl < L - 1) {
    inlinks >>= 1;
    lvl++;
  }
  return lvl;
}

crawl_err frontier_open(const struct frontier_opts *o, struct frontier **out)
{
  struct frontier *f = mem_calloc(1, sizeof *f);
  *out = f;
  if(!f)
    return CRAWL_ERR_NOMEM;
  f->o = *o;
  /* The indexes may use a quarter of the budget each at most. */
  fpmap_init(&f->entries, o->max_bytes / 4);
  fpmap_init(&f->hosts, o->max_bytes / 4);
  return CRAWL_OK;
}

void frontier_close(struct frontier **fp)
{
  struct frontier *f = *fp;
  if(!f)
    return;
  *fp = NULL;
  size_t pos = 0;
  uint64_t k, v;
  while(fpmap_next(&f->entries, &pos, &k, &v))
    mem_free((void *)(uintptr_t)v);
  pos = 0;
  while(fpmap_next(&f->hosts, &pos, &k, &v))
    mem_free((void *)(uintptr_t)v);
  fpmap_free(&f->entries);
  fpmap_free(&f->hosts);
  mem_free(f);
}

/* ---- Rings of hosts, per level ------------------------------------------ */

static void ring_insert(struct frontier *f, struct fhost *h, unsigned l)
{
  struct fhost *c = f->cursor[l];
  if(!c) {
    h->rnext[l] = h->rprev[l] = h;
    f->cursor[l] = h;
  } else {  /* just behind the cursor: served last in this turn */
    h->rnext[l] = c;
    h->rprev[l] = c->rprev[l];
    c->rprev[l]->rnext[l] = h;
    c->rprev[l] = h;
  }
  f->ring_n[l]++;
}

static void ring_remove(struct frontier *f, struct fhost *h, unsigned l)
{
  if(h->rnext[l] == h) {
    f->cursor[l] = NULL;
  } else {
    h->rprev[l]->rnext[l] = h->rnext[l];
    h->rnext[l]->rprev[l] = h->rprev[l];
    if(f->cursor[l] == h)
      f->cursor[l] = h->rnext[l];
  }
  h->rnext[l] = h->rprev[l] = NULL;
  f->ring_n[l]--;
}

/* ---- Queues ------------------------------------------------------------- */

static void queue_link(struct frontier *f, struct fentry *e, bool at_head)
{
  struct fhost *h = e->host;
  struct fqueue *q = &h->q[e->level];
  bool was_empty = !q->head;
  e->prev = at_head ? NULL : q->tail;
  e->next = at_head ? q->head : NULL;
  if(at_head && q->head)
    q->head->prev = e;
  if(!at_head && q->tail)
    q->tail->next = e;
  if(at_head || !q->head)
    q->head = e;
  if(!at_head || !q->tail)
    q->tail = e;
  h->queued++;
  f->st.queued++;
  f->st.per_level[e->level]++;
  if(was_empty)
    ring_insert(f, h, e->level);
}

static void queue_unlink(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  struct fqueue *q = &h->q[e->level];
  if(e->prev)
    e->prev->next = e->next;
  else
    q->head = e->next;
  if(e->next)
    e->next->prev = e->prev;
  else
    q->tail = e->prev;
  e->prev = e->next = NULL;
  h->queued--;
  f->st.queued--;
  f->st.per_level[e->level]--;
  if(!q->head)
    ring_remove(f, h, e->level);
}

/* ---- Hosts -------------------------------------------------------------- */

static crawl_err host_get(struct frontier *f, const char *name, struct fhost **out)
{
  size_t n = strlen(name);
  uint64_t key = hash_fp64(name, n), *v;
  bool added;
  if(f->bytes + sizeof(struct fhost) + n + 1 > f->o.max_bytes / 2)
    return CRAWL_ERR_FULL;
  crawl_err e = fpmap_put(&f->hosts, key, &v, &added);
  if(e || !added) {
    *out = e ? NULL : (struct fhost *)(uintptr_t)*v;
    return e;
  }
  struct fhost *h = mem_calloc(1, sizeof *h + n + 1);
  if(!h) {
    fpmap_del(&f->hosts, key);
    return CRAWL_ERR_NOMEM;
  }
  h->key = key;
  memcpy(h->name, name, n + 1);
  *v = (uint64_t)(uintptr_t)h;
  f->bytes += sizeof *h + n + 1;
  *out = h;
  return CRAWL_OK;
}

static void host_release_if_idle(struct frontier *f, struct fhost *h)
{
  if(h->queued || h->outstanding)
    return;
  fpmap_del(&f->hosts, h->key);
  f->bytes -= sizeof *h + strlen(h->name) + 1;
  mem_free(h);
}

/* ---- Entries ------------------------------------------------------------ */

static struct fentry *entry_find(struct frontier *f, uint64_t fp)
{
  uint64_t *v = fpmap_get(&f->entries, fp);
  return v ? (struct fentry *)(uintptr_t)*v : NULL;
}

static size_t entry_size(const struct fentry *e)
{
  return sizeof *e + strlen(e->url) + 1;
}

static void entry_free(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  fpmap_del(&f->entries, e->fp);
  f->bytes -= entry_size(e);
  mem_free(e);
  host_release_if_idle(f, h);
}

static unsigned entry_level(const struct fentry *e)
{
  unsigned l = frontier_level_for(e->inlinks);
  return l > e->base ? l : e->base;
}

static crawl_err entry_new(struct frontier *f, const char *url, struct fhost *h,
                           uint32_t depth, unsigned level, struct fentry **out)
{
  size_t n = strlen(url);
  uint64_t fp = hash_fp64(url, n), *v;
  bool added;
  if(f->bytes + sizeof(struct fentry) + n + 1 > f->o.max_bytes / 2)
    return CRAWL_ERR_FULL;
  crawl_err e = fpmap_put(&f->entries, fp, &v, &added);
  if(!e && !added)
    e = CRAWL_ERR_INVALID;
  if(e)
    return e;
  struct fentry *en = mem_calloc(1, sizeof *en + n + 1);
  if(!en) {
    fpmap_del(&f->entries, fp);
    return CRAWL_ERR_NOMEM;
  }
  /* The link that led here is the first in-link. */
  *en = (struct fentry){ NULL, NULL, h, fp, depth, 1, 0,
                         (uint8_t)(level < L ? level : L - 1), 0 };
  memcpy(en->url, url, n + 1);
  en->level = (uint8_t)entry_level(en);
  *v = (uint64_t)(uintptr_t)en;
  f->bytes += entry_size(en);
  *out = en;
  return CRAWL_OK;
}

crawl_err frontier_push(struct frontier *f, const char *url, const char *host,
                        uint32_t depth, unsigned level)
{
  struct fhost *h;
  struct fentry *en;
  crawl_err e = host_get(f, host, &h);
  if(e)
    return e;
  e = entry_new(f, url, h, depth, level, &en);
  if(e) {
    host_release_if_idle(f, h);
    return e;
  }
  queue_link(f, en, false);
  f->st.pushed++;
  return CRAWL_OK;
}

bool frontier_has(struct frontier *f, uint64_t fp)
{
  return entry_find(f, fp) != NULL;
}

const char *frontier_url(struct frontier *f, uint64_t fp)
{
  struct fentry *e = entry_find(f, fp);
  return e ? e->url : NULL;
}

bool frontier_depth(struct frontier *f, uint64_t fp, uint32_t *depth)
{
  struct fentry *e = entry_find(f, fp);
  if(e)
    *depth = e->depth;
  return e != NULL;
}

bool frontier_bump(struct frontier *f, uint64_t fp)
{
  struct fentry *e = entry_find(f, fp);
  if(!e)
    return false;
  if(e->inlinks < UINT32_MAX)
    e->inlinks++;
  f->st.bumped++;
  unsigned lvl = entry_level(e);
  if(e->outstanding || lvl == e->level)
    return true;
  queue_unlink(f, e);
  e->level = (uint8_t)lvl;
  queue_link(f, e, false);
  f->st.promoted++;
  return true;
}

/* ---- Taking ------------------------------------------------------------- */

static bool host_blocked(const struct frontier *f, const struct fhost *h)
{
  return f->o.max_per_host && h->outstanding >= f->o.max_per_host;
}

static void take_one(struct frontier *f, struct fhost *h, unsigned l,
                     struct frontier_item *out)
{
  struct fentry *e = h->q[l].head;
  queue_unlink(f, e);
  e->outstanding = 1;
  h->outstanding++;
  f->st.outstanding++;
  f->st.taken++;
  *out = (struct frontier_item){ e->url, e->fp, l, e->depth };
}

/* Round robin over the hosts of one level until max or no host can give. */
static size_t take_level(struct frontier *f, unsigned l, size_t max,
                         struct frontier_item *out)
{
  size_t n = 0;
  bool progress = true;
  while(progress && n < max && f->ring_n[l]) {
    size_t steps = f->ring_n[l];
    progress = false;
    for(size_t s = 0; s < steps && n < max && f->cursor[l]; s++) {
      struct fhost *h = f->cursor[l];
      f->cursor[l] = h->rnext[l];
      if(host_blocked(f, h))
        continue;
      take_one(f, h, l, &out[n++]);
      progress = true;
    }
  }
  return n;
}

size_t frontier_take(struct frontier *f, size_t max, struct frontier_item *out)
{
  size_t n = 0;
  for(int l = L - 1; l >= 0 && n < max; l--)
    n += take_level(f, (unsigned)l, max - n, out + n);
  return n;
}

crawl_err frontier_done(struct frontier *f, uint64_t fp, uint32_t *depth)
{
  struct fentry *e = entry_find(f, fp);
  if(!e)
    return CRAWL_ERR_NOT_FOUND;
  if(depth)
    *depth = e->depth;
  f->st.done++;
  frontier_remove(f, fp);
  return CRAWL_OK;
}

crawl_err frontier_retry(struct frontier *f, uint64_t fp)
{
  struct fentry *e = entry_find(f, fp);
  if(!e || !e->outstanding)
    return CRAWL_ERR_NOT_FOUND;
  e->outstanding = 0;
  e->host->outstanding--;
  f->st.outstanding--;
  f->st.retried++;
  queue_link(f, e, true);
  return CRAWL_OK;
}

bool frontier_remove(struct frontier *f, uint64_t fp)
{
  struct fentry *e = entry_find(f, fp);
  if(!e)
    return false;
  if(e->outstanding) {
    e->host->outstanding--;
    f->st.outstanding--;
  } else {
    queue_unlink(f, e);
  }
  entry_free(f, e);
  return true;
}

void frontier_stats(const struct frontier *f, struct frontier_stats *st)
{
  *st = f->st;
  st->hosts = f->hosts.count;
  st->bytes = f->bytes + fpmap_bytes(&f->entries) + fpmap_bytes(&f->hosts);
}

/* ---- Checkpoints -------------------------------------------------------- */

static void entry_save(const struct fentry *e, struct ckfile *c)
{
  ckfile_put_str(c, e->url);
  ckfile_put_str(c, e->host->name);
  ckfile_put_u64(c, e->depth);
  ckfile_put_u64(c, e->base);
  ckfile_put_u64(c, e->inlinks);
}

void frontier_save(const struct frontier *f, struct ckfile *c)
{
  ckfile_put_u64(c, f->st.outstanding + f->st.queued);
  size_t pos = 0;
  uint64_t k, v;
  while(fpmap_next(&f->entries, &pos, &k, &v))
    if(((const struct fentry *)(uintptr_t)v)->outstanding)
      entry_save((const struct fentry *)(uintptr_t)v, c);
  pos = 0;
  while(fpmap_next(&f->hosts, &pos, &k, &v)) {
    const struct fhost *h = (const struct fhost *)(uintptr_t)v;
    for(unsigned l = 0; l < L; l++)
      for(const struct fentry *e = h->q[l].head; e; e = e->next)
        entry_save(e, c);
  }
  ckfile_put_u64(c, f->st.pushed);
  ckfile_put_u64(c, f->st.done);
}

void frontier_load(struct frontier *f, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    char *url = ckfile_get_str(c, 1u << 20), *host = ckfile_get_str(c, 1024);
    uint32_t depth = (uint32_t)ckfile_get_u64(c);
    unsigned base = (unsigned)ckfile_get_u64(c);
    uint32_t inlinks = (uint32_t)ckfile_get_u64(c);
    crawl_err e = url && host ? frontier_push(f, url, host, depth, base) : CRAWL_OK;
    struct fentry *en = url ? entry_find(f, hash_fp64(url, strlen(url))) : NULL;
    if(!e && en) {
      queue_unlink(f, en);
      en->inlinks = inlinks;
      en->level = (uint8_t)entry_level(en);
      queue_link(f, en, false);
    }
    if(e)
      ckfile_fail(c, e);
    mem_free(url);
    mem_free(host);
  }
  f->st.pushed = ckfile_get_u64(c);
  f->st.done = ckfile_get_u64(c);
}
