#include "hlfs/state/store.h"

#include <assert.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/list.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"
#include "hlfs/state/redis_uv.h"
#include "hlfs/state/sentinel.h"

#define STORE_MAGIC      0x5703e11au
#define STORE_CMD_MAGIC  0x5703c3d1u
#define STORE_MAX_SCRIPTS 32
#define STORE_TIMERS     4
#define STORE_CHECK_MS   1000  /* with Sentinel: is the server still the master? */

/* A script sent by digest (EVALSHA), or a function of the store's library
 * (FCALL). Names and bodies are static storage: the Lua literals. */
struct store_script {
  const char *name;
  const char *body;   /* NULL for a function */
  const char *fn;     /* the function's name, or NULL */
  char        sha[41];
};

/* One command awaiting its reply; on the store's pending list, in the order
 * written (Redis answers in that order, so the head is the oldest). Script
 * calls keep a copy of their arguments to be sent again as EVAL. */
struct store_cmd {
  unsigned          magic;
  struct store     *s;
  struct store_cmd *prev, *next;
  uint64_t          deadline_ms;
  uint32_t          extra_ms;
  store_cb         *cb;
  void             *arg;
  int               script;     /* -1: a plain command */
  bool              resent;     /* the script or library was missing: a
                                 * script goes as EVAL with its body */
  int               argc;       /* script calls: keys + args */
  unsigned          lib_gen;    /* the store's lib_gen when written */
  const char      **argv;       /* 3 leading slots: EVALSHA sha or FCALL name, nkeys */
  size_t           *lens;
  char              nkeys[12];
};

CLIST_HEAD(store_cmds, struct store_cmd);

struct store {
  unsigned            magic;
  uv_loop_t          *loop;
  struct store_cfg    cfg;
  char               *host;
  char               *password;    /* NULL: no AUTH */
  char               *master;      /* the sentinels' master name, or NULL */
  redisAsyncContext  *ac;          /* NULL when not connected */
  bool                up;          /* connected and scripts sent */
  bool                closing;
  int                 in_cb;
  store_err           fail_err;    /* what a NULL reply means right now */
  uv_timer_t          t_retry, t_conn, t_watch, t_check;
  int                 open_handles;
  uint32_t            backoff_ms;
  struct store_cmds   cmds;        /* pending, oldest first */
  struct store_script scripts[STORE_MAX_SCRIPTS];
  int                 nscripts;
  const char         *lib_name;    /* the function library, or NULL */
  const char         *lib_body;
  unsigned            lib_gen;     /* library loads written so far */
  store_state_fn     *state_fn;
  void               *state_arg;
  store_change_fn    *change_fn;
  void               *change_arg;
  struct sentinel    *sen;         /* NULL without Sentinel */
  bool                asking;      /* a sentinel question is under way */
  bool                checking;    /* the periodic one (store_on_check) */
  bool                leave;       /* the server is no master: reconnect */
  char                run_id[48];  /* of the server last connected to */
  bool                changed;     /* run_id changed, the data's mark not yet read */
  store_msg_fn       *msg_fn;
  void               *msg_arg;
  struct store_stats  st;
};

ERR_DEFINE_TEXT(store_err_text, store_err, STORE_ERRORS, ERR_TEXT_OF)

/* ---- replies ---------------------------------------------------------- */

#define RV(v) ((const redisReply *)(const void *)(v))

enum store_vtype store_v_type(const struct store_val *v)
{
  if(!v)
    return STORE_V_NIL;
  switch(RV(v)->type) {
  case REDIS_REPLY_STRING:  return STORE_V_STR;
  case REDIS_REPLY_ARRAY:   return STORE_V_ARR;
  case REDIS_REPLY_INTEGER: return STORE_V_INT;
  case REDIS_REPLY_NIL:     return STORE_V_NIL;
  case REDIS_REPLY_STATUS:  return STORE_V_STATUS;
  case REDIS_REPLY_ERROR:   return STORE_V_ERR;
  default:                  return STORE_V_OTHER;
  }
}

long long store_v_int(const struct store_val *v, long long def)
{
  if(!v)
    return def;
  if(RV(v)->type == REDIS_REPLY_INTEGER)
    return RV(v)->integer;
  if(RV(v)->type != REDIS_REPLY_STRING && RV(v)->type != REDIS_REPLY_STATUS)
    return def;
  char *end;
  long long n = strtoll(RV(v)->str, &end, 10);
  return end == RV(v)->str || *end ? def : n;
}

