/* The refresh crawler's planner on a simulated changing web: no network,
 * so many seeds in seconds.
 *
 *   bench_refresh_sim PAGES SITES SEED MIN_S MAX_S CLUSTER RATE SECONDS WINDOW_S [LATENCY_MS]
 *
 * The web is testweb's /churn (tests/testweb/tw_churn.c: the same draws
 * for the same seed, a tenth of the pages never changing, Last-Modified
 * the time of the live version, to the second). The crawler is
 * wpfs-refresh's own pages.c: a token bucket at RATE, a plan every 5 s,
 * the page due first sent (never more than half its interval early),
 * its copy fetched LATENCY_MS (300) later and observed then. Freshness is
 * integrated over the last WINDOW_S seconds and printed as JSON with the
 * uniform, proportional and optimal allocations of the same fetches with
 * the true rates, the share of the gap closed, and the loss split
 * (estimation: the optimum for the crawler's last estimates, judged with
 * the true rates; allocation: the visit rates it planned; the rest). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/refresh/pages.h"
#include "common/mem.h"

#define PLAN_MS 5000
#define TICK_MS 50
#define FLOOR   (1.0 / 86400)
#define T0_MS   1700000000000ull
#ifdef SIM_OLD
#define SIM_PSTATIC(p) 0.0
#define SIM_SHARE(ps)  0.0
#else
#define SIM_PSTATIC(p) (p).p_static
#define SIM_SHARE(ps)  (ps).static_share
#endif

struct web {
  double   mean_s;
  uint64_t next_ms, changed_ms, version, served, rng;
  bool     ever;
  double   fresh_ms;  /* in the window */
  uint64_t fetches;   /* in the window */
  double   plan_f;    /* sum of planned f at the window's visits */
  double   expect_ms; /* freshness expected from the visit times alone */
  uint64_t visit_ms;  /* the last visit (0: none) */
};

static double u01(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return ((double)(*s >> 11) + 1) / 9007199254740992.0;
}

static uint64_t draw(struct web *p)
{
  return p->mean_s > 0 ? (uint64_t)(-p->mean_s * 1000 * log(u01(&p->rng))) + 1 : UINT64_MAX;
}

static double place(uint64_t seed, size_t site, double u, double cluster)
{
  if(cluster <= 0)
    return u;
  uint64_t s = (seed + 7) * 0xd6e8feb86659fd93ull ^ (site + 1) * 0x94d049bb133111ebull;
  for(int i = 0; i < 4; i++)
    u01(&s);
  return u01(&s) * (1 - cluster) + u * cluster;
}

static void web_init(struct web *p, uint64_t seed, size_t j, size_t sites, double min_s,
                     double max_s, double cluster)
{
  memset(p, 0, sizeof *p);
  p->rng = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (j + 1) * 0xbf58476d1ce4e5b9ull;
  for(int i = 0; i < 4; i++)
    u01(&p->rng);
  double kind = u01(&p->rng), u = place(seed, j % sites, u01(&p->rng), cluster);
  if(kind >= 0.1)
    p->mean_s = exp(log(min_s) + u * (log(max_s) - log(min_s)));
  p->next_ms = draw(p);
}

/* Changes up to t, freshness integrated over [w0, t] from `from`. */
static void web_advance(struct web *p, uint64_t from, uint64_t t, uint64_t w0)
{
  uint64_t cur = from;
  while(p->next_ms <= t) {
    if(p->ever && p->served == p->version && p->next_ms > w0)
      p->fresh_ms += (double)(p->next_ms - (cur > w0 ? cur : w0));
    cur = p->changed_ms = p->next_ms;
    p->version++;
    uint64_t d = draw(p);
    p->next_ms = d == UINT64_MAX ? UINT64_MAX : p->next_ms + d;
  }
  if(p->ever && p->served == p->version && t > w0)
    p->fresh_ms += (double)(t - (cur > w0 ? cur : w0));
}

/* The expected freshness of the window from a page's visit times: after
 * a visit at v, e^(-lambda (s - v)) at time s, integrated over the part
 * of [v, t] in the window; it leaves out the noise of when the changes
 * fell. */
static void web_expect(struct web *p, uint64_t t, uint64_t w0)
{
  if(!p->visit_ms && !p->ever)
    return;
  double v = (double)p->visit_ms, a = (double)(p->visit_ms > w0 ? p->visit_ms : w0), b = (double)t;
  if(b <= a)
    return;
  double l = p->mean_s > 0 ? 1 / (p->mean_s * 1000) : 0;
  p->expect_ms += l > 0 ? (exp(-l * (a - v)) - exp(-l * (b - v))) / l : b - a;
}

