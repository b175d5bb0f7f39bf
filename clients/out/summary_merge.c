/* The summaries of one crawl's members as one (wpfs crawl-merge). Each
 * wpfs-discover process of a partitioned crawl prints the summary of its
 * own part (docs/crawler.md): counters, sizes and tallies add up, since the
 * members crawl disjoint hosts, but a peak, a duration or a bytes-per-URL
 * ratio does not. Each field is merged by what it means (merge_how), and
 * what belongs to one member only (its crawl log, its WARC files: paths on
 * its own volume) is kept in that member's entry of member_list. No
 * gateway is asked. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "clients/out/summary_merge.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/buf.h"

#define MERGE_LINE_MAX  (64u << 20)  /* a summary line; longer lines are skipped */

enum merge_how {
  MERGE_SUM,     /* counters, sizes, tallies: the members' parts add up */
  MERGE_MAX,     /* a peak, a duration (the members run side by side), a last time */
  MERGE_MIN,     /* a first time */
  MERGE_WMEAN,   /* a ratio: the mean weighted by its denominator */
  MERGE_MEMBER,  /* one member's own: kept in its member_list entry */
  MERGE_SAME,    /* a number that names, not counts: equal in every member */
};

/* The fields of crawl_summary (clients/crawl/crawl.c) that are not summed.
 * A bytes-per-URL ratio is weighted by the URLs it was taken over, so the
 * merge is the members' bytes over the members' URLs. */
static const struct merge_rule {
  const char    *key;
  enum merge_how how;
  const char    *weight;
} merge_rules[] = {
  { "frontier_peak_urls", MERGE_MAX, NULL },
  /* the live members a member saw: each sees (about) all of them */
  { "part_live", MERGE_MAX, NULL },
  { "frontier_mem_bytes_per_url", MERGE_WMEAN, "frontier_peak_urls" },
  { "frontier_disk_bytes_per_url", MERGE_WMEAN, "frontier_spilled" },
  { "seen_mem_bytes_per_url", MERGE_WMEAN, "seen" },
  { "seen_disk_bytes_per_url", MERGE_WMEAN, "seen" },
  { "crawl_log", MERGE_MEMBER, NULL },
  { "warc_paths", MERGE_MEMBER, NULL },
  { "member", MERGE_MEMBER, NULL },
  /* a member's start (its run directory): a restarted member has several */
  { "run", MERGE_MEMBER, NULL },
};
#define NRULES (sizeof merge_rules / sizeof *merge_rules)

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* How a field is merged: a rule's line must be the same; then by the
 * table, else by its name's convention (durations *_ms, *_s; times *_at;
 * ratios *_per_*; peaks and maxima: *peak*, *_max*), else summed.
 * Ratios and member fields are top-level only (depth 0). */
static enum merge_how merge_how(const char *key, int depth, const struct merge_rule **rule)
{
  *rule = NULL;
  if(!strcmp(key, "line"))  /* a scope rule's line in the rules file */
    return MERGE_SAME;
  for(size_t i = 0; i < NRULES && !depth; i++)
    if(!strcmp(merge_rules[i].key, key)) {
      *rule = &merge_rules[i];
      return merge_rules[i].how;
    }
  if(ends_with(key, "_at"))
    return strncmp(key, "start", 5) ? MERGE_MAX : MERGE_MIN;
  if(ends_with(key, "_ms") || ends_with(key, "_s") || strstr(key, "peak") || strstr(key, "_max")
     || !strncmp(key, "max_", 4))
    return MERGE_MAX;
  if(!depth && strstr(key, "_per_"))
    return MERGE_WMEAN;  /* no known weight: a plain mean */
  return MERGE_SUM;
}

struct merge {
  char        *err;      /* the message of the first error */
  size_t       errlen;
  json_t      *out;      /* the merged summary */
  json_t      *own;      /* top-level keys whose values differ: each member's own */
  json_t     **sums;     /* the members' summaries, as read */
  const char **files;
  size_t       n;
  const char  *file;     /* the one being merged, for messages */
};

/* ---------------------------------------------------------------- read */

#define MERGE_OK  0
#define MERGE_ERR -1

