/* The topical web on the control endpoint (docs/testweb.md):
 *   GET /topics             the world: topics, labels per topic, the target's sites
 *   GET /topics/labels      "host path topic" for every page (text)
 *   GET /topics/harvest     the harvest rate of what the sites were asked, in
 *                           the order the requests arrived: ?topic=0&at=100,500
 *   GET /topics/simulate    a crawl of the link graph: ?strategy=bfs|oracle
 *                           &seeds=site1.test,...&max=N&at=...&topic=0
 * The harvest is measured from the server's side: a page request counts,
 * and counts as relevant when the page's label is the topic, whoever asked. */
#include "tests/testweb/tw_topic_ctl.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "tests/testweb/tw_page.h"

#define AT_MAX    32
#define SEEDS_MAX 256
#define PARAM_MAX 4096

/* The value of query parameter name into v (cut at its size); false when absent. */
static bool qparam(const char *query, const char *name, char *v, size_t vsize)
{
  size_t n = strlen(name);
  for(const char *p = query; p && *p;) {
    const char *amp = strchr(p, '&');
    size_t len = amp ? (size_t)(amp - p) : strlen(p);
    if(len > n && !strncmp(p, name, n) && p[n] == '=') {
      size_t vl = len - n - 1 < vsize - 1 ? len - n - 1 : vsize - 1;
      memcpy(v, p + n + 1, vl);
      v[vl] = '\0';
      return true;
    }
    p = amp ? amp + 1 : NULL;
  }
  return false;
}

static long qlong(const char *query, const char *name, long def)
{
  char v[32];
  return qparam(query, name, v, sizeof v) ? strtol(v, NULL, 10) : def;
}

