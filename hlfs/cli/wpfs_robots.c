/* wpfs-robots: the robots.txt module for people.
 *   wpfs-robots [--explain] [--max-bytes N] [--max-crawl-delay S] FILE AGENT [URL...]
 * For each URL (or each line of stdin when none is given) prints
 *   allowed|disallowed <TAB> URL [<TAB> deciding rule (line N) | default]
 * then "crawl-delay <TAB> seconds" if the agent's group sets one, and
 * "sitemap <TAB> url" for each sitemap. FILE "-" is stdin. AGENT may be a
 * whole User-Agent string: its product token ("wpfs" of "wpfs/1.0 (...)")
 * is what robots.txt groups are matched against. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "hlfs/policy/robots.h"

struct opts {
  bool                 explain;
  struct robots_limits lim;  /* max_bytes within the parser's bounds */
  const char          *file;
  const char          *agent;
  char               **urls;
  int                  nurls;
};

static int usage(void)
{
  fputs("usage: wpfs-robots [--explain] [--max-bytes N] [--max-crawl-delay SECONDS]\n"
        "                   ROBOTS_FILE AGENT [URL...]\n"
        "  ROBOTS_FILE  robots.txt to read (\"-\" = stdin)\n"
        "  AGENT        product token or whole User-Agent string\n"
        "  URL          absolute URL or path; read from stdin, one a line, if none\n",
        stderr);
  return 2;
}

static int opt_number(const char *s, double min, double *out)
{
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if(end == s || *end || errno || !(d >= min))
    return -1;
  *out = d;
  return 0;
}

/* Options first, then FILE AGENT URL...; returns 0 or an exit code. */
static int opts_parse(int argc, char **argv, struct opts *o)
{
  int i = 1;
  double d;
  o->lim = robots_limits_default();
  for(; i < argc && !strncmp(argv[i], "--", 2); i++) {
    if(!strcmp(argv[i], "--explain"))
      o->explain = true;
    else if(!strcmp(argv[i], "--max-bytes") && i + 1 < argc && !opt_number(argv[++i], 1, &d))
      o->lim.max_bytes = d < ROBOTS_MAX_BYTES_MIN   ? ROBOTS_MAX_BYTES_MIN
                         : d > ROBOTS_MAX_BYTES_LIMIT ? ROBOTS_MAX_BYTES_LIMIT
                                                      : (size_t)d;
    else if(!strcmp(argv[i], "--max-crawl-delay") && i + 1 < argc &&
            !opt_number(argv[++i], 0, &d))
      o->lim.max_crawl_delay = d;
    else
      return usage();
  }
  if(argc - i < 2)
    return usage();
  o->file = argv[i];
  o->agent = argv[i + 1];
  o->urls = argv + i + 2;
  o->nurls = argc - i - 2;
  return 0;
}

/* Read at most max + 1 bytes: one more than the parser keeps tells it
 * whether the body was cut. */
static char *read_body(const char *path, size_t max, size_t *len)
{
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if(!f)
    return NULL;
  char *b = mem_alloc(max + 1);
  *len = b ? fread(b, 1, max + 1, f) : 0;
  if(b && ferror(f)) {
    mem_free(b);
    b = NULL;
  }
  if(f != stdin)
    fclose(f);
  return b;
}

static void print_verdict(const struct opts *o, const char *url,
                          const struct robots_verdict *v)
{
  printf("%s\t%s", v->allowed ? "allowed" : "disallowed", url);
  if(o->explain) {
    if(v->why == ROBOTS_WHY_RULE)
      printf("\t%s: %s (line %u)", v->rule_allow ? "allow" : "disallow", v->rule,
             (unsigned)v->line);
    else if(v->why == ROBOTS_WHY_ROBOTS_TXT)
      fputs("\t/robots.txt is always allowed", stdout);
    else
      fputs("\tdefault", stdout);
  }
  putchar('\n');
}

static int check_url(const struct opts *o, const struct robots *r, const char *url)
{
  struct robots_verdict v;
  size_t an = robots_agent_token(o->agent, strlen(o->agent)), pn;
  char *path;
  robots_err e = robots_url_target(url, strlen(url), &path, &pn);
  if(!e) {
    e = robots_query(r, o->agent, an, path, pn, &v);
    mem_free(path);
  }
  if(e) {
    fprintf(stderr, "wpfs-robots: %s: %s\n", url, robots_err_text(e));
    return 1;
  }
  print_verdict(o, url, &v);
  return 0;
}

static int check_stdin(const struct opts *o, const struct robots *r)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int rc = 0;
  while(!rc && (n = getline(&line, &cap, stdin)) >= 0) {
    while(n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = '\0';
    if(n > 0)
      rc = check_url(o, r, line);
  }
  free(line);
  return rc;
}

static void print_site(const struct opts *o, const struct robots *r)
{
  struct robots_verdict v;
  size_t an = robots_agent_token(o->agent, strlen(o->agent));
  if(!robots_query(r, o->agent, an, "/", 1, &v) && v.crawl_delay >= 0)
    printf("crawl-delay\t%g\n", v.crawl_delay);
  for(size_t i = 0; i < robots_sitemap_count(r); i++)
    printf("sitemap\t%s\n", robots_sitemap(r, i, NULL));
}

int main(int argc, char **argv)
{
  struct opts o = { 0 };
  int rc = opts_parse(argc, argv, &o);
  if(rc)
    return rc;
  size_t len;
  char *body = read_body(o.file, o.lim.max_bytes, &len);
  if(!body) {
    fprintf(stderr, "wpfs-robots: %s: %s\n", o.file, strerror(errno));
    return 1;
  }
  struct robots *r = NULL;
  robots_err e = robots_parse(body, len, &o.lim, &r);
  mem_free(body);
  if(e) {
    fprintf(stderr, "wpfs-robots: %s\n", robots_err_text(e));
    return 1;
  }
  for(int i = 0; !rc && i < o.nurls; i++)
    rc = check_url(&o, r, o.urls[i]);
  if(!rc && !o.nurls && strcmp(o.file, "-"))
    rc = check_stdin(&o, r);
  if(!rc)
    print_site(&o, r);
  robots_free(&r);
  return rc;
}
