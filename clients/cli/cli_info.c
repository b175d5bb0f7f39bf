/* wpfs site, wpfs robots, wpfs stats: what the gateway knows, read-only. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "clients/cli/cli.h"

/* GET path: a 200 answer in *r (freed by the caller either way). */
static int get_answer(struct cli *c, const char *path, struct cli_resp *r)
{
  int rc = cli_call(c, "GET", path, NULL, NULL, 0, r);
  if(rc == CLI_OK && r->status != 200)
    rc = cli_fail(c, r);
  return rc;
}

/* The answer indented for a person, keys sorted. */
static int put_indented(struct cli *c, const struct cli_resp *r)
{
  struct buf out;
  buf_init(&out, (size_t)CLI_MAX_ANSWER * 4);
  crawl_err e = gwproto_indent(r->body.data, r->body.len, &out);
  int rc = e ? cli_unread(c, r, e, "the gateway's answer cannot be laid out")
             : cli_put_line(c, stdout, out.data);
  buf_free(&out);
  return rc;
}

/* GET prefix + escaped arg, printed as indented JSON. */
static int show(struct cli *c, const char *prefix, const char *arg)
{
  char *e = arg ? cli_escape(c, arg) : NULL;
  size_t n = strlen(prefix) + (e ? strlen(e) : 0) + 1;
  char *path = malloc(n);
  if(!path || (arg && !e)) {
    free(e);
    free(path);
    cli_err(c, "out of memory");
    return CLI_LOCAL;
  }
  snprintf(path, n, "%s%s", prefix, e ? e : "");
  free(e);
  struct cli_resp r;
  int rc = get_answer(c, path, &r);
  free(path);
  if(rc == CLI_OK)
    rc = put_indented(c, &r);
  cli_resp_free(&r);
  return rc;
}

static bool no_opts(struct cli *c, int argc, char **argv, int want)
{
  static const struct option lo[] = { { NULL, 0, NULL, 0 } };
  optind = 0;
  if(getopt_long(argc, argv, "+", lo, NULL) != -1)
    return false;
  if(argc - optind != want) {
    cli_err(c, want ? "one argument, please (wpfs %s --help)" : "no arguments (wpfs %s --help)",
            argv[0]);
    return false;
  }
  return true;
}

int cli_site(struct cli *c, int argc, char **argv)
{
  if(!no_opts(c, argc, argv, 1))
    return CLI_USAGE;
  return show(c, "/v1/sites/", argv[optind]);
}

int cli_stats(struct cli *c, int argc, char **argv)
{
  if(!no_opts(c, argc, argv, 0))
    return CLI_USAGE;
  return show(c, "/v1/stats", NULL);
}

static const char *str(const char *s)
{
  return s ? s : "";
}

/* The robots.txt decision in words. */
static void explain(const char *url, const struct gw_robots_answer *a)
{
  const char *st = str(a->robots_status);
  printf("%s: %s\n", url, a->allowed ? "allowed" : "disallowed");
  if(*str(a->rule))
    printf("  rule:        %s: %s (line %lld)\n", !strcmp(str(a->rule_type), "allow") ? "Allow"
           : "Disallow", a->rule, a->line);
  else if(!strcmp(st, "ok") || !strcmp(st, "not_modified"))
    printf("  rule:        none matches: allowed\n");
  if(!strcmp(st, "none"))
    printf("  robots.txt:  not fetched yet (fetched before the site's first page)\n");
  else
    printf("  robots.txt:  %s, %lld s old%s%s\n", st, a->age_s,
           *str(a->robots_url) ? ", from " : "", str(a->robots_url));
  if(a->crawl_delay_s >= 0)
    printf("  crawl-delay: %g s\n", a->crawl_delay_s);
  if(a->retry_at >= 0)
    printf("  retry at:    %lld (ms since the epoch)\n", a->retry_at);
  printf("  origin:      %s, agent %s (product token %s)\n", str(a->origin), str(a->agent),
         str(a->product_token));
}

/* The decision: as JSON, in words, or in one word. */
static int robots_say(struct cli *c, const char *url, const struct cli_resp *r, bool json,
                      bool why)
{
  struct gw_robots_answer a;
  crawl_err e = gwproto_robots_answer(r->body.data, r->body.len, &a);
  int rc = e ? cli_unread(c, r, e, "the gateway's answer cannot be read") : CLI_OK;
  if(!rc && json)
    rc = put_indented(c, r);
  else if(!rc && why)
    explain(url, &a);
  else if(!rc)
    puts(a.allowed ? "allowed" : "disallowed");
  if(!e && fflush(stdout))
    rc = CLI_LOCAL;
  if(rc == CLI_OK && !a.allowed)
    rc = CLI_NO;
  gwproto_robots_answer_free(&a);
  return rc;
}

int cli_robots(struct cli *c, int argc, char **argv)
{
  static const struct option lo[] = {
    { "explain", no_argument, NULL, 'e' }, { "json", no_argument, NULL, 'j' },
    { "agent", required_argument, NULL, 'a' }, { NULL, 0, NULL, 0 },
  };
  bool why = false, json = false;
  const char *agent = NULL;
  int ch;
  optind = 0;
  while((ch = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
    if(ch == 'e')
      why = true;
    else if(ch == 'j')
      json = true;
    else if(ch == 'a')
      agent = optarg;
    else
      return CLI_USAGE;
  }
  if(argc - optind != 1) {
    cli_err(c, "one URL, please (wpfs robots --help)");
    return CLI_USAGE;
  }
  const char *url = argv[optind];
  char *e = cli_escape(c, url);
  char *ea = agent ? cli_escape(c, agent) : NULL;
  size_t n = e ? strlen(e) + (ea ? strlen(ea) : 0) + 30 : 0;
  char *path = e && (ea || !agent) ? malloc(n) : NULL;
  if(!path) {
    free(e);
    free(ea);
    cli_err(c, "out of memory");
    return CLI_LOCAL;
  }
  snprintf(path, n, "/v1/robots?url=%s%s%s", e, ea ? "&agent=" : "", ea ? ea : "");
  free(e);
  free(ea);
  struct cli_resp r;
  int rc = get_answer(c, path, &r);
  free(path);
  if(rc == CLI_OK)
    rc = robots_say(c, url, &r, json, why);
  cli_resp_free(&r);
  return rc;
}