struct pending {
  size_t   page;
  uint64_t at;
};

int main(int argc, char **argv)
{
  if(argc < 10) {
    fprintf(stderr, "usage: bench_refresh_sim PAGES SITES SEED MIN_S MAX_S CLUSTER RATE "
            "SECONDS WINDOW_S [LATENCY_MS]\n");
    return 1;
  }
  size_t n = (size_t)atol(argv[1]), sites = (size_t)atol(argv[2]);
  uint64_t seed = (uint64_t)atoll(argv[3]);
  double min_s = atof(argv[4]), max_s = atof(argv[5]), cluster = atof(argv[6]),
         rate = atof(argv[7]);
  uint64_t dur = (uint64_t)(atof(argv[8]) * 1000), w0 = dur - (uint64_t)(atof(argv[9]) * 1000);
  uint64_t lat = argc > 10 ? (uint64_t)atol(argv[10]) : 300;
  struct web *web = mem_calloc(n, sizeof *web);
  struct pending *q = mem_calloc(n + 1, sizeof *q);
  uint64_t *seen_at = mem_calloc(n, sizeof *seen_at);
  struct rf_pages ps;
  rf_pages_init(&ps, n, 3, 86400);
  for(size_t j = 0; j < n; j++) {
    web_init(&web[j], seed, j, sites, min_s, max_s, cluster);
    char url[128];
    bool added;
    snprintf(url, sizeof url, "http://s%zu.test/_b/churn/%zu", j % sites, j);
    rf_pages_add(&ps, url, 1, T0_MS + (uint64_t)((double)j * 1000 / rate), &added);
  }
  size_t nq = 0;
  double tokens = 0;
  uint64_t last_plan = 0, fetches = 0;
  for(uint64_t t = 0; t <= dur; t += TICK_MS) {
    tokens += rate * TICK_MS / 1000;
    tokens = tokens > (rate > 1 ? rate : 1) ? (rate > 1 ? rate : 1) : tokens;
    if(t == 0 || t - last_plan >= PLAN_MS) {
      double sum = 0;
      size_t k = 0;
      for(size_t i = 0; i < n; i++)
        if(ps.v[i].nobs) {
          sum += ps.v[i].lambda;
          k++;
        }
      last_plan = t;
      rf_pages_plan(&ps, RF_OPTIMAL, rate, k ? sum / (double)k : rate / (double)n, T0_MS + t);
    }
    /* Results whose fetch time has come. */
    for(size_t i = 0; i < nq;) {
      if(q[i].at > t) {
        i++;
        continue;
      }
      size_t j = q[i].page;
      struct web *w = &web[j];
      struct rf_page *p = &ps.v[j];
      web_advance(w, seen_at[j], q[i].at, w0);
      seen_at[j] = q[i].at;
      enum rf_seen s = !w->ever ? RF_SEEN_FIRST
                       : w->served == w->version ? RF_SEEN_UNCHANGED : RF_SEEN_CHANGED;
      web_expect(w, q[i].at, w0);
      w->ever = true;
      w->visit_ms = q[i].at;
      w->served = w->version;
      if(q[i].at > w0) {
        w->fetches++;
        w->plan_f += p->f;
      }
      uint64_t lm = (T0_MS + w->changed_ms) / 1000 * 1000;
      rf_page_observe_lm(&ps, p, s, T0_MS + q[i].at, w->version + 1, lm);
      p->outstanding = false;
      rf_page_replan(&ps, p, T0_MS + q[i].at);
      fetches++;
      q[i] = q[--nq];
    }
    for(struct rf_page *p; tokens >= 1 && (p = rf_pages_top(&ps));) {
      double half = p->f > 0 ? 500 / p->f : 0;
      if(p->due_ms > T0_MS + t && (double)(p->due_ms - T0_MS - t) > half)
        break;
      double iv = p->f > 0 ? 1 / p->f : 86400;
      p->outstanding = true;
      rf_pages_set_due(&ps, p, T0_MS + t + 300000 + (uint64_t)(2000 * iv));
      q[nq++] = (struct pending){ (size_t)(p - ps.v), t + lat };
      tokens -= 1;
    }
  }
  double *lambda = mem_calloc(n, sizeof *lambda), *wt = mem_calloc(n, sizeof *wt),
         *f = mem_calloc(n, sizeof *f), *est = mem_calloc(n, sizeof *est),
         *pf = mem_calloc(n, sizeof *pf), budget = 0, meas = 0, esum = 0;
  size_t ne = 0;
  double span = (double)(dur - w0), expect = 0;
  for(size_t j = 0; j < n; j++) {
    web_advance(&web[j], seen_at[j], dur, w0);
    web_expect(&web[j], dur, w0);
    expect += web[j].expect_ms / span / (double)n;
    seen_at[j] = dur;
    lambda[j] = web[j].mean_s > 0 ? 1 / web[j].mean_s : 0;
    wt[j] = 1;
    budget += (double)web[j].fetches / (span / 1000);
    meas += web[j].fresh_ms / span;
    est[j] = ps.v[j].lambda;
    esum += est[j];
    ne += est[j] > 0;
    pf[j] = web[j].fetches ? web[j].plan_f / (double)web[j].fetches : ps.v[j].f;
  }
  for(size_t j = 0; j < n; j++)
    est[j] = est[j] > 0 ? est[j] : ne ? esum / (double)ne : 1;
  meas /= (double)n;
  double opt = rf_allocate(RF_OPTIMAL, n, lambda, wt, budget, FLOOR, f);
  double uni = rf_allocate(RF_UNIFORM, n, lambda, wt, budget, FLOOR, f);
  rf_allocate(RF_OPTIMAL, n, est, wt, budget, FLOOR, f);
  if(getenv("SIM_DIAG")) {
    /* the estimation loss left when a class of pages gets its true rate */
    static const double lo[] = { -1, 0, 0, 30, 300 }, hi[] = { 0, 30, 300, 1e9, 1e9 };
    for(int c = 0; c < 5; c++) {
      double *e2 = mem_calloc(n, sizeof *e2), fr = 0;
      for(size_t j = 0; j < n; j++) {
        double m = web[j].mean_s;
        bool in = c == 0 ? m == 0 : m > lo[c] && m <= hi[c];
        e2[j] = in ? (m > 0 ? 1 / m : 1e-9) : est[j];
      }
      rf_allocate(RF_OPTIMAL, n, e2, wt, budget, FLOOR, f);
      for(size_t j = 0; j < n; j++)
        fr += rf_freshness(lambda[j], f[j]) / (double)n;
      if(c == 0) fprintf(stderr, "static share %.3f\n", SIM_SHARE(ps));
    fprintf(stderr, "class %d (%g..%g): estimation loss left %.4f\n", c, lo[c], hi[c], opt - fr);
      mem_free(e2);
    }
    double *fo = mem_calloc(n, sizeof *fo);
    rf_allocate(RF_OPTIMAL, n, lambda, wt, budget, FLOOR, fo);
    for(size_t j = 0; j < n; j++)
      fprintf(stderr, "opt %zu true_s %.1f fopt %.5f Fopt %.4f expect %.4f fetches %llu\n", j,
              web[j].mean_s, fo[j], rf_freshness(lambda[j], fo[j]), web[j].expect_ms / span,
              (unsigned long long)web[j].fetches);
    mem_free(fo);
    for(size_t j = 0; j < n; j++)
      fprintf(stderr, "page %zu true_s %.1f est_s %.1f sd %.2f ps %.3f fetches %llu site %zu "
              "planF %.3f meas %.3f pf %.5f\n", j,
              web[j].mean_s, est[j] > 0 ? 1 / est[j] : 0, ps.v[j].sd, SIM_PSTATIC(ps.v[j]),
              (unsigned long long)web[j].fetches, j % sites, rf_freshness(lambda[j], pf[j]),
              web[j].fresh_ms / span, pf[j]);
  }
  for(size_t j = 0; j < n; j++)
    wt[j] = 1 - SIM_PSTATIC(ps.v[j]);
  rf_allocate(RF_OPTIMAL, n, est, wt, budget, FLOOR, f);
  double eopt = 0, plan = 0;
  for(size_t j = 0; j < n; j++) {
    eopt += rf_freshness(lambda[j], f[j]) / (double)n;
    plan += rf_freshness(lambda[j], pf[j]) / (double)n;
  }
  printf("{\"seed\":%llu,\"fetches_per_s\":%.3f,\"measured\":%.4f,\"uniform\":%.4f,"
         "\"optimal\":%.4f,\"planned\":%.4f,\"expected\":%.4f,\"closed\":%.3f,\"loss_estimation\":%.4f,\"loss_allocation\":%.4f,"
         "\"loss_rest\":%.4f}\n", (unsigned long long)seed, budget, meas, uni, opt, plan, expect,
         (meas - uni) / (opt - uni), opt - eopt, eopt - plan, plan - meas);
  rf_pages_free(&ps);
  mem_free(web);
  mem_free(q);
  mem_free(seen_at);
  mem_free(lambda);
  mem_free(wt);
  mem_free(f);
  mem_free(est);
  mem_free(pf);
  return 0;
}
