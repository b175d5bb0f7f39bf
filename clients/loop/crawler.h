#ifndef WPFS_CLIENTS_CRAWLER_H
#define WPFS_CLIENTS_CRAWLER_H
/* What every crawler program shares: the options that mean the same in
 * each (one table of rows, one struct), how they become the engine's and
 * the gateway loop's options, the log level, and opening the crawl with
 * the same refusals. Options whose default or meaning differs between
 * crawlers (--window, --frontier-bytes, --scope, --resume, --max-per-host)
 * stay in each program's own table. */
#include <stdbool.h>
#include <stddef.h>

#include "clients/base/scope.h"
#include "clients/crawl/crawl.h"
#include "clients/loop/crawl_loop.h"
#include "common/cfg.h"

/* A program's option struct begins with this (member `c`), so that the
 * shared rows' offsets hold in it. */
struct crawler_cfg {
  long   checkpoint_ms;
  char  *gateway;
  char  *log_level;
  long   max_age_s;
  long   max_domain_hosts;
  long   max_pages;
  char  *out;
  bool   progress;
  long   results;
  char  *robots_agent;
  long   robots_retries;
  long   robots_retry_ms;
  char  *scope_rules;
  char  *seeds;
  size_t seen_mem;
  long   site_budget;
  long   stall_ms;
  char  *token;
  long   wait_ms;
  long   warc_level;
  size_t warc_max_bytes;
  size_t write_queue_bytes;
};

/* The program's table: its own rows and the shared ones, sorted by name,
 * into out (room for nown + CRAWLER_CFG_NKEYS). Returns the count. */
#define CRAWLER_CFG_NKEYS 22
size_t crawler_cfg_keys(const struct cfg_key *own, size_t nown, struct cfg_key *out);

/* log_init with --log-level; -1 (said on stderr) when it is not a level. */
int crawler_log_init(const struct crawler_cfg *c, const char *prog);
/* The engine's options that come from the shared ones (the rest as
 * crawl_opts_default has them). */
void crawler_fill_crawl(const struct crawler_cfg *c, struct crawl_opts *o);
/* --scope-rules loaded (NULL without it): 0, or -1 when the file does
 * not parse (said on stderr in the program's name, with the line). The
 * caller frees it after crawl_close. */
int crawler_scope(const struct crawler_cfg *c, const char *prog, struct scope **out);
/* The gateway loop's, with agent as the User-Agent of its requests. */
void crawler_fill_loop(const struct crawler_cfg *c, const char *agent, struct crawl_loop_opts *o);
/* crawl_open, each refusal said on stderr in the program's name: 0, 1 (bad
 * usage: --out holds a crawl without --resume, or another crawler has it)
 * or CRAWL_LOOP_EXIT_LOCAL. */
int crawler_open(const struct crawler_cfg *c, bool resume, const char *prog,
                 const struct crawl_opts *co, struct crawl **out);

#endif
