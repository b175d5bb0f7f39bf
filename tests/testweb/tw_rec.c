#include "tests/testweb/tw_rec.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* Longest stored header value or path: records are for tests, not archives. */
#define REC_STR_MAX 1024

static const char *tw_outcome_name(enum tw_outcome o)
{
  static const char *const names[] = {
#define X(e, s) s,
    TW_OUTCOMES(X)
#undef X
  };
  return names[o];
}

void tw_rec_init(struct tw_rec *r, size_t max)
{
  memset(r, 0, sizeof *r);
  r->max = max;
  r->min_gap_us = -1;
  r->min_arrive_gap_us = -1;
}

static void rec_ent_clear(struct tw_rec_ent *e)
{
  mem_free(e->text);
  memset(e, 0, sizeof *e);
}

/* Grow the ring by doubling up to max; unwraps the entries in the process. */
static int rec_grow(struct tw_rec *r)
{
  size_t cap = r->cap ? r->cap * 2 : 16;
  if(cap > r->max)
    cap = r->max;
  struct tw_rec_ent *ring = mem_calloc(cap, sizeof *ring);
  if(!ring)
    return -1;
  for(size_t i = 0; i < r->n; i++)
    ring[i] = r->ring[(r->head + i) % r->cap];
  mem_free(r->ring);
  r->ring = ring;
  r->cap = cap;
  r->head = 0;
  return 0;
}

static uint16_t rec_put(struct buf *b, struct tw_str s)
{
  if(!s.p)
    return TW_REC_NOSTR;
  uint16_t off = (uint16_t)b->len;
  buf_add(b, s.p, s.n > REC_STR_MAX ? REC_STR_MAX : s.n);
  buf_addc(b, '\0');
  return off;
}

static void rec_fill(struct tw_rec_ent *e, const struct tw_rec_in *in, uint64_t seq)
{
  struct buf b;
  buf_init(&b, 5 * (REC_STR_MAX + 1));
  rec_put(&b, in->path);
  e->ua_off = rec_put(&b, in->ua);
  e->inm_off = rec_put(&b, in->inm);
  e->ims_off = rec_put(&b, in->ims);
  e->text = buf_steal(&b, NULL);
  e->seq = seq;
  e->arrive_us = in->now_us;
  e->conn = in->conn;
  e->method = (uint8_t)in->method;
  e->outcome = TW_OUT_PENDING;
}

static void rec_store(struct tw_rec *r, const struct tw_rec_in *in, uint64_t seq)
{
  if(!r->max)
    return;
  if(r->n == r->cap && r->cap < r->max && rec_grow(r))
    return;  /* out of memory: the counters stay exact, the entry is lost */
  struct tw_rec_ent *e;
  if(r->n == r->cap) {
    e = &r->ring[r->head];  /* full: overwrite the oldest */
    r->head = (r->head + 1) % r->cap;
    rec_ent_clear(e);
  } else {
    e = &r->ring[(r->head + r->n) % r->cap];
    r->n++;
  }
  rec_fill(e, in, seq);
}

static void rec_gaps(struct tw_rec *r, uint64_t now)
{
  if(r->requests) {
    int64_t ag = (int64_t)(now - r->last_arrive_us);
    if(r->min_arrive_gap_us < 0 || ag < r->min_arrive_gap_us)
      r->min_arrive_gap_us = ag;
  } else {
    r->first_arrive_us = now;
  }
  int64_t g = -1;
  if(r->in_flight) {
    g = 0;  /* overlapping requests leave no gap at all */
    r->overlaps++;
  } else if(r->last_done_us) {
    g = (int64_t)(now - r->last_done_us);
  }
  if(g >= 0 && (r->min_gap_us < 0 || g < r->min_gap_us))
    r->min_gap_us = g;
  r->last_arrive_us = now;
}

uint64_t tw_rec_begin(struct tw_rec *r, const struct tw_rec_in *in)
{
  uint64_t seq = ++r->next_seq;
  rec_gaps(r, in->now_us);
  r->requests++;
  if(++r->in_flight > r->max_in_flight)
    r->max_in_flight = r->in_flight;
  rec_store(r, in, seq);
  return seq;
}

static struct tw_rec_ent *rec_find(struct tw_rec *r, uint64_t seq)
{
  if(!r->n)
    return NULL;
  uint64_t first = r->ring[r->head].seq;
  if(seq < first || seq - first >= r->n)
    return NULL;
  struct tw_rec_ent *e = &r->ring[(r->head + (size_t)(seq - first)) % r->cap];
  return e->seq == seq ? e : NULL;
}

void tw_rec_end(struct tw_rec *r, uint64_t seq, int status, uint64_t bytes,
                enum tw_outcome o, uint64_t now_us)
{
  if(r->in_flight)
    r->in_flight--;
  r->last_done_us = now_us;
  if(seq <= r->reset_seq)
    return;
  r->bytes += bytes;
  r->aborted += o == TW_OUT_ABORTED;
  r->cut += o == TW_OUT_CLOSED || o == TW_OUT_RESET;
  r->status_class[status >= 100 && status < 600 ? status / 100 : 0]++;
  struct tw_rec_ent *e = rec_find(r, seq);
  if(!e)
    return;
  e->done_us = now_us;
  e->status = (uint16_t)status;
  e->bytes = bytes;
  e->outcome = (uint8_t)o;
}

