#include "common/cfg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

#define FIELD(obj, k, T) ((T *)((char *)(obj) + (k)->off))

/* --help and --print-config, written below the parsing they answer. */
static void cfg_help(const struct cfg_prog *p, FILE *out);
static void cfg_print(const struct cfg_prog *p, const void *obj, FILE *out);

static void cfg_upper_name(const char *prefix, const char *name, char *out, size_t outlen)
{
  size_t i = 0;
  int n = snprintf(out, outlen, "%s", prefix);
  for(i = (size_t)n; i + 1 < outlen && name[i - (size_t)n]; i++)
    out[i] = (char)toupper((unsigned char)name[i - (size_t)n]);
  out[i] = '\0';
}

/* Environment variable name of k into out. */
static void cfg_env_name(const struct cfg_prog *p, const struct cfg_key *k, char *out,
                         size_t outlen)
{
  if(k->env)
    snprintf(out, outlen, "%s", k->env);
  else
    cfg_upper_name(p->env_prefix ? p->env_prefix : "WPFS_", k->name, out, outlen);
}

/* A service with its own prefix does not read WPFS_<NAME>: say so when one
 * is set, rather than ignore it silently. */
static void cfg_warn_unprefixed(const struct cfg_prog *p, const struct cfg_key *k,
                                const char *env)
{
  char plain[128];
  if(!p->env_prefix || k->env)
    return;
  cfg_upper_name("WPFS_", k->name, plain, sizeof plain);
  if(strcmp(plain, env) && getenv(plain))
    fprintf(stderr, "%s: %s is not read: %s's setting is %s\n", p->name, plain, p->name, env);
}

static void cfg_flag_name(const struct cfg_key *k, char *out, size_t outlen)
{
  size_t i;
  for(i = 0; i + 1 < outlen && k->name[i]; i++)
    out[i] = k->name[i] == '_' ? '-' : k->name[i];
  out[i] = '\0';
}

/* Number with an optional unit suffix; mult maps suffix -> factor. */
static int cfg_number(const char *val, double *out, const char *units[],
                      const double factors[])
{
  char *end;
  errno = 0;
  double d = strtod(val, &end);
  if(end == val || errno || !isfinite(d))
    return -1;
  if(*end == '\0') {
    *out = d;
    return 0;
  }
  for(size_t i = 0; units && units[i]; i++)
    if(!strcasecmp(end, units[i])) {
      *out = d * factors[i];
      return 0;
    }
  return -1;
}

static int cfg_bool(const char *val, bool *out)
{
  static const char *yes[] = { "1", "true", "yes", "on" };
  static const char *no[] = { "0", "false", "no", "off" };
  for(size_t i = 0; i < 4; i++) {
    if(!strcasecmp(val, yes[i])) { *out = true; return 0; }
    if(!strcasecmp(val, no[i])) { *out = false; return 0; }
  }
  return -1;
}

/* A boolean flag's value: the next argument when it is a boolean word
 * (--sitemaps false, as --help's "--sitemaps <bool>" reads), else true (a
 * bare --sitemaps). No program takes a positional argument, so a word
 * after a flag can only be its value. */
static const char *cfg_bool_next(int argc, char **argv, int *i)
{
  bool b;
  if(*i + 1 < argc && cfg_bool(argv[*i + 1], &b) == 0)
    return argv[++*i];
  return "true";
}

static int cfg_set_number(const struct cfg_key *k, void *obj, const char *val,
                          char *err, size_t errlen)
{
  static const char *size_u[] = { "k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", NULL };
  static const double size_f[] = { 1024., 1024., 1024., 1048576., 1048576., 1048576.,
                                   1073741824., 1073741824., 1073741824. };
  static const char *ms_u[] = { "ms", "s", "m", "h", NULL };
  static const double ms_f[] = { 1., 1000., 60000., 3600000. };
  double d;
  int rc = k->type == CFG_SIZE ? cfg_number(val, &d, size_u, size_f)
         : k->type == CFG_MSEC ? cfg_number(val, &d, ms_u, ms_f)
         : cfg_number(val, &d, NULL, NULL);
  if(rc) {
    snprintf(err, errlen, "not a number: \"%.64s\"", val);
    return -1;
  }
  if(k->type != CFG_DOUBLE && d != floor(d)) {
    snprintf(err, errlen, "not a whole number: \"%.64s\"", val);
    return -1;
  }
  if(k->min <= k->max && (d < k->min || d > k->max)) {
    snprintf(err, errlen, "%.64s is outside [%g, %g]", val, k->min, k->max);
    return -1;
  }
  switch(k->type) {
  case CFG_INT:
  case CFG_MSEC: *FIELD(obj, k, long) = (long)d; break;
  case CFG_SIZE: *FIELD(obj, k, size_t) = (size_t)d; break;
  default:       *FIELD(obj, k, double) = d; break;
  }
  return 0;
}

