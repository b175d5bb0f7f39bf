/* A member's Redis calls (coord.h: blocking, with a short timeout, from
 * the loop's tick). A call that fails leaves the state as it was: the
 * next tick tries again; leases outlive a few failed ticks. */
#include "clients/part/part_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/part/part_lua.h"
#include "clients/part/partmap.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"

#define READ_COUNT    1000   /* entries per stream per read */
#define FLUSH_MAX     20000  /* links sent per tick (one entry per partition) */
#define ACK_CHUNK     2000   /* entry ids per snap call */
#define CLAIM_COUNT   100000 /* pending entries taken over per XAUTOCLAIM */

static bool reply_err(struct part *p, redisReply *r, const char *what)
{
  if(!r) {
    p->st.redis_errors++;
    return true;
  }
  if(r->type == REDIS_REPLY_ERROR) {
    p->st.redis_errors++;
    LOG(LOG_WARN, "coordination redis: %s: %s", what, r->str);
    return true;
  }
  return false;
}

static long reply_long(const redisReply *r)
{
  if(r->type == REDIS_REPLY_INTEGER)
    return (long)r->integer;
  return r->type == REDIS_REPLY_STRING ? strtol(r->str, NULL, 10) : -1;
}

/* ---- Membership and leases ------------------------------------------------- */

static void part_lost(struct part *p, unsigned pi)
{
  LOG(LOG_WARN, "crawl %s: partition %u was taken by another member (our lease lapsed)",
      p->crawl, pi);
  p->st.lost++;
  part_drop(p, pi);
}

static void part_claimed(struct part *p, unsigned pi, bool lapsed);

bool part_rebalance(struct part *p, bool claim)
{
  char lease[24], n[16];
  snprintf(lease, sizeof lease, "%llu", (unsigned long long)p->o.lease_ms);
  snprintf(n, sizeof n, "%u", p->n);
  const char *argv[] = { p->k_members, p->k_meta, p->k_owner, p->k_epoch, p->k_stats,
                         p->member, lease, n, claim ? "1" : "0" };
  redisReply *r = coord_fcall(p->k, part_lua_rebalance, 5, 9, argv, NULL);
  if(r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "PARTITIONS", 10)) {
    LOG(LOG_ERROR, "crawl %s: %s (--partitions must be the same for every member)", p->crawl,
        r->str + 11);
    freeReplyObject(r);
    return false;
  }
  if(reply_err(p, r, "rebalance") || r->type != REDIS_REPLY_ARRAY || r->elements != 3) {
    if(r)
      freeReplyObject(r);
    return r == NULL;  /* Redis away: the leases say what to do later */
  }
  p->st.live = (unsigned)reply_long(r->element[0]);
  p->st.share = (unsigned)reply_long(r->element[1]);
  const redisReply *h = r->element[2];
  unsigned char *now = mem_calloc(p->n, 1);
  uint64_t lapsed = p->st.claimed_lapsed, claimed = p->st.claimed;
  for(size_t i = 0; now && i + 2 < h->elements; i += 3) {
    long pi = reply_long(h->element[i]);
    if(pi < 0 || (unsigned long)pi >= p->n)
      continue;
    now[pi] = 1;
    struct pslot *s = &p->s[pi];
    uint64_t epoch = (uint64_t)reply_long(h->element[i + 1]);
    if(s->state != PS_NONE && s->epoch == epoch)
      continue;
    if(s->state != PS_NONE)
      part_drop(p, (unsigned)pi);
    s->state = PS_OWNED;
    s->epoch = epoch;
    p->st.held++;
    part_claimed(p, (unsigned)pi, reply_long(h->element[i + 2]) == 1);
  }
  for(unsigned i = 0; now && i < p->n; i++)
    if(!now[i] && p->s[i].state != PS_NONE)
      part_lost(p, i);
  mem_free(now);
  freeReplyObject(r);
  if(p->st.claimed != claimed)
    LOG(LOG_INFO, "crawl %s: took %llu partitions (%llu from members whose lease had lapsed); "
        "%u live members, share %u, holding %u", p->crawl,
        (unsigned long long)(p->st.claimed - claimed),
        (unsigned long long)(p->st.claimed_lapsed - lapsed), p->st.live, p->st.share, p->st.held);
  return true;
}

