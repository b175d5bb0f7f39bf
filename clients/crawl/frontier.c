#include "clients/crawl/frontier.h"

#include <string.h>

#include "clients/crawl/frontier_disk.h"
#include "clients/crawl/frontier_int.h"
#include "common/list.h"
#include "common/hash.h"
#include "common/mem.h"

#define SEG_BYTES_DEFAULT (64u << 20)
#define REC_MAX   2560u  /* a record of a URL of 2,048 bytes and a host of 253 */
#define TOMB_BYTES (16u << 20)

static unsigned frontier_level_for(uint32_t inlinks)
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
  if(!o->dir || o->scored)
    return CRAWL_OK;  /* a scored frontier is bounded in memory: it drops the worst */
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
  while(fpmap_next(&f->hosts, &pos, &k, &v)) {
    fscore_host_free((struct fhost *)(uintptr_t)v);
    mem_free((void *)(uintptr_t)v);
  }
  fscore_free(f);
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

static crawl_err queue_link(struct frontier *f, struct fentry *e, bool at_head)
{
  if(f->o.scored)
    return fscore_link(f, e);  /* its place comes from its score and arrival */
  struct fhost *h = e->host;
  struct fqueue *q = &h->q[e->level];
  bool was_empty = !q->head;
  if(at_head)
    DLT_PUSH_FRONT(q->head, q->tail, e, prev, next);
  else
    DLT_PUSH_BACK(q->head, q->tail, e, prev, next);
  h->queued++;
  f->st.queued++;
  f->st.per_level[e->level]++;
  if(was_empty)
    ring_insert(f, h, e->level);
  return CRAWL_OK;
}

static void queue_unlink(struct frontier *f, struct fentry *e)
{
  if(f->o.scored) {
    fscore_unlink(f, e);
    return;
  }
  struct fhost *h = e->host;
  struct fqueue *q = &h->q[e->level];
  DLT_UNLINK(q->head, q->tail, e, prev, next);
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
  heap_node_init(&h->hnode);
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
  fscore_host_free(h);
  mem_free(h);
}

/* ---- Entries ------------------------------------------------------------ */

static struct fentry *entry_find(struct frontier *f, uint64_t fp)
{
  uint64_t *v = fpmap_get(&f->entries, fp);
  return v ? (struct fentry *)(uintptr_t)*v : NULL;
}

/* A scored URL also takes a slot in two heaps. */
static size_t entry_bytes(const struct frontier *f, size_t url_len, size_t meta_len)
{
  return sizeof(struct fentry) + url_len + 1 + meta_len +
         (f->o.scored ? 2 * sizeof(struct fentry *) : 0);
}

static size_t entry_size(const struct frontier *f, const struct fentry *e)
{
  return entry_bytes(f, strlen(e->url), e->meta_len);
}

static void entry_free(struct frontier *f, struct fentry *e)
{
  struct fhost *h = e->host;
  fpmap_del(&f->entries, e->fp);
  f->bytes -= entry_size(f, e);
  mem_free(e);
  host_release_if_idle(f, h);
}

static unsigned entry_level(const struct fentry *e)
{
  unsigned l = frontier_level_for(e->inlinks);
  return l > e->base ? l : e->base;
}

/* What a new entry is pushed with. */
struct entry_in {
  uint32_t depth, inlinks;
  unsigned base;
  const struct frontier_score *sc;  /* scored */
  uint64_t seq;                     /* scored, at a load: its arrival then; 0 = now */
};

static crawl_err entry_new(struct frontier *f, const char *url, struct fhost *h,
                           const struct entry_in *in, struct fentry **out)
{
  size_t n = strlen(url), mlen = in->sc ? in->sc->meta_len : 0;
  uint64_t fp = hash_fp64(url, n), *v;
  bool added;
  if(f->bytes + entry_bytes(f, n, mlen) > f->cap)
    return CRAWL_ERR_FULL;
  crawl_err e = fpmap_put(&f->entries, fp, &v, &added);
  if(!e && !added)
    e = CRAWL_ERR_INVALID;
  if(e)
    return e;
  struct fentry *en = mem_calloc(1, sizeof *en + n + 1 + mlen);
  if(!en) {
    fpmap_del(&f->entries, fp);
    return CRAWL_ERR_NOMEM;
  }
  en->host = h;
  en->fp = fp;
  en->depth = in->depth;
  en->inlinks = in->inlinks ? in->inlinks : 1;
  en->base = (uint8_t)(in->base < L ? in->base : L - 1);
  memcpy(en->url, url, n + 1);
  if(f->o.scored) {
    heap_node_init(&en->hnode);
    heap_node_init(&en->wnode);
    en->seq = in->seq ? in->seq : ++f->seq;
    if(en->seq > f->seq)
      f->seq = en->seq;
    en->score = in->sc ? (float)in->sc->score : 0;
    en->meta_len = (uint16_t)mlen;
    if(mlen)
      memcpy(en->url + n + 1, in->sc->meta, mlen);
    en->level = (uint8_t)fscore_level(en->score);
  } else {
    en->level = (uint8_t)entry_level(en);
  }
  *v = (uint64_t)(uintptr_t)en;
  f->bytes += entry_size(f, en);
  *out = en;
  return CRAWL_OK;
}

