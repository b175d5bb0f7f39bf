#include "tests/testweb/tw_churn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"
#include "tests/testweb/tw_fill.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_route.h"
#include "tests/testweb/tw_world.h"

#define CHURN_MAX_PAGES 1000000
#define CHURN_NEVER     UINT64_MAX
/* /churn/changes lists at most this many change times (about 12 MB). */
#define CHURN_CHANGES_MAX 1000000

struct churn_page {
  double   mean_s;      /* mean interval between changes; 0: never changes */
  uint64_t gone_ms;     /* 404/410 from then on (since the start); 0: never */
  uint64_t next_ms;     /* the next change */
  uint64_t changed_ms;  /* when the live version appeared */
  int64_t  born_ms;     /* the first version's last change (<= 0: before the start) */
  uint64_t cursor_ms;   /* freshness is integrated up to here */
  uint64_t fresh_ms;
  uint64_t version, changes, fetches, conditional, not_modified, after_gone;
  int64_t  served;      /* the version the last fetch got; -1: none yet */
  uint64_t rng;
  uint64_t rng0;        /* rng before the first draw: replays the changes */
};

struct tw_churn {
  struct churn_page *p;
  size_t   n;
  uint64_t start_mono, start_wall;
};

static double churn_u(uint64_t *s)  /* (0, 1] */
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return ((double)(*s >> 11) + 1) / 9007199254740992.0;
}

/* The interval to the next change, ms, drawn from *rng. */
static uint64_t churn_draw_from(double mean_s, uint64_t *rng)
{
  return mean_s > 0 ? (uint64_t)(-mean_s * 1000 * log(churn_u(rng))) + 1 : CHURN_NEVER;
}

static uint64_t churn_draw(struct churn_page *p)
{
  return churn_draw_from(p->mean_s, &p->rng);
}

/* Integrate freshness and apply the changes due, up to now (ms since the
 * start). A gone page stops counting when it goes. */
static void churn_advance(struct churn_page *p, uint64_t now)
{
  uint64_t end = p->gone_ms && p->gone_ms < now ? p->gone_ms : now;
  while(p->next_ms <= end) {
    if(p->served == (int64_t)p->version)
      p->fresh_ms += p->next_ms - p->cursor_ms;
    p->cursor_ms = p->changed_ms = p->next_ms;
    p->version++;
    p->changes++;
    uint64_t d = churn_draw(p);
    p->next_ms = d == CHURN_NEVER ? CHURN_NEVER : p->next_ms + d;
  }
  if(end > p->cursor_ms) {
    if(p->served == (int64_t)p->version)
      p->fresh_ms += end - p->cursor_ms;
    p->cursor_ms = end;
  }
}

static uint64_t churn_now(const struct tw_churn *c)
{
  return clock_mono_ms() - c->start_mono;
}

void tw_churn_free(struct tw_churn **cp)
{
  if(!*cp)
    return;
  mem_free((*cp)->p);
  mem_free(*cp);
  *cp = NULL;
}

void tw_churn_serve(struct tw_route *r, long j)
{
  struct tw_churn *c = r->env->w->churn;
  if(!c || j < 0 || (size_t)j >= c->n) {
    tw_route_text(r, 404, "testweb: no churn page %ld (POST /churn on the control port)\n", j);
    return;
  }
  struct churn_page *p = &c->p[j];
  uint64_t now = churn_now(c);
  churn_advance(p, now);
  p->fetches++;
  if(p->gone_ms && now >= p->gone_ms) {
    p->after_gone++;
    tw_route_text(r, j % 2 ? 410 : 404, "testweb: churn page %ld is gone\n", j);
    return;
  }
  bool cond = r->req->inm.p || r->req->ims.p;
  p->conditional += cond;
  p->not_modified += cond && p->served == (int64_t)p->version;
  p->served = (int64_t)p->version;
  r->ctype = "text/html; charset=utf-8";
  buf_addf(&r->pl->body, "<!DOCTYPE html>\n<html><head><title>churn %ld</title></head><body>\n"
           "<p>testweb churn page %ld, version %llu.</p>\n<pre>", j, j,
           (unsigned long long)p->version);
  tw_plan_seg(r->pl, r->pl->body.data, r->pl->body.len, 1);
  uint64_t size = (uint64_t)TW_BEH_OR(&r->beh, size, 2048);
  tw_plan_seg(r->pl, tw_fill_text(), TW_FILL_LEN, size / TW_FILL_LEN);
  tw_plan_seg(r->pl, tw_fill_text(), (size_t)(size % TW_FILL_LEN), 1);
  tw_plan_seg(r->pl, "</pre></body></html>\n", 21, 1);
  if(!TW_BEH_OR(&r->beh, etag, 1))
    return;  /* ?etag=0: no validators, so never a 304 */
  char key[32];
  snprintf(key, sizeof key, "churn/%ld", j);
  tw_route_validators(r, key, p->version);
  int64_t lm_ms = p->version ? (int64_t)p->changed_ms : p->born_ms;
  r->last_modified = ((int64_t)c->start_wall + lm_ms) / 1000;
}

