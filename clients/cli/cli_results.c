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

static int rd_ack(struct rd *r, json_t *ids)
{
  if(!json_array_size(ids) || !r->ack)
    return CLI_OK;
  json_t *req = json_pack("{s:O}", "deliveries", ids);
  char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
  json_decref(req);
  if(!body)
    return CLI_LOCAL;
  struct cli_resp a;
  int rc = cli_call(r->c, "POST", "/v1/results/ack", body, NULL, 0, &a);
  free(body);
  if(rc == CLI_OK && a.status != 200)
    rc = cli_fail(r->c, &a);
  json_t *j = rc == CLI_OK ? cli_json(r->c, &a) : NULL;
  if(rc == CLI_OK && !j)
    rc = CLI_GATEWAY;
  r->acked += (unsigned long long)json_integer_value(json_object_get(j, "acked"));
  json_decref(j);
  cli_resp_free(&a);
  return rc;
}

/* Write the results of one answer, then acknowledge the written ones. */
static int rd_take(struct rd *r, json_t *results)
{
  json_t *ids = json_array(), *it;
  size_t i;
  int rc = ids ? CLI_OK : CLI_LOCAL;
  json_array_foreach(results, i, it) {
    if(rc != CLI_OK)
      break;
    json_t *d = json_object_get(it, "delivery");
    if(!json_is_string(d)) {
      cli_err(r->c, "a result without a delivery id");
      rc = CLI_GATEWAY;
      break;
    }
    rc = cli_put_json(r->c, stdout, it, JSON_COMPACT);
    if(rc == CLI_OK) {
      json_array_append(ids, d);
      r->read++;
    }
  }
  int arc = rd_ack(r, ids);
  json_decref(ids);
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
  json_t *j = rc == CLI_OK ? cli_json(r->c, &a) : NULL;
  cli_resp_free(&a);
  json_t *res = json_object_get(j, "results");
  if(rc == CLI_OK && !json_is_array(res)) {
    cli_err(r->c, "the gateway's answer has no results list");
    rc = CLI_GATEWAY;
  }
  *got = json_array_size(res);
  if(rc == CLI_OK)
    rc = rd_take(r, res);
  json_decref(j);
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
