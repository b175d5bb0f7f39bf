/* wpfs site, wpfs robots, wpfs stats: what the gateway knows, read-only. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "clients/cli/cli.h"

/* GET path; the JSON answer in *out. */
static int get_json(struct cli *c, const char *path, json_t **out)
{
  struct cli_resp r;
  *out = NULL;
  int rc = cli_call(c, "GET", path, NULL, NULL, 0, &r);
  if(rc == CLI_OK && r.status != 200)
    rc = cli_fail(c, &r);
  if(rc == CLI_OK && !(*out = cli_json(c, &r)))
    rc = CLI_GATEWAY;
  cli_resp_free(&r);
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
  json_t *j;
  int rc = get_json(c, path, &j);
  free(path);
  if(rc == CLI_OK)
    rc = cli_put_json(c, stdout, j, JSON_INDENT(2) | JSON_SORT_KEYS);
  json_decref(j);
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

static const char *str(const json_t *j, const char *k)
{
  const char *s = json_string_value(json_object_get(j, k));
  return s ? s : "";
}

/* The robots.txt decision in words. */
static void explain(const char *url, const json_t *j)
{
  bool allowed = json_is_true(json_object_get(j, "allowed"));
  const char *st = str(j, "robots_status");
  printf("%s: %s\n", url, allowed ? "allowed" : "disallowed");
  if(*str(j, "rule"))
    printf("  rule:        %s: %s (line %lld)\n", !strcmp(str(j, "rule_type"), "allow") ? "Allow"
           : "Disallow", str(j, "rule"), (long long)json_integer_value(json_object_get(j, "line")));
  else if(!strcmp(st, "ok") || !strcmp(st, "not_modified"))
    printf("  rule:        none matches: allowed\n");
  if(!strcmp(st, "none"))
    printf("  robots.txt:  not fetched yet (fetched before the site's first page)\n");
  else
    printf("  robots.txt:  %s, %lld s old%s%s\n", st,
           (long long)json_integer_value(json_object_get(j, "age_s")),
           *str(j, "robots_url") ? ", from " : "", str(j, "robots_url"));
  json_t *cd = json_object_get(j, "crawl_delay_s");
  if(json_is_number(cd))
    printf("  crawl-delay: %g s\n", json_number_value(cd));
  if(json_is_integer(json_object_get(j, "retry_at")))
    printf("  retry at:    %lld (ms since the epoch)\n",
           (long long)json_integer_value(json_object_get(j, "retry_at")));
  printf("  origin:      %s, agent %s (product token %s)\n", str(j, "origin"), str(j, "agent"),
         str(j, "product_token"));
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
  json_t *j;
  int rc = get_json(c, path, &j);
  free(path);
  if(rc == CLI_OK) {
    if(json)
      rc = cli_put_json(c, stdout, j, JSON_INDENT(2) | JSON_SORT_KEYS);
    else if(why)
      explain(url, j);
    else
      puts(json_is_true(json_object_get(j, "allowed")) ? "allowed" : "disallowed");
    if(fflush(stdout))
      rc = CLI_LOCAL;
    if(rc == CLI_OK && !json_is_true(json_object_get(j, "allowed")))
      rc = CLI_NO;
  }
  json_decref(j);
  return rc;
}
