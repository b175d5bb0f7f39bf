/* A refresh crawl on several processes (rpart.h). Redis calls are
 * blocking with a short timeout, from the loop's tick (coord.h); a call
 * that fails leaves the state as it was, and the leases outlive a few. */
#include "clients/refresh/rpart.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/part/coord.h"
#include "clients/part/part_lua.h"
#include "clients/part/partmap.h"
#include "clients/refresh/refresh_int.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"

#define SNAP_MAGIC "WRS1\n"   /* then a page state a line (rf_page_state) */

enum { RS_NONE, RS_OWNED, RS_DRAINING };

struct rslot {
  uint8_t  state;
  uint64_t epoch;
  size_t  *pages;      /* its pages' indices in ps->v */
  size_t   npages, cap;
  uint64_t snapped;    /* what its pages had seen at its last snapshot (sig) */
};

struct rpart {
  struct rpart_opts  o;
  char              *crawl, *member;
  struct coord      *k;
  struct rf_pages   *ps;
  unsigned           n;
  struct rslot      *s;
  uint32_t          *part_of;   /* page index -> partition */
  size_t             nmapped;   /* pages given a partition: the first nmapped of ps->v */
  uint64_t           last_rebalance, last_snap;
  bool               changed;
  struct rpart_stats st;
  char               k_members[COORD_KEY_MAX], k_meta[COORD_KEY_MAX], k_owner[COORD_KEY_MAX],
                     k_epoch[COORD_KEY_MAX], k_stats[COORD_KEY_MAX];
};

static bool reply_bad(struct rpart *rp, redisReply *r, const char *what)
{
  if(r && r->type != REDIS_REPLY_ERROR)
    return false;
  rp->st.redis_errors++;
  if(r)
    LOG(LOG_WARN, "coordination redis: %s: %s", what, r->str);
  return true;
}

static long reply_long(const redisReply *r)
{
  if(r->type == REDIS_REPLY_INTEGER)
    return (long)r->integer;
  return r->type == REDIS_REPLY_STRING ? strtol(r->str, NULL, 10) : -1;
}

/* Pages added since (redirect targets) get their partition, parked unless
 * it is held here. */
static void map_pages(struct rpart *rp)
{
  if(rp->nmapped == rp->ps->n)
    return;
  uint32_t *m = mem_realloc(rp->part_of, (rp->ps->n + 1) * sizeof *m);
  if(!m)
    return;
  rp->part_of = m;
  for(size_t i = rp->nmapped; i < rp->ps->n; i++) {
    struct rf_page *p = &rp->ps->v[i];
    unsigned pi = partmap_of_url(p->url, rp->n);
    struct rslot *s = &rp->s[pi < rp->n ? pi : 0];
    if(s->npages == s->cap) {
      size_t cap = s->cap ? 2 * s->cap : 16, *v = mem_realloc(s->pages, cap * sizeof *v);
      if(!v)
        return;  /* the next tick tries again */
      s->pages = v;
      s->cap = cap;
    }
    m[i] = (uint32_t)(s - rp->s);
    s->pages[s->npages++] = i;
    rf_page_park(rp->ps, p, s->state != RS_OWNED, p->due_ms);
    rp->nmapped = i + 1;
  }
}

static void park_all(struct rpart *rp, unsigned pi, bool parked)
{
  uint64_t now = clock_wall_ms();
  for(size_t i = 0; i < rp->s[pi].npages; i++) {
    struct rf_page *p = &rp->ps->v[rp->s[pi].pages[i]];
    rf_page_park(rp->ps, p, parked, p->due_ms < now ? now : p->due_ms);
  }
  rp->changed = true;
}

/* ---- Snapshots ------------------------------------------------------------------- */

static crawl_err snap_make(const struct rpart *rp, unsigned pi, struct buf *b)
{
  buf_reset(b);
  if(buf_adds(b, SNAP_MAGIC))
    return CRAWL_ERR_NOMEM;
  for(size_t i = 0; i < rp->s[pi].npages; i++) {
    json_t *o = rf_page_state(&rp->ps->v[rp->s[pi].pages[i]]);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    bool bad = !s || buf_adds(b, s) || buf_adds(b, "\n");
    free(s);
    json_decref(o);
    if(bad)
      return CRAWL_ERR_TOO_LARGE;
  }
  return CRAWL_OK;
}

