/* wpfs-discover: the discovery crawler. It reaches the Web only through
 * the wpfs gateway, and writes WARC files, a JSONL crawl log and
 * checkpoints into --out (docs/crawler.md).
 *   wpfs-discover --gateway URL --token T --seeds FILE --out DIR
 *                 [--max-pages N] [--max-depth N] [--scope host|domain|any]
 *                 [--resume] ...
 * Exit status: 0 the frontier is exhausted or a limit reached; 1 bad
 * usage; 2 a local error (disk, memory, seeds file); 3 stopped by a signal
 * (after a checkpoint: --resume continues); 4 the gateway stopped
 * answering. The last line on stdout is a JSON summary. With --crawl, each
 * start writes into a run directory of its own under --out (run-0001,
 * run-0002 ...): a member's volume outlives the member. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/crawl/crawl.h"
#include "clients/loop/crawler.h"
#include "clients/loop/crawl_loop.h"
#include "clients/loop/seeds.h"
#include "clients/part/coord.h"
#include "clients/part/part.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/mem.h"

struct dopts {
  struct crawler_cfg c;  /* first: the shared rows' offsets hold */
  long   batch;
  char  *coord_redis;
  char  *crawl;
  char  *deny_ext;
  bool   follow_nofollow;
  size_t frontier_bytes;
  long   lease_ms;
  long   max_depth;
  long   max_path_depth;
  long   max_per_host;
  long   max_query_variants;
  long   max_segment_repeats;
  char  *member;
  long   near_distance;
  long   partitions;
  bool   path_ascend;
  bool   resume;
  char  *scope;
  size_t sitemap_max_bytes;
  bool   sitemaps;
  long   window;
};

#define OFF(f) offsetof(struct dopts, f)
/* Keep sorted by name. */
static const struct cfg_key own_keys[] = {
  { "batch", CFG_INT, OFF(batch), "1000", 1, 5000, NULL,
    "URLs per POST /v1/batches" },
  { "coord_redis", CFG_STR, OFF(coord_redis), "redis://127.0.0.1:6379", 1, 0, NULL,
    "with --crawl: the Redis the processes of the crawl meet in (redis://host:port)" },
  { "crawl", CFG_STR, OFF(crawl), NULL, 1, 0, NULL,
    "the name of a crawl on several processes (letters, digits, . _ -): this process is one "
    "member, and crawls the partitions it holds, each start into --out/run-NNNN (unset: one "
    "process crawls alone)" },
  { "deny_ext", CFG_STR, OFF(deny_ext), NULL, 1, 0, NULL,
    "comma-separated extensions never fetched (default: images, media, archives, binaries, "
    "office documents, pdf, fonts, css, js)" },
  { "follow_nofollow", CFG_BOOL, OFF(follow_nofollow), "false", 1, 0, NULL,
    "follow rel=nofollow links and pages with meta robots nofollow" },
  { "frontier_bytes", CFG_SIZE, OFF(frontier_bytes), "1g", 65536, 1e12, NULL,
    "memory for the frontier; URLs past it wait on disk in --out/frontier" },
  { "lease_ms", CFG_MSEC, OFF(lease_ms), "10s", 500, 3600000, NULL,
    "with --crawl: a member's hold on its partitions; a member silent this long loses them "
    "to the others" },
  { "max_depth", CFG_INT, OFF(max_depth), "-1", -1, 1e9, NULL,
    "link hops from a seed (-1: no limit)" },
  { "max_path_depth", CFG_INT, OFF(max_path_depth), "16", 0, 1000, NULL,
    "path segments of a URL (0: no limit)" },
  { "max_per_host", CFG_INT, OFF(max_per_host), "8", 0, 1e6, NULL,
    "URLs of one host outstanding at the gateway (0: no limit)" },
  { "max_query_variants", CFG_INT, OFF(max_query_variants), "100", 0, 1e9, NULL,
    "distinct query strings of one path (0: no limit)" },
  { "max_segment_repeats", CFG_INT, OFF(max_segment_repeats), "3", 0, 1000, NULL,
    "occurrences of one path segment that mark a trap (0: no limit)" },
  { "member", CFG_STR, OFF(member), NULL, 1, 0, NULL,
    "with --crawl: this process's id in the crawl (default: the host name)" },
  { "near_distance", CFG_INT, OFF(near_distance), "3", 0, 64, NULL,
    "SimHash bits within which two pages are near duplicates" },
  { "partitions", CFG_INT, OFF(partitions), "1024", 1, 65536, NULL,
    "with --crawl: URLs are split by host into this many partitions; the same for every "
    "member (the first one fixes it)" },
  { "path_ascend", CFG_BOOL, OFF(path_ascend), "false", 1, 0, NULL,
    "also crawl the directories above each fetched URL (/a/b/c: /a/b/, /a/, /), "
    "through the same filters, seen test and trap defences" },
  { "resume", CFG_BOOL, OFF(resume), "false", 1, 0, NULL,
    "continue the crawl in --out from its checkpoint and crawl log" },
  { "scope", CFG_STR, OFF(scope), "host", 1, 0, NULL,
    "host (the seeds' hosts), domain (their registrable domains) or any" },
  { "sitemap_max_bytes", CFG_SIZE, OFF(sitemap_max_bytes), "50m", 4096, 1e10, NULL,
    "XML read of one sitemap, after gzip decompression (sitemap.xml.gz); the rest is cut" },
  { "sitemaps", CFG_BOOL, OFF(sitemaps), "true", 1, 0, NULL,
    "read the sitemaps robots.txt names (asked of the gateway per host)" },
  { "window", CFG_INT, OFF(window), "5000", 1, 1e7, NULL,
    "URLs outstanding at the gateway" },
};

