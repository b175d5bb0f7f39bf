#ifndef WPFS_COMMON_CFG_H
#define WPFS_COMMON_CFG_H
/* Configuration from one declarative table per program.
 * Each key "max_body_bytes" is set, in increasing precedence, by its default,
 * by the environment (the program's prefix and the name in capitals,
 * WPFS_LLFS_MAX_BODY_BYTES, or the row's env name) and by the
 * flag --max-body-bytes VALUE (or --max-body-bytes=VALUE). --help and
 * --print-config are generated from the same table, as are the configuration
 * tables of docs/operations.md and docs/llfs.md (--help-markdown; tests
 * compare them). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum cfg_type {
  CFG_INT,     /* long */
  CFG_SIZE,    /* size_t; accepts k, m, g suffixes (powers of 1024) */
  CFG_MSEC,    /* long milliseconds; accepts ms, s, m suffixes */
  CFG_DOUBLE,  /* double */
  CFG_BOOL,    /* bool; true/false/1/0/yes/no/on/off, as --flag VALUE or
                * --flag=VALUE; a bare flag (not followed by one of those
                * words) means true */
  CFG_STR,     /* char *, owned by the struct: free with cfg_free */
  CFG_LIST,    /* char *, comma-separated; a repeated flag appends */
};

struct cfg_key {
  const char   *name;   /* snake_case; keep the table sorted by name */
  enum cfg_type type;
  size_t        off;    /* offsetof(struct ..., field) */
  const char   *def;    /* default as text; NULL = unset (STR/LIST only) */
  double        min, max;  /* bounds for numbers; ignored when min > max */
  const char   *env;    /* environment name; NULL = <prefix><NAME> */
  const char   *help;
};

enum cfg_rc { CFG_OK = 0, CFG_EXIT_OK, CFG_ERROR };

struct cfg_prog {
  const char *name;      /* "llfs" */
  const char *summary;   /* one line for --help */
  const struct cfg_key *keys;
  size_t nkeys;
  /* Of the environment names: "WPFS_LLFS_" gives each service its own, so
   * that one environment can hold both services' settings (a value valid
   * for one must never reach the other). NULL = "WPFS_" (the clients). */
  const char *env_prefix;
};

/* Fill obj from defaults, environment and argv. Prints --help or
 * --print-config to stdout and returns CFG_EXIT_OK; on a bad value prints a
 * precise message to stderr and returns CFG_ERROR. Unless it returns CFG_OK,
 * obj's strings are already released (cfg_free). */
enum cfg_rc cfg_load(const struct cfg_prog *p, void *obj, int argc, char **argv);
/* Parse one value into obj; err gets a reason on failure. */
int  cfg_set(const struct cfg_key *k, void *obj, const char *val, char *err, size_t errlen);
void cfg_markdown(const struct cfg_prog *p, FILE *out);
void cfg_free(const struct cfg_prog *p, void *obj);

#endif
