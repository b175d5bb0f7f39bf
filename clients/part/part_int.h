#ifndef WPFS_CLIENTS_PART_INT_H
#define WPFS_CLIENTS_PART_INT_H
/* Inside a member (part.h): the state its files share. part.c keeps the
 * partitions and the engine's hooks, part_redis.c talks to Redis,
 * part_snap.c reads and writes snapshots. */
#include "clients/base/fpmap.h"
#include "clients/part/coord.h"
#include "clients/part/part.h"

/* A URL of a held partition, queued or outstanding: what its snapshot
 * lists. */
struct prec {
  struct prec *prev, *next;
  uint64_t     fp;
  uint32_t     depth, part;
  uint8_t      level, inflight;
  char         url[];
};

/* A link for a partition held elsewhere, waiting to be sent. */
struct olink {
  struct olink *next;
  uint32_t      depth;
  uint8_t       level, sitemap;
  char          url[];
};

enum pstate { PS_NONE, PS_OWNED, PS_DRAINING };

struct pslot {
  uint8_t       state;
  uint64_t      epoch;
  struct prec  *head;          /* its URLs queued or outstanding */
  size_t        npending, ninflight;
  uint64_t     *fin;           /* fingerprints of its URLs finished */
  size_t        nfin, capfin;
  char        **ids;           /* stream entries read since its last snapshot */
  size_t        nids, capids;
  bool          dirty;         /* changed since its last snapshot */
  struct olink *out, *out_tail;  /* links for it, held elsewhere */
  size_t        nout;
};

struct part {
  struct part_opts  o;
  char             *crawl, *member;
  struct coord     *k;
  struct crawl     *c;
  unsigned          n;
  struct pslot     *s;
  struct fpmap      pending;   /* fp -> struct prec * of held partitions */
  struct fpmap      finished;  /* fp -> partition, of held partitions */
  size_t            nout;      /* links waiting, all partitions */
  uint64_t          last_rebalance, last_snap, last_read, last_report, last_flush;
  bool              done;
  struct part_stats st;
  char              k_members[COORD_KEY_MAX], k_meta[COORD_KEY_MAX], k_owner[COORD_KEY_MAX],
                    k_epoch[COORD_KEY_MAX], k_idle[COORD_KEY_MAX], k_stats[COORD_KEY_MAX],
                    k_progress[COORD_KEY_MAX];
};

/* part.c */
struct prec *part_prec_add(struct part *p, unsigned pi, const char *url, uint32_t depth,
                           unsigned level);
void         part_fin_add(struct part *p, unsigned pi, uint64_t fp);
crawl_err    part_ids_add(struct pslot *s, const char *id, size_t n);
void         part_ids_clear(struct pslot *s);
/* Forget what this member kept of a partition (handed over or lost). */
void         part_drop(struct part *p, unsigned pi);

/* part_snap.c: a partition's snapshot as bytes (buf), and one loaded:
 * its finished fingerprints, then its URLs queued here. */
crawl_err    part_snap_make(const struct part *p, unsigned pi, struct buf *out);
crawl_err    part_snap_load(struct part *p, unsigned pi, const char *data, size_t len,
                            uint64_t *queued);

/* part_redis.c */
/* claim: take partitions up to the share (not at the first call: the
 * members started together see each other first). */
bool         part_rebalance(struct part *p, bool claim);
void         part_read(struct part *p);
void         part_flush(struct part *p);
/* Snapshot of one partition, and its entries acknowledged; false when
 * fenced (the partition is lost: dropped) or Redis failed. */
bool         part_snap_put(struct part *p, unsigned pi);
bool         part_release(struct part *p, unsigned pi);
bool         part_report(struct part *p, bool idle);

#endif
