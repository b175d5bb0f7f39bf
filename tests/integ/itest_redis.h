/* Helpers for integration tests against a real redis-server, whose port the
 * e2e script passes in REDIS_PORT. Included by tests/integ/itest_*.c only:
 * every function is static. */
#ifndef WPFS_ITEST_REDIS_H
#define WPFS_ITEST_REDIS_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "common/buf.h"
#include "common/clock.h"
#include "hlfs/state/store.h"

static uv_loop_t *it_loop;

static inline int it_port(void)
{
  const char *p = getenv("REDIS_PORT");
  if(!p) {
    fprintf(stderr, "REDIS_PORT not set\n");
    exit(2);
  }
  return (int)strtol(p, NULL, 10);
}

static inline struct store_cfg it_cfg(uint32_t cmd_timeout_ms, unsigned max_pending)
{
  return (struct store_cfg){ .host = "127.0.0.1", .port = it_port(),
                             .connect_timeout_ms = 1000, .cmd_timeout_ms = cmd_timeout_ms,
                             .backoff_min_ms = 20, .backoff_max_ms = 200,
                             .max_pending = max_pending };
}

static inline void it_on_wake(uv_timer_t *t) { (void)t; }

/* Run the loop until *flag or timeout_ms passed; returns *flag. */
static inline int it_run_until(volatile int *flag, uint32_t timeout_ms)
{
  uv_timer_t t;
  uv_timer_init(it_loop, &t);
  uv_timer_start(&t, it_on_wake, 10, 10);
  uint64_t end = clock_mono_ms() + timeout_ms;
  while(!*flag && clock_mono_ms() < end)
    uv_run(it_loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(it_loop, UV_RUN_NOWAIT);
  return *flag;
}

static int it_store_up;
static inline void it_on_state(void *arg, bool up)
{
  (void)arg;
  it_store_up = up;
}

static inline struct store *it_store_new(uint32_t cmd_timeout_ms, unsigned max_pending)
{
  struct store_cfg c = it_cfg(cmd_timeout_ms, max_pending);
  struct store *s = store_new(it_loop, &c);
  store_on_state(s, it_on_state, NULL);
  return s;
}

static inline void it_wait_up(struct store *s)
{
  uint64_t end = clock_mono_ms() + 5000;
  while(!store_is_up(s) && clock_mono_ms() < end)
    uv_run(it_loop, UV_RUN_ONCE);
  assert_true(store_is_up(s));
}

/* Replies rendered as text: 42, "abc" as abc, [a,b], (nil), !ERR text. */
static inline void it_render(struct buf *b, const struct store_val *v)
{
  size_t len;
  const char *s;
  switch(store_v_type(v)) {
  case STORE_V_INT:
    buf_addf(b, "%lld", store_v_int(v, 0));
    break;
  case STORE_V_ARR:
    buf_addc(b, '[');
    for(size_t i = 0; i < store_v_len(v); i++) {
      if(i)
        buf_addc(b, ',');
      it_render(b, store_v_at(v, i));
    }
    buf_addc(b, ']');
    break;
  case STORE_V_ERR:
    buf_addc(b, '!');
    /* fall through */
  case STORE_V_STR:
  case STORE_V_STATUS:
    s = store_v_str(v, &len);
    buf_add(b, s, len);
    break;
  default:
    buf_adds(b, "(nil)");
  }
}

struct it_reply {
  int       done;
  store_err err;
  struct buf text;
};

static inline void it_on_reply(void *arg, store_err err, const struct store_val *v)
{
  struct it_reply *r = arg;
  r->err = err;
  buf_reset(&r->text);
  if(err && !v)
    buf_addf(&r->text, "#%s", store_err_text(err));
  else
    it_render(&r->text, v);
  r->done = 1;
}

/* Run a command (words split on blanks) and return its rendered reply in
 * out (static storage, overwritten by the next call). */
static inline const char *it_cmd(struct store *s, const char *line)
{
  static struct it_reply r;
  static char copy[4096];
  const char *argv[64];
  size_t lens[64];
  int argc = 0;
  snprintf(copy, sizeof copy, "%s", line);
  for(char *p = copy; *p && argc < 64;) {
    while(*p == ' ')
      *p++ = '\0';
    if(!*p)
      break;
    argv[argc] = p;
    while(*p && *p != ' ')
      p++;
    lens[argc] = (size_t)(p - argv[argc]);
    argc++;
  }
  if(!r.text.max)
    buf_init(&r.text, 1 << 20);
  r.done = 0;
  store_err e = store_cmd(s, argc, argv, lens, 0, it_on_reply, &r);
  if(e) {
    buf_reset(&r.text);
    buf_addf(&r.text, "#%s", store_err_text(e));
    return r.text.data;
  }
  assert_true(it_run_until(&r.done, 10000));
  return r.text.data;
}

static inline long long it_int(struct store *s, const char *line)
{
  return strtoll(it_cmd(s, line), NULL, 10);
}

static inline void it_loop_init(void)
{
  static uv_loop_t loop;
  uv_loop_init(&loop);
  it_loop = &loop;
}

/* Close a store and let the loop finish its handles. */
static inline void it_store_close(struct store **sp)
{
  store_close(sp);
  uv_run(it_loop, UV_RUN_NOWAIT);
  uv_run(it_loop, UV_RUN_NOWAIT);
}

#endif