/* A page's state from the snapshot, unless this member saw more of it. */
static void snap_line(struct rpart *rp, unsigned pi, const char *line, size_t len)
{
  json_t *o = json_loadb(line, len, 0, NULL);
  const char *url = json_string_value(json_object_get(o, "url"));
  json_t *st = json_object_get(o, "state");
  json_t *v = json_object_get(st, "visits");
  struct rf_page *p = url ? rf_pages_find(rp->ps, url) : NULL;
  if(p && json_is_integer(v) && json_integer_value(v) >= (json_int_t)p->visits &&
     (size_t)(p - rp->ps->v) < rp->nmapped && rp->part_of[p - rp->ps->v] == pi &&
     refresh_restore(rp->ps, p, st) == CRAWL_OK)
    rp->st.restored++;
  json_decref(o);
}

static void snap_load(struct rpart *rp, unsigned pi)
{
  char key[COORD_KEY_MAX];
  coord_key(rp->k, "snap", pi, key, sizeof key);
  const char *get[] = { "GET", key };
  redisReply *r = coord_cmd(rp->k, 2, get, NULL);
  size_t m = strlen(SNAP_MAGIC);
  if(r && r->type == REDIS_REPLY_STRING && r->len >= m && !memcmp(r->str, SNAP_MAGIC, m)) {
    for(char *l = r->str + m, *end = r->str + r->len, *nl; l < end; l = nl + 1) {
      nl = memchr(l, '\n', (size_t)(end - l));
      nl = nl ? nl : end;
      snap_line(rp, pi, l, (size_t)(nl - l));
    }
  } else if(r && r->type == REDIS_REPLY_STRING) {
    LOG(LOG_ERROR, "crawl %s: partition %u: its snapshot is not a refresh crawl's", rp->crawl,
        pi);
  }
  reply_bad(rp, r, "snapshot");
  if(r)
    freeReplyObject(r);
}

static void part_lost(struct rpart *rp, unsigned pi)
{
  LOG(LOG_WARN, "crawl %s: partition %u was taken by another member (our lease lapsed)",
      rp->crawl, pi);
  rp->st.lost++;
  rp->st.held--;
  rp->s[pi].state = RS_NONE;
  park_all(rp, pi, true);
}

/* What a partition's pages have seen: each result moves it (a visit, or
 * a failure that moves the page's base). A partition whose sig did not
 * move since its snapshot needs none. */
static uint64_t sig(const struct rpart *rp, unsigned pi)
{
  uint64_t h = 0;
  for(size_t i = 0; i < rp->s[pi].npages; i++) {
    const struct rf_page *p = &rp->ps->v[rp->s[pi].pages[i]];
    h += p->visits + p->base_ms + p->retired;
  }
  return h + 1;  /* 0: never snapshotted */
}

/* Fenced by the epoch: false when refused (then lost) or Redis failed. */
static bool snap_put(struct rpart *rp, unsigned pi)
{
  uint64_t now_sig = sig(rp, pi);
  char key[COORD_KEY_MAX], links[COORD_KEY_MAX], ps[16], es[24];
  struct buf b;
  buf_init(&b, 1u << 30);
  coord_key(rp->k, "snap", pi, key, sizeof key);
  coord_key(rp->k, "links", pi, links, sizeof links);
  snprintf(ps, sizeof ps, "%u", pi);
  snprintf(es, sizeof es, "%llu", (unsigned long long)rp->s[pi].epoch);
  bool ok = false;
  if(snap_make(rp, pi, &b) == CRAWL_OK) {
    const char *argv[] = { rp->k_owner, key, links, rp->k_members, rp->member, ps, es,
                           b.data, COORD_GROUP };
    size_t lens[] = { strlen(rp->k_owner), strlen(key), strlen(links), strlen(rp->k_members),
                      strlen(rp->member), strlen(ps), strlen(es), b.len, strlen(COORD_GROUP) };
    redisReply *r = coord_fcall(rp->k, part_lua_snap, 4, 9, argv, lens);
    if(r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "FENCED", 6)) {
      rp->st.fenced++;
      part_lost(rp, pi);
    } else if(!reply_bad(rp, r, "snapshot")) {
      rp->st.snapshots++;
      rp->s[pi].snapped = now_sig;
      ok = true;
    }
    if(r)
      freeReplyObject(r);
  }
  buf_free(&b);
  return ok;
}