#define NOWN (sizeof own_keys / sizeof own_keys[0])
static struct cfg_key keys[NOWN + CRAWLER_CFG_NKEYS];
static struct cfg_prog prog = {
  "wpfs-discover",
  "The discovery crawler: crawls from seeds through the wpfs gateway into WARC files.",
  keys, 0, NULL,
};

static bool fill_crawl(const struct dopts *d, struct crawl_opts *o)
{
  *o = crawl_opts_default();
  crawler_fill_crawl(&d->c, o);
  o->max_depth = d->max_depth < 0 ? UINT32_MAX : (uint32_t)d->max_depth;
  o->deny_ext = d->deny_ext;
  o->obey_nofollow = !d->follow_nofollow;
  o->path_ascend = d->path_ascend;
  o->trap.max_path_depth = (unsigned)d->max_path_depth;
  o->trap.max_segment_repeats = (unsigned)d->max_segment_repeats;
  o->trap.max_query_variants = (unsigned)d->max_query_variants;
  o->dedup.max_distance = (unsigned)d->near_distance;
  o->frontier_bytes = d->frontier_bytes;
  o->max_per_host = (unsigned)d->max_per_host;
  o->sitemap_max_text = d->sitemap_max_bytes;
  return linkfilter_scope_parse(d->scope, &o->scope);
}

static void fill_discover(const struct dopts *d, struct crawl_loop_opts *o)
{
  *o = crawl_loop_opts_default();
  crawler_fill_loop(&d->c, "wpfs-discover/0.1", o);
  o->batch_max = (unsigned)d->batch;
  o->window = (unsigned)d->window;
  o->sitemaps = d->sitemaps;
}

static int usage_check(const struct dopts *d)
{
  if(!d->c.out || (!d->c.seeds && !d->resume)) {
    fprintf(stderr, "wpfs-discover: --out and --seeds are required (--seeds may be left "
                    "out with --resume); see --help\n");
    return -1;
  }
  if(d->crawl && d->resume) {
    fprintf(stderr, "wpfs-discover: --resume is not for a crawl on several processes (--crawl): "
                    "a member that restarts takes partitions from their snapshots\n");
    return -1;
  }
  return crawler_log_init(&d->c, "wpfs-discover");
}

/* A member of the crawl d->crawl: joined before the seeds, so that they
 * go to their partitions' owners. */
static int join_crawl(const struct dopts *d, struct crawl *c, const char *run,
                      struct part **out)
{
  struct part_opts po = part_opts_default();
  char host[256] = "";
  po.crawl = d->crawl;
  po.redis_url = d->coord_redis;
  po.member = d->member;
  po.run = run;
  if(!po.member) {
    gethostname(host, sizeof host - 1);
    po.member = host;
  }
  po.partitions = (unsigned)d->partitions;
  po.lease_ms = (uint64_t)d->lease_ms;
  po.snap_ms = (uint64_t)d->c.checkpoint_ms;
  crawl_err e = part_open(&po, c, out);
  if(e == CRAWL_ERR_INVALID && (!coord_name_ok(po.crawl) || !coord_name_ok(po.member)))
    fprintf(stderr, "wpfs-discover: --crawl and --member are 1 to 128 letters, digits, . _ or - "
                    "(member: '%s')\n", po.member);
  else if(e)
    fprintf(stderr, "wpfs-discover: cannot join crawl %s at %s: %s\n", po.crawl, po.redis_url,
            crawl_err_text(e));
  return e ? -1 : 0;
}

