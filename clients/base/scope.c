/* Scope rules (scope.h): the rule file's parser and the decision.
 *
 * Regular expressions are PCRE2's, not libc's POSIX ERE: the rule files
 * people bring are written for Heritrix and Nutch (Java regex) or Scrapy
 * (Python re), whose \d, (?i), lookarounds and lazy quantifiers ERE
 * lacks (glibc reads \d as a plain "d", silently); its match limit
 * bounds a pattern that backtracks catastrophically, where regexec has
 * none; and its JIT decides a URL about twice as fast as glibc's regexec
 * on the same patterns (tests/bench/bench_scope.c: 728 against 1,560 ns
 * for five rules). libpcre2-8 is on every Debian system (grep needs it). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "clients/base/scope.h"

#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clients/base/fpset.h"
#include "common/hash.h"
#include "common/mem.h"

#define SCOPE_MAGIC      0x5c09e417u
#define RULE_TEXT_MAX    128
#define NAMES_BYTES      (256u << 20)   /* one host or domain rule's names */
#define SURTS_MAX        (4u << 20)     /* prefixes of one surt rule */
#define MATCH_LIMIT      200000         /* PCRE2 backtracking steps per URL */

enum rule_kind { KIND_ALL, KIND_REGEX, KIND_HOST, KIND_DOMAIN, KIND_SURT };
static const char *const kind_names[] = { "all", "regex", "host", "domain", "surt" };
#define NKINDS (sizeof kind_names / sizeof kind_names[0])

struct rule {
  bool           accept;
  enum rule_kind kind;
  unsigned       line;
  char           text[RULE_TEXT_MAX];
  pcre2_code    *re;
  struct fpset   names;     /* host, domain: hashes of the names */
  char         **surts;     /* surt: sorted, none a prefix of another */
  size_t         nsurts, surts_cap;
  uint64_t       rejected, accepted, errors;
};

struct scope {
  unsigned                magic;
  struct rule            *v;
  size_t                  n, cap;
  bool                    surts;  /* some rule needs the URL's SURT form */
  pcre2_general_context  *gc;
  pcre2_match_context    *mc;
  pcre2_match_data       *md;
};

/* A parse in progress: where errors are said. */
struct parse {
  struct scope *s;
  const char   *dir;
  unsigned      line;
  char         *err;
  size_t        errlen;
};

static crawl_err perr(struct parse *ps, crawl_err e, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
static crawl_err perr(struct parse *ps, crawl_err e, const char *fmt, ...)
{
  va_list ap;
  int k = snprintf(ps->err, ps->errlen, "line %u: ", ps->line);
  if(k >= 0 && (size_t)k < ps->errlen) {
    va_start(ap, fmt);
    vsnprintf(ps->err + k, ps->errlen - (size_t)k, fmt, ap);
    va_end(ap);
  }
  return e;
}

static void *gc_alloc(size_t n, void *arg)
{
  (void)arg;
  return mem_alloc(n);
}

static void gc_free(void *p, void *arg)
{
  (void)arg;
  mem_free(p);
}

static struct scope *scope_new(void)
{
  struct scope *s = mem_calloc(1, sizeof *s);
  if(!s)
    return NULL;
  s->magic = SCOPE_MAGIC;
  s->gc = pcre2_general_context_create(gc_alloc, gc_free, NULL);
  s->mc = s->gc ? pcre2_match_context_create(s->gc) : NULL;
  s->md = s->gc ? pcre2_match_data_create(1, s->gc) : NULL;
  if(!s->mc || !s->md) {
    scope_free(&s);
    return NULL;
  }
  pcre2_set_match_limit(s->mc, MATCH_LIMIT);
  return s;
}

static void rule_free(struct rule *r)
{
  pcre2_code_free(r->re);
  fpset_free(&r->names);
  for(size_t i = 0; i < r->nsurts; i++)
    mem_free(r->surts[i]);
  mem_free(r->surts);
}

void scope_free(struct scope **sp)
{
  struct scope *s = *sp;
  if(!s)
    return;
  *sp = NULL;
  for(size_t i = 0; i < s->n; i++)
    rule_free(&s->v[i]);
  mem_free(s->v);
  pcre2_match_data_free(s->md);
  pcre2_match_context_free(s->mc);
  pcre2_general_context_free(s->gc);
  s->magic = 0;
  mem_free(s);
}

/* ---- Arguments -------------------------------------------------------------- */

static crawl_err rule_regex(struct parse *ps, struct rule *r, const char *pat, size_t n)
{
  int code;
  PCRE2_SIZE off;
  if(n > SCOPE_REGEX_MAX)
    return perr(ps, CRAWL_ERR_TOO_LARGE, "the pattern is longer than %u bytes", SCOPE_REGEX_MAX);
  pcre2_compile_context *cc = pcre2_compile_context_create(ps->s->gc);
  if(!cc)
    return CRAWL_ERR_NOMEM;
  r->re = pcre2_compile((PCRE2_SPTR)pat, n, PCRE2_ANCHORED | PCRE2_ENDANCHORED, &code, &off, cc);
  pcre2_compile_context_free(cc);
  if(!r->re) {
    if(code == PCRE2_ERROR_HEAP_FAILED)
      return CRAWL_ERR_NOMEM;
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(code, msg, sizeof msg);
    return perr(ps, CRAWL_ERR_INVALID, "regex %.*s: %s at offset %zu", (int)(n > 80 ? 80 : n),
                pat, (const char *)msg, (size_t)off);
  }
  pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);  /* else the interpreter: slower, same answers */
  return CRAWL_OK;
}