static bool release(struct rpart *rp, unsigned pi)
{
  char ps[16], es[24];
  snprintf(ps, sizeof ps, "%u", pi);
  snprintf(es, sizeof es, "%llu", (unsigned long long)rp->s[pi].epoch);
  const char *argv[] = { rp->k_owner, rp->member, ps, es };
  redisReply *r = coord_fcall(rp->k, part_lua_release, 1, 4, argv, NULL);
  bool ok = !reply_bad(rp, r, "release");
  if(r)
    freeReplyObject(r);
  return ok;
}

/* ---- Membership ------------------------------------------------------------------- */

static void claimed(struct rpart *rp, unsigned pi, uint64_t epoch, bool lapsed)
{
  struct rslot *s = &rp->s[pi];
  if(s->state != RS_NONE)
    park_all(rp, pi, true);
  s->state = RS_OWNED;
  s->epoch = epoch;
  s->snapped = 0;
  rp->st.claimed++;
  rp->st.claimed_lapsed += lapsed;
  rp->st.held++;
  snap_load(rp, pi);
  park_all(rp, pi, false);
}

/* claim: take free partitions up to the share (not at the first call:
 * members started together see each other first). False: refused. */
static bool rebalance(struct rpart *rp, bool claim)
{
  char lease[24], n[16];
  snprintf(lease, sizeof lease, "%llu", (unsigned long long)rp->o.lease_ms);
  snprintf(n, sizeof n, "%u", rp->n);
  const char *argv[] = { rp->k_members, rp->k_meta, rp->k_owner, rp->k_epoch, rp->k_stats,
                         rp->member, lease, n, claim ? "1" : "0" };
  redisReply *r = coord_fcall(rp->k, part_lua_rebalance, 5, 9, argv, NULL);
  if(r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "PARTITIONS", 10)) {
    LOG(LOG_ERROR, "crawl %s: %s (--partitions must be the same for every member)", rp->crawl,
        r->str + 11);
    freeReplyObject(r);
    return false;
  }
  if(reply_bad(rp, r, "rebalance") || r->type != REDIS_REPLY_ARRAY || r->elements != 3) {
    if(r)
      freeReplyObject(r);
    return true;
  }
  rp->st.live = (unsigned)reply_long(r->element[0]);
  rp->st.share = (unsigned)reply_long(r->element[1]);
  const redisReply *h = r->element[2];
  unsigned char *now = mem_calloc(rp->n, 1);
  for(size_t i = 0; now && i + 2 < h->elements; i += 3) {
    long pi = reply_long(h->element[i]);
    if(pi < 0 || (unsigned long)pi >= rp->n)
      continue;
    now[pi] = 1;
    uint64_t epoch = (uint64_t)reply_long(h->element[i + 1]);
    if(rp->s[pi].state == RS_NONE || rp->s[pi].epoch != epoch) {
      if(rp->s[pi].state != RS_NONE)
        rp->st.held--;
      claimed(rp, (unsigned)pi, epoch, reply_long(h->element[i + 2]) == 1);
    }
  }
  for(unsigned i = 0; now && i < rp->n; i++)
    if(!now[i] && rp->s[i].state != RS_NONE)
      part_lost(rp, i);
  mem_free(now);
  freeReplyObject(r);
  return true;
}

static bool outstanding(const struct rpart *rp, unsigned pi)
{
  for(size_t i = 0; i < rp->s[pi].npages; i++)
    if(rp->ps->v[rp->s[pi].pages[i]].outstanding)
      return true;
  return false;
}

/* Partitions above the share: parked at once; once none of their pages
 * is outstanding, snapshotted and released. */
static void shed(struct rpart *rp)
{
  unsigned draining = 0;
  for(unsigned i = 0; i < rp->n; i++)
    draining += rp->s[i].state == RS_DRAINING;
  unsigned excess = rp->st.held > rp->st.share ? rp->st.held - rp->st.share : 0;
  for(unsigned i = rp->n; i-- > 0 && draining < excess;)
    if(rp->s[i].state == RS_OWNED) {
      rp->s[i].state = RS_DRAINING;
      park_all(rp, i, true);
      draining++;
    }
  for(unsigned i = 0; i < rp->n; i++) {
    if(rp->s[i].state != RS_DRAINING || outstanding(rp, i) || !snap_put(rp, i) ||
       !release(rp, i))
      continue;
    rp->s[i].state = RS_NONE;
    rp->st.held--;
    rp->st.released++;
  }
}