/* A member's run directory: --out/run-NNNN, one more than the highest
 * there. A counter, not the start time: unique without trusting the clock
 * (two starts in one second, a clock stepped back), ordered as the runs
 * were, and mkdir makes it atomic. Each start begins empty (its partitions
 * come from their snapshots in Redis), so the earlier runs' WARC files and
 * logs stay where they are and --resume is never needed. */
#define RUN_MAX 999999
static int member_run_dir(const char *out, char *run, size_t cap)
{
  if(mkdir(out, 0755) && errno != EEXIST) {
    fprintf(stderr, "wpfs-discover: cannot create --out %s: %s\n", out, strerror(errno));
    return -1;
  }
  DIR *dir = opendir(out);
  if(!dir) {
    fprintf(stderr, "wpfs-discover: cannot read --out %s: %s\n", out, strerror(errno));
    return -1;
  }
  long top = 0;
  for(struct dirent *e; (e = readdir(dir));) {
    char *end = NULL;
    long n = strncmp(e->d_name, "run-", 4) ? 0 : strtol(e->d_name + 4, &end, 10);
    if(n > top && n <= RUN_MAX && !*end)
      top = n;
  }
  closedir(dir);
  for(long n = top + 1; n <= RUN_MAX; n++) {
    if((size_t)snprintf(run, cap, "%s/run-%04ld", out, n) >= cap) {
      fprintf(stderr, "wpfs-discover: --out %s: path too long\n", out);
      return -1;
    }
    if(!mkdir(run, 0755))
      return 0;
    if(errno != EEXIST)
      break;
  }
  fprintf(stderr, "wpfs-discover: cannot create a run directory in %s: %s\n", out,
          strerror(errno));
  return -1;
}

static int crawl_main(const struct dopts *d)
{
  struct crawl_opts co;
  struct crawl_loop_opts dop;
  if(!fill_crawl(d, &co)) {
    fprintf(stderr, "wpfs-discover: --scope is host, domain or any\n");
    return 1;
  }
  fill_discover(d, &dop);
  if(crawler_scope(&d->c, "wpfs-discover", &co.rules))
    return 1;
  struct crawler_cfg cc = d->c;  /* a member crawls into its run directory */
  char run[4096];
  if(d->crawl) {
    if(member_run_dir(d->c.out, run, sizeof run)) {
      scope_free(&co.rules);
      return CRAWL_LOOP_EXIT_LOCAL;
    }
    cc.out = run;
    co.out_dir = run;
    LOG(LOG_INFO, "crawl %s: this run writes into %s", d->crawl, run);
  }
  struct crawl *c;
  int rc = crawler_open(&cc, d->resume, "wpfs-discover", &co, &c);
  struct part *part = NULL;
  if(!rc && d->crawl && join_crawl(d, c, strrchr(run, '/') + 1, &part))
    rc = 1;
  dop.part = part;
  char sumfile[4200];
  if(d->crawl && (size_t)snprintf(sumfile, sizeof sumfile, "%s/summary.json", run) < sizeof sumfile)
    dop.summary_path = sumfile;
  int nseeds;
  if(!rc && d->c.seeds && crawl_seeds_file(c, d->c.seeds, "wpfs-discover", d->resume, &nseeds))
    rc = CRAWL_LOOP_EXIT_LOCAL;
  if(!rc)
    rc = crawl_loop_run(c, &dop, stdout);
  part_close(&part, rc != CRAWL_LOOP_EXIT_DONE);  /* stopped: its partitions to the others */
  crawl_close(&c);
  scope_free(&co.rules);
  return rc;
}

int main(int argc, char **argv)
{
  struct dopts d;
  memset(&d, 0, sizeof d);
  prog.nkeys = crawler_cfg_keys(own_keys, NOWN, keys);
  enum cfg_rc r = cfg_load(&prog, &d, argc, argv);
  int rc = r == CFG_ERROR ? 1 : 0;
  if(r == CFG_OK)
    rc = usage_check(&d) ? 1 : crawl_main(&d);
  cfg_free(&prog, &d);
  return rc;
}
