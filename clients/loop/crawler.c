/* What every crawler program shares (crawler.h). */
#include "clients/loop/crawler.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

#define OFF(f) offsetof(struct crawler_cfg, f)
static const struct cfg_key shared[CRAWLER_CFG_NKEYS] = {
  { "checkpoint_ms", CFG_MSEC, OFF(checkpoint_ms), "30s", 100, 86400000, NULL,
    "time between two checkpoints" },
  { "gateway", CFG_STR, OFF(gateway), "http://127.0.0.1:8080", 1, 0, NULL,
    "gateway base URL" },
  { "log_level", CFG_STR, OFF(log_level), "info", 1, 0, NULL,
    "debug, info, warn, error or off (JSON lines on stderr)" },
  { "max_age_s", CFG_INT, OFF(max_age_s), "-1", -1, 1e9, NULL,
    "a page the gateway fetched this recently is good enough (-1: any cached copy)" },
  { "max_domain_hosts", CFG_INT, OFF(max_domain_hosts), "1000", 0, 1e9, NULL,
    "host names per registrable domain (0: no limit); past it, URLs of more hosts under the "
    "domain are dropped (domain_hosts), said once in the log" },
  { "max_pages", CFG_INT, OFF(max_pages), "0", 0, 1e15, NULL,
    "stop after recording this many results (0: no limit)" },
  { "out", CFG_STR, OFF(out), NULL, 1, 0, NULL,
    "output directory: WARC files, crawl.jsonl, checkpoint (required)" },
  { "progress", CFG_BOOL, OFF(progress), "true", 1, 0, NULL,
    "one line of progress on stderr when it is a terminal" },
  { "results", CFG_INT, OFF(results), "500", 1, 1000, NULL,
    "results per GET /v1/results" },
  { "robots_retries", CFG_INT, OFF(robots_retries), "3", 0, 100, NULL,
    "rounds a host's URLs are asked again when its robots.txt failed for a cause that may "
    "pass (timeout, reset, DNS server failure, 5xx, 429); 0: the first answer is final" },
  { "robots_retry_ms", CFG_MSEC, OFF(robots_retry_ms), "1m", 100, 86400000, NULL,
    "wait before a host's first round; doubled per round, at most 10 times as long" },
  { "robots_agent", CFG_STR, OFF(robots_agent), "wpfs", 1, 0, NULL,
    "product token of the gateway's User-Agent: <meta name=TOKEN> speaks to the crawl as "
    "<meta name=robots> does (X-Robots-Tag the gateway reads for it)" },
  { "scope_rules", CFG_STR, OFF(scope_rules), NULL, 1, 0, NULL,
    "file of scope rules (accept/reject by regex, host, domain, SURT prefix; the last that "
    "matches decides), applied after --scope (docs/crawler.md, \"Scope rules\")" },
  { "seeds", CFG_STR, OFF(seeds), NULL, 1, 0, NULL,
    "file of seed URLs, one per line (# comments)" },
  { "seen_mem", CFG_SIZE, OFF(seen_mem), "64m", 4096, 1e12, NULL,
    "memory of the URL-seen set; beyond, it spills sorted runs to --out/seen" },
  { "site_budget", CFG_INT, OFF(site_budget), "100000", 0, 1e12, NULL,
    "URLs queued per host (0: no limit)" },
  { "stall_ms", CFG_MSEC, OFF(stall_ms), "10m", 1000, 86400000, NULL,
    "give up when the gateway answers nothing useful for this long" },
  { "token", CFG_STR, OFF(token), NULL, 1, 0, "WPFS_TOKEN",
    "API key of the gateway" },
  { "wait_ms", CFG_MSEC, OFF(wait_ms), "2s", 0, 120000, NULL,
    "long-poll of GET /v1/results" },
  { "warc_level", CFG_INT, OFF(warc_level), "1", 1, 12, NULL,
    "compression level of the WARC records (libdeflate: 1 fastest, 12 smallest; 6 is "
    "about zlib's default size at 0.85 of its time)" },
  { "warc_max_bytes", CFG_SIZE, OFF(warc_max_bytes), "1g", 4096, 1e12, NULL,
    "WARC files are closed past this size and a new one begun" },
  { "write_queue_bytes", CFG_SIZE, OFF(write_queue_bytes), "64m", 65536, 1e12, NULL,
    "pages and checkpoints waiting for the disk thread; past half, no more results are "
    "read until it catches up" },
};
#undef OFF

