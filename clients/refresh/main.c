/* wpfs-refresh: the refresh crawler. It keeps a list of known pages fresh
 * through the wpfs gateway at a fixed fetch rate, spending visits where
 * they buy the most freshness (docs/refresh.md).
 *   wpfs-refresh --gateway URL --token T --urls FILE --out DIR --rate R
 *                [--duration-s S] [--policy optimal|uniform|proportional] [--resume]
 * --out gets WARC files (responses for changed pages, revisits for
 * unchanged ones) and changes.jsonl, the change log, which is also the
 * state: --resume replays it. Exit status: 0 the duration ran out; 1 bad
 * usage; 2 a local error; 3 stopped by a signal; 4 the gateway stopped
 * answering. The last line on stdout is a JSON summary. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/out/crawllog.h"
#include "clients/out/warc.h"
#include "clients/part/coord.h"
#include "clients/refresh/refresh.h"
#include "common/cfg.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"

#define PROG "wpfs-refresh"

struct ropts {
  double compact_factor;
  char  *coord_redis;
  char  *crawl;
  long   duration_s;
  char  *gateway;
  long   lease_ms;
  char  *log_level;
  long   max_interval_s;
  double max_age_share;
  long   max_pages;
  char  *member;
  char  *out;
  long   partitions;
  long   plan_ms;
  char  *policy;
  long   priority;
  bool   progress;
  double rate;
  bool   resume;
  char  *robots_agent;
  char  *scope_rules;
  long   stall_ms;
  char  *token;
  char  *urls;
  long   wait_ms;
  long   warc_level;
  size_t warc_max_bytes;
  long   window;
};

#define OFF(f) offsetof(struct ropts, f)
/* Keep sorted by name. */
static const struct cfg_key keys[] = {
  { "compact_factor", CFG_DOUBLE, OFF(compact_factor), "3", 0, 1000, NULL,
    "the change log is rewritten as one line per page once the lines added since are this "
    "many times that size (0: never)" },
  { "coord_redis", CFG_STR, OFF(coord_redis), "redis://127.0.0.1:6379", 1, 0, NULL,
    "with --crawl: the Redis the processes of the crawl meet in (redis://host:port)" },
  { "crawl", CFG_STR, OFF(crawl), NULL, 1, 0, NULL,
    "the name of a refresh crawl on several processes (letters, digits, . _ -): this process "
    "is one member, and keeps fresh the pages of the partitions it holds at its share of "
    "--rate (unset: one process keeps every page)" },
  { "duration_s", CFG_INT, OFF(duration_s), "0", 0, 1e9, NULL,
    "stop after this many seconds (0: run until a signal)" },
  { "gateway", CFG_STR, OFF(gateway), "http://127.0.0.1:8080", 1, 0, NULL,
    "gateway base URL" },
  { "lease_ms", CFG_MSEC, OFF(lease_ms), "10s", 500, 3600000, NULL,
    "with --crawl: a member's hold on its partitions; a member silent this long loses them "
    "to the others. Each held partition's page state is written to Redis this often" },
  { "log_level", CFG_STR, OFF(log_level), "info", 1, 0, NULL,
    "debug, info, warn, error or off (JSON lines on stderr)" },
  { "max_age_share", CFG_DOUBLE, OFF(max_age_share), "0.25", 0, 1, NULL,
    "a copy the gateway holds is good enough when younger than this share of the page's "
    "revisit interval; older, it revalidates (If-None-Match, If-Modified-Since)" },
  { "max_interval_s", CFG_INT, OFF(max_interval_s), "86400", 1, 1e9, NULL,
    "no page waits longer between visits, whatever the plan (pages never seen to change, "
    "pages given up on)" },
  { "max_pages", CFG_INT, OFF(max_pages), "10000000", 1, 1e9, NULL,
    "pages kept (the input and the targets of redirects)" },
  { "member", CFG_STR, OFF(member), NULL, 1, 0, NULL,
    "with --crawl: this process's id in the crawl (default: the host name)" },
  { "out", CFG_STR, OFF(out), NULL, 1, 0, NULL,
    "output directory: WARC files and changes.jsonl (required)" },
  { "partitions", CFG_INT, OFF(partitions), "1024", 1, 65536, NULL,
    "with --crawl: URLs are split by host into this many partitions; the same for every "
    "member (the first one fixes it)" },
  { "plan_ms", CFG_MSEC, OFF(plan_ms), "5s", 100, 86400000, NULL,
    "time between two estimates and allocations of the whole budget" },
  { "policy", CFG_STR, OFF(policy), "optimal", 1, 0, NULL,
    "optimal, uniform or proportional: how the budget is shared among pages" },
  { "priority", CFG_INT, OFF(priority), "4", 0, 7, NULL,
    "priority of the requests at the gateway" },
  { "progress", CFG_BOOL, OFF(progress), "true", 1, 0, NULL,
    "one line of progress on stderr when it is a terminal" },
  { "rate", CFG_DOUBLE, OFF(rate), "0", 0, 1e5, NULL,
    "fetches per second this crawler spends, whatever the number of pages (required)" },
  { "resume", CFG_BOOL, OFF(resume), "false", 1, 0, NULL,
    "continue from --out's change log: every page's history is kept" },
  { "scope_rules", CFG_STR, OFF(scope_rules), NULL, 1, 0, NULL,
    "file of scope rules (accept/reject by regex, host, domain, SURT prefix; the last that "
    "matches decides): the input's URLs and the targets of redirects they reject are not "
    "kept (docs/crawler.md, \"Scope rules\")" },
  { "stall_ms", CFG_MSEC, OFF(stall_ms), "10m", 1000, 86400000, NULL,
    "give up when the gateway answers nothing useful for this long" },
  { "token", CFG_STR, OFF(token), NULL, 1, 0, "WPFS_TOKEN", "API key of the gateway" },
  { "robots_agent", CFG_STR, OFF(robots_agent), "wpfs", 1, 0, NULL,
    "product token of the gateway's User-Agent: <meta name=TOKEN> speaks to the crawl as "
    "<meta name=robots> does (X-Robots-Tag the gateway reads for it)" },
  { "urls", CFG_STR, OFF(urls), NULL, 1, 0, NULL,
    "the pages: URL[<TAB>weight] lines, a crawl.jsonl or a WARC file of wpfs-discover, or "
    "its --out directory" },
  { "wait_ms", CFG_MSEC, OFF(wait_ms), "2s", 0, 120000, NULL,
    "long-poll of GET /v1/results" },
  { "warc_level", CFG_INT, OFF(warc_level), "1", 1, 12, NULL,
    "compression level of the WARC records (libdeflate: 1 fastest, 12 smallest)" },
  { "warc_max_bytes", CFG_SIZE, OFF(warc_max_bytes), "1g", 4096, 1e12, NULL,
    "WARC files are closed past this size and a new one begun" },
  { "window", CFG_INT, OFF(window), "0", 0, 1e6, NULL,
    "requests outstanding at the gateway (0: ten seconds of --rate, at least 16)" },
};
#undef OFF