static int cfg_set_str(const struct cfg_key *k, void *obj, const char *val)
{
  char **slot = FIELD(obj, k, char *);
  if(k->type == CFG_LIST && *slot && **slot) {
    size_t a = strlen(*slot), b = strlen(val);
    char *s = xalloc(a + b + 2);
    memcpy(s, *slot, a);
    s[a] = ',';
    memcpy(s + a + 1, val, b);
    free(*slot);
    *slot = s;
    return 0;
  }
  free(*slot);
  *slot = xstrdup(val);
  return 0;
}

int cfg_set(const struct cfg_key *k, void *obj, const char *val, char *err, size_t errlen)
{
  switch(k->type) {
  case CFG_BOOL:
    if(cfg_bool(val, FIELD(obj, k, bool))) {
      snprintf(err, errlen, "not a boolean: \"%.64s\"", val);
      return -1;
    }
    return 0;
  case CFG_STR:
  case CFG_LIST:
    return cfg_set_str(k, obj, val);
  default:
    return cfg_set_number(k, obj, val, err, errlen);
  }
}

static const struct cfg_key *cfg_find(const struct cfg_prog *p, const char *flag, size_t n)
{
  char name[128];
  for(size_t i = 0; i < p->nkeys; i++) {
    cfg_flag_name(&p->keys[i], name, sizeof name);
    if(strlen(name) == n && !strncmp(name, flag, n))
      return &p->keys[i];
  }
  return NULL;
}

static int cfg_apply(const struct cfg_prog *p, const struct cfg_key *k, void *obj,
                     const char *val, const char *origin)
{
  char err[256];
  if(cfg_set(k, obj, val, err, sizeof err) == 0)
    return 0;
  fprintf(stderr, "%s: %s (%s): %s\n", p->name, k->name, origin, err);
  return -1;
}

static int cfg_defaults_env(const struct cfg_prog *p, void *obj)
{
  char env[128];
  for(size_t i = 0; i < p->nkeys; i++) {
    const struct cfg_key *k = &p->keys[i];
    if(k->def && cfg_apply(p, k, obj, k->def, "default"))
      return -1;
    cfg_env_name(p, k, env, sizeof env);
    cfg_warn_unprefixed(p, k, env);
    const char *v = getenv(env);
    if(v && k->type == CFG_LIST) {
      free(*FIELD(obj, k, char *));
      *FIELD(obj, k, char *) = NULL;
    }
    if(v && cfg_apply(p, k, obj, v, env))
      return -1;
  }
  return 0;
}

/* One argv element at *i; may consume the next as the value. */
static enum cfg_rc cfg_arg(const struct cfg_prog *p, void *obj, int argc, char **argv,
                           int *i)
{
  const char *a = argv[*i];
  if(!strcmp(a, "--help") || !strcmp(a, "-h")) {
    cfg_help(p, stdout);
    return CFG_EXIT_OK;
  }
  if(!strcmp(a, "--help-markdown")) {
    cfg_markdown(p, stdout);
    return CFG_EXIT_OK;
  }
  if(strncmp(a, "--", 2)) {
    fprintf(stderr, "%s: unexpected argument \"%.64s\" (try --help)\n", p->name, a);
    return CFG_ERROR;
  }
  const char *eq = strchr(a + 2, '=');
  size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
  const struct cfg_key *k = cfg_find(p, a + 2, n);
  if(!k) {
    fprintf(stderr, "%s: unknown option \"%.64s\" (try --help)\n", p->name, a);
    return CFG_ERROR;
  }
  const char *val = eq ? eq + 1 : NULL;
  if(!val && k->type == CFG_BOOL)
    val = cfg_bool_next(argc, argv, i);
  if(!val && *i + 1 < argc)
    val = argv[++*i];
  if(!val) {
    fprintf(stderr, "%s: option %s needs a value\n", p->name, a);
    return CFG_ERROR;
  }
  return cfg_apply(p, k, obj, val, "flag") ? CFG_ERROR : CFG_OK;
}