const char *store_v_str(const struct store_val *v, size_t *len)
{
  int t = v ? RV(v)->type : REDIS_REPLY_NIL;
  if(t != REDIS_REPLY_STRING && t != REDIS_REPLY_STATUS && t != REDIS_REPLY_ERROR)
    return NULL;
  if(len)
    *len = RV(v)->len;
  return RV(v)->str;
}

size_t store_v_len(const struct store_val *v)
{
  return v && RV(v)->type == REDIS_REPLY_ARRAY ? RV(v)->elements : 0;
}

const struct store_val *store_v_at(const struct store_val *v, size_t i)
{
  if(i >= store_v_len(v))
    return NULL;
  return (const struct store_val *)(const void *)RV(v)->element[i];
}

/* ---- pending list ----------------------------------------------------- */

CLIST_FUNCS(sc, store_cmds, struct store_cmd, prev, next)

static void store_cmd_free(struct store_cmd *c)
{
  c->magic = 0;
  mem_free(c);
}

/* ---- connection ------------------------------------------------------- */

static void store_connect(struct store *s);
static void store_on_retry(uv_timer_t *t);
static void store_on_conn_timeout(uv_timer_t *t);
static void store_on_watch(uv_timer_t *t);
static void store_on_leave(uv_timer_t *t);

static void store_set_up(struct store *s, bool up)
{
  if(s->up == up)
    return;
  s->up = up;
  if(!up) {
    uv_timer_stop(&s->t_watch);
    uv_timer_stop(&s->t_check);
  }
  if(s->state_fn && !s->closing)
    s->state_fn(s->state_arg, up);
}

static void store_schedule_retry(struct store *s)
{
  if(s->closing || uv_is_active((uv_handle_t *)&s->t_retry))
    return;
  uv_timer_start(&s->t_retry, store_on_retry, s->backoff_ms, 0);
  uint32_t next = s->backoff_ms * 2;
  s->backoff_ms = next > s->cfg.backoff_max_ms ? s->cfg.backoff_max_ms : next;
}

/* Drop the connection now: pending commands are answered with err (hiredis
 * runs their callbacks with a NULL reply from inside redisAsyncFree), then
 * a reconnection is scheduled. Never called from a hiredis callback. */
static void store_reset(struct store *s, store_err err)
{
  redisAsyncContext *ac = s->ac;
  s->ac = NULL;
  store_set_up(s, false);
  if(ac) {
    s->fail_err = err;
    redisAsyncFree(ac);
    s->fail_err = STORE_DOWN;
  }
  store_schedule_retry(s);
}

static void store_on_script_loaded(void *arg, store_err err, const struct store_val *v)
{
  struct store_script *sc = arg;
  const char *sha = store_v_str(v, NULL);
  if(err == STORE_OK && sha && strcmp(sha, sc->sha))
    LOG(LOG_ERROR, "redis: script %s loaded as %s, expected %s", sc->name, sha, sc->sha);
  else if(err != STORE_OK && err != STORE_DOWN && err != STORE_CLOSED)
    LOG(LOG_WARN, "redis: SCRIPT LOAD %s: %s", sc->name, store_err_text(err));
}

static void store_on_lib_loaded(void *arg, store_err err, const struct store_val *v)
{
  struct store *s = arg;
  const char *name = store_v_str(v, NULL);
  if(err == STORE_OK && name && strcmp(name, s->lib_name))
    LOG(LOG_ERROR, "redis: library loaded as %s, expected %s", name, s->lib_name);
  else if(err == STORE_OK)
    LOG(LOG_INFO, "redis: library %s loaded", s->lib_name);
  else if(err == STORE_REPLY)
    LOG(LOG_ERROR, "redis: FUNCTION LOAD %s: %s (the state Redis must be 7.0 or later)",
        s->lib_name, name ? name : "error");
  else if(err != STORE_DOWN && err != STORE_CLOSED)
    LOG(LOG_WARN, "redis: FUNCTION LOAD %s: %s", s->lib_name, store_err_text(err));
}

/* REPLACE: the library is named by a digest of its text, so a library of
 * that name is this one (loaded by another replica, or before a restart). */
