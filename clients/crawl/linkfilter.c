#include "clients/crawl/linkfilter.h"

#include <string.h>

#include "clients/base/fpset.h"
#include "common/hash.h"
#include "common/mem.h"

#define EXT_MAX 15
/* Scopes of up to a few hundred thousand seed hosts. */
#define SCOPE_BYTES (8u << 20)

struct linkfilter {
  enum linkfilter_scope scope;
  struct fpset          ext;      /* hashes of lower-case extensions */
  struct fpset          hosts;    /* hashes of the seeds' hosts */
  struct fpset          domains;  /* and of their registrable domains */
  struct scope         *rules;    /* borrowed */
  int                   last;     /* the rule of the last decision, -1: none */
};

static uint64_t ext_hash(const char *p, size_t n)
{
  char low[EXT_MAX];
  for(size_t i = 0; i < n; i++)
    low[i] = p[i] >= 'A' && p[i] <= 'Z' ? (char)(p[i] + 32) : p[i];
  return hash_fp64(low, n);
}

static crawl_err ext_load(struct linkfilter *lf, const char *list)
{
  for(const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    if(n > 0 && n <= EXT_MAX) {
      crawl_err e = fpset_add(&lf->ext, ext_hash(p, n), NULL);
      if(e)
        return e == CRAWL_ERR_FULL ? CRAWL_ERR_TOO_LARGE : e;
    }
    p += n + (p[n] == ',');
  }
  return CRAWL_OK;
}

crawl_err linkfilter_open(const struct linkfilter_opts *o, struct linkfilter **out)
{
  struct linkfilter *lf = mem_calloc(1, sizeof *lf);
  *out = NULL;
  if(!lf)
    return CRAWL_ERR_NOMEM;
  lf->scope = o ? o->scope : LINKFILTER_HOST;
  lf->rules = o ? o->rules : NULL;
  lf->last = -1;
  fpset_init(&lf->ext, 64u << 10);
  fpset_init(&lf->hosts, SCOPE_BYTES);
  fpset_init(&lf->domains, SCOPE_BYTES);
  crawl_err e = ext_load(lf, o && o->deny_ext ? o->deny_ext : LINKFILTER_DENY_EXT_DEFAULT);
  if(e) {
    linkfilter_close(&lf);
    return e;
  }
  *out = lf;
  return CRAWL_OK;
}

void linkfilter_close(struct linkfilter **lfp)
{
  struct linkfilter *lf = *lfp;
  if(!lf)
    return;
  *lfp = NULL;
  fpset_free(&lf->ext);
  fpset_free(&lf->hosts);
  fpset_free(&lf->domains);
  mem_free(lf);
}

crawl_err linkfilter_add_seed(struct linkfilter *lf, const char *canon_url)
{
  struct url_parts p;
  if(url_split(canon_url, &p) != URL_OK)
    return CRAWL_ERR_INVALID;
  const char *dom = url_registrable_domain(p.host);
  crawl_err e = fpset_add(&lf->hosts, hash_fp64(p.host, strlen(p.host)), NULL);
  if(!e)
    e = fpset_add(&lf->domains, hash_fp64(dom, strlen(dom)), NULL);
  return e == CRAWL_ERR_FULL ? CRAWL_ERR_TOO_LARGE : e;
}

/* The extension of the last path segment ("" when none). */
static const char *url_ext(const struct url_parts *p, size_t *n)
{
  size_t plen = strcspn(p->target, "?");
  if(plen > p->target_len)
    plen = p->target_len;
  const char *seg = p->target;
  for(size_t i = 0; i < plen; i++)
    if(p->target[i] == '/')
      seg = p->target + i + 1;
  const char *end = p->target + plen, *dot = NULL;
  for(const char *q = seg; q < end; q++)
    if(*q == '.')
      dot = q;
  *n = dot ? (size_t)(end - dot - 1) : 0;
  return dot ? dot + 1 : "";
}

static bool in_scope(const struct linkfilter *lf, const struct url_parts *p)
{
  if(lf->scope == LINKFILTER_ANY)
    return true;
  if(lf->scope == LINKFILTER_HOST)
    return fpset_has(&lf->hosts, hash_fp64(p->host, strlen(p->host)));
  const char *dom = url_registrable_domain(p->host);
  return fpset_has(&lf->domains, hash_fp64(dom, strlen(dom)));
}

enum drop_reason linkfilter_check(struct linkfilter *lf, const struct url_parts *p)
{
  size_t n;
  const char *ext = url_ext(p, &n);
  if(n > 0 && n <= EXT_MAX && fpset_has(&lf->ext, ext_hash(ext, n)))
    return DROP_EXTENSION;
  return linkfilter_check_scope(lf, p);
}

enum drop_reason linkfilter_check_scope(struct linkfilter *lf, const struct url_parts *p)
{
  bool in = in_scope(lf, p);
  if(!lf->rules)
    return in ? DROP_NONE : DROP_SCOPE;
  int rule;
  bool keep = scope_decide(lf->rules, p, in, &rule);
  lf->last = rule;  /* for the log line of the drop */
  return keep ? DROP_NONE : rule < 0 ? DROP_SCOPE : DROP_RULE;
}

const char *linkfilter_rule(const struct linkfilter *lf)
{
  return scope_rule_text(lf->rules, lf->last);
}

bool linkfilter_scope_parse(const char *s, enum linkfilter_scope *out)
{
  static const char *const names[] = { "host", "domain", "any" };
  for(int i = 0; i < 3; i++) {
    if(!strcmp(s, names[i])) {
      *out = (enum linkfilter_scope)i;
      return true;
    }
  }
  return false;
}

void linkfilter_save(const struct linkfilter *lf, struct ckfile *c)
{
  fpset_save(&lf->hosts, c);
  fpset_save(&lf->domains, c);
  scope_save(lf->rules, c);
}

void linkfilter_load(struct linkfilter *lf, struct ckfile *c)
{
  fpset_load(&lf->hosts, c);
  fpset_load(&lf->domains, c);
  scope_load_counts(lf->rules, c);
}