bool part_release(struct part *p, unsigned pi)
{
  char ps[16], es[24];
  snprintf(ps, sizeof ps, "%u", pi);
  snprintf(es, sizeof es, "%llu", (unsigned long long)p->s[pi].epoch);
  const char *argv[] = { p->k_owner, p->member, ps, es };
  redisReply *r = coord_fcall(p->k, part_lua_release, 1, 4, argv, NULL);
  bool ok = !reply_err(p, r, "release");
  if(r)
    freeReplyObject(r);
  return ok;
}

/* ---- Links: the streams ------------------------------------------------------ */

/* One stream entry: field b, the links of one sender's tick for the
 * partition, a line each, "depth level kind url" (kind p a page, s a
 * sitemap; a canonical URL has no space or newline). Its id is kept until
 * the partition's next snapshot acknowledges it. */
static void take_entry(struct part *p, unsigned pi, const redisReply *e)
{
  if(e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING)
    return;
  const redisReply *f = e->element[1];
  part_ids_add(&p->s[pi], e->element[0]->str, e->element[0]->len);
  for(size_t i = 0; f && f->type == REDIS_REPLY_ARRAY && i + 1 < f->elements; i += 2) {
    const redisReply *k = f->element[i], *v = f->element[i + 1];
    if(!k->str || strcmp(k->str, "b") || !v->str)
      continue;
    for(char *line = v->str, *nl; line && *line; line = nl) {
      nl = strchr(line, '\n');
      if(nl)
        *nl++ = 0;
      unsigned long depth, level;
      char kind;
      int off = 0;
      if(sscanf(line, "%lu %lu %c %n", &depth, &level, &kind, &off) != 3 || !off)
        continue;
      p->st.links_read++;
      if(kind == 's')
        crawl_add_sitemap(p->c, line + off);
      else
        crawl_add_url(p->c, line + off, (uint32_t)depth, (unsigned)level);
    }
  }
}

static long stream_part(const struct part *p, const char *key)
{
  const char *c = strrchr(key, ':');
  long pi = c ? strtol(c + 1, NULL, 10) : -1;
  return pi >= 0 && (unsigned long)pi < p->n ? pi : -1;
}

/* A partition taken: its stream's group made, its snapshot loaded, and
 * the entries its former owner had read but not acknowledged (they came
 * after that snapshot) taken over and read again. */
static void part_claimed(struct part *p, unsigned pi, bool lapsed)
{
  char key[COORD_KEY_MAX], snap[COORD_KEY_MAX];
  coord_key(p->k, "links", pi, key, sizeof key);
  coord_key(p->k, "snap", pi, snap, sizeof snap);
  p->st.claimed++;
  p->st.claimed_lapsed += lapsed;
  const char *mk[] = { "XGROUP", "CREATE", key, COORD_GROUP, "0", "MKSTREAM" };
  redisReply *r = coord_cmd(p->k, 6, mk, NULL);
  if(r)
    freeReplyObject(r);  /* BUSYGROUP: made before */
  const char *get[] = { "GET", snap };
  r = coord_cmd(p->k, 2, get, NULL);
  uint64_t queued = 0;
  if(r && r->type == REDIS_REPLY_STRING) {
    crawl_err e = part_snap_load(p, pi, r->str, r->len, &queued);
    if(e)
      LOG(LOG_ERROR, "crawl %s: partition %u: its snapshot: %s", p->crawl, pi, crawl_err_text(e));
  }
  if(r)
    freeReplyObject(r);
  char cnt[16];
  snprintf(cnt, sizeof cnt, "%u", CLAIM_COUNT);
  const char *ac[] = { "XAUTOCLAIM", key, COORD_GROUP, p->member, "0", "0-0", "COUNT", cnt };
  r = coord_cmd(p->k, 8, ac, NULL);
  uint64_t pending = 0;
  if(!reply_err(p, r, "XAUTOCLAIM") && r->type == REDIS_REPLY_ARRAY && r->elements >= 2) {
    const redisReply *v = r->element[1];
    for(size_t i = 0; i < v->elements; i++)
      take_entry(p, pi, v->element[i]);
    pending = v->elements;
  }
  if(r)
    freeReplyObject(r);
  p->st.pending_claimed += pending;
  if(lapsed)
    p->st.refetch_bound += queued + pending;
  p->s[pi].dirty = true;
}