static int key_cmp(const void *a, const void *b)
{
  return strcmp(((const struct cfg_key *)a)->name, ((const struct cfg_key *)b)->name);
}

size_t crawler_cfg_keys(const struct cfg_key *own, size_t nown, struct cfg_key *out)
{
  memcpy(out, own, nown * sizeof *own);
  memcpy(out + nown, shared, sizeof shared);
  qsort(out, nown + CRAWLER_CFG_NKEYS, sizeof *out, key_cmp);
  return nown + CRAWLER_CFG_NKEYS;
}

int crawler_log_init(const struct crawler_cfg *c, const char *prog)
{
  enum log_level lvl;
  if(log_level_parse(c->log_level, &lvl) != 0) {
    fprintf(stderr, "%s: bad --log-level %s\n", prog, c->log_level);
    return -1;
  }
  log_init(prog, lvl);
  return 0;
}

void crawler_fill_crawl(const struct crawler_cfg *c, struct crawl_opts *o)
{
  o->out_dir = c->out;
  o->robots_agent = c->robots_agent;
  o->max_pages = (uint64_t)c->max_pages;
  o->trap.site_budget = (uint64_t)c->site_budget;
  o->trap.max_domain_hosts = (unsigned)c->max_domain_hosts;
  o->seen_mem = c->seen_mem;
  o->warc_max_bytes = c->warc_max_bytes;
  o->warc_level = (int)c->warc_level;
  o->write_queue_bytes = c->write_queue_bytes;
  o->robots_rounds = (unsigned)c->robots_retries;
  o->robots_wait_ms = (uint64_t)c->robots_retry_ms;
  o->robots_wait_max_ms = 10 * (uint64_t)c->robots_retry_ms;
}

int crawler_scope(const struct crawler_cfg *c, const char *prog, struct scope **out)
{
  char err[SCOPE_ERR_MAX];
  *out = NULL;
  if(!c->scope_rules)
    return 0;
  if(scope_load(c->scope_rules, out, err, sizeof err)) {
    fprintf(stderr, "%s: --scope-rules %s: %s\n", prog, c->scope_rules, err);
    return -1;
  }
  LOG(LOG_INFO, "scope rules: %zu from %s", scope_count(*out), c->scope_rules);
  return 0;
}

void crawler_fill_loop(const struct crawler_cfg *c, const char *agent, struct crawl_loop_opts *o)
{
  o->gw.base_url = c->gateway;
  o->gw.token = c->token;
  o->gw.user_agent = agent;
  o->results_max = (unsigned)c->results;
  o->wait_ms = (unsigned)c->wait_ms;
  o->max_age_s = c->max_age_s;
  o->checkpoint_ms = (uint64_t)c->checkpoint_ms;
  o->stall_ms = (uint64_t)c->stall_ms;
  o->progress = c->progress;
  o->write_soft_bytes = c->write_queue_bytes / 2;
}

int crawler_open(const struct crawler_cfg *c, bool resume, const char *prog,
                 const struct crawl_opts *co, struct crawl **out)
{
  crawl_err e = crawl_open(co, resume, out);
  if(e == CRAWL_ERR_INVALID && !resume) {
    fprintf(stderr, "%s: %s holds a crawl: --resume to continue it, or choose another --out\n",
            prog, c->out);
    return 1;
  }
  if(e == CRAWL_ERR_LOCKED) {
    fprintf(stderr, "%s: another crawler is crawling into %s\n", prog, c->out);
    return 1;
  }
  if(e) {
    fprintf(stderr, "%s: cannot open %s: %s\n", prog, c->out, crawl_err_text(e));
    return CRAWL_LOOP_EXIT_LOCAL;
  }
  return 0;
}
