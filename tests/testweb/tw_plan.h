#ifndef WPFS_TESTWEB_TW_PLAN_H
#define WPFS_TESTWEB_TW_PLAN_H
/* A response, decided before its first byte is written: the head, then the
 * body as segments (a piece of memory repeated reps times, possibly
 * forever), and the timing and ending the request asked for. The connection
 * pulls bytes from it with tw_plan_fill, never more than it may send now. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "common/buf.h"

#define TW_FOREVER UINT64_MAX
#define TW_PLAN_SEGS 8
#define TW_PLAN_IOV 48  /* iovecs per write; multiple of 3 (chunk framing) */

struct tw_seg {
  const char *p;   /* static memory, or inside the plan's own buffers */
  size_t      len;
  uint64_t    reps;
};

enum tw_cut { TW_CUT_NONE, TW_CUT_CLOSE, TW_CUT_RESET };

struct tw_plan {
  unsigned magic;
#define TW_PLAN_MAGIC 0x9a7e0c31u
  int         status;
  struct buf  head;        /* status line and headers, empty line included */
  struct buf  body;        /* bytes owned by the plan, pointed to by segments */
  struct tw_seg seg[TW_PLAN_SEGS];
  unsigned    nseg;
  bool        chunked;     /* frame the segments' bytes as chunks */
  bool        close;       /* close the connection once the response is sent */
  bool        hang;        /* send nothing, ever */
  uint64_t    hold_ms;     /* before the head */
  uint64_t    drip_bytes, drip_ms;  /* body pieces and the pause between them */
  uint64_t    cut_after;   /* body bytes before the cut */
  enum tw_cut cut;
  char       *target;      /* the request target, owned; strings point into it */
  /* progress, kept by tw_plan_fill */
  bool        head_sent, tail_sent, cut_reached;
  unsigned    cur;
  uint64_t    rep;
  size_t      off;
  uint64_t    body_sent;   /* body bytes handed out, chunk framing excluded */
  uint64_t    wire_sent;   /* every byte handed out */
  char        chunk_hdr[TW_PLAN_IOV / 3][20];
};

void tw_plan_init(struct tw_plan *pl);
void tw_plan_free(struct tw_plan *pl);
/* Append a segment; false when the table is full. */
bool tw_plan_seg(struct tw_plan *pl, const char *p, size_t len, uint64_t reps);
/* Total body bytes of the segments, or TW_FOREVER. */
uint64_t tw_plan_body_len(const struct tw_plan *pl);
/* The next bytes to send, at most max_body body bytes (the head and the
 * chunk framing do not count). Returns the number of iovecs (0: nothing
 * more to send now). */
unsigned tw_plan_fill(struct tw_plan *pl, uv_buf_t *iov, uint64_t max_body);
/* Everything was handed out (or the cut was reached). */
bool tw_plan_finished(const struct tw_plan *pl);

#endif