static store_err store_load_lib(struct store *s)
{
  const char *argv[] = { "FUNCTION", "LOAD", "REPLACE", s->lib_body };
  size_t lens[] = { 8, 4, 7, strlen(s->lib_body) };
  store_err e = store_cmd(s, 4, argv, lens, 0, store_on_lib_loaded, s);
  if(!e)
    s->lib_gen++;
  return e;
}

/* Commands written after these are ordered after them on the connection,
 * so EVALSHA and FCALL may follow at once. */
static void store_load_scripts(struct store *s)
{
  if(s->lib_body)
    store_load_lib(s);
  for(int i = 0; i < s->nscripts; i++) {
    if(!s->scripts[i].body)
      continue;
    const char *argv[] = { "SCRIPT", "LOAD", s->scripts[i].body };
    size_t lens[] = { 6, 4, strlen(s->scripts[i].body) };
    store_cmd(s, 3, argv, lens, 0, store_on_script_loaded, &s->scripts[i]);
  }
}

static struct store *store_of(const redisAsyncContext *ac)
{
  struct store *s = ac->data;
  assert(s && s->magic == STORE_MAGIC);
  return s;
}

/* Whether a connected socket is connected to itself (a connect to an
 * unused local port of the ephemeral range can be). */
static bool store_fd_self_connected(int fd)
{
  struct sockaddr_storage a, b;
  socklen_t al = sizeof a, bl = sizeof b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  if(getsockname(fd, (struct sockaddr *)&a, &al) || getpeername(fd, (struct sockaddr *)&b, &bl))
    return false;
  return al == bl && !memcmp(&a, &b, al);
}

static void store_on_role(void *arg, store_err err, const struct store_val *v)
{
  struct store *s = arg;
  const char *role = err ? NULL : store_v_str(store_v_at(v, 0), NULL);
  if(!role || !strcmp(role, "master") || s->closing)
    return;
  LOG(LOG_WARN, "redis: %s:%d is a %s, not the master: asking the sentinels again", s->host,
      s->cfg.port, role);
  s->leave = true;
  uv_timer_start(&s->t_conn, store_on_leave, 0, 0);
}

/* The data's own word on which server wrote it last: a replica promoted
 * by the sentinels holds the old master's mark, a server restarted from
 * its files its former self's. Seen by every gateway that connects, even
 * one that never saw the old server (it started since, or its connection
 * stayed on a master that was paused and replaced meanwhile). */
#define STORE_MARK_KEY "wpfs:server"

static void store_on_marked(void *arg, store_err err, const struct store_val *v)
{
  (void)arg;
  (void)v;
  if(err && err != STORE_DOWN && err != STORE_CLOSED)
    LOG(LOG_WARN, "redis: the server's mark (%s) could not be written: %s", STORE_MARK_KEY,
        store_err_text(err));
}

static void store_on_mark(void *arg, store_err err, const struct store_val *v)
{
  struct store *s = arg;
  if(err || s->closing || !s->change_fn)
    return;
  size_t len = 0;
  const char *mark = store_v_type(v) == STORE_V_STR ? store_v_str(v, &len) : NULL;
  bool other = mark && (len != strlen(s->run_id) || memcmp(mark, s->run_id, len));
  if(other)
    LOG(LOG_WARN, "redis: %s:%d holds data last written under another server (%.*s): its "
        "last writes may be lost", s->host, s->cfg.port, (int)(len < 48 ? len : 48), mark);
  if(other || s->changed)
    s->change_fn(s->change_arg);  /* the fence goes before the mark, on this connection */
  s->changed = false;
  if(other || !mark) {
    const char *argv[] = { "SET", STORE_MARK_KEY, s->run_id };
    size_t lens[] = { 3, sizeof STORE_MARK_KEY - 1, strlen(s->run_id) };
    store_cmd(s, 3, argv, lens, 0, store_on_marked, s);
  }
}

/* A server other than the last one (its run_id), or data written under
 * another (store_on_mark): tell the owner. */
