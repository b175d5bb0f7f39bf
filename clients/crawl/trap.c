#include "clients/crawl/trap.h"

#include <string.h>

#include "clients/base/fpmap.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/mem.h"

#define SEG_MAX 256  /* segments examined for repeats */

struct trap {
  struct trap_opts o;
  struct fpmap     sites;    /* host -> URLs admitted */
  struct fpmap     queries;  /* host + path -> distinct queries admitted */
  struct fpmap     domains;  /* registrable domain -> hosts admitted */
  uint64_t         untracked;
  bool             cap_said;  /* the host cap named itself in the log */
};

struct trap_opts trap_opts_default(void)
{
  return (struct trap_opts){ 16, 3, 100000, 100, 1000, 64u << 20 };
}

crawl_err trap_open(const struct trap_opts *o, struct trap **out)
{
  struct trap *t = mem_calloc(1, sizeof *t);
  *out = t;
  if(!t)
    return CRAWL_ERR_NOMEM;
  t->o = o ? *o : trap_opts_default();
  fpmap_init(&t->sites, t->o.mem_max / 4);
  fpmap_init(&t->queries, t->o.mem_max / 2);
  fpmap_init(&t->domains, t->o.mem_max / 4);
  return CRAWL_OK;
}

void trap_close(struct trap **tp)
{
  struct trap *t = *tp;
  if(!t)
    return;
  *tp = NULL;
  fpmap_free(&t->sites);
  fpmap_free(&t->queries);
  fpmap_free(&t->domains);
  mem_free(t);
}

static size_t path_len(const struct url_parts *p)
{
  size_t n = strcspn(p->target, "?");
  return n < p->target_len ? n : p->target_len;
}

struct seg {
  const char *p;
  size_t      n;
};

/* Non-empty segments of the path, at most cap of them; the count of all. */
static size_t path_segments(const struct url_parts *p, struct seg *s, size_t cap)
{
  size_t plen = path_len(p), count = 0;
  for(size_t i = 0; i < plen;) {
    size_t n = 0;
    while(i + n < plen && p->target[i + n] != '/')
      n++;
    if(n > 0 && count < cap)
      s[count] = (struct seg){ p->target + i, n };
    count += n > 0;
    i += n + 1;
  }
  return count;
}

static bool repeated(const struct seg *s, size_t n, unsigned limit)
{
  for(size_t i = 0; i < n; i++) {
    unsigned same = 1;
    for(size_t j = i + 1; j < n; j++)
      same += s[j].n == s[i].n && !memcmp(s[j].p, s[i].p, s[i].n);
    if(same >= limit)
      return true;
  }
  return false;
}

enum drop_reason trap_check_path(const struct trap *t, const struct url_parts *p)
{
  struct seg s[SEG_MAX];
  size_t n = path_segments(p, s, SEG_MAX);
  if(t->o.max_path_depth && n > t->o.max_path_depth)
    return DROP_PATH_DEPTH;
  if(t->o.max_segment_repeats > 1 &&
     repeated(s, n < SEG_MAX ? n : SEG_MAX, t->o.max_segment_repeats))
    return DROP_REPEATED_SEGMENTS;
  return DROP_NONE;
}

/* A broad web under one suffix can reach the host cap without anyone
 * having chosen it: the first drop says which domain and which option,
 * once; the rest are counted (drop_domain_hosts). */
static void cap_say(struct trap *t, const char *dom, const char *host)
{
  if(t->cap_said)
    return;
  t->cap_said = true;
  LOG(LOG_WARN, "host cap: registrable domain %s has %u host names, the most "
      "--max-domain-hosts allows; %s and any more host under it are not crawled (said once, "
      "counted in drop_domain_hosts; --max-domain-hosts 0 lifts the cap)", dom,
      t->o.max_domain_hosts, host);
}

/* The counter of key, or NULL when the map is at its budget. */
static uint64_t *counter(struct trap *t, struct fpmap *m, uint64_t key, bool *added)
{
  uint64_t *v = NULL;
  if(fpmap_put(m, key, &v, added) != CRAWL_OK) {
    t->untracked++;
    return NULL;
  }
  return v;
}

static uint64_t query_key(const struct url_parts *p)
{
  uint64_t k[2] = { hash_fp64(p->host, strlen(p->host)), hash_fp64(p->target, path_len(p)) };
  return hash_fp64(k, sizeof k);
}

enum drop_reason trap_admit(struct trap *t, const struct url_parts *p)
{
  bool new_host = false, unused;
  uint64_t *site = counter(t, &t->sites, hash_fp64(p->host, strlen(p->host)), &new_host);
  if(site && t->o.site_budget && *site >= t->o.site_budget)
    return DROP_SITE_BUDGET;
  const char *dom = url_registrable_domain(p->host);
  uint64_t *hosts = new_host ? counter(t, &t->domains, hash_fp64(dom, strlen(dom)), &unused) : NULL;
  if(hosts && t->o.max_domain_hosts && *hosts >= t->o.max_domain_hosts) {
    fpmap_del(&t->sites, hash_fp64(p->host, strlen(p->host)));  /* not admitted */
    cap_say(t, dom, p->host);
    return DROP_DOMAIN_HOSTS;
  }
  bool has_query = path_len(p) < p->target_len;
  uint64_t *q = has_query ? counter(t, &t->queries, query_key(p), &unused) : NULL;
  if(q && t->o.max_query_variants && *q >= t->o.max_query_variants) {
    if(new_host)
      fpmap_del(&t->sites, hash_fp64(p->host, strlen(p->host)));
    return DROP_QUERY_EXPLOSION;
  }
  if(site)
    (*site)++;
  if(hosts)
    (*hosts)++;
  if(q)
    (*q)++;
  return DROP_NONE;
}

static void map_save(const struct fpmap *m, struct ckfile *c)
{
  size_t pos = 0;
  uint64_t k, v;
  ckfile_put_u64(c, m->count);
  while(fpmap_next(m, &pos, &k, &v)) {
    ckfile_put_u64(c, k);
    ckfile_put_u64(c, v);
  }
}

static void map_load(struct fpmap *m, struct ckfile *c)
{
  uint64_t n = ckfile_get_u64(c);
  for(uint64_t i = 0; i < n && !c->err; i++) {
    uint64_t k = ckfile_get_u64(c), *v;
    uint64_t val = ckfile_get_u64(c);
    if(fpmap_put(m, k, &v, NULL) == CRAWL_OK)
      *v = val;
  }
}

void trap_save(const struct trap *t, struct ckfile *c)
{
  map_save(&t->sites, c);
  map_save(&t->queries, c);
  map_save(&t->domains, c);
  ckfile_put_u64(c, t->untracked);
}

void trap_load(struct trap *t, struct ckfile *c)
{
  map_load(&t->sites, c);
  map_load(&t->queries, c);
  map_load(&t->domains, c);
  t->untracked = ckfile_get_u64(c);
}
