/* wpfs fetch: one URL through the gateway, the page's bytes on stdout. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "clients/cli/cli.h"

/* 502 no-page: the result exists but has no page (robots.txt said no, the
 * site could not be reached): say which outcome, exit "no". */
static int no_page(const struct cli *c, const struct cli_resp *r)
{
  struct gw_problem p;
  gwproto_problem(r->body.data, r->body.len, &p);
  int rc = p.outcome ? CLI_NO : cli_fail(c, r);
  if(p.outcome)
    cli_err(c, "no page: %s%s%s", p.outcome, p.detail ? ": " : "", p.detail ? p.detail : "");
  gwproto_problem_free(&p);
  return rc;
}

static int fetch_run(struct cli *c, const char *url, bool head, bool json, long max_age_s,
                     long wait_ms)
{
  struct buf body;
  buf_init(&body, CLI_MAX_BODY);
  int rc = cli_body(c, gwproto_fetch_body(url, (unsigned)wait_ms, max_age_s, &body));
  if(rc) {
    buf_free(&body);
    return rc;
  }
  struct cli_resp r;
  rc = cli_call(c, "POST", json ? "/v1/fetch?format=json" : "/v1/fetch?format=raw", body.data,
                json ? NULL : "*/*", wait_ms, &r);
  buf_free(&body);
  if(rc == CLI_OK) {
    if(head && fwrite(r.head.data, 1, r.head.len, stdout) != r.head.len)
      rc = CLI_LOCAL;
    if(r.status == 200) {
      if(fwrite(r.body.data, 1, r.body.len, stdout) != r.body.len || fflush(stdout))
        rc = CLI_LOCAL;
      if(rc == CLI_LOCAL)
        cli_err(c, "cannot write the page");
    } else {
      fflush(stdout);
      rc = r.status == 502 ? no_page(c, &r) : cli_fail(c, &r);
    }
  }
  cli_resp_free(&r);
  return rc;
}

int cli_fetch(struct cli *c, int argc, char **argv)
{
  static const struct option lo[] = {
    { "include", no_argument, NULL, 'i' },   { "json", no_argument, NULL, 'j' },
    { "max-age-s", required_argument, NULL, 'a' }, { "wait-ms", required_argument, NULL, 'w' },
    { NULL, 0, NULL, 0 },
  };
  bool head = false, json = false;
  long max_age_s = 0, wait_ms = 30000;
  int ch;
  optind = 0;
  while((ch = getopt_long(argc, argv, "+ij", lo, NULL)) != -1) {
    switch(ch) {
    case 'i': head = true; break;
    case 'j': json = true; break;
    case 'a':
      if(!cli_num(c, "--max-age-s", optarg, 10L * 365 * 86400, &max_age_s))
        return CLI_USAGE;
      break;
    case 'w':
      if(!cli_num(c, "--wait-ms", optarg, 3600000, &wait_ms))
        return CLI_USAGE;
      if(!wait_ms) {
        cli_err(c, "--wait-ms must be at least 1");
        return CLI_USAGE;
      }
      break;
    default: return CLI_USAGE;
    }
  }
  if(argc - optind != 1) {
    cli_err(c, "one URL, please (wpfs fetch --help)");
    return CLI_USAGE;
  }
  return fetch_run(c, argv[optind], head, json, max_age_s, wait_ms);
}
