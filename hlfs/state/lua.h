#ifndef WPFS_HLFS_LUA_H
#define WPFS_HLFS_LUA_H
/* The gateway's Redis functions, one concept each (hlfs/state/lua/<name>.lua,
 * made into one Redis function library at build time by mk/lua2c.sh):
 * lua_library is its text, lua_library_name its name, and each variable
 * below the name of a function in it.
 * Argument layouts are documented at the top of each file and in
 * docs/hlfs-state.md; hlfs/state/state_*.c are their only callers. */

#define LUA_SCRIPTS(X)                                                      \
  X(SUBMIT,      lua_submit)       /* enqueue a batch: quotas, dedup, seq */ \
  X(CLAIM,       lua_claim)        /* reap expired leases, claim due sites */ \
  X(COMPLETE,    lua_complete)     /* release, politeness, publish result */ \
  X(ROBOTS_DONE, lua_robots_done)  /* store robots.txt, release, requeue */  \
  X(RENEW,       lua_renew)        /* extend leases still held */           \
  X(ABORT,       lua_abort)        /* give a claim back untouched */        \
  X(ACK,         lua_ack)          /* XACK + XDEL of delivered results */   \
  X(SITE,        lua_site)         /* a site's state for the API */        \
  X(HOP_TAKE,    lua_hop_take)     /* lease a site for a robots.txt hop */  \
  X(HOP_FREE,    lua_hop_free)     /* release it, charge its politeness */ \
  X(FLEET,       lua_fleet)        /* heartbeat; replicas, clients, sites */ \
  X(FENCE,       lua_fence)        /* hold claims after a failover */     \
  X(REAPPLY,     lua_reapply)      /* write politeness again, answer the roll */ \
  X(ADDR,        lua_addr)         /* per-address slots: take, give */

enum lua_script {
#define X(e, var) LUA_##e,
  LUA_SCRIPTS(X)
#undef X
  LUA__LAST
};

extern const char lua_library[];
extern const char lua_library_name[];
#define X(e, var) extern const char var[];
LUA_SCRIPTS(X)
#undef X

#endif