crawl_err rpart_open(const struct rpart_opts *o, struct rf_pages *ps, struct rpart **out)
{
  if(!coord_name_ok(o->crawl) || !coord_name_ok(o->member) || o->partitions == 0 ||
     o->partitions > PART_MAX)
    return CRAWL_ERR_INVALID;
  struct rpart *rp = mem_calloc(1, sizeof *rp);
  if(!rp)
    return CRAWL_ERR_NOMEM;
  rp->o = *o;
  rp->ps = ps;
  rp->n = o->partitions;
  rp->crawl = mem_strdup(o->crawl);
  rp->member = mem_strdup(o->member);
  rp->s = mem_calloc(rp->n, sizeof *rp->s);
  crawl_err e = rp->crawl && rp->member && rp->s ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e)
    e = coord_open(o->redis_url, o->crawl, o->timeout_ms, &rp->k);
  if(!e) {
    coord_key(rp->k, "members", -1, rp->k_members, sizeof rp->k_members);
    coord_key(rp->k, "meta", -1, rp->k_meta, sizeof rp->k_meta);
    coord_key(rp->k, "owner", -1, rp->k_owner, sizeof rp->k_owner);
    coord_key(rp->k, "epoch", -1, rp->k_epoch, sizeof rp->k_epoch);
    coord_key(rp->k, "stats", -1, rp->k_stats, sizeof rp->k_stats);
    map_pages(rp);
    e = rp->nmapped == ps->n ? CRAWL_OK : CRAWL_ERR_NOMEM;
  }
  if(!e && !rebalance(rp, false))
    e = CRAWL_ERR_INVALID;
  if(e) {
    rpart_close(&rp, false);
    return e;
  }
  rp->last_rebalance = rp->last_snap = clock_mono_ms();
  rp->changed = true;
  LOG(LOG_INFO, "crawl %s: member %s of %u live, holds %u of %u partitions", rp->crawl,
      rp->member, rp->st.live, rp->st.held, rp->n);
  *out = rp;
  return CRAWL_OK;
}

bool rpart_tick(struct rpart *rp, uint64_t now)
{
  uint64_t every = rp->o.lease_ms / 5 < 100 ? 100 : rp->o.lease_ms / 5;
  map_pages(rp);
  if(now - rp->last_rebalance >= every) {
    rp->last_rebalance = now;
    unsigned held = rp->st.held;
    rebalance(rp, true);
    shed(rp);
    if(rp->st.held != held)
      LOG(LOG_INFO, "crawl %s: %u live members, share %u, holding %u partitions", rp->crawl,
          rp->st.live, rp->st.share, rp->st.held);
  }
  if(now - rp->last_snap >= rp->o.snap_ms) {
    rp->last_snap = now;
    for(unsigned i = 0; i < rp->n; i++)
      if(rp->s[i].state == RS_OWNED && rp->s[i].snapped != sig(rp, i))
        snap_put(rp, i);
  }
  bool c = rp->changed;
  rp->changed = false;
  return c;
}

double rpart_share(struct rpart *rp)
{
  size_t mine = 0;
  for(unsigned i = 0; i < rp->n; i++)
    mine += rp->s[i].state == RS_OWNED ? rp->s[i].npages : 0;
  return rp->nmapped ? (double)mine / (double)rp->nmapped : 0;
}

void rpart_stats(const struct rpart *rp, struct rpart_stats *st)
{
  *st = rp->st;
}

void rpart_close(struct rpart **pp, bool give_back)
{
  struct rpart *rp = *pp;
  if(!rp)
    return;
  *pp = NULL;
  for(unsigned i = 0; give_back && rp->k && i < rp->n; i++)
    if(rp->s[i].state != RS_NONE && snap_put(rp, i) && release(rp, i))
      rp->st.released++;
  if(rp->k) {
    const char *zrem[] = { "ZREM", rp->k_members, rp->member };
    redisReply *r = coord_cmd(rp->k, 3, zrem, NULL);
    if(r)
      freeReplyObject(r);
  }
  coord_close(&rp->k);
  for(unsigned i = 0; rp->s && i < rp->n; i++)
    mem_free(rp->s[i].pages);
  mem_free(rp->part_of);
  mem_free(rp->s);
  mem_free(rp->crawl);
  mem_free(rp->member);
  mem_free(rp);
}