static void store_on_info(void *arg, store_err err, const struct store_val *v)
{
  struct store *s = arg;
  const char *text = err ? NULL : store_v_str(v, NULL);
  const char *p = text ? strstr(text, "run_id:") : NULL;
  if(!p || s->closing)
    return;
  char id[sizeof s->run_id];
  size_t n = strcspn(p + 7, "\r\n");
  snprintf(id, sizeof id, "%.*s", (int)(n < sizeof id ? n : sizeof id - 1), p + 7);
  bool changed = s->run_id[0] && strcmp(id, s->run_id);
  if(changed)
    LOG(LOG_WARN, "redis: %s:%d is another server (run_id %s, was %s): its last writes may "
        "be lost", s->host, s->cfg.port, id, s->run_id);
  memcpy(s->run_id, id, sizeof id);
  if(!s->change_fn)
    return;
  static const char *get[] = { "GET", STORE_MARK_KEY };
  static const size_t get_l[] = { 3, sizeof STORE_MARK_KEY - 1 };
  s->changed = changed;
  if(store_cmd(s, 2, get, get_l, 0, store_on_mark, s) != STORE_OK && changed) {
    s->changed = false;
    s->change_fn(s->change_arg);
  }
}

/* With Sentinel, a connection can outlive its server's mastership: a
 * master paused past down-after-milliseconds comes back to find another
 * promoted, and serves its stale data (as a master, then as a replica)
 * until the sentinels reconfigure it, while the other gateways write to
 * the new one: two politeness states, two requests at a site at once
 * (the torture run with Sentinel, seed 20261127). So every check_ms the
 * store asks its server's ROLE and the sentinels who the master is, and
 * leaves for the one they name. */
static void store_on_check_master(void *arg, const char *host, int port)
{
  struct store *s = arg;
  s->checking = false;
  if(s->closing || !host || !s->ac || !s->up)
    return;
  if(strcmp(host, s->host) || port != s->cfg.port) {
    LOG(LOG_WARN, "redis: the sentinels name %s:%d the master, not %s:%d: leaving it", host,
        port, s->host, s->cfg.port);
    s->leave = true;
    uv_timer_start(&s->t_conn, store_on_leave, 0, 0);
  }
}

static void store_on_check(uv_timer_t *t)
{
  struct store *s = t->data;
  static const char *role[] = { "ROLE" };
  static const size_t role_l[] = { 4 };
  if(!s->sen || !s->up || s->closing)
    return;
  store_cmd(s, 1, role, role_l, 0, store_on_role, s);
  if(!s->checking && !s->asking) {
    s->checking = true;
    if(sentinel_ask(s->sen, store_on_check_master, s))
      s->checking = false;
  }
}

const char *store_run_id(const struct store *s) { return s->run_id; }

/* Who answers: a master (with Sentinel, a replica is left at once), and
 * the same server as before or another one. */
static void store_ask_server(struct store *s)
{
  static const char *info[] = { "INFO", "server" }, *role[] = { "ROLE" };
  static const size_t info_l[] = { 4, 6 }, role_l[] = { 4 };
  if(s->sen)
    store_cmd(s, 1, role, role_l, 0, store_on_role, s);
  store_cmd(s, 2, info, info_l, 0, store_on_info, s);
}

static void store_on_auth(void *arg, store_err err, const struct store_val *v)
{
  struct store *s = arg;
  if(!err && !s->closing)
    s->st.connects++;  /* counted once the server took the password */
  if(!err || s->closing || err != STORE_REPLY)
    return;
  LOG(LOG_ERROR, "redis: %s:%d refused the password (AUTH): %s", s->host, s->cfg.port,
      store_v_str(v, NULL));
  s->leave = true;  /* not connected, for readiness too: try again later */
  uv_timer_start(&s->t_conn, store_on_leave, 0, 0);
}

/* First on a new connection: every command after it is authenticated. */
static void store_auth(struct store *s)
{
  if(!s->password)
    return;
  const char *argv[] = { "AUTH", s->password };
  size_t lens[] = { 4, strlen(s->password) };
  store_cmd(s, 2, argv, lens, 0, store_on_auth, s);
}

