/* wpfs: the gateway from a shell. See docs/cli.md, or wpfs --help. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "clients/cli/cli.h"

static const struct verb {
  const char *name;
  int (*run)(struct cli *, int, char **);
  const char *help;
} verbs[] = {
  { "fetch", cli_fetch,
    "usage: wpfs fetch [-i] [--json] [--max-age-s N] [--wait-ms N] URL\n"
    "Fetch URL through the gateway (robots.txt and politeness apply) and print\n"
    "the page's bytes.\n"
    "  -i, --include    print the answer's status line and headers first\n"
    "                   (X-Wpfs-Outcome, X-Wpfs-Status, X-Wpfs-Age, ...)\n"
    "  --json           print the gateway's JSON result instead of the page\n"
    "  --max-age-s N    a stored copy up to N seconds old will do (default 0)\n"
    "  --wait-ms N      wait at most N ms for the fetch (default 30000)\n"
    "Exit 1 when there is no page (robots.txt disallows it, the site failed).\n" },
  { "submit", cli_submit,
    "usage: wpfs submit [--priority P] [--max-age-s N] [--batch N] [--max-wait-s S] FILE|-\n"
    "Queue the URLs of FILE (one per line; blank lines and # comments skipped;\n"
    "- reads stdin) for the results stream. Prints the gateway's answer for\n"
    "each URL as a JSON line (accepted / duplicate with its id, rejected with\n"
    "a reason) and a count on stderr.\n"
    "  --priority P     0..7, higher first (the gateway's default otherwise)\n"
    "  --max-age-s N    a stored copy up to N seconds old will do\n"
    "  --batch N        URLs per request (default 1000, at most 5000)\n"
    "  --max-wait-s S   wait out quota refusals and 503s with Retry-After for\n"
    "                   up to S seconds (default 300), then report them as\n"
    "                   rejected\n"
    "Exit 1 when any URL was rejected.\n" },
  { "results", cli_results,
    "usage: wpfs results [--follow] [--max N] [--wait-ms N] [--no-ack]\n"
    "Print this client's finished results as JSON lines (bodies in\n"
    "body_base64) and acknowledge each one once it is written. Without\n"
    "--follow, stops when none are left.\n"
    "  -f, --follow     keep waiting for more until interrupted (Ctrl-C)\n"
    "  --max N          results per read (default 100, at most 1000)\n"
    "  --wait-ms N      long-poll of each read with --follow (default 30000)\n"
    "  --no-ack         do not acknowledge: the gateway delivers them again\n"
    "                   after its visibility timeout\n" },
  { "site", cli_site,
    "usage: wpfs site SITE\n"
    "Print a site's politeness state as JSON: queued requests, whether a fetch\n"
    "is in flight, the next allowed time (next_at, ms since the epoch) and why\n"
    "(next_reason), error streak and backoff. SITE is a host name (or IP, or\n"
    "registrable domain, as the gateway's politeness unit is configured).\n" },
  { "robots", cli_robots,
    "usage: wpfs robots [--explain | --json] [--agent TOKEN] URL\n"
    "Print whether the gateway's robots.txt record for URL's origin allows it:\n"
    "allowed or disallowed (exit 1).\n"
    "  --explain        the deciding rule and its line, the record's status,\n"
    "                   age and crawl-delay, in words\n"
    "  --json           the gateway's answer as JSON\n"
    "  --agent TOKEN    for this robots.txt product token (or User-Agent);\n"
    "                   default: your key's own\n" },
  { "stats", cli_stats,
    "usage: wpfs stats\n"
    "Print the counters of the gateway replica that answers, as JSON.\n" },
  { "crawl-merge", cli_crawl_merge,
    "usage: wpfs crawl-merge SUMMARY.json...\n"
    "Merge the summaries of one crawl's members (each wpfs-discover process of\n"
    "a partitioned crawl prints its own, last on stdout) into one JSON line.\n"
    "No gateway is asked. A file may be the summary alone or a member's whole\n"
    "output (its last summary line counts).\n"
    "  counters, sizes and tallies (causes, drop_*, scope_rules) are summed;\n"
    "  frontier_peak_urls, part_live, maxima (*_max*), durations (*_ms, *_s)\n"
    "  and times (*_at) take the largest member's (start*: the earliest); the\n"
    "  *_bytes_per_url ratios are the members' bytes over their URLs (each\n"
    "  member's ratio weighted by its own URL count);\n"
    "  members is the count, member_list has one entry per member: its\n"
    "  summary file, member, crawl_log, warc_paths (paths on its own volume)\n"
    "  and any other field whose value differs between members.\n"
    "Exit 6 when a file cannot be read, holds no summary, or does not fit the\n"
    "others (another crawl, the same member twice).\n" },
};

static const char usage_text[] =
  "usage: wpfs [--gateway URL] [--token T] [--timeout-s S] VERB [ARGS]\n"
  "The wpfs gateway from a shell.\n"
  "\n"
  "verbs:\n"
  "  fetch URL         print a page fetched through the gateway (-i: headers)\n"
  "  submit FILE|-     queue URLs; one JSON line of answer per URL\n"
  "  results           print finished results as JSON lines, acknowledged\n"
  "  site SITE         a site's politeness state\n"
  "  robots URL        robots.txt's decision for URL (--explain: why)\n"
  "  stats             the gateway's counters\n"
  "  crawl-merge F...  the summaries of a crawl's members as one (no gateway)\n"
  "  help VERB         the help of a verb (or wpfs VERB --help)\n"
  "\n"
  "options (before the verb):\n"
  "  --gateway URL     the gateway (default $WPFS_GATEWAY, else\n"
  "                    http://127.0.0.1:8080)\n"
  "  --token T         the API key (default $WPFS_TOKEN)\n"
  "  --timeout-s S     give up on an answer after S seconds, on top of any\n"
  "                    wait asked for (default 30)\n"
  "\n"
  "exit status: 0 done; 1 the answer is no (no page, disallowed, a URL\n"
  "rejected); 2 usage; 3 no answer from the gateway; 4 the gateway refused\n"
  "the request (4xx: token, input, quota); 5 the gateway failed (5xx, or an\n"
  "answer off the API); 6 a local error (input, output).\n";

const char *cli_help(const char *verb)
{
  for(size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
    if(!strcmp(verbs[i].name, verb))
      return verbs[i].help;
  return NULL;
}

static void on_signal(int sig)
{
  (void)sig;
  cli_stopped = 1;
}

static int run_verb(struct cli *c, int argc, char **argv)
{
  const struct verb *v = NULL;
  for(size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
    if(!strcmp(verbs[i].name, argv[0]))
      v = &verbs[i];
  if(!v) {
    fprintf(stderr, "wpfs: no verb '%s'; see wpfs --help\n", argv[0]);
    return CLI_USAGE;
  }
  for(int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if(!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(v->help, stdout);
      return CLI_OK;
    }
  c->verb = v->name;
  if(!(c->curl = curl_easy_init())) {
    fputs("wpfs: cannot start libcurl\n", stderr);
    return CLI_LOCAL;
  }
  int rc = v->run(c, argc, argv);
  curl_easy_cleanup(c->curl);
  return rc;
}

int main(int argc, char **argv)
{
  static const struct option lo[] = {
    { "gateway", required_argument, NULL, 'g' }, { "token", required_argument, NULL, 't' },
    { "timeout-s", required_argument, NULL, 'T' }, { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *gw = getenv("WPFS_GATEWAY");
  struct cli c = { .gateway = gw && *gw ? gw : "http://127.0.0.1:8080",
                   .token = getenv("WPFS_TOKEN"), .timeout_ms = 30000, .verb = "" };
  long v;
  int ch;
  while((ch = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
    if(ch == 'g')
      c.gateway = optarg;
    else if(ch == 't')
      c.token = optarg;
    else if(ch == 'T' && cli_num(&c, "--timeout-s", optarg, 86400, &v) && v > 0)
      c.timeout_ms = v * 1000;
    else if(ch == 'h') {
      fputs(usage_text, stdout);
      return CLI_OK;
    } else {
      fputs("see wpfs --help\n", stderr);
      return CLI_USAGE;
    }
  }
  if(optind >= argc) {
    fputs(usage_text, stderr);
    return CLI_USAGE;
  }
  if(!strcmp(argv[optind], "help")) {
    const char *h = optind + 1 < argc ? cli_help(argv[optind + 1]) : usage_text;
    fputs(h ? h : usage_text, h ? stdout : stderr);
    return h ? CLI_OK : CLI_USAGE;
  }
  signal(SIGPIPE, SIG_IGN);  /* a closed stdout is an EPIPE we report */
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int rc = run_verb(&c, argc - optind, argv + optind);
  curl_global_cleanup();
  return rc;
}