static bool name_plain(const char *name, size_t n)
{
  for(size_t i = 0; i < n; i++)  /* the text is not NUL-terminated: n bytes only */
    if(strchr("/?#@:\\", name[i]) || name[i] == '\0')
      return false;
  return n > 0 && n <= URL_HOST_MAX;
}

/* A host name as url_split writes it (lower case, A-labels, no trailing
 * dot): the name in a URL, canonicalized. */
static crawl_err name_add(struct parse *ps, struct rule *r, const char *name, size_t n)
{
  char url[URL_HOST_MAX + 16], *canon = NULL;
  struct url_parts p;
  if(!name_plain(name, n))
    return perr(ps, CRAWL_ERR_INVALID, "not a host name: %.*s", (int)(n > 80 ? 80 : n), name);
  int k = snprintf(url, sizeof url, "http://%.*s/", (int)n, name);
  url_err ue = url_canon(url, (size_t)k, NULL, &canon);
  if(ue == URL_OK)
    ue = url_split(canon, &p);
  if(ue == URL_ERR_NOMEM) {
    mem_free(canon);
    return CRAWL_ERR_NOMEM;
  }
  crawl_err e = ue == URL_OK ? fpset_add(&r->names, hash_fp64(p.host, strlen(p.host)), NULL)
                             : perr(ps, CRAWL_ERR_INVALID, "not a host name: %.*s",
                                    (int)(n > 80 ? 80 : n), name);
  mem_free(canon);
  if(e == CRAWL_ERR_FULL)
    return perr(ps, CRAWL_ERR_TOO_LARGE, "too many host names in one rule");
  return e;
}

static crawl_err surt_add(struct parse *ps, struct rule *r, const char *arg, size_t n)
{
  if(r->nsurts >= SURTS_MAX)
    return perr(ps, CRAWL_ERR_TOO_LARGE, "more than %u SURT prefixes in one rule", SURTS_MAX);
  if(r->nsurts == r->surts_cap) {
    size_t cap = r->surts_cap ? r->surts_cap * 2 : 8;
    char **v = mem_realloc(r->surts, cap * sizeof *v);
    if(!v)
      return CRAWL_ERR_NOMEM;
    r->surts = v;
    r->surts_cap = cap;
  }
  char *pre;
  crawl_err e = scope_surt_prefix(arg, n, &pre);
  if(e == CRAWL_ERR_INVALID)
    return perr(ps, e, "not a SURT prefix nor an http(s) URL: %.*s", (int)(n > 80 ? 80 : n), arg);
  if(e)
    return e;
  r->surts[r->nsurts++] = pre;
  return CRAWL_OK;
}

static crawl_err arg_add(struct parse *ps, struct rule *r, const char *a, size_t n)
{
  if(r->kind == KIND_SURT)
    return surt_add(ps, r, a, n);
  return name_add(ps, r, a, n);
}

