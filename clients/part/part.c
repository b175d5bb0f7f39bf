#include "clients/part/part_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clients/part/partmap.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define PART_MAP_BYTES (1ull << 32)  /* the maps grow on use up to this */

struct part_opts part_opts_default(void)
{
  struct part_opts o;
  memset(&o, 0, sizeof o);
  o.partitions = 1024;
  o.lease_ms = 10000;
  o.snap_ms = 30000;
  o.stream_max = 10000;
  o.held_max = 100000;
  o.timeout_ms = 2000;
  return o;
}

/* ---- What a member keeps of its partitions --------------------------------- */

struct prec *part_prec_add(struct part *p, unsigned pi, const char *url, uint32_t depth,
                           unsigned level)
{
  uint64_t fp = hash_fp64(url, strlen(url)), *v;
  if(fpmap_get(&p->pending, fp))
    return NULL;
  size_t n = strlen(url);
  struct prec *r = mem_calloc(1, sizeof *r + n + 1);
  if(!r)
    return NULL;
  bool added;
  if(fpmap_put(&p->pending, fp, &v, &added) != CRAWL_OK) {
    mem_free(r);
    return NULL;
  }
  *v = (uint64_t)(uintptr_t)r;
  r->fp = fp;
  r->depth = depth;
  r->part = pi;
  r->level = (uint8_t)level;
  memcpy(r->url, url, n + 1);
  struct pslot *s = &p->s[pi];
  r->next = s->head;
  if(s->head)
    s->head->prev = r;
  s->head = r;
  s->npending++;
  s->dirty = true;
  return r;
}

static struct prec *prec_of(struct part *p, uint64_t fp)
{
  uint64_t *v = fpmap_get(&p->pending, fp);
  return v ? (struct prec *)(uintptr_t)*v : NULL;
}

static void prec_del(struct part *p, struct prec *r)
{
  struct pslot *s = &p->s[r->part];
  if(r->prev)
    r->prev->next = r->next;
  else
    s->head = r->next;
  if(r->next)
    r->next->prev = r->prev;
  s->npending--;
  s->ninflight -= r->inflight;
  s->dirty = true;
  fpmap_del(&p->pending, r->fp);
  mem_free(r);
}

void part_fin_add(struct part *p, unsigned pi, uint64_t fp)
{
  struct pslot *s = &p->s[pi];
  uint64_t *v;
  bool added;
  if(fpmap_put(&p->finished, fp, &v, &added) != CRAWL_OK || !added)
    return;
  *v = pi;
  if(s->nfin == s->capfin) {
    size_t cap = s->capfin ? s->capfin * 2 : 64;
    uint64_t *f = mem_realloc(s->fin, cap * sizeof *f);
    if(!f)
      return;
    s->fin = f;
    s->capfin = cap;
  }
  s->fin[s->nfin++] = fp;
  s->dirty = true;
}

crawl_err part_ids_add(struct pslot *s, const char *id, size_t n)
{
  if(s->nids == s->capids) {
    size_t cap = s->capids ? s->capids * 2 : 64;
    char **v = mem_realloc(s->ids, cap * sizeof *v);
    if(!v)
      return CRAWL_ERR_NOMEM;
    s->ids = v;
    s->capids = cap;
  }
  if(!(s->ids[s->nids] = mem_strndup(id, n)))
    return CRAWL_ERR_NOMEM;
  s->nids++;
  s->dirty = true;
  return CRAWL_OK;
}

void part_ids_clear(struct pslot *s)
{
  for(size_t i = 0; i < s->nids; i++)
    mem_free(s->ids[i]);
  s->nids = 0;
}

void part_drop(struct part *p, unsigned pi)
{
  struct pslot *s = &p->s[pi];
  while(s->head)
    prec_del(p, s->head);
  for(size_t i = 0; i < s->nfin; i++)
    fpmap_del(&p->finished, s->fin[i]);
  s->nfin = 0;
  part_ids_clear(s);
  s->state = PS_NONE;
  s->dirty = false;
  p->st.held--;
}

static crawl_err part_out_add(struct part *p, unsigned pi, const char *url, uint32_t depth,
                              unsigned level, bool sitemap)
{
  size_t n = strlen(url);
  struct olink *l = mem_calloc(1, sizeof *l + n + 1);
  if(!l)
    return CRAWL_ERR_NOMEM;
  l->depth = depth;
  l->level = (uint8_t)level;
  l->sitemap = sitemap;
  memcpy(l->url, url, n + 1);
  struct pslot *s = &p->s[pi];
  if(s->out_tail)
    s->out_tail->next = l;
  else
    s->out = l;
  s->out_tail = l;
  s->nout++;
  p->nout++;
  if(p->nout > p->st.held_max_seen)
    p->st.held_max_seen = p->nout;
  return CRAWL_OK;
}

/* ---- The engine's hooks ------------------------------------------------------ */

