#include "tests/testweb/tw_plan.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

/* Heads are small, but the malformed ones may be large. */
#define PLAN_HEAD_MAX (1u << 20)
/* Generated bodies: pages, sitemaps, control answers. */
#define PLAN_BODY_MAX (256u << 20)

void tw_plan_init(struct tw_plan *pl)
{
  memset(pl, 0, sizeof *pl);
  pl->magic = TW_PLAN_MAGIC;
  pl->status = 200;
  buf_init(&pl->head, PLAN_HEAD_MAX);
  buf_init(&pl->body, PLAN_BODY_MAX);
}

void tw_plan_free(struct tw_plan *pl)
{
  assert(pl->magic == TW_PLAN_MAGIC);
  buf_free(&pl->head);
  buf_free(&pl->body);
  mem_free(pl->target);
  pl->magic = 0;
}

bool tw_plan_seg(struct tw_plan *pl, const char *p, size_t len, uint64_t reps)
{
  if(pl->nseg == TW_PLAN_SEGS)
    return false;
  if(!len || !reps)
    return true;
  pl->seg[pl->nseg++] = (struct tw_seg){ p, len, reps };
  return true;
}

uint64_t tw_plan_body_len(const struct tw_plan *pl)
{
  uint64_t n = 0;
  for(unsigned i = 0; i < pl->nseg; i++) {
    if(pl->seg[i].reps == TW_FOREVER)
      return TW_FOREVER;
    n += pl->seg[i].len * pl->seg[i].reps;
  }
  return n;
}

static bool plan_body_done(const struct tw_plan *pl)
{
  return pl->cur >= pl->nseg;
}

/* Add one piece, framed as a chunk when needed. */
static unsigned plan_piece(struct tw_plan *pl, uv_buf_t *iov, unsigned n, const char *p,
                           size_t len)
{
  if(pl->chunked) {
    char *h = pl->chunk_hdr[n / 3];
    int hl = snprintf(h, sizeof pl->chunk_hdr[0], "%zx\r\n", len);
    iov[n++] = uv_buf_init(h, (unsigned)hl);
    iov[n++] = uv_buf_init((char *)p, (unsigned)len);
    iov[n++] = uv_buf_init((char *)"\r\n", 2);
  } else {
    iov[n++] = uv_buf_init((char *)p, (unsigned)len);
  }
  pl->body_sent += len;
  return n;
}

static void plan_advance(struct tw_plan *pl, size_t took)
{
  const struct tw_seg *s = &pl->seg[pl->cur];
  pl->off += took;
  if(pl->off < s->len)
    return;
  pl->off = 0;
  if(s->reps != TW_FOREVER && ++pl->rep >= s->reps) {
    pl->rep = 0;
    pl->cur++;
  }
}

/* How many body bytes may go out before the cut. */
static uint64_t plan_cut_room(const struct tw_plan *pl)
{
  if(pl->cut == TW_CUT_NONE)
    return TW_FOREVER;
  return pl->cut_after > pl->body_sent ? pl->cut_after - pl->body_sent : 0;
}

unsigned tw_plan_fill(struct tw_plan *pl, uv_buf_t *iov, uint64_t max_body)
{
  unsigned n = 0;
  uint64_t budget = max_body;
  if(!pl->head_sent) {
    pl->head_sent = true;
    iov[n++] = uv_buf_init(pl->head.data, (unsigned)pl->head.len);
    n = 3;  /* keep chunk_hdr indexes aligned on iov triples */
    iov[1] = iov[2] = uv_buf_init(NULL, 0);
  }
  while(n + 3 <= TW_PLAN_IOV && budget && !plan_body_done(pl)) {
    uint64_t room = plan_cut_room(pl);
    if(!room) {
      pl->cut_reached = true;
      break;
    }
    const struct tw_seg *s = &pl->seg[pl->cur];
    uint64_t take = s->len - pl->off;
    take = take < budget ? take : budget;
    take = take < room ? take : room;
    take = take < (1u << 30) ? take : (1u << 30);
    n = plan_piece(pl, iov, n, s->p + pl->off, (size_t)take);
    budget -= take;
    plan_advance(pl, (size_t)take);
  }
  if(pl->cut != TW_CUT_NONE && !plan_cut_room(pl))
    pl->cut_reached = true;
  if(plan_body_done(pl) && pl->chunked && !pl->tail_sent && !pl->cut_reached &&
     n + 1 <= TW_PLAN_IOV) {
    pl->tail_sent = true;
    iov[n++] = uv_buf_init((char *)"0\r\n\r\n", 5);
  }
  for(unsigned i = 0; i < n; i++)
    pl->wire_sent += iov[i].len;
  return n;
}

bool tw_plan_finished(const struct tw_plan *pl)
{
  if(pl->cut_reached)
    return true;
  return pl->head_sent && plan_body_done(pl) && (!pl->chunked || pl->tail_sent);
}
