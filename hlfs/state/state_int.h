#ifndef WPFS_HLFS_STATE_INT_H
#define WPFS_HLFS_STATE_INT_H
/* Shared by hlfs/state_*.c only. */
#include "hlfs/state/lua.h"
#include "hlfs/state/state.h"

#define STATE_MAGIC 0x57a7e001u

struct state_group {     /* state_group.c */
  struct state *st;
  unsigned      k;
  bool          verified;  /* this connection's Redis is shard group k */
};

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