static enum crawl_route_to on_where(void *arg, const char *url, const char *host, uint32_t depth,
                                    unsigned level, bool sitemap)
{
  struct part *p = arg;
  unsigned pi = partmap_of_host(host, p->n);
  if(p->s[pi].state == PS_OWNED)
    return fpmap_get(&p->finished, hash_fp64(url, strlen(url))) ? CRAWL_ROUTE_KNOWN
                                                                : CRAWL_ROUTE_HERE;
  if(part_out_add(p, pi, url, depth, level, sitemap))
    return CRAWL_ROUTE_HERE;  /* out of memory: crawled here rather than lost */
  return CRAWL_ROUTE_AWAY;
}

/* A URL came into the frontier: kept for its partition's snapshot; one
 * whose partition went elsewhere meanwhile (the seen set answered late)
 * is handed on, and forgotten when it is taken. */
static void on_queued(void *arg, const char *url, const char *host, uint32_t depth,
                      unsigned level)
{
  struct part *p = arg;
  unsigned pi = partmap_of_host(host, p->n);
  if(p->s[pi].state == PS_OWNED)
    part_prec_add(p, pi, url, depth, level);
  else
    part_out_add(p, pi, url, depth, level, false);
}

static void on_finished(void *arg, const char *url)
{
  struct part *p = arg;
  struct prec *r = prec_of(p, hash_fp64(url, strlen(url)));
  if(!r)
    return;  /* its partition is no longer ours */
  unsigned pi = r->part;
  uint64_t fp = r->fp;
  prec_del(p, r);
  part_fin_add(p, pi, fp);
}

bool part_take(struct part *p, const struct frontier_item *it)
{
  unsigned pi = partmap_of_url(it->url, p->n);
  struct prec *r = prec_of(p, it->fp);
  if(pi >= p->n || p->s[pi].state != PS_OWNED) {
    p->st.forgotten++;
    crawl_forget(p->c, it->url);
    return false;
  }
  if(!r)  /* queued before its partition came back to us */
    r = part_prec_add(p, pi, it->url, it->depth, it->level);
  if(r && !r->inflight) {
    r->inflight = 1;
    p->s[pi].ninflight++;
  }
  return true;
}

void part_requeued(struct part *p, const char *url)
{
  struct prec *r = prec_of(p, hash_fp64(url, strlen(url)));
  if(r && r->inflight) {
    r->inflight = 0;
    p->s[r->part].ninflight--;
  }
}

/* ---- Open, tick, close ----------------------------------------------------------- */

crawl_err part_open(const struct part_opts *o, struct crawl *c, struct part **out)
{
  *out = NULL;
  if(!coord_name_ok(o->crawl) || !coord_name_ok(o->member) || o->partitions == 0 ||
     o->partitions > PART_MAX)
    return CRAWL_ERR_INVALID;
  struct part *p = mem_calloc(1, sizeof *p);
  if(!p)
    return CRAWL_ERR_NOMEM;
  p->o = *o;
  p->c = c;
  p->n = o->partitions;
  p->crawl = mem_strdup(o->crawl);
  p->member = mem_strdup(o->member);
  p->s = mem_calloc(p->n, sizeof *p->s);
  fpmap_init(&p->pending, PART_MAP_BYTES);
  fpmap_init(&p->finished, PART_MAP_BYTES);
  crawl_err e = p->crawl && p->member && p->s ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e)
    e = coord_open(o->redis_url, o->crawl, o->timeout_ms, &p->k);
  if(!e) {
    coord_key(p->k, "members", -1, p->k_members, sizeof p->k_members);
    coord_key(p->k, "meta", -1, p->k_meta, sizeof p->k_meta);
    coord_key(p->k, "owner", -1, p->k_owner, sizeof p->k_owner);
    coord_key(p->k, "epoch", -1, p->k_epoch, sizeof p->k_epoch);
    coord_key(p->k, "idle", -1, p->k_idle, sizeof p->k_idle);
    coord_key(p->k, "stats", -1, p->k_stats, sizeof p->k_stats);
    coord_key(p->k, "progress", -1, p->k_progress, sizeof p->k_progress);
    struct crawl_route r = { on_where, on_queued, on_finished, p };
    crawl_set_route(c, &r);  /* before the first claim: its snapshots queue URLs */
    if(!part_rebalance(p, false))
      e = CRAWL_ERR_INVALID;
  }
  if(e) {
    struct crawl_route none = { NULL, NULL, NULL, NULL };
    crawl_set_route(c, &none);
    p->o.partitions = 0;
    part_close(&p, false);
    return e;
  }
  p->last_rebalance = p->last_snap = clock_mono_ms();
  LOG(LOG_INFO, "crawl %s: member %s of %u live, holds %u of %u partitions", p->crawl,
      p->member, p->st.live, p->st.held, p->n);
  *out = p;
  return CRAWL_OK;
}

/* Partitions above the share are handed over: no more of their URLs are
 * submitted; once none is outstanding, their snapshot is written and they
 * are released. */
