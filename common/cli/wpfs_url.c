/* wpfs-url: the URL library for people and scripts.
 *   wpfs-url [OPTIONS] canon URL...      one canonical URL per line, in order
 *   wpfs-url [OPTIONS] resolve BASE REF  RFC 3986 resolution (not canonical)
 * A URL that cannot be canonicalized prints
 *   invalid<TAB>error_name<TAB>error text<TAB>escaped input
 * and makes the exit status 1; usage errors exit 2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/url.h"

static void usage(FILE *f)
{
  fputs("usage: wpfs-url [OPTIONS] canon URL...\n"
        "       wpfs-url [OPTIONS] resolve BASE REF\n"
        "\n"
        "canon    print the canonical form of each URL, one line each, in order;\n"
        "         a URL that cannot be canonicalized gives a line\n"
        "         invalid<TAB>error_name<TAB>error text<TAB>escaped input\n"
        "resolve  print REF resolved against BASE (RFC 3986 section 5)\n"
        "\n"
        "options:\n"
        "  --max-len N           longest input and result (default 2048)\n"
        "  --sort-query          sort query parameters by name (stable)\n"
        "  --strip-session-ids   drop jsessionid, phpsessid, sid, ... parameters\n"
        "  --help                this text\n"
        "\n"
        "exit status: 0 all valid, 1 some URL invalid, 2 usage error\n",
        f);
}

/* Bytes of user input on one line: controls, backslash and non-ASCII
 * become \xHH, so a line can always be split on tabs. */
static void print_escaped(const char *s)
{
  for(const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if(*p < 0x20 || *p >= 0x7f || *p == '\\')
      printf("\\x%02x", *p);
    else
      putchar(*p);
  }
}

static int report(url_err e, char *res, const char *input)
{
  if(e == URL_OK) {
    puts(res);
    mem_free(res);
    return 0;
  }
  printf("invalid\t%s\t%s\t", url_err_name(e), url_err_text(e));
  print_escaped(input);
  putchar('\n');
  return 1;
}

static int cmd_canon(char **urls, int n, const struct url_opts *o)
{
  int rc = 0;
  for(int i = 0; i < n; i++) {
    char *res;
    url_err e = url_canon(urls[i], strlen(urls[i]), o, &res);
    rc |= report(e, res, urls[i]);
  }
  return rc;
}

static int cmd_resolve(char **args, const struct url_opts *o)
{
  size_t bn = strlen(args[0]), rn = strlen(args[1]);
  char *res = NULL;
  url_err e = URL_ERR_TOO_LONG;
  if(bn <= o->max_len && rn <= o->max_len)
    e = url_resolve(args[0], bn, args[1], rn, &res);
  if(e == URL_OK && strlen(res) > o->max_len) {
    mem_free(res);
    e = URL_ERR_TOO_LONG;
  }
  return report(e, res, args[1]);
}

static int parse_max_len(const char *s, size_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if(errno || end == s || *end || v == 0 || v > (1u << 20) || s[0] == '-') {
    fprintf(stderr, "wpfs-url: --max-len wants a number from 1 to %u\n", 1u << 20);
    return -1;
  }
  *out = (size_t)v;
  return 0;
}

/* Options before the command; returns the index of the command or -1. */
static int parse_opts(int argc, char **argv, struct url_opts *o)
{
  int i = 1;
  for(; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if(strcmp(argv[i], "--sort-query") == 0)
      o->sort_query = true;
    else if(strcmp(argv[i], "--strip-session-ids") == 0)
      o->strip_session_ids = true;
    else if(strcmp(argv[i], "--max-len") == 0 && i + 1 < argc) {
      if(parse_max_len(argv[++i], &o->max_len))
        return -1;
    } else if(strncmp(argv[i], "--max-len=", 10) == 0) {
      if(parse_max_len(argv[i] + 10, &o->max_len))
        return -1;
    } else {
      fprintf(stderr, "wpfs-url: unknown option %s\n", argv[i]);
      return -1;
    }
  }
  return i;
}

int main(int argc, char **argv)
{
  struct url_opts o = url_opts_default();
  for(int i = 1; i < argc; i++)
    if(strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
  int c = parse_opts(argc, argv, &o);
  if(c < 0 || c >= argc) {
    usage(stderr);
    return 2;
  }
  if(strcmp(argv[c], "canon") == 0 && argc - c >= 2)
    return cmd_canon(argv + c + 1, argc - c - 1, &o);
  if(strcmp(argv[c], "resolve") == 0 && argc - c == 3)
    return cmd_resolve(argv + c + 1, &o);
  usage(stderr);
  return 2;
}
