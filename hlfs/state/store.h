#ifndef WPFS_HLFS_STORE_H
#define WPFS_HLFS_STORE_H
/* The gateway's one Redis connection: asynchronous (hiredis on the libuv
 * loop), scripts by EVALSHA (loaded with SCRIPT LOAD on every connect, sent
 * again as EVAL when the server answers NOSCRIPT) and functions by FCALL
 * (their library loaded the same way), reconnection with
 * exponential backoff, a cap on commands awaiting a reply and a deadline on
 * each; with Redis Sentinel, the master found anew at each reconnection
 * (sentinel.h). This module is the only one that sees hiredis; replies
 * reach callers as opaque store_val nodes read through the accessors below.
 *
 * Contracts:
 *  - a non-zero return from store_cmd/store_eval means cb is never called;
 *  - otherwise cb is called exactly once, from the loop (or from store_close,
 *    with STORE_CLOSED), with STORE_OK and the reply, or an error
 *    (STORE_REPLY with the error reply as v, or a transport error, v NULL);
 *  - v and everything reached from it are valid only during the callback;
 *  - a blocking command (BLOCK/XREADGROUP ... BLOCK) holds the connection:
 *    give it a store of its own, and its block time as extra_ms;
 *  - store_close must not be called from inside a store callback;
 *  - a store that subscribes (store_subscribe) sends nothing else: a
 *    subscribed Redis connection accepts no other command. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "common/err.h"

#define STORE_ERRORS(X)                                  \
  X(OK,      ok,      "ok")                                       \
  X(DOWN,    down,    "redis not connected")                      \
  X(BUSY,    busy,    "too many redis commands pending")          \
  X(TIMEOUT, timeout, "redis did not answer in time")             \
  X(REPLY,   reply,   "redis answered with an error")             \
  X(PROTO,   proto,   "unexpected redis reply")                   \
  ERR_NOMEM(X)                                                    \
  X(CLOSED,  closed,  "store closed")

typedef enum {
#define X(e, name, txt) STORE_##e,
  STORE_ERRORS(X)
#undef X
  STORE__LAST
} store_err;

const char *store_err_text(store_err e);

struct store_cfg {
  const char *host;
  int         port;
  /* With Redis Sentinel: "host:port,..." of the sentinels, and the name
   * they monitor; host and port are then the master they name, asked again
   * at every reconnection, and a server that is not a master is left. */
  const char *sentinels;
  const char *master_name;
  const char *password;          /* AUTH on every connection, or NULL */
  uint32_t    connect_timeout_ms;
  uint32_t    cmd_timeout_ms;    /* reply deadline; the connection is reset when missed */
  uint32_t    backoff_min_ms;    /* first reconnect delay, doubled to backoff_max_ms */
  uint32_t    backoff_max_ms;
  unsigned    max_pending;       /* commands sent and not yet answered */
};

enum store_vtype { STORE_V_NIL, STORE_V_INT, STORE_V_STR, STORE_V_ARR,
                   STORE_V_ERR, STORE_V_STATUS, STORE_V_OTHER };

struct store_val;  /* opaque reply node */
enum store_vtype        store_v_type(const struct store_val *v);
/* Integer reply, or a string holding a decimal integer; def otherwise. */
long long               store_v_int(const struct store_val *v, long long def);
/* String, status or error text (and its length); NULL for other types. */
const char             *store_v_str(const struct store_val *v, size_t *len);
size_t                  store_v_len(const struct store_val *v);   /* array size */
const struct store_val *store_v_at(const struct store_val *v, size_t i); /* NULL past end */

typedef void store_cb(void *arg, store_err err, const struct store_val *v);
typedef void store_state_fn(void *arg, bool up);
/* The server behind the store is not the one it was connected to before
 * (another master after a failover, or a restart): its last writes may be
 * lost. Seen by the server's run_id at each connection. */
typedef void store_change_fn(void *arg);

struct store_stats {
  uint64_t sent;        /* commands written */
  uint64_t evals;       /* of which script calls */
  uint64_t replies;
  uint64_t reply_errors;
  uint64_t noscript;    /* script or function missing: resent (as EVAL,
                         * or after the library) */
  uint64_t busy;        /* refused: max_pending reached */
  uint64_t timeouts;    /* connection reset on a missed deadline */
  uint64_t connects;    /* established (with a password: once it was taken) */
  uint64_t disconnects;
  uint64_t messages;    /* subscription messages and confirmations received */
  unsigned pending;
};

struct store *store_new(uv_loop_t *loop, const struct store_cfg *cfg);
/* Called on every change between connected (scripts loaded) and not. */
void  store_on_state(struct store *s, store_state_fn *fn, void *arg);
void  store_on_change(struct store *s, store_change_fn *fn, void *arg);
/* Whether the sentinels of cfg parsed (false: store_new logged why). */
bool  store_uses_sentinel(const struct store *s);
/* Register a script before store_start; returns its id. Aborts on OOM. */
int   store_script(struct store *s, const char *name, const char *body);
/* Register a function of a Redis 7 function library before store_start;
 * returns its id, called like a script's (store_eval: FCALL). A store has
 * one library, loaded (FUNCTION LOAD REPLACE) on every connect and again
 * when the server answers that the function is not found. */
int   store_function(struct store *s, const char *lib_name, const char *lib_body,
                     const char *fn);
/* The id store_script or store_function gave name, or -1. */
int   store_script_id(const struct store *s, const char *name);
void  store_start(struct store *s);
bool  store_is_up(const struct store *s);
/* The run_id of the server last connected to ("" before the first). */
const char *store_run_id(const struct store *s);
store_err store_cmd(struct store *s, int argc, const char **argv, const size_t *lens,
                    uint32_t extra_ms, store_cb *cb, void *arg);
/* A script or function call: argv = keys then arguments, nkeys of them keys. */
store_err store_eval(struct store *s, int script, int nkeys, int argc,
                     const char **argv, const size_t *lens, store_cb *cb, void *arg);
const struct store_stats *store_stats(struct store *s);
/* Subscriptions. fn runs when channel's subscription is confirmed and for
 * each message published on it (both mean "something may have happened
 * there": nothing was listening before the confirmation). Subscriptions
 * end with the connection: subscribe again when store_on_state says up. */
typedef void store_msg_fn(void *arg, const char *channel, size_t len);
void      store_on_message(struct store *s, store_msg_fn *fn, void *arg);
store_err store_subscribe(struct store *s, const char *channel, bool on);
/* Fail pending commands with STORE_CLOSED, stop reconnecting; memory is
 * released once the loop has closed the handles. *sp is cleared. */
void  store_close(struct store **sp);

#endif