static const struct cfg_prog prog = {
  PROG, "The refresh crawler: keeps known pages fresh through the wpfs gateway at a fixed "
  "fetch rate.", keys, sizeof keys / sizeof keys[0], NULL,
};

static int usage_check(const struct ropts *o, enum rf_policy *policy)
{
  enum log_level lvl;
  if(!o->out || !o->urls || o->rate <= 0) {
    fprintf(stderr, PROG ": --out, --urls and --rate (above 0) are required; see --help\n");
    return -1;
  }
  if(!rf_policy_parse(o->policy, policy)) {
    fprintf(stderr, PROG ": --policy is optimal, uniform or proportional\n");
    return -1;
  }
  if(log_level_parse(o->log_level, &lvl) != 0) {
    fprintf(stderr, PROG ": bad --log-level %s\n", o->log_level);
    return -1;
  }
  log_init(PROG, lvl);
  return 0;
}

static char *out_path(const struct ropts *o, const char *name)
{
  size_t n = strlen(o->out) + strlen(name) + 2;
  char *p = mem_alloc(n);
  if(p)
    snprintf(p, n, "%s/%s", o->out, name);
  return p;
}

/* --out made, locked, and holding a log only when resuming. */
static int out_prepare(const struct ropts *o, const char *log_path, int *lock_fd)
{
  struct stat st;
  if(mkdir(o->out, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, PROG ": cannot make %s: %s\n", o->out, strerror(errno));
    return 2;
  }
  char *lock = out_path(o, "refresh.lock");
  *lock_fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
  mem_free(lock);
  if(*lock_fd < 0)
    return 2;
  if(flock(*lock_fd, LOCK_EX | LOCK_NB) != 0) {
    fprintf(stderr, PROG ": another crawler is working in %s\n", o->out);
    return 1;
  }
  bool has_log = !stat(log_path, &st) && st.st_size > 0;
  if(has_log && !o->resume) {
    fprintf(stderr, PROG ": %s holds a refresh crawl: --resume to continue it, or choose "
                    "another --out\n", o->out);
    return 1;
  }
  return 0;
}

static void fill_opts(const struct ropts *o, enum rf_policy policy, struct refresh_opts *r)
{
  memset(r, 0, sizeof *r);
  r->gw = (struct gwclient_opts){ o->gateway, o->token, 30000, 256u << 20, PROG "/0.1" };
  r->rate = o->rate;
  r->policy = policy;
  r->duration_ms = (uint64_t)o->duration_s * 1000;
  long w = o->window ? o->window : (long)(o->rate * 10);
  r->window = (unsigned)(w < 16 ? 16 : w);
  r->results_max = 500;
  r->wait_ms = (unsigned)o->wait_ms;
  r->plan_ms = (uint64_t)o->plan_ms;
  r->stall_ms = (uint64_t)o->stall_ms;
  r->drain_ms = 10000;
  r->max_age_share = o->max_age_share;
  r->priority = (unsigned)o->priority;
  r->progress = o->progress;
  r->out_dir = o->out;
  r->compact_factor = o->compact_factor;
}

