/* wpfs-discover: the discovery crawler. It reaches the Web only through
 * the wpfs gateway, and writes WARC files, a JSONL crawl log and
 * checkpoints into --out (docs/crawler.md).
 *   wpfs-discover --gateway URL --token T --seeds FILE --out DIR
 *                 [--max-pages N] [--max-depth N] [--scope host|domain|any]
 *                 [--resume] ...
 * Exit status: 0 the frontier is exhausted or a limit reached; 1 bad
 * usage; 2 a local error (disk, memory, seeds file); 3 stopped by a signal
 * (after a checkpoint: --resume continues); 4 the gateway stopped
 * answering. The last line on stdout is a JSON summary. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/crawl/crawl.h"
#include "clients/crawl/discover.h"
#include "clients/crawl/seeds.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/mem.h"

struct dopts {
  long   batch;
  long   checkpoint_ms;
  char  *deny_ext;
  bool   follow_nofollow;
  size_t frontier_bytes;
  char  *gateway;
  char  *log_level;
  long   max_age_s;
  long   max_depth;
  long   max_domain_hosts;
  long   max_pages;
  long   max_path_depth;
  long   max_per_host;
  long   max_query_variants;
  long   max_segment_repeats;
  long   near_distance;
  char  *out;
  bool   path_ascend;
  bool   progress;
  long   results;
  bool   resume;
  char  *scope;
  char  *seeds;
  size_t seen_mem;
  long   site_budget;
  size_t sitemap_max_bytes;
  bool   sitemaps;
  long   stall_ms;
  char  *token;
  long   wait_ms;
  size_t warc_max_bytes;
  long   window;
  size_t write_queue_bytes;
};

#define OFF(f) offsetof(struct dopts, f)
/* Keep sorted by name. */
static const struct cfg_key keys[] = {
  { "batch", CFG_INT, OFF(batch), "1000", 1, 5000, NULL,
    "URLs per POST /v1/batches" },
  { "checkpoint_ms", CFG_MSEC, OFF(checkpoint_ms), "30s", 100, 86400000, NULL,
    "time between two checkpoints" },
  { "deny_ext", CFG_STR, OFF(deny_ext), NULL, 1, 0, NULL,
    "comma-separated extensions never fetched (default: images, media, archives, binaries, "
    "office documents, pdf, fonts, css, js)" },
  { "follow_nofollow", CFG_BOOL, OFF(follow_nofollow), "false", 1, 0, NULL,
    "follow rel=nofollow links and pages with meta robots nofollow" },
  { "frontier_bytes", CFG_SIZE, OFF(frontier_bytes), "1g", 65536, 1e12, NULL,
    "memory for the frontier; URLs past it wait on disk in --out/frontier" },
  { "gateway", CFG_STR, OFF(gateway), "http://127.0.0.1:8080", 1, 0, NULL,
    "gateway base URL" },
  { "log_level", CFG_STR, OFF(log_level), "info", 1, 0, NULL,
    "debug, info, warn, error or off (JSON lines on stderr)" },
  { "max_age_s", CFG_INT, OFF(max_age_s), "-1", -1, 1e9, NULL,
    "a page the gateway fetched this recently is good enough (-1: any cached copy)" },
  { "max_depth", CFG_INT, OFF(max_depth), "-1", -1, 1e9, NULL,
    "link hops from a seed (-1: no limit)" },
  { "max_domain_hosts", CFG_INT, OFF(max_domain_hosts), "1000", 0, 1e9, NULL,
    "host names per registrable domain (0: no limit)" },
  { "max_pages", CFG_INT, OFF(max_pages), "0", 0, 1e15, NULL,
    "stop after recording this many results (0: no limit)" },
  { "max_path_depth", CFG_INT, OFF(max_path_depth), "16", 0, 1000, NULL,
    "path segments of a URL (0: no limit)" },
  { "max_per_host", CFG_INT, OFF(max_per_host), "8", 0, 1e6, NULL,
    "URLs of one host outstanding at the gateway (0: no limit)" },
  { "max_query_variants", CFG_INT, OFF(max_query_variants), "100", 0, 1e9, NULL,
    "distinct query strings of one path (0: no limit)" },
  { "max_segment_repeats", CFG_INT, OFF(max_segment_repeats), "3", 0, 1000, NULL,
    "occurrences of one path segment that mark a trap (0: no limit)" },
  { "near_distance", CFG_INT, OFF(near_distance), "3", 0, 64, NULL,
    "SimHash bits within which two pages are near duplicates" },
  { "out", CFG_STR, OFF(out), NULL, 1, 0, NULL,
    "output directory: WARC files, crawl.jsonl, checkpoint (required)" },
  { "path_ascend", CFG_BOOL, OFF(path_ascend), "false", 1, 0, NULL,
    "also crawl the directories above each fetched URL (/a/b/c: /a/b/, /a/, /), "
    "through the same filters, seen test and trap defences" },
  { "progress", CFG_BOOL, OFF(progress), "true", 1, 0, NULL,
    "one line of progress on stderr when it is a terminal" },
  { "results", CFG_INT, OFF(results), "500", 1, 1000, NULL,
    "results per GET /v1/results" },
  { "resume", CFG_BOOL, OFF(resume), "false", 1, 0, NULL,
    "continue the crawl in --out from its checkpoint and crawl log" },
  { "scope", CFG_STR, OFF(scope), "host", 1, 0, NULL,
    "host (the seeds' hosts), domain (their registrable domains) or any" },
  { "seeds", CFG_STR, OFF(seeds), NULL, 1, 0, NULL,
    "file of seed URLs, one per line (# comments)" },
  { "seen_mem", CFG_SIZE, OFF(seen_mem), "64m", 4096, 1e12, NULL,
    "memory of the URL-seen set; beyond, it spills sorted runs to --out/seen" },
  { "site_budget", CFG_INT, OFF(site_budget), "100000", 0, 1e12, NULL,
    "URLs queued per host (0: no limit)" },
  { "sitemap_max_bytes", CFG_SIZE, OFF(sitemap_max_bytes), "50m", 4096, 1e10, NULL,
    "XML read of one sitemap, after gzip decompression (sitemap.xml.gz); the rest is cut" },
  { "sitemaps", CFG_BOOL, OFF(sitemaps), "true", 1, 0, NULL,
    "read the sitemaps robots.txt names (asked of the gateway per host)" },
  { "stall_ms", CFG_MSEC, OFF(stall_ms), "10m", 1000, 86400000, NULL,
    "give up when the gateway answers nothing useful for this long" },
  { "token", CFG_STR, OFF(token), NULL, 1, 0, "WPFS_TOKEN",
    "API key of the gateway" },
  { "wait_ms", CFG_MSEC, OFF(wait_ms), "2s", 0, 120000, NULL,
    "long-poll of GET /v1/results" },
  { "warc_max_bytes", CFG_SIZE, OFF(warc_max_bytes), "1g", 4096, 1e12, NULL,
    "WARC files are closed past this size and a new one begun" },
  { "window", CFG_INT, OFF(window), "5000", 1, 1e7, NULL,
    "URLs outstanding at the gateway" },
  { "write_queue_bytes", CFG_SIZE, OFF(write_queue_bytes), "64m", 65536, 1e12, NULL,
    "pages and checkpoints waiting for the disk thread; past half, no more results are "
    "read until it catches up" },
};