/* Scored and full: make room by dropping queued URLs worse than the new
 * one; CRAWL_ERR_FULL when there are none. */
static crawl_err make_room(struct frontier *f, size_t need, float score)
{
  while(f->bytes + need > f->cap) {
    struct fentry *w = fscore_worst(f);
    if(!w || !fscore_beats(score, f->seq + 1, w))
      return CRAWL_ERR_FULL;
    queue_unlink(f, w);
    entry_free(f, w);
    f->st.evicted++;
  }
  return CRAWL_OK;
}

/* Into memory, at the tail of its host's queue for its level (or in its
 * place by score). */
static crawl_err push_in(struct frontier *f, const char *url, const char *host,
                         const struct entry_in *in)
{
  struct fhost *h;
  struct fentry *en;
  crawl_err e = CRAWL_OK;
  if(f->o.scored && fpmap_get(&f->entries, hash_fp64(url, strlen(url))))
    return CRAWL_ERR_INVALID;  /* before making room for it */
  if(f->o.scored)
    e = make_room(f, entry_bytes(f, strlen(url), in->sc ? in->sc->meta_len : 0) +
                     sizeof(struct fhost) + strlen(host) + 1,
                  in->sc ? (float)in->sc->score : 0);
  if(!e)
    e = host_get(f, host, &h);
  if(e)
    return e;
  e = entry_new(f, url, h, in, &en);
  if(!e) {
    e = queue_link(f, en, false);
    if(e)
      entry_free(f, en);
  }
  if(e) {
    host_release_if_idle(f, h);
    return e;
  }
  size_t urls = f->st.queued + f->st.outstanding;
  if(urls > f->st.peak_urls) {  /* for bytes per URL at the fullest */
    f->st.peak_urls = urls;
    f->st.peak_bytes = f->bytes + fpmap_bytes(&f->entries) + fpmap_bytes(&f->hosts);
  }
  return CRAWL_OK;
}

static crawl_err push_mem(struct frontier *f, const char *url, const char *host,
                          uint32_t depth, unsigned base, uint32_t inlinks)
{
  struct entry_in in = { depth, inlinks, base, NULL, 0 };
  return push_in(f, url, host, &in);
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

crawl_err frontier_push_scored(struct frontier *f, const char *url, const char *host,
                               uint32_t depth, const struct frontier_score *sc)
{
  if(!f->o.scored)
    return frontier_push(f, url, host, depth, fscore_level((float)sc->score));
  if(sc->meta_len > FRONTIER_META_MAX)
    return CRAWL_ERR_TOO_LARGE;
  struct entry_in in = { depth, 1, 0, sc, 0 };
  crawl_err e = push_in(f, url, host, &in);
  f->st.pushed += e == CRAWL_OK;
  return e;
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
  if(f->o.scored || e->outstanding || lvl == e->level)
    return true;  /* scored: the score says where it goes (frontier_raise) */
  queue_unlink(f, e);
  e->level = (uint8_t)lvl;
  queue_link(f, e, false);  /* cannot fail by levels */
  f->st.promoted++;
  return true;
}

/* The entry with new meta bytes: reallocated when their length differs. */
static crawl_err entry_meta(struct frontier *f, struct fentry **ep, const struct frontier_score *sc)
{
  struct fentry *e = *ep;
  size_t n = strlen(e->url);
  if(sc->meta_len != e->meta_len) {
    if(sc->meta_len > e->meta_len &&
       f->bytes + sc->meta_len - e->meta_len > f->cap)
      return CRAWL_ERR_FULL;
    struct fentry *ne = mem_realloc(e, sizeof *e + n + 1 + sc->meta_len);
    if(!ne)
      return CRAWL_ERR_NOMEM;
    f->bytes = f->bytes - ne->meta_len + sc->meta_len;
    ne->meta_len = (uint16_t)sc->meta_len;
    *fpmap_get(&f->entries, ne->fp) = (uint64_t)(uintptr_t)ne;
    fscore_moved(f, ne);
    *ep = e = ne;
  }
  if(sc->meta_len)
    memcpy(e->url + n + 1, sc->meta, sc->meta_len);
  return CRAWL_OK;
}

bool frontier_raise(struct frontier *f, uint64_t fp, const struct frontier_score *sc)
{
  struct fentry *e = entry_find(f, fp);
  if(!e)
    return false;
  if(e->inlinks < UINT32_MAX)
    e->inlinks++;
  f->st.bumped++;
  if(!f->o.scored || e->outstanding || (float)sc->score <= e->score ||
     sc->meta_len > FRONTIER_META_MAX || entry_meta(f, &e, sc))
    return true;  /* no better, or no room for its meta: it keeps what it had */
  e->score = (float)sc->score;
  f->st.per_level[e->level]--;
  e->level = (uint8_t)fscore_level(e->score);
  f->st.per_level[e->level]++;
  fscore_raised(f, e);
  f->st.raised++;
  return true;
}

bool frontier_score_of(struct frontier *f, uint64_t fp, struct frontier_score *out)
{
  struct fentry *e = entry_find(f, fp);
  if(!e)
    return false;
  out->score = e->score;
  out->meta_len = e->meta_len;
  out->meta = e->meta_len ? e->url + strlen(e->url) + 1 : NULL;
  return true;
}

/* ---- Taking ------------------------------------------------------------- */

static bool host_blocked(const struct frontier *f, const struct fhost *h)
{
  return f->o.max_per_host && h->outstanding >= f->o.max_per_host;
}

void frontier_taken(struct frontier *f, struct fentry *e, struct frontier_item *out)
{
  queue_unlink(f, e);
  e->outstanding = 1;
  e->host->outstanding++;
  f->st.outstanding++;
  f->st.taken++;
  *out = (struct frontier_item){ e->url, e->fp, e->level, e->depth };
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
      frontier_taken(f, h->q[l].head, &out[n++]);
      progress = true;
    }
  }
  return n;
}