static void part_shed(struct part *p)
{
  unsigned held = 0, draining = 0;
  for(unsigned i = 0; i < p->n; i++) {
    held += p->s[i].state != PS_NONE;
    draining += p->s[i].state == PS_DRAINING;
  }
  unsigned excess = held > p->st.share ? held - p->st.share : 0;
  for(unsigned i = p->n; i-- > 0 && draining < excess;)
    if(p->s[i].state == PS_OWNED) {
      p->s[i].state = PS_DRAINING;
      draining++;
    }
  for(unsigned i = 0; i < p->n; i++) {
    struct pslot *s = &p->s[i];
    if(s->state != PS_DRAINING || s->ninflight)
      continue;
    if(part_snap_put(p, i) && part_release(p, i)) {
      p->st.released++;
      part_drop(p, i);
    }
  }
}

/* What came in from Redis (links read, partitions taken over): work the
 * loop's idle did not see yet. */
static uint64_t part_intake(const struct part *p)
{
  return p->st.links_read + p->st.claimed + p->st.pending_claimed + p->nout;
}

static bool part_quiet(const struct part *p);

bool part_tick(struct part *p, bool idle)
{
  uint64_t before = part_intake(p);
  uint64_t now = clock_mono_ms(), every = p->o.lease_ms / 5;
  if(every < 100)
    every = 100;
  if(now - p->last_rebalance >= every && !p->done) {
    p->last_rebalance = now;
    part_rebalance(p, true);
    part_shed(p);
  }
  if(now - p->last_read >= 100) {
    p->last_read = now;
    part_read(p);
  }
  if(now - p->last_flush >= 50) {
    p->last_flush = now;
    part_flush(p);
  }
  if(now - p->last_snap >= p->o.snap_ms) {
    p->last_snap = now;
    for(unsigned i = 0; i < p->n; i++)
      if(p->s[i].state == PS_OWNED && p->s[i].dirty)
        part_snap_put(p, i);
  }
  if(now - p->last_report >= 200) {
    p->last_report = now;
    bool quiet = idle && part_quiet(p) && part_intake(p) == before;
    p->done = part_report(p, quiet) || p->done;
  }
  return p->done;
}

bool part_busy(const struct part *p)
{
  return p->nout > p->o.held_max;
}

/* Nothing waits here (links held, partitions handed over). */
static bool part_quiet(const struct part *p)
{
  if(p->nout)
    return false;
  for(unsigned i = 0; i < p->n; i++)
    if(p->s[i].state == PS_DRAINING)
      return false;
  return true;
}

static void part_stats(const struct part *p, struct part_stats *st)
{
  *st = p->st;
  st->links_held_now = p->nout;
}

void part_summary(const struct part *p, struct buf *out)
{
  struct part_stats st;
  part_stats(p, &st);
#define X(f) buf_addf(out, ",\"part_" #f "\":%llu", (unsigned long long)st.f);
  PART_COUNTERS(X)
#undef X
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);  /* the loop and the disk thread */
  unsigned long long cpu = (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
                           (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
  /* member and run: names of letters, digits, . _ - (coord_name_ok) */
  buf_addf(out, ",\"member\":\"%s\"", p->member);
  if(p->o.run)
    buf_addf(out, ",\"run\":\"%s\"", p->o.run);
  buf_addf(out, ",\"part_held\":%u,\"part_live\":%u,\"part_redis_commands\":%llu,"
                "\"part_cpu_ms\":%llu", st.held, st.live,
           (unsigned long long)(p->k ? coord_commands(p->k) : 0), cpu);
}

static void part_leave(struct part *p, bool give_back)
{
  for(int i = 0; i < 10 && p->nout; i++)  /* links found last go to their owners */
    part_flush(p);
  if(p->nout)
    LOG(LOG_WARN, "crawl %s: %zu links not handed over (their streams are full or Redis is "
        "away): lost unless other pages link to them", p->crawl, p->nout);
  unsigned held = p->st.held, given = 0;
  for(unsigned i = 0; give_back && i < p->n; i++)
    if(p->s[i].state != PS_NONE && part_snap_put(p, i) && part_release(p, i)) {
      p->st.released++;
      given++;
    }
  if(give_back)
    LOG(LOG_INFO, "crawl %s: gave back %u of %u partitions, with their snapshots", p->crawl,
        given, held);
  const char *argv[] = { "ZREM", p->k_members, p->member };
  redisReply *r = coord_cmd(p->k, 3, argv, NULL);
  if(r)
    freeReplyObject(r);
}

void part_close(struct part **pp, bool give_back)
{
  struct part *p = *pp;
  if(!p)
    return;
  if(p->k && p->o.partitions)
    part_leave(p, give_back);
  for(unsigned i = 0; p->s && i < p->n; i++) {
    struct pslot *s = &p->s[i];
    if(s->state != PS_NONE)
      part_drop(p, i);
    for(struct olink *l = s->out, *nx; l; l = nx) {
      nx = l->next;
      mem_free(l);
    }
    mem_free(s->fin);
    mem_free(s->ids);
  }
  coord_close(&p->k);
  fpmap_free(&p->pending);
  fpmap_free(&p->finished);
  mem_free(p->s);
  mem_free(p->crawl);
  mem_free(p->member);
  mem_free(p);
  *pp = NULL;
}