static void store_on_connect(const redisAsyncContext *ac, int status)
{
  struct store *s = store_of(ac);
  uv_timer_stop(&s->t_conn);
  if(status == REDIS_OK && store_fd_self_connected(ac->c.fd)) {
    /* No server on a port of the ephemeral range, and the kernel gave the
     * connection that very port as its source: TCP connected it to
     * itself, and every command would come back as its own "reply". */
    LOG(LOG_WARN, "redis: %s:%d: connected to itself (nothing listens there)", s->host,
        s->cfg.port);
    s->leave = true;
    uv_timer_start(&s->t_conn, store_on_leave, 0, 0);
    return;
  }
  if(status != REDIS_OK) {
    LOG(LOG_WARN, "redis: connect to %s:%d: %s", s->host, s->cfg.port, ac->errstr);
    if(s->ac == ac)
      s->ac = NULL;  /* hiredis frees it after this callback */
    store_schedule_retry(s);
    return;
  }
  if(!s->password)
    s->st.connects++;
  s->backoff_ms = s->cfg.backoff_min_ms;
  s->up = true;
  uint32_t tick = s->cfg.cmd_timeout_ms / 4 ? s->cfg.cmd_timeout_ms / 4 : 1;
  uv_timer_start(&s->t_watch, store_on_watch, tick, tick);
  if(s->sen)
    uv_timer_start(&s->t_check, store_on_check, STORE_CHECK_MS, STORE_CHECK_MS);
  store_auth(s);
  store_load_scripts(s);
  store_ask_server(s);
  if(s->state_fn && !s->closing)
    s->state_fn(s->state_arg, true);
}

static void store_on_disconnect(const redisAsyncContext *ac, int status)
{
  struct store *s = store_of(ac);
  s->st.disconnects++;
  if(status != REDIS_OK && !s->closing)
    LOG(LOG_WARN, "redis: connection lost: %s", ac->errstr);
  if(s->ac == ac)
    s->ac = NULL;
  store_set_up(s, false);
  store_schedule_retry(s);
}

static void store_connect_addr(struct store *s)
{
  redisAsyncContext *ac = redisAsyncConnect(s->host, s->cfg.port);
  if(!ac || ac->err) {
    LOG(LOG_WARN, "redis: connect to %s:%d: %s", s->host, s->cfg.port,
        ac ? ac->errstr : "out of memory");
    if(ac)
      redisAsyncFree(ac);
    store_schedule_retry(s);
    return;
  }
  ac->data = s;
  /* The adapter must be attached before the connect callback is set: setting
   * it arms the write event that detects the connection. */
  if(redis_uv_attach(ac, s->loop) != REDIS_OK) {
    redisAsyncFree(ac);
    store_schedule_retry(s);
    return;
  }
  redisAsyncSetConnectCallback(ac, store_on_connect);
  redisAsyncSetDisconnectCallback(ac, store_on_disconnect);
  s->ac = ac;
  uv_timer_start(&s->t_conn, store_on_conn_timeout, s->cfg.connect_timeout_ms, 0);
}

static void store_on_master(void *arg, const char *host, int port)
{
  struct store *s = arg;
  assert(s && s->magic == STORE_MAGIC);
  s->asking = false;
  if(s->closing)
    return;
  if(!host) {
    store_schedule_retry(s);
    return;
  }
  if(strcmp(host, s->host) || port != s->cfg.port)
    LOG(LOG_INFO, "redis: master \"%s\" is %s:%d", s->cfg.master_name, host, port);
  free(s->host);
  s->host = xstrdup(host);
  s->cfg.host = s->host;
  s->cfg.port = port;
  store_connect_addr(s);
}

/* Connect to the configured address, or first ask the sentinels where
 * the master is now. */
static void store_connect(struct store *s)
{
  if(!s->sen) {
    store_connect_addr(s);
  } else if(!s->asking) {
    s->asking = true;
    if(sentinel_ask(s->sen, store_on_master, s))
      s->asking = false;
  }
}

static struct store *store_of_timer(uv_timer_t *t)
{
  struct store *s = t->data;
  assert(s && s->magic == STORE_MAGIC);
  return s;
}

static void store_on_retry(uv_timer_t *t)
{
  struct store *s = store_of_timer(t);
  if(!s->closing && !s->ac)
    store_connect(s);
}

/* Run from t_conn: a connection found wanting (not a master) is left
 * outside the hiredis callback that found it. */
static void store_on_leave(uv_timer_t *t)
{
  struct store *s = store_of_timer(t);
  if(s->leave && s->ac) {
    s->leave = false;
    store_reset(s, STORE_DOWN);
  }
}

static void store_on_conn_timeout(uv_timer_t *t)
{
  struct store *s = store_of_timer(t);
  if(s->ac && !s->up) {
    LOG(LOG_WARN, "redis: connect to %s:%d timed out", s->host, s->cfg.port);
    store_reset(s, STORE_TIMEOUT);
  }
}

/* A reply overdue means the server or the path is stuck; every later reply
 * queues behind it, so the connection is reset and pending work fails fast. */
