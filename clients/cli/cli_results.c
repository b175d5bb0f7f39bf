/* wpfs results: the client's results as JSON lines on stdout, each one
 * acknowledged only once it is written and flushed: a crash or a closed
 * pipe loses nothing (the gateway delivers what was not acknowledged
 * again after its visibility timeout). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/cli/cli.h"

struct rd {
  struct cli *c;
  long        max, wait_ms;
  bool        follow, ack, tty;
  unsigned long long read, acked;
};

static void rd_progress(const struct rd *r, bool end)
{
  if(!r->tty)
    return;
  fprintf(stderr, "\r\033[Kwpfs results: %llu read, %llu acknowledged%s%s", r->read, r->acked,
          r->follow && !end ? ", waiting for more" : "", end ? "\n" : "");
}

static int rd_ack(struct rd *r, const char *const *ids, size_t n)
{
  if(!n || !r->ack)
    return CLI_OK;
  struct buf body;
  buf_init(&body, CLI_MAX_BODY);
  int rc = cli_body(r->c, gwproto_ack_body(ids, n, &body));
  if(rc) {
    buf_free(&body);
    return rc;
  }
  struct cli_resp a;
  rc = cli_call(r->c, "POST", "/v1/results/ack", body.data, NULL, 0, &a);
  buf_free(&body);
  if(rc == CLI_OK && a.status != 200)
    rc = cli_fail(r->c, &a);
  uint64_t acked = 0;
  crawl_err e = rc == CLI_OK ? gwproto_acked(a.body.data, a.body.len, &acked) : CRAWL_OK;
  if(e)
    rc = cli_unread(r->c, &a, e, "the gateway's answer cannot be read");
  r->acked += acked;
  cli_resp_free(&a);
  return rc;
}

/* Write the results of one answer, then acknowledge the written ones. */
static int rd_take(struct rd *r, const struct gw_results *res)
{
  const char **ids = res->n ? malloc(res->n * sizeof *ids) : NULL;
  size_t n = 0;
  int rc = ids || !res->n ? CLI_OK : CLI_LOCAL;
  for(size_t i = 0; rc == CLI_OK && i < res->n; i++) {
    if(!res->v[i].delivery) {
      cli_err(r->c, "a result without a delivery id");
      rc = CLI_GATEWAY;
      break;
    }
    rc = cli_put_line(r->c, stdout, res->v[i].json);
    if(rc == CLI_OK) {
      ids[n++] = res->v[i].delivery;
      r->read++;
    }
  }
  int arc = rd_ack(r, ids, n);
  free(ids);
  return rc ? rc : arc;
}

/* One read; *got: how many results came. */
static int rd_once(struct rd *r, size_t *got)
{
  char path[96];
  long wait_ms = r->follow ? r->wait_ms : 0;
  snprintf(path, sizeof path, "/v1/results?max=%ld&wait_ms=%ld", r->max, wait_ms);
  struct cli_resp a;
  int rc = cli_call(r->c, "GET", path, NULL, NULL, wait_ms, &a);
  if(rc == CLI_OK && a.status != 200)
    rc = cli_fail(r->c, &a);
  struct gw_results res = { 0 };
  crawl_err e = rc == CLI_OK ? gwproto_results_kept(a.body.data, a.body.len, &res) : CRAWL_OK;
  if(e)
    rc = cli_unread(r->c, &a, e, "the gateway's answer is not a list of results");
  cli_resp_free(&a);
  *got = res.n;
  if(rc == CLI_OK)
    rc = rd_take(r, &res);
  gwproto_results_free(&res);
  return rc;
}

int cli_results(struct cli *c, int argc, char **argv)
{
  static const struct option lo[] = {
    { "follow", no_argument, NULL, 'f' },       { "no-ack", no_argument, NULL, 'n' },
    { "max", required_argument, NULL, 'm' },     { "wait-ms", required_argument, NULL, 'w' },
    { NULL, 0, NULL, 0 },
  };
  struct rd r = { .c = c, .max = 100, .wait_ms = 30000, .ack = true, .tty = isatty(2) };
  int ch;
  optind = 0;
  while((ch = getopt_long(argc, argv, "+f", lo, NULL)) != -1) {
    bool ok = ch == 'f'   ? (r.follow = true)
              : ch == 'n' ? !(r.ack = false)
              : ch == 'm' ? cli_num(c, "--max", optarg, 1000, &r.max)
                            && (r.max > 0 || (cli_err(c, "--max must be at least 1"), false))
              : ch == 'w' ? cli_num(c, "--wait-ms", optarg, 120000, &r.wait_ms)
                          : false;
    if(!ok)
      return CLI_USAGE;
  }
  if(optind != argc) {
    cli_err(c, "no arguments, only options (wpfs results --help)");
    return CLI_USAGE;
  }
  int rc = CLI_OK;
  size_t got = 0;
  while(!cli_stopped && rc == CLI_OK) {
    rc = rd_once(&r, &got);
    rd_progress(&r, false);
    if(!r.follow && got == 0)
      break;
  }
  rd_progress(&r, true);
  return cli_stopped && rc == CLI_UNREACHABLE ? CLI_OK : rc;
}