static int load(const struct ropts *o, struct rf_pages *ps, const char *log_path,
                struct tally *refused)
{
  char err[512] = "", why[512];
  if(rf_pages_load(ps, o->urls, o->rate, clock_wall_ms(), refused, PROG, err, sizeof err)) {
    fprintf(stderr, PROG ": --urls %s\n", err);
    return 2;
  }
  tally_text(refused, why, sizeof why);
  if(refused->total)
    LOG(LOG_WARN, "--urls: %llu URLs refused (%s)", (unsigned long long)refused->total, why);
  uint64_t lines = 0;
  crawl_err e = o->resume ? refresh_replay(ps, log_path, &lines) : CRAWL_OK;
  if(e && e != CRAWL_ERR_IO) {
    fprintf(stderr, PROG ": %s: %s\n", log_path, crawl_err_text(e));
    return 2;
  }
  if(ps->n == 0) {
    fprintf(stderr, PROG ": no page to keep fresh in %s%s%s%s\n", o->urls,
            refused->total ? ": every URL was refused (" : "", refused->total ? why : "",
            refused->total ? ")" : "");
    return 1;
  }
  LOG(LOG_INFO, "%zu pages, %llu visits replayed", ps->n, (unsigned long long)lines);
  return 0;
}

/* A member of the refresh crawl o->crawl: its partitions' pages, the
 * others parked. */
static int join_crawl(const struct ropts *o, struct rf_pages *ps, struct rpart **out)
{
  char host[256] = "";
  struct rpart_opts po = { o->crawl, o->coord_redis, o->member, (unsigned)o->partitions,
                           (uint64_t)o->lease_ms, (uint64_t)o->lease_ms, 2000 };
  if(!po.member) {
    gethostname(host, sizeof host - 1);
    po.member = host;
  }
  crawl_err e = rpart_open(&po, ps, out);
  if(e == CRAWL_ERR_INVALID && (!coord_name_ok(po.crawl) || !coord_name_ok(po.member)))
    fprintf(stderr, PROG ": --crawl and --member are 1 to 128 letters, digits, . _ or - "
                    "(member: '%s')\n", po.member);
  else if(e)
    fprintf(stderr, PROG ": cannot join crawl %s at %s: %s\n", po.crawl, po.redis_url,
            crawl_err_text(e));
  return e ? 1 : 0;
}

static int run(const struct ropts *o, enum rf_policy policy)
{
  int lock_fd = -1, rc;
  char *log_path = out_path(o, "changes.jsonl");
  struct rf_pages ps;
  struct refresh_out out = { NULL, NULL, log_path, o->robots_agent };
  struct tally refused = { 0 };
  char err[SCOPE_ERR_MAX];
  rf_pages_init(&ps, (size_t)o->max_pages, 3, (double)o->max_interval_s);
  if(o->scope_rules && scope_load(o->scope_rules, &ps.rules, err, sizeof err)) {
    fprintf(stderr, PROG ": --scope-rules %s: %s\n", o->scope_rules, err);
    mem_free(log_path);
    rf_pages_free(&ps);
    return 1;
  }
  if(ps.rules)
    LOG(LOG_INFO, "scope rules: %zu from %s", scope_count(ps.rules), o->scope_rules);
  rc = log_path ? out_prepare(o, log_path, &lock_fd) : 2;
  if(!rc)
    rc = load(o, &ps, log_path, &refused);
  struct warc_opts wo = { o->out, "wpfs-refresh", o->warc_max_bytes, PROG "/0.1", NULL,
                          (int)o->warc_level, false };
  if(!rc && (warc_open(&wo, &out.warc) || crawllog_open(log_path, &out.log))) {
    fprintf(stderr, PROG ": cannot write into %s\n", o->out);
    rc = 2;
  }
  struct refresh_opts ro;
  fill_opts(o, policy, &ro);
  ro.input_refused = &refused;
  if(!rc && o->crawl)
    rc = join_crawl(o, &ps, &ro.part);
  if(!rc)
    rc = refresh_run(&ps, &out, &ro, stdout);
  rpart_close(&ro.part, true);  /* its partitions, with their snapshots, to the others */
  warc_close(&out.warc);
  crawllog_close(&out.log);
  scope_free(&ps.rules);
  rf_pages_free(&ps);
  mem_free(log_path);
  if(lock_fd >= 0)
    close(lock_fd);
  return rc;
}

int main(int argc, char **argv)
{
  struct ropts o;
  enum rf_policy policy;
  memset(&o, 0, sizeof o);
  enum cfg_rc r = cfg_load(&prog, &o, argc, argv);
  int rc = r == CFG_ERROR ? 1 : 0;
  if(r == CFG_OK)
    rc = usage_check(&o, &policy) ? 1 : run(&o, policy);
  cfg_free(&prog, &o);
  return rc;
}
