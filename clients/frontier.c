#include "clients/frontier.h"

#include <string.h>

#include "clients/fpmap.h"
#include "clients/frontier_disk.h"
#include "common/hash.h"
#include "common/mem.h"

#define L FRONTIER_LEVELS
#define SEG_BYTES_DEFAULT (64u << 20)
#define REC_MAX   2560u  /* a record of a URL of 2,048 bytes and a host of 253 */
#define TOMB_BYTES (16u << 20)

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
  size_t                cap;      /* for entries and hosts */
  struct frontier_disk *disk;     /* NULL: no directory */
  struct fpmap          tomb;     /* finished while maybe on disk */
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

/* Each level's disk buffer holds a record at least; all of them take an
 * eighth of the budget at most, out of the half for entries and hosts. */
static size_t disk_buf_bytes(size_t max_bytes)
{
  size_t b = max_bytes / 64;
  if(b > (64u << 10))
    b = 64u << 10;
  return b < REC_MAX ? REC_MAX : b;
}

crawl_err frontier_open(const struct frontier_opts *o, struct frontier **out)
{
  struct frontier *f = mem_calloc(1, sizeof *f);
  *out = f;
  if(!f)
    return CRAWL_ERR_NOMEM;
  f->o = *o;
  f->cap = o->max_bytes / 2;
  /* The indexes may use a quarter of the budget each at most. */
  fpmap_init(&f->entries, o->max_bytes / 4);
  fpmap_init(&f->hosts, o->max_bytes / 4);
  fpmap_init(&f->tomb, TOMB_BYTES);
  if(!o->dir)
    return CRAWL_OK;
  size_t buf = disk_buf_bytes(o->max_bytes);
  f->cap = f->cap > L * buf + o->max_bytes / 8 ? f->cap - L * buf : o->max_bytes / 8;
  return frontier_disk_open(o->dir, o->wq, buf, o->seg_bytes ? o->seg_bytes : SEG_BYTES_DEFAULT,
                            &f->disk);
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
  fpmap_free(&f->tomb);
  frontier_disk_close(&f->disk);
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
  if(f->bytes + sizeof(struct fhost) + n + 1 > f->cap)
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
                           uint32_t depth, unsigned base, uint32_t inlinks,
                           struct fentry **out)
{
  size_t n = strlen(url);
  uint64_t fp = hash_fp64(url, n), *v;
  bool added;
  if(f->bytes + sizeof(struct fentry) + n + 1 > f->cap)
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
  *en = (struct fentry){ NULL, NULL, h, fp, depth, inlinks ? inlinks : 1, 0,
                         (uint8_t)(base < L ? base : L - 1), 0 };
  memcpy(en->url, url, n + 1);
  en->level = (uint8_t)entry_level(en);
  *v = (uint64_t)(uintptr_t)en;
  f->bytes += entry_size(en);
  *out = en;
  return CRAWL_OK;
}

/* Into memory, at the tail of its host's queue for its level. */
static crawl_err push_mem(struct frontier *f, const char *url, const char *host,
                          uint32_t depth, unsigned base, uint32_t inlinks)
{
  struct fhost *h;
  struct fentry *en;
  crawl_err e = host_get(f, host, &h);
  if(e)
    return e;
  e = entry_new(f, url, h, depth, base, inlinks, &en);
  if(e) {
    host_release_if_idle(f, h);
    return e;
  }
  queue_link(f, en, false);
  size_t urls = f->st.queued + f->st.outstanding;
  if(urls > f->st.peak_urls) {  /* for bytes per URL at the fullest */
    f->st.peak_urls = urls;
    f->st.peak_bytes = f->bytes + fpmap_bytes(&f->entries) + fpmap_bytes(&f->hosts);
  }
  return CRAWL_OK;
}

/* The level a URL of this push level and in-links is queued at. */
static unsigned push_level(unsigned base, uint32_t inlinks)
{
  unsigned l = frontier_level_for(inlinks ? inlinks : 1);
  base = base < L ? base : L - 1;
  return l > base ? l : base;
}

static crawl_err push_disk(struct frontier *f, const char *url, const char *host,
                           uint32_t depth, unsigned base, uint32_t inlinks)
{
  struct frontier_rec r = { url, host, strlen(url), strlen(host), depth,
                            inlinks ? inlinks : 1, base < L ? base : L - 1 };
  crawl_err e = frontier_disk_put(f->disk, push_level(base, inlinks), &r);
  return e == CRAWL_ERR_INVALID ? CRAWL_ERR_FULL : e;  /* a URL too long for a record */
}

/* Memory first, unless the level has URLs on disk (they are older). */
static crawl_err push_any(struct frontier *f, const char *url, const char *host,
                          uint32_t depth, unsigned base, uint32_t inlinks)
{
  if(f->disk && frontier_disk_queued(f->disk, push_level(base, inlinks)) > 0)
    return push_disk(f, url, host, depth, base, inlinks);
  crawl_err e = push_mem(f, url, host, depth, base, inlinks);
  if(e == CRAWL_ERR_FULL && f->disk)
    e = push_disk(f, url, host, depth, base, inlinks);
  return e;
}

crawl_err frontier_push(struct frontier *f, const char *url, const char *host,
                        uint32_t depth, unsigned level)
{
  crawl_err e = push_any(f, url, host, depth, level, 1);
  f->st.pushed += e == CRAWL_OK;
  return e;
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
  frontier_refill(f);
  for(int l = L - 1; l >= 0 && n < max; l--)
    n += take_level(f, (unsigned)l, max - n, out + n);
  return n;
}