static void store_on_watch(uv_timer_t *t)
{
  struct store *s = store_of_timer(t);
  if(s->cmds.first && clock_mono_ms() > s->cmds.first->deadline_ms) {
    s->st.timeouts++;
    LOG(LOG_WARN, "redis: no reply within %u ms, reconnecting", s->cfg.cmd_timeout_ms);
    store_reset(s, STORE_TIMEOUT);
  }
}

/* ---- commands --------------------------------------------------------- */

static void store_on_reply(redisAsyncContext *ac, void *r, void *priv);

static store_err store_write(struct store *s, struct store_cmd *c, int argc,
                             const char **argv, const size_t *lens)
{
  if(redisAsyncCommandArgv(s->ac, store_on_reply, c, argc, argv, lens) != REDIS_OK)
    return STORE_DOWN;
  c->deadline_ms = clock_mono_ms() + s->cfg.cmd_timeout_ms + c->extra_ms;
  sc_push_back(&s->cmds, c);
  s->st.sent++;
  return STORE_OK;
}

static store_err store_write_script(struct store *s, struct store_cmd *c)
{
  const struct store_script *sc = &s->scripts[c->script];
  if(sc->fn) {
    c->argv[0] = "FCALL";
    c->argv[1] = sc->fn;
  } else {
    c->argv[0] = c->resent ? "EVAL" : "EVALSHA";
    c->argv[1] = c->resent ? sc->body : sc->sha;
  }
  c->lens[0] = strlen(c->argv[0]);
  c->lens[1] = strlen(c->argv[1]);
  c->argv[2] = c->nkeys;
  c->lens[2] = strlen(c->nkeys);
  c->lib_gen = s->lib_gen;
  s->st.evals++;
  return store_write(s, c, c->argc + 3, c->argv, c->lens);
}

/* The server lost the script or the library (a restart without
 * persistence, SCRIPT FLUSH, FUNCTION FLUSH). */
static bool store_is_noscript(const struct store *s, const struct store_cmd *c,
                              const redisReply *r)
{
  if(r->type != REDIS_REPLY_ERROR)
    return false;
  if(s->scripts[c->script].fn)
    return !strcmp(r->str, "ERR Function not found");
  return !strncmp(r->str, "NOSCRIPT", 8);
}

/* Sent again once: as EVAL with its body, or after the library. Calls
 * written before one load of the library need no other: when many were
 * in flight, the library goes once, not once each. */
static store_err store_resend(struct store *s, struct store_cmd *c)
{
  s->st.noscript++;
  c->resent = true;
  if(s->scripts[c->script].fn && c->lib_gen == s->lib_gen) {
    store_err e = store_load_lib(s);
    if(e)
      return e;
  }
  return store_write_script(s, c);
}

static void store_on_reply(redisAsyncContext *ac, void *r, void *priv)
{
  struct store_cmd *c = priv;
  assert(c && c->magic == STORE_CMD_MAGIC);
  struct store *s = c->s;
  (void)ac;
  sc_remove(&s->cmds, c);
  const redisReply *rep = r;
  store_err err = rep ? STORE_OK : s->fail_err;
  if(rep && c->script >= 0 && !c->resent && store_is_noscript(s, c, rep) && s->up) {
    if(store_resend(s, c) == STORE_OK)
      return;
    err = STORE_DOWN;
  }
  if(rep) {
    s->st.replies++;
    if(rep->type == REDIS_REPLY_ERROR) {
      s->st.reply_errors++;
      err = STORE_REPLY;
    }
  }
  s->in_cb++;
  c->cb(c->arg, err, (const struct store_val *)r);
  s->in_cb--;
  store_cmd_free(c);
}

static store_err store_admit(struct store *s)
{
  if(s->closing)
    return STORE_CLOSED;
  if(!s->up || !s->ac)
    return STORE_DOWN;
  if(s->cmds.n >= s->cfg.max_pending) {
    s->st.busy++;
    return STORE_BUSY;
  }
  return STORE_OK;
}

store_err store_cmd(struct store *s, int argc, const char **argv, const size_t *lens,
                    uint32_t extra_ms, store_cb *cb, void *arg)
{
  store_err e = store_admit(s);
  if(e)
    return e;
  struct store_cmd *c = mem_calloc(1, sizeof *c);
  if(!c)
    return STORE_NOMEM;
  *c = (struct store_cmd){ .magic = STORE_CMD_MAGIC, .s = s, .cb = cb, .arg = arg,
                           .script = -1, .extra_ms = extra_ms };
  e = store_write(s, c, argc, argv, lens);
  if(e)
    store_cmd_free(c);
  return e;
}

