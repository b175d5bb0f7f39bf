/* wpfs submit: queue the URLs of a file (or stdin) in batches; one JSON
 * line per URL with the gateway's answer. Quota refusals are waited out
 * (Retry-After) up to --max-wait-s: a script's whole file goes in. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/cli/cli.h"
#include "common/clock.h"
#include "common/mem.h"

#define SUBMIT_LINE_MAX 65536  /* longer lines are refused here, not sent */

struct submit {
  struct cli *c;
  long        batch, prio, max_age_s, max_wait_ms;
  uint64_t    accepted, duplicate, rejected;
  char      **urls;
  size_t      n;
};

static bool retryable(const char *reason)
{
  return reason && (!strcmp(reason, "over_rate_quota") || !strcmp(reason, "over_queue_quota")
                    || !strcmp(reason, "store_unavailable"));
}

static char *batch_body(const struct submit *s)
{
  json_t *urls = json_array();
  for(size_t i = 0; urls && i < s->n; i++) {
    json_t *u = s->prio < 0 && s->max_age_s < 0
                  ? json_string(s->urls[i])
                  : json_pack("{s:s}", "url", s->urls[i]);
    if(u && s->prio >= 0)
      json_object_set_new(u, "priority", json_integer(s->prio));
    if(u && s->max_age_s >= 0)
      json_object_set_new(u, "max_age_s", json_integer(s->max_age_s));
    if(!u || json_array_append_new(urls, u)) {
      json_decref(urls);
      return NULL;
    }
  }
  json_t *req = urls ? json_pack("{s:o}", "urls", urls) : NULL;
  char *out = req ? json_dumps(req, JSON_COMPACT) : NULL;
  json_decref(req);
  return out;
}

/* Print the final answers, keep the URLs to try again in s->urls. */
static int take_items(struct submit *s, json_t *items, bool last, long *wait_ms)
{
  size_t keep = 0, i;
  json_t *it;
  json_array_foreach(items, i, it) {
    const char *st = json_string_value(json_object_get(it, "status"));
    const char *reason = json_string_value(json_object_get(it, "reason"));
    if(i >= s->n || !st)
      return CLI_GATEWAY;
    if(st[0] == 'r' && retryable(reason) && !last) {
      json_int_t ra = json_integer_value(json_object_get(it, "retry_after_ms"));
      if(ra > *wait_ms)
        *wait_ms = (long)ra;
      char *u = s->urls[i];
      s->urls[i] = NULL;
      s->urls[keep++] = u;
      continue;
    }
    s->accepted += st[0] == 'a';
    s->duplicate += st[0] == 'd';
    s->rejected += st[0] == 'r';
    free(s->urls[i]);
    s->urls[i] = NULL;  /* an error below leaves s->urls freeable */
    if(cli_put_json(s->c, stdout, it, JSON_COMPACT))
      return CLI_LOCAL;
  }
  if(i != s->n)
    return CLI_GATEWAY;
  s->n = keep;
  return CLI_OK;
}

static void nap(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while(nanosleep(&ts, &ts) && errno == EINTR) {
  }
}

/* Send s->urls until every one has a final answer. */
static int send_batch(struct submit *s)
{
  uint64_t give_up = clock_mono_ms() + (uint64_t)s->max_wait_ms;
  while(s->n) {
    bool last = clock_mono_ms() >= give_up;
    char *body = batch_body(s);
    if(!body) {
      cli_err(s->c, "out of memory");
      return CLI_LOCAL;
    }
    struct cli_resp r;
    int rc = cli_call(s->c, "POST", "/v1/batches", body, NULL, 0, &r);
    free(body);
    long wait_ms = r.retry_after_ms > 0 ? r.retry_after_ms : 1000;
    /* a quota, or the shared state gone for a moment (a Redis failover:
     * 503 with Retry-After): the same batch again, later */
    bool again = r.status == 429 || (r.status == 503 && r.retry_after_ms > 0);
    if(rc == CLI_OK && again && !last) {
      cli_resp_free(&r);
      nap(wait_ms);
      continue;
    }
    if(rc == CLI_OK && r.status != 200)
      rc = cli_fail(s->c, &r);
    json_t *j = rc == CLI_OK ? cli_json(s->c, &r) : NULL;
    cli_resp_free(&r);
    if(rc == CLI_OK && !j)
      rc = CLI_GATEWAY;
    if(rc == CLI_OK) {
      wait_ms = 0;
      rc = take_items(s, json_object_get(j, "items"), last, &wait_ms);
      if(rc == CLI_GATEWAY)
        cli_err(s->c, "the gateway's answer does not match the batch");
    }
    json_decref(j);
    if(rc)
      return rc;
    if(s->n)
      nap(wait_ms > 0 ? wait_ms : 1000);
  }
  return CLI_OK;
}