__attribute__((format(printf, 2, 3)))
static int fail(struct merge *m, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->err, m->errlen, fmt, ap);
  va_end(ap);
  return MERGE_ERR;
}

static bool is_summary(const json_t *j)
{
  return json_is_object(j) && json_is_integer(json_object_get(j, "pages"))
         && json_is_integer(json_object_get(j, "warc_records"));
}

/* The last summary among the lines of f (a member's whole output or log
 * will do: the summary is the last line wpfs-discover prints on stdout). */
static json_t *last_summary_line(FILE *f)
{
  struct buf line;
  buf_init(&line, MERGE_LINE_MAX);
  json_t *found = NULL;
  bool over = false;
  for(int ch; (ch = getc(f)) != EOF || line.len;) {
    if(ch != '\n' && ch != EOF) {
      over = over || buf_addc(&line, (char)ch) != CM_OK;
      continue;
    }
    json_t *j = over ? NULL : json_loadb(line.data, line.len, 0, NULL);
    if(is_summary(j)) {
      json_decref(found);
      found = j;
    } else {
      json_decref(j);
    }
    buf_reset(&line);
    over = false;
    if(ch == EOF)
      break;
  }
  buf_free(&line);
  return found;
}

/* FILE's summary: the file is one JSON summary, or lines of which the last
 * summary counts. NULL with a message when there is none. */
static json_t *read_summary(struct merge *m, const char *file)
{
  FILE *f = fopen(file, "r");
  if(!f) {
    fail(m, "%s: cannot read: %s", file, strerror(errno));
    return NULL;
  }
  json_error_t err;
  json_t *j = json_loadf(f, 0, &err);
  bool json = j != NULL;
  if(!is_summary(j)) {
    json_decref(j);
    rewind(f);
    j = last_summary_line(f);
  }
  bool bad = ferror(f) != 0;
  fclose(f);
  if(bad) {
    json_decref(j);
    fail(m, "%s: cannot read: %s", file, strerror(errno ? errno : EIO));
    return NULL;
  }
  if(!j && !json)
    fail(m, "%s: no crawl summary in it: not JSON (line %d, column %d: %s), and no line of "
            "it is a summary", file, err.line, err.column, err.text);
  else if(!j)
    fail(m, "%s: no crawl summary in it (a JSON object with the counters pages and "
            "warc_records, as wpfs-discover prints last)", file);
  return j;
}

/* ---------------------------------------------------------------- merge */

/* json_object_set_new, saying so when memory ran out. */
static int put(struct merge *m, json_t *obj, const char *key, json_t *v)
{
  if(!json_object_set_new(obj, key, v))
    return MERGE_OK;
  fail(m, "out of memory");
  return MERGE_ERR;
}

static int merge_obj(struct merge *m, json_t *acc, json_t *v, int depth, const char *where);

static int clash(struct merge *m, const char *where, const char *what)
{
  fail(m, "%s: %s %s the other members' (are these the members of one crawl?)", m->file,
          where, what);
  return MERGE_ERR;
}

static int merge_int(struct merge *m, json_t *a, json_int_t x, enum merge_how how,
                     const char *where)
{
  json_int_t y = json_integer_value(a);
  if(how == MERGE_MAX)
    return json_integer_set(a, x > y ? x : y), MERGE_OK;
  if(how == MERGE_MIN)
    return json_integer_set(a, x < y ? x : y), MERGE_OK;
  if((x > 0 && y > LLONG_MAX - x) || (x < 0 && y < LLONG_MIN - x))
    return clash(m, where, "overflows when added to");
  return json_integer_set(a, x + y), MERGE_OK;
}

/* Numbers of which one is a real: the result is a real. */
static json_t *merge_real(json_t *a, json_t *v, enum merge_how how)
{
  double x = json_number_value(v), y = json_number_value(a);
  double r = how == MERGE_MAX ? (x > y ? x : y) : how == MERGE_MIN ? (x < y ? x : y) : x + y;
  return json_real(r);
}

/* Arrays that merge: of the same length, objects or equal values at each
 * index (the members' scope_rules: the same rules in the same order). */