static char *path_join(const char *dir, const char *name, size_t n)
{
  size_t dn = name[0] == '/' ? 0 : strlen(dir);
  char *p = mem_alloc(dn + n + 2);
  if(!p)
    return NULL;
  memcpy(p, dir, dn);
  if(dn)
    p[dn++] = '/';
  memcpy(p + dn, name, n);
  p[dn + n] = '\0';
  return p;
}

/* The whole of a file, NUL-terminated, at most max bytes (the buffer the
 * size of the file, or of max for one that does not say: a pipe). */
static crawl_err read_file(const char *path, size_t max, char **out, size_t *len)
{
  FILE *f = fopen(path, "rb");
  struct stat st;
  *out = NULL;
  if(!f)
    return CRAWL_ERR_IO;
  size_t want = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size : max;
  char *b = want <= max ? mem_alloc(want + 2) : NULL;
  size_t n = b ? fread(b, 1, want + 1, f) : 0;
  crawl_err e = want > max ? CRAWL_ERR_TOO_LARGE : !b ? CRAWL_ERR_NOMEM
              : ferror(f) ? CRAWL_ERR_IO : n > max ? CRAWL_ERR_TOO_LARGE
              : n > want ? CRAWL_ERR_IO : CRAWL_OK;  /* it grew while read */
  fclose(f);
  if(e) {
    mem_free(b);
    return e;
  }
  b[n] = '\0';
  *out = b;
  *len = n;
  return CRAWL_OK;
}

/* "@PATH": one argument a line; blank lines and # comments skipped. */
static crawl_err list_add(struct parse *ps, struct rule *r, const char *name, size_t n)
{
  if(n == 0)
    return perr(ps, CRAWL_ERR_INVALID, "@ needs a file name (@hosts.txt)");
  if(!ps->dir)
    return perr(ps, CRAWL_ERR_INVALID, "@%.*s: lists are read only from a rule file",
                (int)n, name);
  char *path = path_join(ps->dir, name, n), *text;
  size_t len;
  if(!path)
    return CRAWL_ERR_NOMEM;
  crawl_err e = read_file(path, SCOPE_LIST_MAX, &text, &len);
  if(e) {
    perr(ps, e, "@%s: %s", path, e == CRAWL_ERR_TOO_LARGE ? "larger than 64 MiB"
         : e == CRAWL_ERR_IO ? "cannot be read" : crawl_err_text(e));
    mem_free(path);
    return e;
  }
  unsigned lno = 0;
  for(char *p = text; !e && p < text + len; lno++) {
    size_t k = strcspn(p, "\n");
    char *q = p;
    p += k + 1;
    while(k && (q[k - 1] == '\r' || q[k - 1] == ' ' || q[k - 1] == '\t'))
      k--;
    while(k && (*q == ' ' || *q == '\t'))
      q++, k--;
    if(k && *q != '#' && (e = arg_add(ps, r, q, k)) && e != CRAWL_ERR_NOMEM) {
      char inner[SCOPE_ERR_MAX];
      snprintf(inner, sizeof inner, "%s", strchr(ps->err, ':') ? strchr(ps->err, ':') + 2 : "");
      perr(ps, e, "@%s line %u: %s", path, lno + 1, inner);
    }
  }
  mem_free(text);
  mem_free(path);
  return e;
}

static int surt_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, and a prefix covered by a shorter one dropped: then the
 * greatest prefix not above a SURT is the only one that can match it. */
static void surts_reduce(struct rule *r)
{
  qsort(r->surts, r->nsurts, sizeof *r->surts, surt_cmp);
  size_t kept = 0;
  for(size_t i = 0; i < r->nsurts; i++) {
    char *s = r->surts[i];
    if(kept && !strncmp(s, r->surts[kept - 1], strlen(r->surts[kept - 1])))
      mem_free(s);
    else
      r->surts[kept++] = s;
  }
  r->nsurts = kept;
}

/* ---- Lines --------------------------------------------------------------------- */

struct tok {
  const char *p;
  size_t      n;
};