void part_read(struct part *p)
{
  size_t n = 0;
  for(unsigned i = 0; i < p->n; i++)
    n += p->s[i].state == PS_OWNED;
  if(!n)
    return;
  char (*keys)[COORD_KEY_MAX] = mem_alloc(n * sizeof *keys);
  const char **argv = mem_alloc((n + 5) * sizeof *argv);
  if(!keys || !argv) {
    mem_free(keys);
    mem_free(argv);
    return;
  }
  char cnt[16];
  snprintf(cnt, sizeof cnt, "%u", READ_COUNT);
  argv[0] = p->k_stats;
  argv[1] = p->k_idle;
  size_t j = 0;
  for(unsigned i = 0; i < p->n; i++)
    if(p->s[i].state == PS_OWNED) {
      argv[2 + j] = coord_key(p->k, "links", i, keys[j], sizeof keys[j]);
      j++;
    }
  argv[2 + n] = COORD_GROUP;
  argv[3 + n] = p->member;
  argv[4 + n] = cnt;
  redisReply *r = coord_fcall(p->k, part_lua_read, (int)(n + 2), (int)(n + 5), argv, NULL);
  if(!reply_err(p, r, "reading links") && r->type == REDIS_REPLY_ARRAY) {
    crawl_hold(p->c);
    for(size_t s = 0; s < r->elements; s++) {
      const redisReply *st = r->element[s];
      if(st->type != REDIS_REPLY_ARRAY || st->elements != 2)
        continue;
      long pi = stream_part(p, st->element[0]->str ? st->element[0]->str : "");
      for(size_t e = 0; pi >= 0 && e < st->element[1]->elements; e++)
        take_entry(p, (unsigned)pi, st->element[1]->element[e]);
    }
    crawl_release(p->c);
  }
  if(r)
    freeReplyObject(r);
  mem_free(keys);
  mem_free(argv);
}

/* The streams over stream_max keep their links here for now. */
static void full_streams(struct part *p, unsigned char *full)
{
  char key[COORD_KEY_MAX];
  unsigned asked = 0;
  for(unsigned i = 0; i < p->n; i++) {
    if(!p->s[i].nout)
      continue;
    const char *argv[] = { "XLEN", coord_key(p->k, "links", i, key, sizeof key) };
    if(coord_append(p->k, 2, argv, NULL))
      asked++;
  }
  for(unsigned i = 0, got = 0; i < p->n && got < asked; i++) {
    if(!p->s[i].nout)
      continue;
    redisReply *r = coord_reply(p->k);
    got++;
    full[i] = !r || r->type != REDIS_REPLY_INTEGER || (size_t)r->integer >= p->o.stream_max;
    if(r)
      freeReplyObject(r);
  }
}

static void out_pop(struct part *p, unsigned pi, size_t k)
{
  struct pslot *s = &p->s[pi];
  while(k-- && s->out) {
    struct olink *l = s->out;
    s->out = l->next;
    if(!s->out)
      s->out_tail = NULL;
    mem_free(l);
    s->nout--;
    p->nout--;
  }
}

/* Sends what waits, in one MULTI with the count of links sent (the end of
 * the crawl compares it with the count read). */