/* One allocation: the command, argv[3 + argc], lens[3 + argc], the bytes. */
static struct store_cmd *store_cmd_copy(int argc, const char **argv, const size_t *lens)
{
  size_t bytes = 0, slots = (size_t)argc + 3;
  for(int i = 0; i < argc; i++)
    bytes += lens[i] + 1;
  struct store_cmd *c = mem_alloc(sizeof *c + slots * (sizeof(char *) + sizeof(size_t)) + bytes);
  if(!c)
    return NULL;
  memset(c, 0, sizeof *c);
  c->argv = (const char **)(void *)(c + 1);
  c->lens = (size_t *)(void *)(c->argv + slots);
  char *p = (char *)(c->lens + slots);
  for(int i = 0; i < argc; i++) {
    memcpy(p, argv[i], lens[i]);
    p[lens[i]] = '\0';
    c->argv[3 + i] = p;
    c->lens[3 + i] = lens[i];
    p += lens[i] + 1;
  }
  c->argc = argc;
  return c;
}

store_err store_eval(struct store *s, int script, int nkeys, int argc,
                     const char **argv, const size_t *lens, store_cb *cb, void *arg)
{
  assert(script >= 0 && script < s->nscripts && nkeys <= argc);
  store_err e = store_admit(s);
  if(e)
    return e;
  struct store_cmd *c = store_cmd_copy(argc, argv, lens);
  if(!c)
    return STORE_NOMEM;
  c->magic = STORE_CMD_MAGIC;
  c->s = s;
  c->cb = cb;
  c->arg = arg;
  c->script = script;
  snprintf(c->nkeys, sizeof c->nkeys, "%d", nkeys);
  e = store_write_script(s, c);
  if(e)
    store_cmd_free(c);
  return e;
}

/* ---- subscriptions ---------------------------------------------------- */

/* hiredis keeps this callback per channel and calls it for the
 * confirmation, each message, the unsubscription, and with NULL when the
 * connection goes; only the first two concern the caller. */
static void store_on_sub_reply(redisAsyncContext *ac, void *r, void *priv)
{
  struct store *s = priv;
  const redisReply *rep = r;
  (void)ac;
  assert(s && s->magic == STORE_MAGIC);
  if(!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements < 2)
    return;
  const redisReply *kind = rep->element[0], *ch = rep->element[1];
  if(kind->type != REDIS_REPLY_STRING || ch->type != REDIS_REPLY_STRING)
    return;
  if(strcmp(kind->str, "message") && strcmp(kind->str, "subscribe"))
    return;
  s->st.messages++;
  if(s->msg_fn && !s->closing) {
    s->in_cb++;
    s->msg_fn(s->msg_arg, ch->str, ch->len);
    s->in_cb--;
  }
}

void store_on_message(struct store *s, store_msg_fn *fn, void *arg)
{
  s->msg_fn = fn;
  s->msg_arg = arg;
}

store_err store_subscribe(struct store *s, const char *channel, bool on)
{
  if(s->closing)
    return STORE_CLOSED;
  if(!s->up || !s->ac)
    return STORE_DOWN;
  const char *argv[] = { on ? "SUBSCRIBE" : "UNSUBSCRIBE", channel };
  size_t lens[] = { strlen(argv[0]), strlen(channel) };
  /* UNSUBSCRIBE takes no callback: hiredis answers it through the
   * channel's own (and refuses it when nothing is subscribed) */
  if(redisAsyncCommandArgv(s->ac, on ? store_on_sub_reply : NULL, s, 2, argv, lens) != REDIS_OK)
    return STORE_DOWN;
  s->st.sent++;
  return STORE_OK;
}

/* ---- life cycle ------------------------------------------------------- */