static size_t tokens(const char *line, size_t n, struct tok *t, size_t max, size_t *all)
{
  size_t k = 0;
  *all = 0;
  for(size_t i = 0; i < n;) {
    while(i < n && (line[i] == ' ' || line[i] == '\t'))
      i++;
    size_t start = i;
    while(i < n && line[i] != ' ' && line[i] != '\t')
      i++;
    if(i > start) {
      if(k < max)
        t[k++] = (struct tok){ line + start, i - start };
      (*all)++;
    }
  }
  return k;
}

static bool tok_is(const struct tok *t, const char *s)
{
  return t->n == strlen(s) && !memcmp(t->p, s, t->n);
}

static crawl_err rule_head(struct parse *ps, const struct tok *t, struct rule *r)
{
  if(!tok_is(&t[0], "accept") && !tok_is(&t[0], "reject"))
    return perr(ps, CRAWL_ERR_INVALID, "a rule begins with accept or reject, not \"%.*s\"",
                (int)(t[0].n > 40 ? 40 : t[0].n), t[0].p);
  r->accept = tok_is(&t[0], "accept");
  for(size_t k = 0; k < NKINDS; k++)
    if(tok_is(&t[1], kind_names[k])) {
      r->kind = (enum rule_kind)k;
      return CRAWL_OK;
    }
  return perr(ps, CRAWL_ERR_INVALID, "unknown kind \"%.*s\" (all, regex, host, domain, surt)",
              (int)(t[1].n > 40 ? 40 : t[1].n), t[1].p);
}

static crawl_err rule_args(struct parse *ps, struct rule *r, const char *line, size_t n,
                           const struct tok *t, size_t all)
{
  if(r->kind == KIND_ALL)
    return all == 2 ? CRAWL_OK : perr(ps, CRAWL_ERR_INVALID, "\"all\" takes no argument");
  if(all < 3)
    return perr(ps, CRAWL_ERR_INVALID, "%s needs an argument", kind_names[r->kind]);
  if(r->kind == KIND_REGEX)
    return all == 3 ? rule_regex(ps, r, t[2].p, t[2].n)
                    : perr(ps, CRAWL_ERR_INVALID, "regex takes one pattern without blanks "
                                                  "(write \\x20 or \\s for one)");
  fpset_init(&r->names, NAMES_BYTES);
  crawl_err e = CRAWL_OK;
  struct tok a;
  size_t skip;
  const char *p = t[2].p, *end = line + n;
  while(!e && tokens(p, (size_t)(end - p), &a, 1, &skip) == 1) {
    e = a.p[0] == '@' ? list_add(ps, r, a.p + 1, a.n - 1) : arg_add(ps, r, a.p, a.n);
    p = a.p + a.n;
  }
  if(!e && r->kind == KIND_SURT)
    surts_reduce(r);
  return e;
}

static void rule_text(struct rule *r, unsigned line, const char *text, size_t n)
{
  int k = snprintf(r->text, sizeof r->text, "line %u: ", line);
  size_t room = sizeof r->text - (size_t)k - 1;
  size_t take = n < room ? n : room;
  memcpy(r->text + k, text, take);
  r->text[(size_t)k + take] = '\0';
  for(char *q = r->text; *q; q++)
    if(*q == '\t')
      *q = ' ';
}

/* A blank then "#" begins a comment: no argument (a pattern, a name, a
 * SURT prefix) has a blank in it, nor begins with "#". */