void part_flush(struct part *p)
{
  if(!p->nout)
    return;
  unsigned char *full = mem_calloc(p->n, 1);
  size_t *sent = mem_calloc(p->n, sizeof *sent);
  if(!full || !sent) {
    mem_free(full);
    mem_free(sent);
    return;
  }
  full_streams(p, full);
  bool any = false;
  for(unsigned i = 0; i < p->n && !any; i++)
    any = p->s[i].nout && !full[i];
  if(!any) {
    mem_free(full);
    mem_free(sent);
    return;
  }
  const char *multi[] = { "MULTI" };
  bool ok = coord_append(p->k, 1, multi, NULL);
  size_t total = 0, entries = 0, cmds = 1;
  char key[COORD_KEY_MAX], head[48];
  struct buf b;
  buf_init(&b, (size_t)1 << 30);
  for(unsigned i = 0; ok && i < p->n && total < FLUSH_MAX; i++) {
    if(full[i] || !p->s[i].nout)
      continue;
    buf_reset(&b);
    for(struct olink *o = p->s[i].out; o && total < FLUSH_MAX; o = o->next) {
      snprintf(head, sizeof head, "%u %u %c ", o->depth, o->level, o->sitemap ? 's' : 'p');
      if(buf_adds(&b, head) || buf_adds(&b, o->url) || buf_addc(&b, '\n'))
        break;
      sent[i]++;
      total++;
    }
    if(!sent[i])
      continue;  /* out of memory for the text: its links wait */
    const char *argv[] = { "XADD", coord_key(p->k, "links", i, key, sizeof key), "*", "b",
                           b.data };
    size_t lens[] = { 4, strlen(argv[1]), 1, 1, b.len };
    ok = coord_append(p->k, 5, argv, lens);
    entries++;
    cmds++;
  }
  buf_free(&b);
  char tot[24];
  snprintf(tot, sizeof tot, "%zu", entries);  /* read.lua counts entries */
  const char *incr[] = { "HINCRBY", p->k_stats, "sent", tot };
  const char *exec[] = { "EXEC" };
  const char *discard[] = { "DISCARD" };
  if(ok && !entries) {  /* nothing could be written: the MULTI is closed */
    ok = coord_append(p->k, 1, discard, NULL);
    cmds++;
  } else if(ok) {
    ok = coord_append(p->k, 4, incr, NULL) && coord_append(p->k, 1, exec, NULL);
    cmds += 2;
  }
  redisReply *r = NULL;
  for(size_t i = 0; ok && i < cmds; i++) {  /* +OK, QUEUED..., then EXEC's array */
    if(r)
      freeReplyObject(r);
    r = coord_reply(p->k);
    ok = r != NULL;
  }
  if(ok && entries && r->type == REDIS_REPLY_ARRAY) {
    for(unsigned i = 0; i < p->n; i++)
      out_pop(p, i, sent[i]);
    p->st.links_sent += total;
  } else if(entries) {
    p->st.redis_errors++;  /* kept: sent again at the next tick */
  }
  if(r)
    freeReplyObject(r);
  mem_free(full);
  mem_free(sent);
}

/* ---- Snapshots and the end ---------------------------------------------------- */