static enum cfg_rc cfg_load_all(const struct cfg_prog *p, void *obj, int argc, char **argv)
{
  int print = 0;
  if(cfg_defaults_env(p, obj))
    return CFG_ERROR;
  for(int i = 1; i < argc; i++) {
    if(!strcmp(argv[i], "--print-config")) {
      print = 1;
      continue;
    }
    enum cfg_rc rc = cfg_arg(p, obj, argc, argv, &i);
    if(rc != CFG_OK)
      return rc;
  }
  if(print) {
    cfg_print(p, obj, stdout);
    return CFG_EXIT_OK;
  }
  return CFG_OK;
}

/* Unless the program goes on, the strings are released here, so that every
 * exit path of every caller is leak-free. */
enum cfg_rc cfg_load(const struct cfg_prog *p, void *obj, int argc, char **argv)
{
  enum cfg_rc rc = cfg_load_all(p, obj, argc, argv);
  if(rc != CFG_OK)
    cfg_free(p, obj);
  return rc;
}

static const char *cfg_type_name(enum cfg_type t)
{
  static const char *names[] = { "int", "size", "msec", "number", "bool", "string", "list" };
  return names[t];
}

static void cfg_help(const struct cfg_prog *p, FILE *out)
{
  char flag[128], env[128];
  fprintf(out, "usage: %s [--OPTION VALUE]...\n%s\n\noptions (flag / environment, default):\n",
          p->name, p->summary);
  for(size_t i = 0; i < p->nkeys; i++) {
    const struct cfg_key *k = &p->keys[i];
    cfg_flag_name(k, flag, sizeof flag);
    cfg_env_name(p, k, env, sizeof env);
    fprintf(out, "  --%s <%s>  (%s, default %s)\n      %s\n", flag, cfg_type_name(k->type),
            env, k->def ? k->def : "unset", k->help);
  }
  fputs("  --print-config\n      print the effective configuration as JSON and exit\n"
        "  --help-markdown\n      print this table as Markdown and exit\n"
        "  --help\n      print this help and exit\n", out);
}

static void cfg_print_value(const struct cfg_key *k, const void *obj, FILE *out)
{
  const char *s;
  switch(k->type) {
  case CFG_INT:
  case CFG_MSEC:   fprintf(out, "%ld", *FIELD(obj, k, long)); break;
  case CFG_SIZE:   fprintf(out, "%zu", *FIELD(obj, k, size_t)); break;
  case CFG_DOUBLE: fprintf(out, "%g", *FIELD(obj, k, double)); break;
  case CFG_BOOL:   fputs(*FIELD(obj, k, bool) ? "true" : "false", out); break;
  default:
    s = *FIELD(obj, k, char *);
    if(!s) {
      fputs("null", out);
      break;
    }
    fputc('"', out);
    for(; *s; s++)
      fprintf(out, (*s == '"' || *s == '\\') ? "\\%c" : "%c", *s);
    fputc('"', out);
  }
}

static void cfg_print(const struct cfg_prog *p, const void *obj, FILE *out)
{
  fputc('{', out);
  for(size_t i = 0; i < p->nkeys; i++) {
    fprintf(out, "%s\"%s\":", i ? "," : "", p->keys[i].name);
    if(strstr(p->keys[i].name, "token") || strstr(p->keys[i].name, "secret")
       || strstr(p->keys[i].name, "password"))
      fputs("\"(redacted)\"", out);
    else
      cfg_print_value(&p->keys[i], obj, out);
  }
  fputs("}\n", out);
}

void cfg_markdown(const struct cfg_prog *p, FILE *out)
{
  char flag[128], env[128];
  fprintf(out, "| flag | environment | type | default | bounds | meaning |\n"
               "| --- | --- | --- | --- | --- | --- |\n");
  for(size_t i = 0; i < p->nkeys; i++) {
    const struct cfg_key *k = &p->keys[i];
    cfg_flag_name(k, flag, sizeof flag);
    cfg_env_name(p, k, env, sizeof env);
    fprintf(out, "| `--%s` | `%s` | %s | %s | ", flag, env, cfg_type_name(k->type),
            k->def ? k->def : "unset");
    if(k->min <= k->max)
      fprintf(out, "%g .. %g", k->min, k->max);
    fprintf(out, " | %s |\n", k->help);
  }
}

void cfg_free(const struct cfg_prog *p, void *obj)
{
  for(size_t i = 0; i < p->nkeys; i++) {
    const struct cfg_key *k = &p->keys[i];
    if(k->type == CFG_STR || k->type == CFG_LIST) {
      free(*FIELD(obj, k, char *));
      *FIELD(obj, k, char *) = NULL;
    }
  }
}