/* ---- Disk --------------------------------------------------------------- */

/* frontier_disk_fn: a URL read back. */
static bool refill_one(void *arg, const struct frontier_rec *r)
{
  struct frontier *f = arg;
  char *url = mem_strndup(r->url, r->url_len), *host = mem_strndup(r->host, r->host_len);
  crawl_err e = url && host ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e && fpmap_del(&f->tomb, hash_fp64(url, r->url_len)))
    e = CRAWL_ERR_NOT_FOUND;  /* finished before a crash: skipped */
  else if(!e)
    e = push_mem(f, url, host, r->depth, r->base, r->inlinks);
  mem_free(url);
  mem_free(host);
  /* In memory already (CRAWL_ERR_INVALID) cannot happen: a URL is new once. */
  return e == CRAWL_OK || e == CRAWL_ERR_NOT_FOUND || e == CRAWL_ERR_INVALID;
}

void frontier_refill(struct frontier *f)
{
  if(!f->disk || frontier_disk_reading(f->disk))
    return;
  struct frontier_disk_stats ds;
  frontier_disk_stats(f->disk, &ds);
  if(ds.queued == 0 && f->tomb.count > 0) {  /* nothing left to skip */
    fpmap_free(&f->tomb);
    fpmap_init(&f->tomb, TOMB_BYTES);
  }
  if(ds.queued == 0 || f->bytes >= f->cap / 4 * 3)
    return;
  for(int l = L - 1; l >= 0; l--)
    if(frontier_disk_queued(f->disk, (unsigned)l) > 0) {
      frontier_disk_refill(f->disk, (unsigned)l, f->cap / 4, refill_one, f);
      return;
    }
}

crawl_err frontier_forget(struct frontier *f, uint64_t fp)
{
  struct frontier_disk_stats ds;
  if(!f->disk)
    return CRAWL_OK;
  frontier_disk_stats(f->disk, &ds);
  if(ds.queued == 0)
    return CRAWL_OK;
  uint64_t *v;
  crawl_err e = fpmap_put(&f->tomb, fp, &v, NULL);
  return e == CRAWL_ERR_FULL ? CRAWL_ERR_TOO_LARGE : e;
}

void frontier_tidy(struct frontier *f)
{
  if(f->disk)
    frontier_disk_tidy(f->disk);
}

char **frontier_retired(struct frontier *f)
{
  return f->disk ? frontier_disk_retired(f->disk) : NULL;
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
  st->bytes = f->bytes + fpmap_bytes(&f->entries) + fpmap_bytes(&f->hosts) +
              fpmap_bytes(&f->tomb);
  if(!f->disk)
    return;
  struct frontier_disk_stats ds;
  frontier_disk_stats(f->disk, &ds);
  st->bytes += ds.mem;
  st->on_disk = ds.queued;
  st->disk_bytes = ds.bytes;
  st->spilled = ds.spilled;
  st->spilled_bytes = ds.spilled_bytes;
  st->refilled = ds.refilled;
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

static void tomb_save(const struct fpmap *m, struct ckfile *c)
{
  size_t pos = 0;
  uint64_t k, v;
  ckfile_put_u64(c, m->count);
  while(fpmap_next(m, &pos, &k, &v))
    ckfile_put_u64(c, k);
}

static void tomb_load(struct fpmap *m, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c), *v;
  for(uint64_t i = 0; i < n && !c->err; i++)
    if(fpmap_put(m, ckfile_get_u64(c), &v, NULL))
      ckfile_fail(c, CRAWL_ERR_TOO_LARGE);
}

void frontier_save(struct frontier *f, struct ckfile *c)
{
  ckfile_put_u64(c, f->disk != NULL);
  if(f->disk) {
    frontier_disk_flush(f->disk);
    frontier_disk_save(f->disk, c);
    tomb_save(&f->tomb, c);
  }
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

/* The part on disk first: entries that no longer fit in memory (a smaller
 * budget now) go after it. */
static void disk_load(struct frontier *f, struct ckfile *c)
{
  bool had = ckfile_get_u64(c) != 0;
  if(had && !f->disk)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  if(!had || c->err)
    return;
  crawl_err e = frontier_disk_load(f->disk, c);
  if(e)
    ckfile_fail(c, e);
  tomb_load(&f->tomb, c);
}

void frontier_load(struct frontier *f, struct ckfile *c)
{
  disk_load(f, c);
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    char *url = ckfile_get_str(c, 1u << 20), *host = ckfile_get_str(c, 1024);
    uint32_t depth = (uint32_t)ckfile_get_u64(c);
    unsigned base = (unsigned)ckfile_get_u64(c);
    uint32_t inlinks = (uint32_t)ckfile_get_u64(c);
    /* They were in memory, ahead of what is on disk: memory first. */
    crawl_err e = url && host ? push_mem(f, url, host, depth, base, inlinks) : CRAWL_OK;
    if(e == CRAWL_ERR_FULL && f->disk)
      e = push_disk(f, url, host, depth, base, inlinks);
    if(e)
      ckfile_fail(c, e);
    mem_free(url);
    mem_free(host);
  }
  f->st.pushed = ckfile_get_u64(c);
  f->st.done = ckfile_get_u64(c);
}
