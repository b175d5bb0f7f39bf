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

/* Without --priority or --max-age-s, the gateway's defaults for a batch
 * (priority 0, any cached copy: openapi.yaml). */
static crawl_err batch_body(const struct submit *s, struct buf *out)
{
  struct gw_url *u = malloc((s->n ? s->n : 1) * sizeof *u);
  if(!u)
    return CRAWL_ERR_NOMEM;
  for(size_t i = 0; i < s->n; i++)
    u[i] = (struct gw_url){ s->urls[i], s->prio < 0 ? 0 : (unsigned)s->prio, s->max_age_s };
  crawl_err e = gwproto_batch_body(u, s->n, out);
  free(u);
  return e;
}

/* Print the final answers, keep the URLs to try again in s->urls. */
static int take_items(struct submit *s, const struct gw_batch_answer *b, bool last,
                      long *wait_ms)
{
  size_t keep = 0, i;
  for(i = 0; i < b->n; i++) {
    const struct gw_item *it = &b->items[i];
    if(i >= s->n)
      return CLI_GATEWAY;
    if(it->status == GW_REJECTED && retryable(it->reason) && !last) {
      if(it->retry_after_ms > *wait_ms)
        *wait_ms = it->retry_after_ms;
      char *u = s->urls[i];
      s->urls[i] = NULL;
      s->urls[keep++] = u;
      continue;
    }
    s->accepted += it->status == GW_ACCEPTED;
    s->duplicate += it->status == GW_DUPLICATE;
    s->rejected += it->status == GW_REJECTED;
    free(s->urls[i]);
    s->urls[i] = NULL;  /* an error below leaves s->urls freeable */
    if(cli_put_line(s->c, stdout, it->json))
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
    struct buf body;
    buf_init(&body, CLI_MAX_BODY);
    int rc = cli_body(s->c, batch_body(s, &body));
    if(rc) {
      buf_free(&body);
      return rc;
    }
    struct cli_resp r;
    rc = cli_call(s->c, "POST", "/v1/batches", body.data, NULL, 0, &r);
    buf_free(&body);
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
    struct gw_batch_answer b = { 0 };
    crawl_err e = rc == CLI_OK ? gwproto_batch_answer_kept(r.body.data, r.body.len, &b)
                               : CRAWL_OK;
    if(e)
      rc = cli_unread(s->c, &r, e, "the gateway's answer does not match the batch");
    cli_resp_free(&r);
    if(rc == CLI_OK) {
      wait_ms = 0;
      rc = take_items(s, &b, last, &wait_ms);
      if(rc == CLI_GATEWAY)
        cli_err(s->c, "the gateway's answer does not match the batch");
    }
    gwproto_batch_free(&b);
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
