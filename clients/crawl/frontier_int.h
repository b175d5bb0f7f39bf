#ifndef WPFS_CLIENTS_FRONTIER_INT_H
#define WPFS_CLIENTS_FRONTIER_INT_H
/* Inside the frontier: the structs frontier.c (levels, memory, disk,
 * checkpoints) and frontier_score.c (the order by score) share. */
#include "clients/base/fpmap.h"
#include "clients/crawl/frontier.h"
#include "common/heap.h"

#define L FRONTIER_LEVELS

struct fhost;

/* A URL. Queued: in its host's list for its level (levels), or in its
 * host's heap and the frontier's heap of the worst (scored). Outstanding:
 * in none. The scorer's meta bytes follow the URL's NUL. */
struct fentry {
  union {
    struct { struct fentry *prev, *next; };          /* levels */
    struct { struct heap_node hnode, wnode; uint64_t seq; };  /* scored: heaps, arrival */
  };
  struct fhost  *host;
  uint64_t       fp;
  uint32_t       depth, inlinks;
  float          score;
  uint16_t       meta_len;
  uint8_t        level, base, outstanding;
  char           url[];
};

struct fqueue {
  struct fentry *head, *tail;
};

/* A host: its queues, and its place in each level's ring of hosts that
 * have URLs queued at that level; scored, its heap of queued URLs (best
 * first) and its place in the frontier's heap of hosts (by their best). */
struct fhost {
  struct fhost   *rnext[L], *rprev[L];
  struct fqueue   q[L];
  struct heap     urls;     /* scored: its queued URLs (fentry.hnode) */
  struct heap_node hnode;   /* scored: in the frontier's heap of hosts */
  struct fhost   *bnext;    /* scored: on the list of hosts skipped by a take */
  uint64_t        key;
  uint32_t        queued, outstanding;
  char            name[];
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
  /* scored */
  struct heap           host_heap;  /* hosts with queued URLs, best first */
  struct heap           worst;      /* queued URLs, worst first: what a full frontier drops */
  uint64_t              seq;        /* arrivals */
  struct frontier_stats st;
};

/* frontier.c: e leaves the queue for the gateway (counted, item filled). */
void      frontier_taken(struct frontier *f, struct fentry *e, struct frontier_item *out);

/* frontier_score.c */
unsigned  fscore_level(float score);
crawl_err fscore_link(struct frontier *f, struct fentry *e);
void      fscore_unlink(struct frontier *f, struct fentry *e);
/* e's score rose: move it up where it now belongs. */
void      fscore_raised(struct frontier *f, struct fentry *e);
/* e moved in memory (a realloc): its heap slots point at it again. */
void      fscore_moved(struct frontier *f, struct fentry *e);
struct fentry *fscore_worst(const struct frontier *f);
/* Does a URL of score, arriving now, beat e? */
bool      fscore_beats(float score, uint64_t seq, const struct fentry *e);
size_t    fscore_take(struct frontier *f, size_t max, struct frontier_item *out);
void      fscore_host_free(struct fhost *h);
void      fscore_free(struct frontier *f);

#endif
