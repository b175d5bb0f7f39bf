#ifndef WPFS_HLFS_FETCH_H
#define WPFS_HLFS_FETCH_H
/* The gateway's fetch path, between its REST handlers (hlfs/gw) and its
 * scheduler (hlfs/sched): the scheduler hands it each claimed fetch through
 * struct sched_fetch_ops (fetch_ops), the one table the scheduler calls
 * through. For a page it reads the stored copy first (serve it, revalidate
 * it, or fetch), sends the fetch to the fetcher service
 * (hlfs/fetch/llfs_client.h) under the identity of the request's key,
 * stores the answer in the page cache (hlfs/state/pages.h), keeps a copy for
 * the fetch's result (hlfs/fetch/fresh_pages.h), holds it while the page
 * cache is down, and tells the scheduler how it ended. It also names who
 * a request fetches as (fetch_ident_of: the keys of hlfs/fetch/auth.h) and
 * resolves a batch's host names for site_mode=ip (fetch_resolve).
 * main.c owns the services it points to. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "hlfs/fetch/auth.h"
#include "hlfs/policy/robots_decide.h"
#include "hlfs/sched/sched.h"

struct fresh_pages;
struct llfs_client;
struct state;
struct store;

struct fetch_cfg {
  const char *agent;            /* User-Agent sent to sites; its product token for robots */
  uint32_t    page_ttl_s;       /* pages kept in the page cache */
  size_t      max_url_len;      /* a redirect target longer is not followed */
  size_t      page_hold_bytes;  /* pages held while the page cache is down (0: none) */
  uint32_t    page_hold_ms;     /* ...for at most this long each */
  unsigned    addr_max_conns;   /* fetches at once to one address, all hosts (0: no limit) */
  uint32_t    addr_min_gap_ms;  /* between two fetches' starts at one address */
  uint32_t    addr_lease_ms;    /* a slot lapses after (the site lease) */
};

/* Counted here, shown among the gateway's (hlfs/gw/gw.h, GW_COUNTERS). */
#define FETCH_COUNTERS(X)                                                     \
  X(pages_stored)      X(page_store_errors) X(pages_held) X(pages_held_stored) \
  X(fetcher_errors)    X(cache_hits)        X(revalidated) X(connections_opened)

struct fetch_stats {
#define X(n) uint64_t n;
  FETCH_COUNTERS(X)
#undef X
};

struct fetch {
  unsigned            magic;
#define FETCH_MAGIC 0x6f37c4a0u
  uv_loop_t          *loop;
  struct fetch_cfg    cfg;
  struct store       *pages;    /* the page cache */
  struct state       *st;       /* the state Redis: slots per address (--addr-max-conns);
                                   set once the state is made, before the scheduler starts */
  struct llfs_client *llfs;     /* the fetcher service */
  const struct auth  *auth;     /* API keys: identities, private pages */
  struct fresh_pages *fresh;    /* pages just fetched, for their results */
  size_t              held_bytes;  /* pages held, at most cfg.page_hold_bytes */
  struct robots_agent *agents;  /* every identity (sched_fetch_ops.agents) */
  size_t              nagents;
  struct fetch_stats  stats;
};

/* Fill f from its parts (none is owned); fetch_fini frees what it made. */
void fetch_init(struct fetch *f, uv_loop_t *loop, const struct fetch_cfg *cfg,
                struct store *pages, struct llfs_client *llfs, const struct auth *auth,
                struct fresh_pages *fresh);
void fetch_fini(struct fetch *f);

/* The table the scheduler calls (hlfs/sched/sched.h): arg is f. */
struct sched_fetch_ops fetch_ops(struct fetch *f);

/* Who a request fetches as: the User-Agent sent and the product token
 * robots.txt is read for (tok[0..tok_len), not NUL-terminated). */
struct fetch_ident {
  const char *ua;
  const char *tok;
  size_t      tok_len;
};
/* The identity of a request of client with options opts (the k item names
 * the key, for the synchronous pseudo-clients): the key's own, else the
 * gateway's (--user-agent). */
void fetch_ident_of(const struct fetch *f, const char *client, const char *opts,
                    struct fetch_ident *id);

/* site_mode=ip: the address each of n URLs' hosts resolves to, through
 * the fetcher, each distinct host name asked once (a hash set of the
 * names: linear in n). addr[i] gets urls[i]'s address, the host itself when
 * it is a literal, or stays "" (not resolved: the host is the site). NULL
 * URLs are skipped. cb once every answer is in (maybe before
 * fetch_resolve returns); urls and addr must live until then. -1: out of
 * memory (cb is not called). */
#define FETCH_ADDR_MAX 48
typedef void fetch_resolved_cb(void *arg);
int fetch_resolve(struct fetch *f, const char *const *urls, size_t n,
                  char (*addr)[FETCH_ADDR_MAX], fetch_resolved_cb *cb, void *arg);

#endif
