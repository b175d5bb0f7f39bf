#ifndef WPFS_ITEST_LOOP_H
#define WPFS_ITEST_LOOP_H
/* Driving a libuv loop from a cmocka test, and reading dnsmasq's query log.
 * Header-only: each integration program includes it once and names its
 * loop `loop` before the include. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "common/clock.h"

/* Run the loop until *calls reaches want or ms pass. */
static inline void run_until(const int *calls, int want, uint64_t ms)
{
  uint64_t end = clock_mono_ms() + ms;
  while(*calls < want && clock_mono_ms() < end)
    uv_run(loop, UV_RUN_ONCE);
}

static inline void itest_on_tick(uv_timer_t *t) { (void)t; }

/* Run the loop for ms, whatever happens on it. */
static inline void run_for(uint64_t ms)
{
  uint64_t end = clock_mono_ms() + ms;
  uv_timer_t t;
  uv_timer_init(loop, &t);
  while(clock_mono_ms() < end) {
    uv_timer_start(&t, itest_on_tick, end - clock_mono_ms() + 1, 0);
    uv_run(loop, UV_RUN_ONCE);
  }
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
}

/* Questions of type ("A", "AAAA") for name in dnsmasq's log ($DNS_LOG). */
static inline int dns_log_count(const char *name, const char *type)
{
  const char *path = getenv("DNS_LOG");
  char needle[300], line[1024];
  int n = 0;
  snprintf(needle, sizeof needle, "query[%s] %s from", type, name);
  FILE *fp = path ? fopen(path, "r") : NULL;
  if(!fp)
    return -1;
  while(fgets(line, sizeof line, fp))
    n += strstr(line, needle) != NULL;
  fclose(fp);
  return n;
}

#endif