/* "100,500,1000": the page counts to report at. */
static size_t parse_at(const char *query, uint64_t *at)
{
  char v[PARAM_MAX];
  if(!qparam(query, "at", v, sizeof v))
    snprintf(v, sizeof v, "100,500,1000,2000");
  size_t n = 0;
  for(char *p = v; *p && n < AT_MAX;) {
    char *end;
    unsigned long long x = strtoull(p, &end, 10);
    if(end == p)
      break;
    if(x > 0)
      at[n++] = x;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* {"100":0.93,...} for the counts reached. */
static void at_json(struct buf *out, const uint64_t *at, const uint64_t *rel, size_t nat,
                    uint64_t pages)
{
  buf_adds(out, "\"at\":{");
  bool first = true;
  for(size_t i = 0; i < nat; i++) {
    if(at[i] > pages)
      continue;
    buf_addf(out, "%s\"%llu\":%.4f", first ? "" : ",", (unsigned long long)at[i],
             (double)rel[i] / (double)at[i]);
    first = false;
  }
  buf_addc(out, '}');
}

/* ---- The world ---------------------------------------------------------------- */

static void ctl_summary(const struct tw_world *w, struct buf *out)
{
  const struct tw_topics *t = w->topics;
  size_t per[TW_TOPIC_MAX] = { 0 }, total = (size_t)t->sites * (size_t)t->pages;
  for(size_t p = 0; p < total; p++)
    per[t->page_topic[p]]++;
  buf_addf(out, "{\"topics\":%ld,\"sites\":%ld,\"pages\":%zu,\"links\":%ld,\"names\":[",
           t->o.topics, t->sites, total, t->links);
  for(long k = 0; k < t->o.topics; k++)
    buf_addf(out, "%s\"%s\"", k ? "," : "", tw_topic_name((size_t)k));
  buf_adds(out, "],\"labels\":[");
  for(long k = 0; k < t->o.topics; k++)
    buf_addf(out, "%s%zu", k ? "," : "", per[k]);
  buf_addf(out, "],\"target\":{\"topic\":0,\"pages\":%zu,\"share\":%.4f,\"hidden_pages\":%zu,"
           "\"sites\":[", per[0], (double)per[0] / (double)total, t->n_hidden);
  for(long s = 0, n = 0; s < t->sites; s++)
    if(t->site_topic[s] == 0)
      buf_addf(out, "%s{\"site\":\"%s\",\"hidden\":%s}", n++ ? "," : "",
               tw_site_host(w->sites[s]), t->site_hidden[s] ? "true" : "false");
  buf_addf(out, "]},\"options\":{\"share\":%g,\"purity\":%g,\"local\":%g,\"named\":%g,"
           "\"hidden\":%g,\"bridge\":%g,\"context\":%g,\"overlap\":%g,\"words\":%ld}}\n",
           t->o.share, t->o.purity, t->o.local, t->o.named, t->o.hidden, t->o.bridge,
           t->o.context, t->o.overlap, t->o.words);
}

static void ctl_labels(const struct tw_world *w, struct buf *out)
{
  const struct tw_topics *t = w->topics;
  for(long s = 0; s < t->sites; s++)
    for(long j = 0; j < t->pages; j++) {
      if(j == 0)
        buf_addf(out, "%s / %d\n", tw_site_host(w->sites[s]), tw_topic_of(t, (size_t)s, 0));
      else
        buf_addf(out, "%s /p/%ld.html %d\n", tw_site_host(w->sites[s]), j,
                 tw_topic_of(t, (size_t)s, j));
    }
}

/* ---- Harvest from the records --------------------------------------------------- */

struct fetch {
  uint64_t arrive_us;
  int      topic;
};

static int fetch_cmp(const void *a, const void *b)
{
  uint64_t x = ((const struct fetch *)a)->arrive_us, y = ((const struct fetch *)b)->arrive_us;
  return x < y ? -1 : x > y;
}

/* Every page request the topical sites kept, in arrival order. */
static struct fetch *collect(const struct tw_world *w, size_t *n)
{
  const struct tw_topics *t = w->topics;
  size_t cap = 0;
  for(long s = 0; s < t->sites; s++)
    cap += w->sites[s]->rec.n;
  struct fetch *v = mem_alloc((cap ? cap : 1) * sizeof *v);
  *n = 0;
  for(long s = 0; v && s < t->sites; s++) {
    const struct tw_site *site = w->sites[s];
    const struct tw_rec *r = &site->rec;
    for(size_t i = 0; i < r->n; i++) {
      const struct tw_rec_ent *e = &r->ring[(r->head + i) % r->cap];
      const char *path = e->text ? e->text : "";
      long j = tw_page_number(site, path, strcspn(path, "?"));
      if(e->method != TW_M_GET || j < 0)
        continue;  /* robots.txt, sitemaps, other methods */
      v[(*n)++] = (struct fetch){ e->arrive_us, tw_topic_of(t, (size_t)s, j) };
    }
  }
  if(v)
    qsort(v, *n, sizeof *v, fetch_cmp);
  return v;
}

static int ctl_harvest(const struct tw_world *w, const char *query, struct buf *out)
{
  uint64_t at[AT_MAX], rel_at[AT_MAX] = { 0 };
  size_t nat = parse_at(query, at), n;
  long topic = qlong(query, "topic", 0);
  struct fetch *v = collect(w, &n);
  if(!v)
    return 500;
  uint64_t rel = 0;
  for(size_t i = 0; i < n; i++) {
    rel += v[i].topic == topic;
    for(size_t k = 0; k < nat; k++)
      if(at[k] == i + 1)
        rel_at[k] = rel;
  }
  mem_free(v);
  buf_addf(out, "{\"topic\":%ld,\"pages\":%zu,\"relevant\":%llu,\"harvest\":%.4f,", topic, n,
           (unsigned long long)rel, n ? (double)rel / (double)n : 0.0);
  at_json(out, at, rel_at, nat, n);
  buf_adds(out, "}\n");
  return 200;
}

/* ---- A crawl simulated on the link graph ------------------------------------------ */

struct sim {
  const struct tw_topics *t;
  long      topic;
  bool      oracle;
  uint8_t  *seen;
  uint32_t *q[2];       /* oracle: [0] relevant first, [1] the rest; bfs: [1] only */
  size_t    head[2], tail[2];
};

static void sim_push(struct sim *s, uint32_t p)
{
  if(s->seen[p])
    return;
  s->seen[p] = 1;
  int k = s->oracle && s->t->page_topic[p] == s->topic ? 0 : 1;
  s->q[k][s->tail[k]++] = p;
}

static bool sim_pop(struct sim *s, uint32_t *p)
{
  for(int k = 0; k < 2; k++)
    if(s->head[k] < s->tail[k]) {
      *p = s->q[k][s->head[k]++];
      return true;
    }
  return false;
}

/* Visit up to max pages; *rel_at filled at the counts of at; returns the
 * pages visited and *rel the relevant ones. */
static uint64_t sim_run(struct sim *s, uint64_t max, const uint64_t *at, size_t nat,
                        uint64_t *rel_at, uint64_t *rel)
{
  const struct tw_topics *t = s->t;
  struct tw_topic_link links[1024];
  uint64_t n = 0;
  uint32_t p;
  *rel = 0;
  while(n < max && sim_pop(s, &p)) {
    n++;
    *rel += t->page_topic[p] == s->topic;
    for(size_t k = 0; k < nat; k++)
      if(at[k] == n)
        rel_at[k] = *rel;
    size_t nl = tw_topic_links(t, p / (uint32_t)t->pages, (long)(p % (uint32_t)t->pages),
                               links, 1024);
    for(size_t i = 0; i < nl; i++)
      sim_push(s, links[i].site * (uint32_t)t->pages + links[i].page);
  }
  return n;
}

/* A seed: "site3.test" (its home page) or a URL of a page. */
static bool seed_page(const struct tw_world *w, const char *seed, uint32_t *p)
{
  const char *host = strstr(seed, "://") ? strstr(seed, "://") + 3 : seed;
  size_t hl = strcspn(host, ":/");
  const char *path = strchr(host, '/') ? strchr(host, '/') : "/";
  const struct tw_site *s = tw_world_by_name(w, host, hl);
  if(!s || s->idx >= (size_t)w->topics->sites)
    return false;
  long j = tw_page_number(s, path, strcspn(path, "?"));
  if(j < 0)
    return false;
  *p = s->idx * (uint32_t)w->topics->pages + (uint32_t)j;
  return true;
}

static int sim_seeds(const struct tw_world *w, const char *query, struct sim *s)
{
  char v[PARAM_MAX];
  int n = 0;
  if(!qparam(query, "seeds", v, sizeof v))
    return 0;
  for(char *tok = v; *tok && n < SEEDS_MAX;) {
    char *comma = strchr(tok, ',');
    if(comma)
      *comma = '\0';
    uint32_t p;
    if(!seed_page(w, tok, &p))
      return -1;
    sim_push(s, p);
    n++;
    tok = comma ? comma + 1 : tok + strlen(tok);
  }
  return n;
}

static int ctl_simulate(const struct tw_world *w, const char *query, struct buf *out)
{
  const struct tw_topics *t = w->topics;
  char strat[16] = "bfs";
  qparam(query, "strategy", strat, sizeof strat);
  if(strcmp(strat, "bfs") && strcmp(strat, "oracle"))
    return 400;
  uint64_t at[AT_MAX], rel_at[AT_MAX] = { 0 }, rel, all_rel;
  size_t nat = parse_at(query, at), total = (size_t)t->sites * (size_t)t->pages;
  uint64_t max = (uint64_t)qlong(query, "max", 2000);
  struct sim s = { t, qlong(query, "topic", 0), !strcmp(strat, "oracle"), NULL, { NULL, NULL },
                   { 0, 0 }, { 0, 0 } };
  s.seen = mem_calloc(total, 1);
  s.q[0] = mem_alloc(total * sizeof(uint32_t));
  s.q[1] = mem_alloc(total * sizeof(uint32_t));
  int status = s.seen && s.q[0] && s.q[1] ? 200 : 500;
  int seeds = status == 200 ? sim_seeds(w, query, &s) : 0;
  if(status == 200 && seeds <= 0)
    status = 400;  /* no seed, or one that is no page of the topical web */
  if(status == 200) {
    uint64_t n = sim_run(&s, max, at, nat, rel_at, &rel);
    buf_addf(out, "{\"strategy\":\"%s\",\"topic\":%ld,\"seeds\":%d,\"pages\":%llu,"
             "\"relevant\":%llu,", strat, s.topic, seeds, (unsigned long long)n,
             (unsigned long long)rel);
    at_json(out, at, rel_at, nat, n);
    /* Everything the seeds reach, and how much of it is relevant. */
    uint64_t reach = sim_run(&s, UINT64_MAX, NULL, 0, NULL, &all_rel);
    buf_addf(out, ",\"reachable\":%llu,\"reachable_relevant\":%llu}\n",
             (unsigned long long)(n + reach), (unsigned long long)(rel + all_rel));
  }
  mem_free(s.seen);
  mem_free(s.q[0]);
  mem_free(s.q[1]);
  return status;
}

bool tw_topic_ctl(const struct tw_world *w, const char *path, const char *query,
                  struct buf *out, int *status, const char **ctype)
{
  if(strcmp(path, "/topics") && strncmp(path, "/topics/", 8))
    return false;
  *status = 200;
  if(!w->topics) {
    *status = 404;
    buf_adds(out, "{\"error\":\"no topical web: start testweb with --topics\"}\n");
  } else if(!strcmp(path, "/topics")) {
    ctl_summary(w, out);
  } else if(!strcmp(path, "/topics/labels")) {
    *ctype = "text/plain";
    ctl_labels(w, out);
  } else if(!strcmp(path, "/topics/harvest")) {
    *status = ctl_harvest(w, query, out);
  } else if(!strcmp(path, "/topics/simulate")) {
    *status = ctl_simulate(w, query, out);
  } else {
    *status = 404;
  }
  if(*status != 200) {
    buf_reset(out);
    *ctype = "application/json";
    buf_addf(out, "{\"error\":\"%s\"}\n", *status == 400 ? "bad query: strategy is bfs or "
             "oracle, seeds are topical sites or their pages" : *status == 404 ?
             "no such topics resource" : "out of memory");
  }
  return true;
}