/* ---- Control --------------------------------------------------------------- */

static double qnum(const char *query, const char *name, double def)
{
  size_t n = strlen(name);
  for(const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
    if(!strncmp(p, name, n) && p[n] == '=')
      return strtod(p + n + 1, NULL);
  return def;
}

/* Where in the log range of mean intervals a page falls: uniformly, or,
 * with cluster > 0, inside its site's band of that width (a share of the
 * range) placed uniformly per site, so pages of one site change alike. */
static double churn_place(uint64_t seed, size_t site, double u, double cluster)
{
  if(cluster <= 0)
    return u;
  uint64_t s = (seed + 7) * 0xd6e8feb86659fd93ull ^ (site + 1) * 0x94d049bb133111ebull;
  for(int i = 0; i < 4; i++)
    churn_u(&s);
  return churn_u(&s) * (1 - cluster) + u * cluster;
}

/* With history=1 the first version is not new at the start: its last
 * change lies as far back as the page's process would have left it (the
 * age of a Poisson page's version is exponential of its rate), a page
 * that never changes was last changed 30 to 365 days ago. Drawn from a
 * stream of its own, so the changes after the start are the same with or
 * without a history. */
static int64_t churn_born(uint64_t seed, size_t j, double mean_s)
{
  uint64_t s = (seed + 3) * 0xa0761d6478bd642full ^ (j + 1) * 0xe7037ed1a0b428dbull;
  for(int i = 0; i < 4; i++)
    churn_u(&s);
  double u = churn_u(&s);
  double age_s = mean_s > 0 ? -mean_s * log(u) : (30 + 335 * u) * 86400;
  return -(int64_t)(age_s * 1000);
}

static void churn_page_init(struct churn_page *p, uint64_t seed, size_t j, size_t sites,
                            const double *q)
{
  enum { STATIC, GONE, MIN_S, MAX_S, GONE_S, CLUSTER, HISTORY };
  memset(p, 0, sizeof *p);
  p->rng = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (j + 1) * 0xbf58476d1ce4e5b9ull;
  p->served = -1;
  for(int i = 0; i < 4; i++)
    churn_u(&p->rng);
  double kind = churn_u(&p->rng), u = churn_place(seed, j % sites, churn_u(&p->rng), q[CLUSTER]);
  if(kind >= q[STATIC])
    p->mean_s = exp(log(q[MIN_S]) + u * (log(q[MAX_S]) - log(q[MIN_S])));
  if(kind >= q[STATIC] && kind < q[STATIC] + q[GONE])
    p->gone_ms = (uint64_t)((0.2 + 0.8 * churn_u(&p->rng)) * q[GONE_S] * 1000) + 1;
  p->rng0 = p->rng;
  p->next_ms = churn_draw(p);
  if(q[HISTORY] > 0)
    p->born_ms = churn_born(seed, j, p->mean_s);
}

static int churn_new(struct tw_world *w, const char *query, struct buf *out)
{
  long n = (long)qnum(query, "pages", 300);
  uint64_t seed = (uint64_t)qnum(query, "seed", 1);
  double q[] = { qnum(query, "static", 0.1), qnum(query, "gone", 0.05), qnum(query, "min_s", 2),
                 qnum(query, "max_s", 600), qnum(query, "gone_s", 120),
                 qnum(query, "cluster", 0), qnum(query, "history", 0) };
  if(n < 1 || n > CHURN_MAX_PAGES || q[0] < 0 || q[1] < 0 || q[0] + q[1] > 1 || q[2] <= 0 ||
     q[3] < q[2] || q[4] <= 0 || !(q[5] >= 0 && q[5] <= 1) || (q[6] != 0 && q[6] != 1) ||
     w->n == 0) {
    buf_adds(out, "{\"error\":\"pages 1..1000000, static + gone <= 1, 0 < min_s <= max_s, "
             "gone_s > 0, 0 <= cluster <= 1, history 0 or 1, and a world with sites\"}\n");
    return 400;
  }
  struct tw_churn *c = mem_calloc(1, sizeof *c);
  if(c)
    c->p = mem_calloc((size_t)n, sizeof *c->p);
  if(!c || !c->p) {
    tw_churn_free(&c);
    return 500;
  }
  c->n = (size_t)n;
  for(size_t j = 0; j < c->n; j++)
    churn_page_init(&c->p[j], seed, j, w->n, q);
  c->start_mono = clock_mono_ms();
  c->start_wall = clock_wall_ms();
  tw_churn_free(&w->churn);
  w->churn = c;
  buf_addf(out, "{\"ok\":true,\"pages\":%zu}\n", c->n);
  return 200;
}

static void churn_urls(const struct tw_world *w, struct buf *out)
{
  const struct tw_churn *c = w->churn;
  char base[300];
  for(size_t j = 0; j < c->n; j++) {
    tw_page_base(w, w->sites[j % w->n], base, sizeof base);
    buf_addf(out, "%s/_b/churn/%zu\t%.3f\t%.3f\n", base, j, c->p[j].mean_s,
             (double)c->p[j].gone_ms / 1000);
  }
}

static void churn_fresh(struct tw_churn *c, struct buf *out)
{
  uint64_t now = churn_now(c), fetches = 0, cond = 0, nm = 0, live = 0;
  double sum = 0;
  buf_addf(out, "{\"elapsed_s\":%.3f,\"start_ms\":%llu,\"pages\":[", (double)now / 1000,
           (unsigned long long)c->start_wall);
  for(size_t j = 0; j < c->n; j++) {
    struct churn_page *p = &c->p[j];
    churn_advance(p, now);
    uint64_t span = p->gone_ms && p->gone_ms < now ? p->gone_ms : now;
    double fresh = span ? (double)p->fresh_ms / (double)span : 0;
    buf_addf(out, "%s{\"j\":%zu,\"mean_s\":%.3f,\"gone_s\":%.3f,\"fresh\":%.5f,\"fresh_s\":%.3f,"
             "\"fetches\":%llu,\"changes\":%llu,\"conditional\":%llu,\"not_modified\":%llu,"
             "\"after_gone\":%llu,\"changed_s\":%.3f}", j ? "," : "", j, p->mean_s,
             (double)p->gone_ms / 1000,
             fresh, (double)p->fresh_ms / 1000, (unsigned long long)p->fetches, (unsigned long long)p->changes,
             (unsigned long long)p->conditional, (unsigned long long)p->not_modified,
             (unsigned long long)p->after_gone, (double)p->changed_ms / 1000);
    fetches += p->fetches;
    cond += p->conditional;
    nm += p->not_modified;
    if(!p->gone_ms) {
      live++;
      sum += fresh;
    }
  }
  buf_addf(out, "],\"live\":%llu,\"freshness\":%.5f,\"fetches\":%llu,\"conditional\":%llu,"
           "\"not_modified\":%llu}\n", (unsigned long long)live, live ? sum / (double)live : 0,
           (unsigned long long)fetches, (unsigned long long)cond, (unsigned long long)nm);
}

/* The change times so far (ms after the start), replayed from each
 * page's first random state: per page "j<TAB>born t t ...", born the
 * first version's last change (0, or before the start with history=1),
 * then every change up to to_s (default: now; never later than now, nor
 * after the page went). At most CHURN_CHANGES_MAX times in all: 413
 * beyond, so a long or fast web asks for a shorter span. */
static int churn_changes(const struct tw_churn *c, const char *query, struct buf *out)
{
  uint64_t now = churn_now(c);
  double to_s = qnum(query, "to_s", (double)now / 1000);
  uint64_t to = to_s >= 0 && to_s * 1000 < (double)now ? (uint64_t)(to_s * 1000 + 0.5) : now,
           count = 0;
  for(size_t j = 0; j < c->n; j++) {
    const struct churn_page *p = &c->p[j];
    uint64_t end = p->gone_ms && p->gone_ms < to ? p->gone_ms : to, rng = p->rng0, t = 0;
    buf_addf(out, "%zu\t%lld", j, (long long)p->born_ms);
    for(;;) {
      uint64_t d = churn_draw_from(p->mean_s, &rng);
      if(d == CHURN_NEVER || d > end - t)
        break;
      t += d;
      if(++count > CHURN_CHANGES_MAX) {
        buf_reset(out);
        buf_addf(out, "{\"error\":\"more than %d changes: ask for less (to_s)\"}\n",
                 CHURN_CHANGES_MAX);
        return 413;
      }
      buf_addf(out, " %llu", (unsigned long long)t);
    }
    buf_adds(out, "\n");
  }
  return 200;
}

bool tw_churn_ctl(struct tw_world *w, bool post, const char *path, const char *query,
                  struct buf *out, int *status, const char **ctype)
{
  if(strcmp(path, "/churn") && strncmp(path, "/churn/", 7))
    return false;
  *status = 200;
  if(post && !strcmp(path, "/churn")) {
    *status = churn_new(w, query, out);
  } else if(post) {
    *status = 405;
    buf_adds(out, "{\"error\":\"POST /churn only\"}\n");
  } else if(!w->churn) {
    *status = 404;
    buf_adds(out, "{\"error\":\"no changing web yet: POST /churn\"}\n");
  } else if(!strcmp(path, "/churn/urls")) {
    *ctype = "text/plain";
    churn_urls(w, out);
  } else if(!strcmp(path, "/churn/fresh")) {
    churn_fresh(w->churn, out);
  } else if(!strcmp(path, "/churn/changes")) {
    *status = churn_changes(w->churn, query, out);
    *ctype = *status == 200 ? "text/plain" : *ctype;
  } else {
    *status = 404;
    buf_adds(out, "{\"error\":\"no such churn resource\"}\n");
  }
  return true;
}