static size_t uncommented(const char *line, size_t n)
{
  for(size_t i = 1; i < n; i++)
    if(line[i] == '#' && (line[i - 1] == ' ' || line[i - 1] == '\t'))
      n = i;
  while(n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
    n--;
  return n;
}

static crawl_err scope_line(struct parse *ps, const char *line, size_t n)
{
  struct tok t[3];
  size_t all;
  n = uncommented(line, n);
  if(tokens(line, n, t, 3, &all) == 0 || t[0].p[0] == '#')
    return CRAWL_OK;
  if(all < 2)
    return perr(ps, CRAWL_ERR_INVALID, "a rule is DECISION KIND [ARGUMENT...], e.g. "
                                       "\"reject regex .*\\.php\"");
  struct scope *s = ps->s;
  if(s->n == SCOPE_RULES_MAX)
    return perr(ps, CRAWL_ERR_TOO_LARGE, "more than %u rules", SCOPE_RULES_MAX);
  if(s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    struct rule *v = mem_realloc(s->v, cap * sizeof *v);
    if(!v)
      return CRAWL_ERR_NOMEM;
    s->v = v;
    s->cap = cap;
  }
  struct rule *r = &s->v[s->n];
  memset(r, 0, sizeof *r);
  s->n++;  /* freed with the scope, whatever follows */
  r->line = ps->line;
  rule_text(r, ps->line, t[0].p, (size_t)(line + n - t[0].p));
  crawl_err e = rule_head(ps, t, r);
  if(!e)
    e = rule_args(ps, r, line, n, t, all);
  s->surts |= r->kind == KIND_SURT;
  return e;
}

crawl_err scope_parse(const char *text, size_t len, const char *dir, struct scope **out,
                      char *err, size_t errlen)
{
  struct parse ps = { scope_new(), dir, 0, err, errlen };
  *out = NULL;
  if(errlen)
    err[0] = '\0';
  if(!ps.s)
    return CRAWL_ERR_NOMEM;
  crawl_err e = CRAWL_OK;
  for(size_t at = 0; !e && at < len;) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - text - at) : len - at;
    ps.line++;
    if(memchr(text + at, '\0', n))
      e = perr(&ps, CRAWL_ERR_INVALID, "a NUL byte: not a text file");
    else
      e = scope_line(&ps, text + at, n && text[at + n - 1] == '\r' ? n - 1 : n);
    at += n + 1;
  }
  if(e == CRAWL_ERR_NOMEM && errlen)
    snprintf(err, errlen, "line %u: out of memory", ps.line);
  if(e) {
    scope_free(&ps.s);
    return e;
  }
  *out = ps.s;
  return CRAWL_OK;
}

crawl_err scope_load(const char *path, struct scope **out, char *err, size_t errlen)
{
  char *text, *dir = mem_strdup(path);
  size_t len;
  *out = NULL;
  if(!dir)
    return CRAWL_ERR_NOMEM;
  char *slash = strrchr(dir, '/');
  if(slash)
    slash[slash == dir] = '\0';  /* "/rules" -> "/" */
  else
    memcpy(dir, ".", 2);
  crawl_err e = read_file(path, SCOPE_FILE_MAX, &text, &len);
  if(e)
    snprintf(err, errlen, "%s", e == CRAWL_ERR_TOO_LARGE ? "larger than 1 MiB"
             : e == CRAWL_ERR_IO ? "cannot be read" : crawl_err_text(e));
  else
    e = scope_parse(text, len, dir, out, err, errlen);
  mem_free(text);
  mem_free(dir);
  return e;
}

/* ---- The decision ---------------------------------------------------------------- */

static bool names_match(const struct rule *r, const struct url_parts *p)
{
  const char *h = p->host;
  if(fpset_has(&r->names, hash_fp64(h, strlen(h))))
    return true;
  if(r->kind != KIND_DOMAIN || p->host_kind != URL_HOST_NAME)
    return false;
  for(const char *d = strchr(h, '.'); d; d = strchr(d + 1, '.'))
    if(fpset_has(&r->names, hash_fp64(d + 1, strlen(d + 1))))
      return true;
  return false;
}