static bool array_merges(json_t *a, json_t *v)
{
  if(json_array_size(a) != json_array_size(v))
    return false;
  size_t i;
  json_t *x;
  json_array_foreach(v, i, x) {
    json_t *y = json_array_get(a, i);
    if(!(json_is_object(x) && json_is_object(y)) && !json_equal(x, y))
      return false;
  }
  return true;
}

/* Objects element by element (a rule's counts are added); others equal. */
static int merge_array(struct merge *m, json_t *a, json_t *v, int depth, const char *where)
{
  if(json_array_size(a) != json_array_size(v))
    return clash(m, where, "has another length than");
  size_t i;
  json_t *x;
  json_array_foreach(v, i, x) {
    json_t *y = json_array_get(a, i);
    if(json_is_object(x) && json_is_object(y)) {
      int rc = merge_obj(m, y, x, depth + 1, where);
      if(rc)
        return rc;
    } else if(!json_equal(x, y)) {
      return clash(m, where, "differs from");
    }
  }
  return MERGE_OK;
}

/* Values that do not add up: equal, or (top level) each member's own. */
static int merge_other(struct merge *m, const char *key, json_t *a, json_t *v, int depth,
                       const char *where)
{
  if(json_equal(a, v))
    return MERGE_OK;
  if(depth || !strcmp(key, "crawl"))
    return clash(m, where, "differs from");
  return put(m, m->own, key, json_true());
}

static int merge_field(struct merge *m, json_t *acc, const char *key, json_t *v, int depth,
                       const char *where)
{
  const struct merge_rule *rule;
  enum merge_how how = merge_how(key, depth, &rule);
  if(how == MERGE_MEMBER)
    return MERGE_OK;  /* member_list */
  json_t *a = json_object_get(acc, key);
  if(how == MERGE_WMEAN)  /* in its place now, its value from merge_ratios */
    return a ? MERGE_OK : put(m, acc, key, json_null());
  if(!a)
    return put(m, acc, key, json_deep_copy(v));
  if(how == MERGE_SAME)
    return json_equal(a, v) ? MERGE_OK : clash(m, where, "differs from");
  if(json_is_integer(a) && json_is_integer(v))
    return merge_int(m, a, json_integer_value(v), how, where);
  if(json_is_number(a) && json_is_number(v))
    return put(m, acc, key, merge_real(a, v, how));
  if(json_is_object(a) && json_is_object(v))
    return merge_obj(m, a, v, depth + 1, where);
  if(json_is_array(a) && json_is_array(v) && (depth || array_merges(a, v)))
    return merge_array(m, a, v, depth, where);
  if(json_is_array(a) && json_is_array(v))
    return merge_other(m, key, a, v, depth, where);
  if(json_typeof(a) != json_typeof(v))
    return clash(m, where, "is of another type than");
  return merge_other(m, key, a, v, depth, where);
}

static int merge_obj(struct merge *m, json_t *acc, json_t *v, int depth, const char *where)
{
  const char *key;
  json_t *x;
  json_object_foreach(v, key, x) {
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", where, *where ? "." : "", key);
    int rc = merge_field(m, acc, key, x, depth, path);
    if(rc)
      return rc;
  }
  return MERGE_OK;
}

/* A ratio over the members: sum(ratio x weight) / sum(weight), the weight
 * being the member's own denominator (a plain mean when none is known). */
static int merge_ratios(struct merge *m)
{
  const char *key;
  json_t *x;
  json_object_foreach(m->out, key, x) {  /* a value replaced: no key added */
    const struct merge_rule *rule;
    if(merge_how(key, 0, &rule) != MERGE_WMEAN)
      continue;
    double num = 0, den = 0;
    for(size_t i = 0; i < m->n; i++) {
      json_t *r = json_object_get(m->sums[i], key);
      json_t *w = rule ? json_object_get(m->sums[i], rule->weight) : NULL;
      double wt = rule ? json_number_value(w) : 1;
      if(!json_is_number(r) || (rule && !json_is_number(w))) {
        m->file = m->files[i];
        return clash(m, key, rule ? "or its weight is missing or not a number, unlike" :
                     "is missing or not a number, unlike");
      }
      num += json_number_value(r) * wt;
      den += wt;
    }
    /* two decimals, as the members print it */
    double r = den > 0 ? round(num / den * 100) / 100 : 0;
    if(put(m, m->out, key, json_real(r)))
      return MERGE_ERR;
  }
  return MERGE_OK;
}

