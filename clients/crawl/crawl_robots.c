/* A URL whose robots.txt failed for now waits for its host's round to end
 * and goes back to the crawl (robots_wait.h; docs/crawler.md, "robots.txt
 * that fails for now"). While it waits it stays outstanding in the
 * frontier: its host keeps its place against max_per_host (no more of its
 * URLs are sent to hear the same verdict), a checkpoint saves it as queued
 * and the crawl does not end before it comes back. */
#include "clients/crawl/crawl_int.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/url.h"

#define WAKE_BATCH 256

/* robots.txt is the origin's: scheme, host and port. */
static uint64_t origin_key(const char *url)
{
  struct url_parts p;
  if(url_split(url, &p) != URL_OK)
    return hash_fp64(url, strlen(url));
  char o[URL_HOST_MAX + 32];
  int n = snprintf(o, sizeof o, "%s://%s:%u", p.scheme, p.host, (unsigned)p.port);
  return hash_fp64(o, n > 0 && (size_t)n < sizeof o ? (size_t)n : strlen(o));
}

static void say_round(const char *url, const char *cause, unsigned round, unsigned rounds,
                      uint64_t wait_ms)
{
  struct log_ctx ctx = { .url = url, .action = "waiting for robots.txt" };
  LOGC(LOG_INFO, &ctx, "robots.txt unavailable (%s): the host's URLs are asked again in "
       "%.1f s (round %u of %u)", cause, (double)wait_ms / 1000.0, round, rounds);
}

bool crawl_robots_hold(struct crawl *c, const struct crawl_result *r, uint64_t fp)
{
  if(!c->rw || !r->outcome || strcmp(r->outcome, "robots_unavailable") ||
     !rwait_transient(r->cause))
    return false;
  uint64_t now = clock_wall_ms(), due = 0;
  unsigned round = 0;
  bool started = false;
  enum rwait_verdict v = rwait_park(c->rw, origin_key(r->url), fp, now, r->robots_retry_at,
                                    &round, &started, &due);
  if(v == RWAIT_SPENT) {
    c->st.robots_gave_up++;  /* final: logged with its cause as any other */
    return false;
  }
  if(v == RWAIT_FULL)
    return false;
  c->st.robots_retried++;
  if(started) {
    c->st.robots_rounds++;
    say_round(r->url, r->cause, round, c->o.robots_rounds, due - now);
  }
  return true;
}

void crawl_robots_wake(struct crawl *c)
{
  uint64_t fp[WAKE_BATCH];
  size_t n;
  if(!c->rw)
    return;
  uint64_t now = clock_wall_ms();
  while((n = rwait_due(c->rw, now, fp, WAKE_BATCH)) > 0)
    for(size_t i = 0; i < n; i++)
      frontier_retry(c->fr, fp[i]);  /* gone (finished meanwhile): nothing to do */
}

size_t crawl_robots_waiting(const struct crawl *c)
{
  struct rwait_stats st = { 0 };
  if(c->rw)
    rwait_stats(c->rw, &st);
  return st.waiting;
}
