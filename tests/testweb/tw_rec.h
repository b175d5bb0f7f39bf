#ifndef WPFS_TESTWEB_TW_REC_H
#define WPFS_TESTWEB_TW_REC_H
/* What one site was asked and when: the last `max` requests in a ring, and
 * counters that stay exact however many requests the ring forgot. A request
 * is in flight from the moment its head is parsed ("arrive") until its last
 * byte was handed to the kernel or the connection ended ("done"). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "tests/testweb/tw_err.h"
#include "tests/testweb/tw_http.h"

/* How a request ended. */
#define TW_OUTCOMES(X)                                          \
  X(PENDING, "pending")   /* still in flight */                 \
  X(DONE,    "done")      /* whole response written */          \
  X(ABORTED, "aborted")   /* the client went away first */      \
  X(CLOSED,  "closed")    /* testweb closed mid-response */     \
  X(RESET,   "reset")     /* testweb reset mid-response */
enum tw_outcome {
#define X(e, s) TW_OUT_##e,
  TW_OUTCOMES(X)
#undef X
};

#define TW_REC_NOSTR UINT16_MAX

struct tw_rec_ent {
  uint64_t seq;        /* number of the request since the process started */
  uint64_t arrive_us, done_us, bytes;
  char    *text;       /* "path\0ua\0inm\0ims\0" (owned), offsets below */
  uint32_t conn;
  uint16_t ua_off, inm_off, ims_off;  /* TW_REC_NOSTR when absent */
  uint16_t status;
  uint8_t  method, outcome;
};

struct tw_rec {
  struct tw_rec_ent *ring;
  size_t   cap, max, n, head;  /* head: index of the oldest entry */
  uint64_t next_seq;           /* never reset: ties done() to its entry */
  uint64_t reset_seq;          /* requests up to this one predate the reset */
  uint64_t requests, in_flight, max_in_flight, overlaps;
  uint64_t connections, open_conns, max_open_conns;
  uint64_t bytes, aborted, cut, status_class[6];
  uint64_t first_arrive_us, last_arrive_us, last_done_us;
  int64_t  min_gap_us;         /* done -> next arrival; -1 = not yet */
  int64_t  min_arrive_gap_us;  /* arrival -> next arrival; -1 = not yet */
};

struct tw_rec_in {
  enum tw_method method;
  struct tw_str path, ua, inm, ims;
  uint32_t conn;
  uint64_t now_us;
};

/* max: requests kept (0 keeps only the counters). */
void     tw_rec_init(struct tw_rec *r, size_t max);
/* Returns the request's sequence number, for tw_rec_end. */
uint64_t tw_rec_begin(struct tw_rec *r, const struct tw_rec_in *in);
void     tw_rec_end(struct tw_rec *r, uint64_t seq, int status, uint64_t bytes,
                    enum tw_outcome o, uint64_t now_us);
void     tw_rec_conn_open(struct tw_rec *r);
void     tw_rec_conn_close(struct tw_rec *r);
/* Forget history; requests and connections now open stay counted. */
void     tw_rec_reset(struct tw_rec *r);
void     tw_rec_free(struct tw_rec *r);
/* Counters as JSON members (no braces), then "requests":[the last `last`
 * entries] unless last == 0. */
#define TW_REC_JSON_SLACK 65536
tw_err   tw_rec_json(const struct tw_rec *r, struct buf *out, size_t last);

#endif
