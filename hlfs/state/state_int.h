#ifndef WPFS_HLFS_STATE_INT_H
#define WPFS_HLFS_STATE_INT_H
/* Shared by hlfs/state/state_*.c only. */
#include "common/lru.h"
#include "hlfs/state/lua.h"
#include "hlfs/state/state.h"

#define STATE_MAGIC 0x57a7e001u

struct state_group {     /* state_group.c */
  struct state *st;
  unsigned      k;
  bool          verified;  /* this connection's Redis is shard group k */
  bool          asking;    /* the check is under way */
  uint64_t      failed_ms; /* monotonic: the last check failed then (0: none) */
};
/* A claim or submission met shard group k unverified: the check again,
 * when the last one failed (a write refused for now) long enough ago. */
void state_group_recheck(struct state *st, unsigned k);

/* state_journal.c: this replica's recent politeness writes, per site, to
 * write again after a failover (state_reapply). Times are monotonic ms. */
struct sj {
  struct lru l;
  size_t     max;        /* entries; 0: no journal */
  uint64_t   gap_until;  /* an entry was lost that had not passed yet */
};
int    sj_init(struct sj *j, size_t max);
void   sj_fini(struct sj *j);
/* This replica holds site's lease under token until end_ms. */
void   sj_lease(struct sj *j, const char *site, const char *token, uint64_t end_ms);
/* Its lease ended; the site may be contacted again at na_ms (0: unchanged). */
void   sj_end(struct sj *j, const char *site, uint64_t na_ms);
/* Every write not yet passed is kept. */
bool   sj_whole(const struct sj *j);
/* fn for each site with something still to come: the lease's token ("" when
 * none) and the ms left of it and of the next allowed time; fn returns 0 to
 * count the site. */
typedef int sj_each_fn(void *arg, const char *site, const char *token, uint64_t lease_left_ms,
                       uint64_t na_left_ms);
size_t sj_each(struct sj *j, sj_each_fn *fn, void *arg);

struct state {
  unsigned           magic;
  unsigned           nstores;
  struct store      *stores[STATE_STORES_MAX];   /* shard s lives on stores[s % nstores] */
  int                script[STATE_STORES_MAX][LUA__LAST];
  struct state_group  group[STATE_STORES_MAX];
  bool               mismatch;
  void             (*on_mismatch)(void *arg);
  void              *mismatch_arg;
  struct state_cfg   cfg;
  struct state_stats stats;
  struct sj          journal;
};

/* state_group.c: verify each Redis' shard group at every connection. */
void state_groups_watch(struct state *st);

/* An argument vector for one command; numbers are formatted into slots of
 * their own, so the pointers stay valid until state_args_free. */
struct state_args {
  int          n, cap;
  const char **v;
  size_t      *l;
  char       (*num)[24];
  char       **own;   /* strings formatted by state_args_addk, freed with a */
  store_err    err;   /* sticky: an addk that failed */
};

store_err state_args_init(struct state_args *a, int cap);
void      state_args_free(struct state_args *a);
void      state_args_addn(struct state_args *a, const char *s, size_t len);
void      state_args_add(struct state_args *a, const char *s);
void      state_args_addu(struct state_args *a, unsigned long long v);
/* A formatted argument of any length (key names); NOMEM is sticky. */
void      state_args_addk(struct state_args *a, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
void      state_args_addf(struct state_args *a, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
/* KEYS[1] "h:{N}" and ARGV[1] "{N}" of a shard script. */
void      state_args_shard(struct state_args *a, unsigned shard);
/* Run script sc on shard's Redis with one key (args from state_args_shard),
 * free the args. */
store_err state_run(struct state *st, unsigned shard, enum lua_script sc, struct state_args *a,
                    store_cb *cb, void *arg);
/* Plain command on via (state_store of the shard it concerns); frees the args. */
store_err state_send(struct state *st, struct store *via, struct state_args *a,
                     uint32_t extra_ms, store_cb *cb, void *arg);
uint64_t  state_u64(const struct store_val *v);
void      state_check(const struct state *st);

#endif