/* The next URL of f: a line without its end and surrounding blanks; blank
 * lines and # comments are skipped. NULL at the end. */
static char *next_url(FILE *f, char **line, size_t *cap, unsigned long *lineno, int *err)
{
  ssize_t n;
  while((n = getline(line, cap, f)) >= 0) {
    ++*lineno;
    char *p = *line;
    while(n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
      p[--n] = 0;
    while(*p == ' ' || *p == '\t')
      p++;
    if(!*p || *p == '#')
      continue;
    if(n > SUBMIT_LINE_MAX) {
      *err = 1;
      return NULL;
    }
    return p;
  }
  *err = ferror(f) ? 2 : 0;
  return NULL;
}

static int submit_file(struct submit *s, FILE *f, const char *name)
{
  char *line = NULL, *u;
  size_t cap = 0;
  unsigned long lineno = 0;
  int err = 0, rc = CLI_OK;
  s->urls = xalloc((size_t)s->batch * sizeof *s->urls);
  while(rc == CLI_OK && (u = next_url(f, &line, &cap, &lineno, &err))) {
    s->urls[s->n++] = xstrdup(u);
    if(s->n == (size_t)s->batch)
      rc = send_batch(s);
  }
  if(rc == CLI_OK && err) {
    cli_err(s->c, err == 1 ? "%s, line %lu: longer than %d bytes" : "cannot read %s (line %lu)",
            name, lineno, SUBMIT_LINE_MAX);
    rc = err == 1 ? CLI_USAGE : CLI_LOCAL;
  }
  if(rc == CLI_OK && s->n)
    rc = send_batch(s);
  for(size_t i = 0; i < s->n; i++)
    free(s->urls[i]);
  free(s->urls);
  free(line);
  return rc;
}

int cli_submit(struct cli *c, int argc, char **argv)
{
  static const struct option lo[] = {
    { "priority", required_argument, NULL, 'p' },  { "max-age-s", required_argument, NULL, 'a' },
    { "batch", required_argument, NULL, 'b' },     { "max-wait-s", required_argument, NULL, 'w' },
    { NULL, 0, NULL, 0 },
  };
  struct submit s = { .c = c, .batch = 1000, .prio = -1, .max_age_s = -1, .max_wait_ms = 300000 };
  long v;
  int ch;
  optind = 0;
  while((ch = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
    bool ok = ch == 'p'   ? cli_num(c, "--priority", optarg, 7, &s.prio)
              : ch == 'a' ? cli_num(c, "--max-age-s", optarg, 10L * 365 * 86400, &s.max_age_s)
              : ch == 'b' ? cli_num(c, "--batch", optarg, 5000, &s.batch)
                            && (s.batch > 0 || (cli_err(c, "--batch must be at least 1"), false))
              : ch == 'w' ? cli_num(c, "--max-wait-s", optarg, 86400, &v)
                            && (s.max_wait_ms = v * 1000, true)
                          : false;
    if(!ok)
      return CLI_USAGE;
  }
  if(argc - optind != 1) {
    cli_err(c, "one FILE, or - for stdin, please (wpfs submit --help)");
    return CLI_USAGE;
  }
  const char *name = argv[optind];
  FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;
  if(!f) {
    cli_err(c, "cannot open %s: %s", name, strerror(errno));
    return CLI_LOCAL;
  }
  int rc = submit_file(&s, f, name);
  if(f != stdin)
    fclose(f);
  fprintf(stderr, "wpfs submit: %llu accepted, %llu duplicate, %llu rejected\n",
          (unsigned long long)s.accepted, (unsigned long long)s.duplicate,
          (unsigned long long)s.rejected);
  return rc ? rc : s.rejected ? CLI_NO : CLI_OK;
}