static bool snap_call(struct part *p, unsigned pi, const char *data, size_t len, size_t from,
                      size_t nids)
{
  struct pslot *s = &p->s[pi];
  char sk[COORD_KEY_MAX], lk[COORD_KEY_MAX], ps[16], es[24];
  snprintf(ps, sizeof ps, "%u", pi);
  snprintf(es, sizeof es, "%llu", (unsigned long long)s->epoch);
  size_t argc = 9 + nids;
  const char **argv = mem_alloc(argc * sizeof *argv);
  size_t *lens = mem_alloc(argc * sizeof *lens);
  if(!argv || !lens) {
    mem_free(argv);
    mem_free(lens);
    return false;
  }
  argv[0] = p->k_owner;
  argv[1] = coord_key(p->k, "snap", pi, sk, sizeof sk);
  argv[2] = coord_key(p->k, "links", pi, lk, sizeof lk);
  argv[3] = p->k_members;
  argv[4] = p->member;
  argv[5] = ps;
  argv[6] = es;
  argv[7] = data;
  argv[8] = COORD_GROUP;
  for(size_t i = 0; i < nids; i++)
    argv[9 + i] = s->ids[from + i];
  for(size_t i = 0; i < argc; i++)
    lens[i] = i == 7 ? len : strlen(argv[i]);
  redisReply *r = coord_fcall(p->k, part_lua_snap, 4, (int)argc, argv, lens);
  bool fenced = r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "FENCED", 6);
  bool ok = !fenced && !reply_err(p, r, "snapshot");
  if(r)
    freeReplyObject(r);
  mem_free(argv);
  mem_free(lens);
  if(fenced) {
    p->st.fenced++;
    part_lost(p, pi);
  }
  return ok;
}

bool part_snap_put(struct part *p, unsigned pi)
{
  struct pslot *s = &p->s[pi];
  struct buf b;
  buf_init(&b, (size_t)1 << 30);
  crawl_err e = part_snap_make(p, pi, &b);
  if(e) {
    LOG(LOG_ERROR, "crawl %s: partition %u: snapshot: %s", p->crawl, pi, crawl_err_text(e));
    buf_free(&b);
    return false;
  }
  size_t nids = s->nids < ACK_CHUNK ? s->nids : ACK_CHUNK;
  bool ok = snap_call(p, pi, b.data ? b.data : "", b.len, 0, nids);
  buf_free(&b);
  for(size_t from = nids; ok && from < s->nids; from += nids) {
    nids = s->nids - from < ACK_CHUNK ? s->nids - from : ACK_CHUNK;
    ok = snap_call(p, pi, "", 0, from, nids);
  }
  if(ok) {
    part_ids_clear(s);
    s->dirty = false;
    p->st.snapshots++;
  }
  return ok;
}

/* This member's counters for wpfs crawl-status. */
static void progress_json(struct part *p, struct buf *b)
{
  struct crawl_stats st;
  struct crawl_sizes sz;
  crawl_stats(p->c, &st);
  crawl_sizes(p->c, &sz);
  buf_addf(b, "{\"pages\":%llu,\"queued\":%llu,\"outstanding\":%zu,\"held\":%u,"
              "\"links_sent\":%llu,\"links_read\":%llu,\"links_waiting\":%zu,"
              "\"claimed\":%llu,\"released\":%llu,\"lost\":%llu,\"refetch_bound\":%llu,"
              "\"redis_commands\":%llu,\"time_ms\":%llu}",
           (unsigned long long)st.pages,
           (unsigned long long)(sz.frontier.queued + sz.frontier.on_disk),
           sz.frontier.outstanding, p->st.held, (unsigned long long)p->st.links_sent,
           (unsigned long long)p->st.links_read, p->nout, (unsigned long long)p->st.claimed,
           (unsigned long long)p->st.released, (unsigned long long)p->st.lost,
           (unsigned long long)p->st.refetch_bound,
           (unsigned long long)coord_commands(p->k), (unsigned long long)clock_wall_ms());
}

bool part_report(struct part *p, bool idle)
{
  struct buf b;
  buf_init(&b, 4096);
  progress_json(p, &b);
  char n[16];
  snprintf(n, sizeof n, "%u", p->n);
  const char *argv[] = { p->k_members, p->k_owner, p->k_idle, p->k_stats, p->k_progress,
                         p->member, idle ? "1" : "0", b.data ? b.data : "{}", n };
  redisReply *r = coord_fcall(p->k, part_lua_report, 5, 9, argv, NULL);
  bool done = !reply_err(p, r, "report") && r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  if(r)
    freeReplyObject(r);
  buf_free(&b);
  return done;
}