void tw_rec_conn_open(struct tw_rec *r)
{
  r->connections++;
  if(++r->open_conns > r->max_open_conns)
    r->max_open_conns = r->open_conns;
}

void tw_rec_conn_close(struct tw_rec *r)
{
  if(r->open_conns)
    r->open_conns--;
}

void tw_rec_reset(struct tw_rec *r)
{
  for(size_t i = 0; i < r->n; i++)
    rec_ent_clear(&r->ring[(r->head + i) % r->cap]);
  mem_free(r->ring);
  struct tw_rec keep = *r;
  tw_rec_init(r, keep.max);
  r->next_seq = r->reset_seq = keep.next_seq;
  r->in_flight = r->max_in_flight = keep.in_flight;
  r->open_conns = r->max_open_conns = keep.open_conns;
}

void tw_rec_free(struct tw_rec *r)
{
  tw_rec_reset(r);
}

static void rec_json_str(struct buf *b, const char *key, const struct tw_rec_ent *e,
                         uint16_t off)
{
  buf_addf(b, ",\"%s\":", key);
  if(off == TW_REC_NOSTR)
    buf_adds(b, "null");
  else
    buf_add_json_str(b, e->text + off, strlen(e->text + off));
}

static void rec_json_ent(struct buf *b, const struct tw_rec_ent *e)
{
  buf_addf(b, "{\"seq\":%llu,\"conn\":%u,\"method\":\"%s\",\"path\":",
           (unsigned long long)e->seq, e->conn, tw_method_name(e->method));
  buf_add_json_str(b, e->text, strlen(e->text));
  buf_addf(b, ",\"arrive_us\":%llu", (unsigned long long)e->arrive_us);
  if(e->outcome == TW_OUT_PENDING)
    buf_adds(b, ",\"done_us\":null,\"duration_ms\":null");
  else
    buf_addf(b, ",\"done_us\":%llu,\"duration_ms\":%.3f", (unsigned long long)e->done_us,
             (double)(e->done_us - e->arrive_us) / 1000.0);
  buf_addf(b, ",\"status\":%u,\"bytes\":%llu,\"outcome\":\"%s\"", e->status,
           (unsigned long long)e->bytes, tw_outcome_name(e->outcome));
  rec_json_str(b, "ua", e, e->ua_off);
  rec_json_str(b, "inm", e, e->inm_off);
  rec_json_str(b, "ims", e, e->ims_off);
  buf_addc(b, '}');
}

static void rec_json_gap(struct buf *b, const char *name, int64_t us)
{
  if(us < 0)
    buf_addf(b, ",\"%s_us\":null,\"%s_ms\":null", name, name);
  else
    buf_addf(b, ",\"%s_us\":%lld,\"%s_ms\":%.3f", name, (long long)us, name,
             (double)us / 1000.0);
}

static void rec_json_counters(const struct tw_rec *r, struct buf *b)
{
#define U(x) ((unsigned long long)(x))
  buf_addf(b, "\"request_count\":%llu,\"in_flight\":%llu,\"max_in_flight\":%llu,"
           "\"overlaps\":%llu,\"connections\":%llu,\"open_connections\":%llu,"
           "\"max_open_connections\":%llu,\"bytes\":%llu,\"aborted\":%llu,\"cut\":%llu",
           U(r->requests), U(r->in_flight), U(r->max_in_flight), U(r->overlaps),
           U(r->connections), U(r->open_conns), U(r->max_open_conns), U(r->bytes),
           U(r->aborted), U(r->cut));
  buf_addf(b, ",\"status\":{\"none\":%llu,\"1xx\":%llu,\"2xx\":%llu,\"3xx\":%llu,"
           "\"4xx\":%llu,\"5xx\":%llu}", U(r->status_class[0]), U(r->status_class[1]),
           U(r->status_class[2]), U(r->status_class[3]), U(r->status_class[4]),
           U(r->status_class[5]));
  buf_addf(b, ",\"first_arrive_us\":%llu,\"last_arrive_us\":%llu,\"last_done_us\":%llu",
           U(r->first_arrive_us), U(r->last_arrive_us), U(r->last_done_us));
#undef U
  rec_json_gap(b, "min_gap", r->min_gap_us);
  rec_json_gap(b, "min_arrival_gap", r->min_arrive_gap_us);
  buf_addf(b, ",\"kept\":%zu,\"keep_max\":%zu", r->n, r->max);
}

tw_err tw_rec_json(const struct tw_rec *r, struct buf *out, size_t last)
{
  rec_json_counters(r, out);
  if(last) {
    size_t from = r->n > last ? r->n - last : 0;
    buf_adds(out, ",\"requests\":[");
    for(size_t i = from; i < r->n; i++) {
      if(i > from)
        buf_addc(out, ',');
      rec_json_ent(out, &r->ring[(r->head + i) % r->cap]);
    }
    buf_addc(out, ']');
  }
  /* No single append above exceeds TW_REC_JSON_SLACK bytes, so when that
   * much room is left at the end, none of them can have hit the cap. */
  return out->len + TW_REC_JSON_SLACK < out->max ? TW_OK : TW_TOO_LARGE;
}