/* ---------------------------------------------------------------- members */

/* A member's entry: its summary file and what is its own. */
static json_t *member_entry(struct merge *m, size_t i)
{
  json_t *e = json_object();
  if(!e || json_object_set_new(e, "summary", json_string(m->files[i])))
    return json_decref(e), NULL;
  const char *key;
  json_t *x;
  json_object_foreach(m->sums[i], key, x) {
    const struct merge_rule *rule;
    bool own = merge_how(key, 0, &rule) == MERGE_MEMBER || json_object_get(m->own, key);
    if(own && json_object_set(e, key, x))
      return json_decref(e), NULL;
  }
  return e;
}

static bool same_str(const char *a, const char *b)
{
  return a == b || (a && b && !strcmp(a, b));
}

/* Two summaries of one run of a member (the same file twice, or the same
 * member and run named twice) would count its part twice. A member that
 * restarted has one summary per run (each its own run directory, its own
 * pages): those add up. */
static int check_twice(struct merge *m, size_t i)
{
  const char *id = json_string_value(json_object_get(m->sums[i], "member"));
  const char *run = json_string_value(json_object_get(m->sums[i], "run"));
  for(size_t k = 0; k < i; k++) {
    const char *other = json_string_value(json_object_get(m->sums[k], "member"));
    const char *orun = json_string_value(json_object_get(m->sums[k], "run"));
    bool same = !strcmp(m->files[k], m->files[i]) ||
                (id && other && !strcmp(id, other) && same_str(run, orun));
    if(same) {
      fail(m, "%s and %s are the summaries of one member%s%s%s%s: its part would count twice",
              m->files[k], m->files[i], id ? " " : "", id ? id : "", run ? ", run " : "",
              run ? run : "");
      return MERGE_ERR;
    }
  }
  if(json_object_get(m->sums[i], "member_list")) {
    fail(m, "%s: a merged summary already; merge the members' own summaries", m->files[i]);
    return MERGE_ERR;
  }
  return MERGE_OK;
}

static int add_members(struct merge *m)
{
  json_t *list = json_array();
  if(!list)
    return put(m, m->out, "member_list", NULL);
  const char *key;
  json_t *x;
  void *tmp;
  json_object_foreach_safe(m->own, tmp, key, x) json_object_del(m->out, key);
  for(size_t i = 0; i < m->n; i++)
    if(json_array_append_new(list, member_entry(m, i))) {
      json_decref(list);
      return put(m, m->out, "member_list", NULL);
    }
  int rc = put(m, m->out, "members", json_integer((json_int_t)m->n));
  return rc ? (json_decref(list), rc) : put(m, m->out, "member_list", list);
}

static int merge_all(struct merge *m)
{
  for(size_t i = 0; i < m->n; i++) {
    if(!(m->sums[i] = read_summary(m, m->files[i])))
      return MERGE_ERR;
    int rc = check_twice(m, i);
    if(rc)
      return rc;
    m->file = m->files[i];
    if((rc = merge_obj(m, m->out, m->sums[i], 0, "")))
      return rc;
  }
  int rc = merge_ratios(m);
  return rc ? rc : add_members(m);
}

int summary_merge(const char *const *files, size_t n, char **out, char *err, size_t errlen)
{
  struct merge m = { .err = err, .errlen = errlen, .out = json_object(), .own = json_object(),
                     .sums = calloc(n ? n : 1, sizeof(json_t *)), .files = (const char **)files,
                     .n = n };
  *out = NULL;
  int rc = m.out && m.own && m.sums ? merge_all(&m) : fail(&m, "out of memory");
  /* 15 digits: a ratio prints as 12.34, not as its nearest double */
  if(rc == MERGE_OK && !(*out = json_dumps(m.out, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                                  JSON_REAL_PRECISION(15))))
    rc = fail(&m, "out of memory");
  for(size_t i = 0; m.sums && i < m.n; i++)
    json_decref(m.sums[i]);
  free(m.sums);
  json_decref(m.out);
  json_decref(m.own);
  return rc;
}
