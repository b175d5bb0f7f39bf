#ifndef WPFS_CLIENTS_CLI_H
#define WPFS_CLIENTS_CLI_H
/* bin/wpfs: the gateway from a shell, for people and scripts. One request
 * at a time with libcurl's easy API: a person or a script waits for each
 * answer anyway, so there is no event loop. The gateway's JSON, both ways,
 * is the protocol library's (clients/gwclient/gwproto.h), as for the
 * crawlers. Every verb returns an exit status of enum cli_exit (docs/cli.md
 * lists them). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include <curl/curl.h>

#include "clients/gwclient/gwproto.h"
#include "common/buf.h"

enum cli_exit {
  CLI_OK          = 0,  /* done */
  CLI_NO          = 1,  /* the answer is no: disallowed, no page, rejected URLs */
  CLI_USAGE       = 2,  /* bad command line */
  CLI_UNREACHABLE = 3,  /* no answer from the gateway (refused, timed out) */
  CLI_REFUSED     = 4,  /* the gateway refused the request (4xx) */
  CLI_GATEWAY     = 5,  /* the gateway failed (5xx) or answered off the API */
  CLI_LOCAL       = 6,  /* reading the input or writing the output failed */
};

#define CLI_MAX_ANSWER (512u << 20) /* bytes of one answer: pages are capped far below */
#define CLI_MAX_HEAD   (64u << 10)  /* bytes of an answer's header block */
#define CLI_MAX_BODY   (512u << 20) /* bytes of a request body: a batch of 5,000 long URLs */

/* Set by SIGINT/SIGTERM: a request under way is abandoned (cli_call then
 * returns CLI_UNREACHABLE without a message) and the verb ends. */
extern volatile sig_atomic_t cli_stopped;

struct cli {
  const char *gateway;     /* base URL, no trailing slash needed */
  const char *token;       /* API key, or NULL */
  long        timeout_ms;  /* per request, on top of a long-poll's wait */
  const char *verb;        /* for messages */
  CURL       *curl;
};

struct cli_resp {
  long       status;
  struct buf body;
  struct buf head;            /* the status line and headers, as sent */
  char       ctype[128];      /* Content-Type, "" when absent */
  long       retry_after_ms;  /* Retry-After, -1 when absent */
};

/* One request: path is appended to the gateway's URL (query escaped by the
 * caller, cli_escape), body is JSON or NULL, accept NULL for JSON.
 * wait_ms is added to the timeout (a long poll). Returns CLI_OK when an
 * answer came (any status), else CLI_UNREACHABLE with a message printed. */
int  cli_call(struct cli *c, const char *method, const char *path, const char *body,
              const char *accept, long wait_ms, struct cli_resp *r);
void cli_resp_free(struct cli_resp *r);
/* s escaped for a query string (free it), NULL when out of memory. */
char *cli_escape(struct cli *c, const char *s);
/* A request body the protocol library made (e), or CLI_LOCAL with a
 * message. */
int  cli_body(const struct cli *c, crawl_err e);
/* An answer the protocol library could not read (e): what was wrong with
 * it said (what: when it is a JSON object, what it lacks), and the exit
 * status, CLI_GATEWAY (or CLI_LOCAL when out of memory). */
int  cli_unread(const struct cli *c, const struct cli_resp *r, crawl_err e, const char *what);
/* An answer that is not a success: print the problem (type, title,
 * detail) on stderr, return the exit status its HTTP status calls for. */
int  cli_fail(const struct cli *c, const struct cli_resp *r);
/* Print a message "wpfs VERB: ..." on stderr. */
void cli_err(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write s and a newline, and flush: CLI_OK, or CLI_LOCAL (stdout closed). */
int  cli_put_line(const struct cli *c, FILE *f, const char *s);
/* A non-negative integer option; false, with a message, when it is not. */
bool cli_num(const struct cli *c, const char *opt, const char *s, long max, long *out);

/* The verbs: argv[0] is the verb. */
int cli_fetch(struct cli *c, int argc, char **argv);
int cli_submit(struct cli *c, int argc, char **argv);
int cli_results(struct cli *c, int argc, char **argv);
int cli_site(struct cli *c, int argc, char **argv);
int cli_robots(struct cli *c, int argc, char **argv);
int cli_stats(struct cli *c, int argc, char **argv);
/* No gateway: the summaries of a crawl's members merged into one. */
int cli_crawl_merge(struct cli *c, int argc, char **argv);

/* "wpfs VERB --help": the verb's help text, NULL for an unknown verb. */
const char *cli_help(const char *verb);

#endif
