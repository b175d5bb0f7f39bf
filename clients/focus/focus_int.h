#ifndef WPFS_CLIENTS_FOCUS_FOCUS_INT_H
#define WPFS_CLIENTS_FOCUS_FOCUS_INT_H
/* Inside the scorer: the struct focus.c (topic, scores) and focus_rec.c
 * (what is recorded: log members, resume, checkpoints, summary) share. */
#include "clients/focus/focus.h"
#include "clients/focus/idf.h"
#include "clients/focus/tvec.h"
#include "common/buf.h"

#define FOCUS_MAGIC 0x70c05ea1u

/* A URL's meta bytes: inherited (a float), off-topic distance (a byte),
 * then the parent's URL. */
#define FOCUS_META_HEAD 5

struct focus_link {   /* a URL's meta, read */
  double      inherited;
  unsigned    off;
  const char *parent;  /* NULL for a seed */
  size_t      parent_len;
};

struct focus {
  unsigned            magic;
  struct focus_opts   o;
  struct text        *text;
  struct idf         *idf;
  struct tvec         topic;
  struct tvec         page, scratch;  /* the page at hand; an anchor or its context */
  struct crawl_scorer hooks;
  struct focus_stats  st;
  unsigned char      *meta;           /* the meta handed out for the page's links */
  size_t              meta_cap;
  /* resume: the line last read back (recorded) */
  unsigned char      *rec_meta;
  size_t              rec_meta_cap;
  double              rec_sim;
  bool                rec_relevant;
};

/* focus.c */
void      focus_link_read(const struct frontier_score *own, struct focus_link *out);
crawl_err focus_meta(unsigned char **buf, size_t *cap, double inherited, unsigned off,
                     const char *parent, size_t parent_len, size_t *len);

/* focus_rec.c */
void      focus_count(struct focus *f, bool relevant);
crawl_err focus_log(const struct focus *f, struct buf *log, double sim, bool relevant,
                    const struct frontier_score *own);
crawl_err focus_recorded(void *arg, const char *line, size_t len, struct frontier_score *own);
void      focus_save(void *arg, struct ckfile *c);
void      focus_load(void *arg, struct ckfile *c);
crawl_err focus_summary(void *arg, struct buf *out);
void      focus_note(void *arg, char *out, size_t n);

#endif