static bool surts_match(const struct rule *r, const char *surt)
{
  size_t lo = 0, hi = r->nsurts;  /* the greatest prefix <= surt: in [0, lo) */
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(strcmp(r->surts[mid], surt) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && !strncmp(surt, r->surts[lo - 1], strlen(r->surts[lo - 1]));
}

/* The canonical URL url_split was given: its scheme, "://" (no user
 * info in a canonical URL), the authority and the target. */
static const char *url_of(const struct url_parts *p, size_t *n)
{
  const char *u = p->authority - strlen(p->scheme) - 3;
  *n = (size_t)(p->target + p->target_len - u);
  return u;
}

static bool regex_match(struct scope *s, struct rule *r, const struct url_parts *p)
{
  size_t n;
  const char *u = url_of(p, &n);
  int rc = pcre2_match(r->re, (PCRE2_SPTR)u, n, 0, 0, s->md, s->mc);
  if(rc < 0 && rc != PCRE2_ERROR_NOMATCH)
    r->errors++;  /* the match limit: no match */
  return rc >= 0;
}

static bool rule_match(struct scope *s, struct rule *r, const struct url_parts *p,
                       const char *surt)
{
  switch(r->kind) {
  case KIND_ALL:    return true;
  case KIND_REGEX:  return regex_match(s, r, p);
  case KIND_HOST:
  case KIND_DOMAIN: return names_match(r, p);
  case KIND_SURT:   return surt[0] && surts_match(r, surt);
  }
  return false;
}

bool scope_decide(struct scope *s, const struct url_parts *p, bool start, int *rule)
{
  char surt[SCOPE_SURT_MAX];
  surt[0] = '\0';
  if(s->surts)
    scope_surt(p, surt, sizeof surt);
  *rule = -1;
  for(size_t i = s->n; i-- > 0;) {  /* the last rule that matches decides */
    struct rule *r = &s->v[i];
    if(!rule_match(s, r, p, surt))
      continue;
    *rule = (int)i;
    if(r->accept)
      r->accepted++;
    else
      r->rejected++;
    return r->accept;
  }
  return start;
}

crawl_err scope_decide_url(struct scope *s, const char *url, bool start, bool *keep, int *rule)
{
  struct url_opts o = url_opts_default();
  struct url_parts p;
  char *canon = NULL;
  *keep = start;
  *rule = -1;
  url_err ue = s ? url_canon(url, strlen(url), &o, &canon) : URL_OK;
  if(ue == URL_OK && s)
    ue = url_split(canon, &p);
  if(ue == URL_OK && s)
    *keep = scope_decide(s, &p, start, rule);
  mem_free(canon);
  return ue == URL_OK ? CRAWL_OK : ue == URL_ERR_NOMEM ? CRAWL_ERR_NOMEM : CRAWL_ERR_INVALID;
}

/* ---- Counters ------------------------------------------------------------------------ */

size_t scope_count(const struct scope *s)
{
  return s ? s->n : 0;
}

const char *scope_rule_text(const struct scope *s, int rule)
{
  return s && rule >= 0 && (size_t)rule < s->n ? s->v[rule].text : "";
}

uint64_t scope_rejected(const struct scope *s, int rule)
{
  return s && rule >= 0 && (size_t)rule < s->n ? s->v[rule].rejected : 0;
}

uint64_t scope_accepted(const struct scope *s, int rule)
{
  return s && rule >= 0 && (size_t)rule < s->n ? s->v[rule].accepted : 0;
}

cm_err scope_json(const struct scope *s, struct buf *out)
{
  cm_err e = buf_addc(out, '[');
  for(size_t i = 0; !e && s && i < s->n; i++) {
    const struct rule *r = &s->v[i];
    const char *t = strchr(r->text, ':') + 2;
    e = buf_addf(out, "%s{\"line\":%u,\"rule\":", i ? "," : "", r->line);
    if(!e)
      e = buf_add_json_str(out, t, strlen(t));
    if(!e)
      e = buf_addf(out, ",\"rejected\":%llu,\"accepted\":%llu", (unsigned long long)r->rejected,
                   (unsigned long long)r->accepted);
    if(!e && r->errors)
      e = buf_addf(out, ",\"match_errors\":%llu", (unsigned long long)r->errors);
    if(!e)
      e = buf_addc(out, '}');
  }
  return e ? e : buf_addc(out, ']');
}

void scope_save(const struct scope *s, struct ckfile *c)
{
  size_t n = scope_count(s);
  ckfile_put_u64(c, n);
  for(size_t i = 0; i < n; i++) {
    const struct rule *r = &s->v[i];
    ckfile_put_u64(c, hash_fp64(r->text, strlen(r->text)));
    ckfile_put_u64(c, r->rejected);
    ckfile_put_u64(c, r->accepted);
  }
}

void scope_load_counts(struct scope *s, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t h = ckfile_get_u64(c), rej = ckfile_get_u64(c), acc = ckfile_get_u64(c);
    struct rule *r = s && i < s->n ? &s->v[i] : NULL;
    if(r && h == hash_fp64(r->text, strlen(r->text))) {
      r->rejected = rej;
      r->accepted = acc;
    }
  }
}