static const struct cfg_prog prog = {
  "wpfs-discover",
  "The discovery crawler: crawls from seeds through the wpfs gateway into WARC files.",
  keys, sizeof keys / sizeof keys[0], NULL,
};

static bool fill_crawl(const struct dopts *d, struct crawl_opts *o)
{
  *o = crawl_opts_default();
  o->out_dir = d->out;
  o->max_pages = (uint64_t)d->max_pages;
  o->max_depth = d->max_depth < 0 ? UINT32_MAX : (uint32_t)d->max_depth;
  o->deny_ext = d->deny_ext;
  o->obey_nofollow = !d->follow_nofollow;
  o->path_ascend = d->path_ascend;
  o->trap.max_path_depth = (unsigned)d->max_path_depth;
  o->trap.max_segment_repeats = (unsigned)d->max_segment_repeats;
  o->trap.site_budget = (uint64_t)d->site_budget;
  o->trap.max_query_variants = (unsigned)d->max_query_variants;
  o->trap.max_domain_hosts = (unsigned)d->max_domain_hosts;
  o->dedup.max_distance = (unsigned)d->near_distance;
  o->seen_mem = d->seen_mem;
  o->frontier_bytes = d->frontier_bytes;
  o->max_per_host = (unsigned)d->max_per_host;
  o->warc_max_bytes = d->warc_max_bytes;
  o->sitemap_max_text = d->sitemap_max_bytes;
  o->write_queue_bytes = d->write_queue_bytes;
  return linkfilter_scope_parse(d->scope, &o->scope);
}