struct store *store_new(uv_loop_t *loop, const struct store_cfg *cfg)
{
  struct store *s = xalloc(sizeof *s);
  s->magic = STORE_MAGIC;
  s->loop = loop;
  s->cfg = *cfg;
  s->host = xstrdup(cfg->host ? cfg->host : "127.0.0.1");
  s->cfg.host = s->host;
  s->password = cfg->password && *cfg->password ? xstrdup(cfg->password) : NULL;
  /* the caller's strings need not outlive store_new */
  s->master = cfg->master_name ? xstrdup(cfg->master_name) : NULL;
  s->cfg.master_name = s->master;
  s->cfg.sentinels = NULL;
  s->cfg.password = NULL;  /* only s->password holds it */
  if(!s->cfg.max_pending)
    s->cfg.max_pending = 1;
  if(!s->cfg.backoff_min_ms)
    s->cfg.backoff_min_ms = 1;
  s->backoff_ms = s->cfg.backoff_min_ms;
  s->fail_err = STORE_DOWN;
  uv_timer_t *t[STORE_TIMERS] = { &s->t_retry, &s->t_conn, &s->t_watch, &s->t_check };
  for(int i = 0; i < STORE_TIMERS; i++) {
    uv_timer_init(loop, t[i]);
    t[i]->data = s;
  }
  s->open_handles = STORE_TIMERS;
  if(cfg->sentinels && *cfg->sentinels) {
    s->sen = sentinel_new(loop, cfg->sentinels, cfg->master_name, cfg->connect_timeout_ms);
    if(!s->sen)
      LOG(LOG_ERROR, "redis: no sentinel in \"%s\" (host:port,...) or no master name",
          cfg->sentinels);
  }
  return s;
}

bool store_uses_sentinel(const struct store *s) { return s->sen != NULL; }

void store_on_state(struct store *s, store_state_fn *fn, void *arg)
{
  s->state_fn = fn;
  s->state_arg = arg;
}

void store_on_change(struct store *s, store_change_fn *fn, void *arg)
{
  s->change_fn = fn;
  s->change_arg = arg;
}

int store_script(struct store *s, const char *name, const char *body)
{
  if(s->nscripts >= STORE_MAX_SCRIPTS) {
    fputs("wpfs: too many redis scripts\n", stderr);
    abort();
  }
  struct store_script *sc = &s->scripts[s->nscripts];
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned mdlen = 0;
  if(!EVP_Digest(body, strlen(body), md, &mdlen, EVP_sha1(), NULL)) {
    fputs("wpfs: SHA-1 unavailable\n", stderr);
    abort();
  }
  hash_hex(md, mdlen, sc->sha);
  sc->name = name;
  sc->body = body;
  sc->fn = NULL;
  return s->nscripts++;
}

int store_function(struct store *s, const char *lib_name, const char *lib_body,
                   const char *fn)
{
  if(s->nscripts >= STORE_MAX_SCRIPTS || (s->lib_name && strcmp(s->lib_name, lib_name))) {
    fputs("wpfs: too many redis scripts, or a second library\n", stderr);
    abort();
  }
  s->lib_name = lib_name;
  s->lib_body = lib_body;
  struct store_script *sc = &s->scripts[s->nscripts];
  sc->name = fn;
  sc->body = NULL;
  sc->fn = fn;
  return s->nscripts++;
}

int store_script_id(const struct store *s, const char *name)
{
  for(int i = 0; i < s->nscripts; i++)
    if(!strcmp(s->scripts[i].name, name))
      return i;
  return -1;
}

void store_start(struct store *s)
{
  if(!s->ac && !s->closing)
    store_connect(s);
}

bool store_is_up(const struct store *s) { return s->up; }

const struct store_stats *store_stats(struct store *s)
{
  s->st.pending = (unsigned)s->cmds.n;
  return &s->st;
}

static void store_on_closed(uv_handle_t *h)
{
  struct store *s = h->data;
  assert(s && s->magic == STORE_MAGIC);
  if(--s->open_handles > 0)
    return;
  s->magic = 0;
  free(s->host);
  if(s->password)
    OPENSSL_cleanse(s->password, strlen(s->password));
  free(s->password);
  free(s->master);
  free(s);
}

void store_close(struct store **sp)
{
  struct store *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  assert(s->magic == STORE_MAGIC && !s->in_cb);
  s->closing = true;
  sentinel_free(&s->sen);
  uv_timer_stop(&s->t_retry);
  store_reset(s, STORE_CLOSED);
  assert(!s->cmds.first);
  uv_close((uv_handle_t *)&s->t_retry, store_on_closed);
  uv_close((uv_handle_t *)&s->t_conn, store_on_closed);
  uv_close((uv_handle_t *)&s->t_watch, store_on_closed);
  uv_close((uv_handle_t *)&s->t_check, store_on_closed);
}