size_t frontier_take(struct frontier *f, size_t max, struct frontier_item *out)
{
  if(f->o.scored)
    return fscore_take(f, max, out);
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

/* Forget fp whatever its state. */
static bool frontier_remove(struct frontier *f, uint64_t fp);

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
  crawl_err r = queue_link(f, e, true);
  if(r) {  /* no memory for its heap slot: it is lost like a dropped URL */
    f->st.evicted++;
    entry_free(f, e);
  }
  return r;
}

static bool frontier_remove(struct frontier *f, uint64_t fp)
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

static void entry_save(const struct frontier *f, const struct fentry *e, struct ckfile *c)
{
  ckfile_put_str(c, e->url);
  ckfile_put_str(c, e->host->name);
  ckfile_put_u64(c, e->depth);
  ckfile_put_u64(c, e->base);
  ckfile_put_u64(c, e->inlinks);
  if(!f->o.scored)
    return;
  uint32_t bits;
  memcpy(&bits, &e->score, sizeof bits);
  ckfile_put_u64(c, bits);
  ckfile_put_u64(c, e->seq);  /* ties keep their order across a resume */
  ckfile_put_u64(c, e->meta_len);
  ckfile_put_bytes(c, e->url + strlen(e->url) + 1, e->meta_len);
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
  ckfile_put_u64(c, f->o.scored);
  ckfile_put_u64(c, f->st.outstanding + f->st.queued);
  size_t pos = 0;
  uint64_t k, v;
  while(fpmap_next(&f->entries, &pos, &k, &v))
    if(((const struct fentry *)(uintptr_t)v)->outstanding || f->o.scored)
      entry_save(f, (const struct fentry *)(uintptr_t)v, c);
  pos = 0;
  while(!f->o.scored && fpmap_next(&f->hosts, &pos, &k, &v)) {
    const struct fhost *h = (const struct fhost *)(uintptr_t)v;
    for(unsigned l = 0; l < L; l++)
      for(const struct fentry *e = h->q[l].head; e; e = e->next)
        entry_save(f, e, c);
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

/* A scored entry's score, arrival and meta; then it goes in its place. */
static crawl_err load_scored(struct frontier *f, struct ckfile *c, const char *url,
                             const char *host, struct entry_in *in)
{
  uint32_t bits = (uint32_t)ckfile_get_u64(c);
  float score;
  memcpy(&score, &bits, sizeof score);
  in->seq = ckfile_get_u64(c);
  size_t mlen = (size_t)ckfile_get_u64(c);
  unsigned char meta[FRONTIER_META_MAX];
  if(mlen > sizeof meta || in->seq == 0)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  else
    ckfile_get_bytes(c, meta, mlen);
  if(c->err || !url || !host)
    return CRAWL_OK;
  struct frontier_score sc = { score, meta, mlen };
  in->sc = &sc;
  return push_in(f, url, host, in);
}

void frontier_load(struct frontier *f, struct ckfile *c)
{
  disk_load(f, c);
  if((ckfile_get_u64(c) != 0) != f->o.scored)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);  /* another kind of crawl */
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    char *url = ckfile_get_str(c, 1u << 20), *host = ckfile_get_str(c, 1024);
    struct entry_in in = { 0 };
    in.depth = (uint32_t)ckfile_get_u64(c);
    in.base = (unsigned)ckfile_get_u64(c);
    in.inlinks = (uint32_t)ckfile_get_u64(c);
    crawl_err e = CRAWL_OK;
    if(f->o.scored)
      e = load_scored(f, c, url, host, &in);
    else if(url && host)  /* they were in memory, ahead of what is on disk: memory first */
      e = push_in(f, url, host, &in);
    if(e == CRAWL_ERR_FULL && f->disk)
      e = push_disk(f, url, host, in.depth, in.base, in.inlinks);
    if(e == CRAWL_ERR_FULL && f->o.scored) {
      f->st.evicted++;  /* a smaller frontier now: the worst do not fit */
      e = CRAWL_OK;
    }
    if(e)
      ckfile_fail(c, e);
    mem_free(url);
    mem_free(host);
  }
  f->st.pushed = ckfile_get_u64(c);
  f->st.done = ckfile_get_u64(c);
}
