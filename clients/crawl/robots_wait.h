#ifndef WPFS_CLIENTS_ROBOTS_WAIT_H
#define WPFS_CLIENTS_ROBOTS_WAIT_H
/* URLs waiting for their host's robots.txt to come back (docs/crawler.md,
 * "robots.txt that fails for now"). The gateway delivers a URL whose
 * robots.txt it could not read as final (`robots_unavailable`); when the
 * cause passes (a timeout, a 503), the crawl asks for the URL again
 * later instead of losing it.
 *
 * Per host (an origin's fingerprint): rounds. The first transient failure
 * of a host with no round under way starts one: the host's URLs whose
 * results say so wait until its end, base_ms after the start for the
 * first round, doubled for each further one, capped at max_ms. At the
 * end every waiting URL goes back to the crawl at once (rwait_due). A
 * host that has had `rounds` rounds waits no more: its next failures are
 * final (RWAIT_SPENT). rounds 0: nothing ever waits.
 *
 * Time is the caller's (wall clock, ms), so that a checkpoint keeps the
 * end of a round across a restart. Memory is bounded: past max_bytes of
 * hosts and waiting URLs, a failure is final (RWAIT_FULL). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"

#define RWAIT_MAX_BYTES (32u << 20)  /* about a million waiting URLs */

struct rwait_opts {
  unsigned rounds;     /* per host; 0: none */
  uint64_t base_ms;    /* the first round's wait */
  uint64_t max_ms;     /* the cap of a round's wait */
  size_t   max_bytes;  /* hosts and waiting URLs */
};

enum rwait_verdict {
  RWAIT_WAITS,  /* the URL waits for the end of its host's round */
  RWAIT_SPENT,  /* its host had every round: final */
  RWAIT_FULL,   /* no room (or rounds 0): final */
};

struct rwait_stats {
  size_t   waiting;     /* URLs waiting now */
  size_t   hosts;       /* hosts with a round under way */
  uint64_t next_due;    /* the earliest end of a round (0: none) */
  size_t   bytes;       /* of hosts and URL lists (the indexes apart) */
};

struct rwait;

/* Whether a cause (gwproto_cause's word for a robots_unavailable result)
 * may pass: timeouts, resets, a name server's failure, robots.txt
 * answered 5xx or 429, the gateway's own faults. The table is in
 * docs/crawler.md. */
bool      rwait_transient(const char *cause);

crawl_err rwait_open(const struct rwait_opts *o, struct rwait **out);
void      rwait_close(struct rwait **rp);
/* A transient failure of URL fp of host at now. gw_retry_at: when the
 * gateway fetches the host's robots.txt again (its result's
 * robots_retry_at; 0: not said): a round this failure starts ends no
 * earlier than RWAIT_GW_MARGIN_MS after it, within max_ms of now, since a
 * URL asked again before then hears the same verdict and the round is
 * spent. *round (may be NULL) gets the round it waits in, *started whether
 * that round began now; *due its end. A URL already waiting is not
 * counted twice. */
#define RWAIT_GW_MARGIN_MS 1000  /* the gateway's claim, and two clocks */
enum rwait_verdict rwait_park(struct rwait *r, uint64_t host, uint64_t fp, uint64_t now,
                              uint64_t gw_retry_at, unsigned *round, bool *started,
                              uint64_t *due);
/* URLs whose round has ended by now, up to max into out (their waits are
 * over; the rest come at the next call). */
size_t    rwait_due(struct rwait *r, uint64_t now, uint64_t *out, size_t max);
void      rwait_stats(const struct rwait *r, struct rwait_stats *st);
/* Checkpoints keep each host's rounds and the end of a round under way,
 * not the URLs: the frontier keeps them (as queued), and when they fail
 * again before that end they join the round instead of starting one. */
void      rwait_save(const struct rwait *r, struct ckfile *c);
void      rwait_load(struct rwait *r, struct ckfile *c);

#endif