static void fill_discover(const struct dopts *d, struct discover_opts *o)
{
  *o = discover_opts_default();
  o->gw.base_url = d->gateway;
  o->gw.token = d->token;
  o->gw.user_agent = "wpfs-discover/0.1";
  o->batch_max = (unsigned)d->batch;
  o->window = (unsigned)d->window;
  o->results_max = (unsigned)d->results;
  o->wait_ms = (unsigned)d->wait_ms;
  o->max_age_s = d->max_age_s;
  o->checkpoint_ms = (uint64_t)d->checkpoint_ms;
  o->stall_ms = (uint64_t)d->stall_ms;
  o->sitemaps = d->sitemaps;
  o->progress = d->progress;
  o->write_soft_bytes = d->write_queue_bytes / 2;
}

static int usage_check(const struct dopts *d)
{
  if(!d->out || (!d->seeds && !d->resume)) {
    fprintf(stderr, "wpfs-discover: --out and --seeds are required (--seeds may be left "
                    "out with --resume); see --help\n");
    return -1;
  }
  enum log_level lvl;
  if(log_level_parse(d->log_level, &lvl) != 0) {
    fprintf(stderr, "wpfs-discover: bad --log-level %s\n", d->log_level);
    return -1;
  }
  log_init("wpfs-discover", lvl);
  return 0;
}

static int crawl_main(const struct dopts *d)
{
  struct crawl_opts co;
  struct discover_opts dop;
  if(!fill_crawl(d, &co)) {
    fprintf(stderr, "wpfs-discover: --scope is host, domain or any\n");
    return 1;
  }
  fill_discover(d, &dop);
  struct crawl *c;
  crawl_err e = crawl_open(&co, d->resume, &c);
  if(e == CRAWL_ERR_INVALID && !d->resume) {
    fprintf(stderr, "wpfs-discover: %s holds a crawl: --resume to continue it, or choose "
                    "another --out\n", d->out);
    return 1;
  }
  if(e == CRAWL_ERR_LOCKED) {
    fprintf(stderr, "wpfs-discover: another wpfs-discover is crawling into %s\n", d->out);
    return 1;
  }
  if(e) {
    fprintf(stderr, "wpfs-discover: cannot open %s: %s\n", d->out, crawl_err_text(e));
    return DISCOVER_EXIT_LOCAL;
  }
  int nseeds;
  int rc = d->seeds && crawl_seeds_file(c, d->seeds, "wpfs-discover", &nseeds)
             ? DISCOVER_EXIT_LOCAL : 0;
  if(!rc)
    rc = discover_run(c, &dop, stdout);
  crawl_close(&c);
  return rc;
}

int main(int argc, char **argv)
{
  struct dopts d;
  memset(&d, 0, sizeof d);
  enum cfg_rc r = cfg_load(&prog, &d, argc, argv);
  int rc = r == CFG_ERROR ? 1 : 0;
  if(r == CFG_OK)
    rc = usage_check(&d) ? 1 : crawl_main(&d);
  cfg_free(&prog, &d);
  return rc;
}
