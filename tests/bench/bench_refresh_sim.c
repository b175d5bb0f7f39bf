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
 * the true rates and the crawler's chance that each never changes;
 * allocation: the visit rates it planned; the rest). "expected" is the
 * freshness expected from the visit times alone (e^(-lambda (s - v)) at
 * time s after a visit at v): it leaves out when the changes happened to
 * fall, the noise of one run, and so tells two versions of the planner
 * apart on fewer seeds. "realized_uniform" and "realized_optimal" are
 * what those allocations would have measured on the changes that
 * happened (refresh_realized.h), "closed_realized" the share of that gap
 * closed. SIM_HISTORY=1 gives the pages testweb's history=1 (a first
 * Last-Modified as old as each page's process would have left it).
 * SIM_DIAG=1 adds, on stderr, the estimation loss left when each class of
 * pages (static, changing in under 30 s, ...) gets its true rate, and a
 * line per page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/refresh/pages.h"
#include "common/mem.h"
#include "tests/bench/refresh_realized.h"

#define PLAN_MS 5000
#define TICK_MS 50
#define FLOOR   (1.0 / 86400)
#define T0_MS   1700000000000ull

struct web {
  double   mean_s;
  uint64_t next_ms, changed_ms, version, served, rng;
  bool     ever;
  double   fresh_ms;  /* in the window */
  uint64_t fetches;   /* in the window */
  double   plan_f;    /* sum of planned f at the window's visits */
  double   expect_ms; /* freshness expected from the visit times alone */
  uint64_t visit_ms;  /* the last visit (0: none) */
  uint64_t rng0;      /* rng before the first draw: replays the changes */
  int64_t  born_ms;   /* the first version's last change (SIM_HISTORY) */
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
  p->rng0 = p->rng;
  p->next_ms = draw(p);
  if(getenv("SIM_HISTORY") && atoi(getenv("SIM_HISTORY")) == 1) {  /* tw_churn.c: churn_born */
    uint64_t h = (seed + 3) * 0xa0761d6478bd642full ^ (j + 1) * 0xe7037ed1a0b428dbull;
    for(int i = 0; i < 4; i++)
      u01(&h);
    double v = u01(&h), age_s = p->mean_s > 0 ? -p->mean_s * log(v) : (30 + 335 * v) * 86400;
    p->born_ms = -(int64_t)(age_s * 1000);
  }
}

/* What allocation f (visits per second per page) would have measured
 * over [w0, dur] on the changes that happened, a uniform phase each. */
static double web_realized(const struct web *web, size_t n, const double *f, uint64_t w0,
                           uint64_t dur)
{
  double sum = 0, *c = NULL;
  size_t cap = 0;
  for(size_t j = 0; j < n; j++) {
    struct web p = web[j];
    size_t k = 1;  /* c[0]: the change before the start, if any */
    p.rng = p.rng0;
    for(uint64_t t = draw(&p); p.mean_s > 0 && t <= dur; t += draw(&p)) {
      if(k >= cap) {
        double *nc = mem_realloc(c, (cap + 256) * sizeof *c);
        if(!nc)
          break;
        c = nc;
        cap += 256;
      }
      c[k++] = (double)t / 1000;
    }
    if(!c && !(c = mem_alloc((cap = 256) * sizeof *c)))
      return 0;
    c[0] = (double)p.born_ms / 1000;
    bool born = p.born_ms < 0;
    sum += rr_freshness(born ? c : c + 1, born ? k : k - 1, p.mean_s > 0 ? 1 / p.mean_s : 0,
                        f[j] > 0 ? 1 / f[j] : 0, (double)w0 / 1000, (double)dur / 1000);
  }
  mem_free(c);
  return n ? sum / (double)n : 0;
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

struct sim {
  size_t          n, sites, nq;
  double          rate;
  uint64_t        dur, w0, lat;
  struct web     *web;
  uint64_t       *seen_at;   /* freshness integrated up to here, per page */
  struct pending *q;         /* fetches under way */
  struct rf_pages ps;
};

/* wpfs-refresh's plan (refresh.c: rfr_plan), at t ms from the start. */
static void sim_plan(struct sim *m, uint64_t t)
{
  double sum = 0;
  size_t k = 0;
  for(size_t i = 0; i < m->n; i++)
    if(m->ps.v[i].nobs) {
      sum += m->ps.v[i].lambda;
      k++;
    }
  rf_pages_plan(&m->ps, RF_OPTIMAL, m->rate, k ? sum / (double)k : m->rate / (double)m->n,
                T0_MS + t);
}

/* A fetch at `at`: what the page shows, observed as refresh.c does. */
static void sim_fetch(struct sim *m, size_t j, uint64_t at)
{
  struct web *w = &m->web[j];
  struct rf_page *p = &m->ps.v[j];
  web_advance(w, m->seen_at[j], at, m->w0);
  m->seen_at[j] = at;
  enum rf_seen s = !w->ever ? RF_SEEN_FIRST
                   : w->served == w->version ? RF_SEEN_UNCHANGED : RF_SEEN_CHANGED;
  web_expect(w, at, m->w0);
  w->ever = true;
  w->visit_ms = at;
  w->served = w->version;
  if(at > m->w0) {
    w->fetches++;
    w->plan_f += p->f;
  }
  uint64_t lm = (uint64_t)((int64_t)T0_MS + (w->version ? (int64_t)w->changed_ms : w->born_ms)) /
                1000 * 1000;
  rf_page_observe_lm(&m->ps, p, s, T0_MS + at, w->version + 1, lm);
  p->outstanding = false;
  rf_page_replan(&m->ps, p, T0_MS + at);
}

/* refresh.c's rfr_submit: the page due first, never more than half its
 * interval early, while there are tokens. */
static void sim_send(struct sim *m, uint64_t t, double *tokens)
{
  for(struct rf_page *p; *tokens >= 1 && (p = rf_pages_top(&m->ps));) {
    double half = p->f > 0 ? 500 / p->f : 0;
    if(p->due_ms > T0_MS + t && (double)(p->due_ms - T0_MS - t) > half)
      break;
    double iv = p->f > 0 ? 1 / p->f : 86400;
    p->outstanding = true;
    rf_pages_set_due(&m->ps, p, T0_MS + t + 300000 + (uint64_t)(2000 * iv));
    m->q[m->nq++] = (struct pending){ (size_t)(p - m->ps.v), t + m->lat };
    *tokens -= 1;
  }
}

static void sim_run(struct sim *m)
{
  double tokens = 0, cap = m->rate > 1 ? m->rate : 1;
  uint64_t last_plan = 0;
  for(uint64_t t = 0; t <= m->dur; t += TICK_MS) {
    tokens += m->rate * TICK_MS / 1000;
    tokens = tokens > cap ? cap : tokens;
    if(t == 0 || t - last_plan >= PLAN_MS) {
      last_plan = t;
      sim_plan(m, t);
    }
    for(size_t i = 0; i < m->nq;)
      if(m->q[i].at <= t) {
        sim_fetch(m, m->q[i].page, m->q[i].at);
        m->q[i] = m->q[--m->nq];
      } else {
        i++;
      }
    sim_send(m, t, &tokens);
  }
}

static double mean_fresh(size_t n, const double *lambda, const double *f)
{
  double s = 0;
  for(size_t i = 0; i < n; i++)
    s += rf_freshness(lambda[i], f[i]) / (double)n;
  return s;
}

/* SIM_DIAG: per class of true rate, the estimation loss left when those
 * pages get their true rate; and one line per page. */
static void sim_diag(const struct sim *m, const double *lambda, const double *est,
                     const double *pf, double budget, double opt)
{
  static const double lo[] = { -1, 0, 0, 30, 300 }, hi[] = { 0, 30, 300, 1e9, 1e9 };
  size_t n = m->n;
  double *e2 = mem_calloc(n, sizeof *e2), *w = mem_calloc(n, sizeof *w),
         *f = mem_calloc(n, sizeof *f), span = (double)(m->dur - m->w0);
  fprintf(stderr, "static share %.3f\n", m->ps.static_share);
  for(int c = 0; e2 && w && f && c < 5; c++) {
    for(size_t j = 0; j < n; j++) {
      double s = m->web[j].mean_s;
      bool in = c == 0 ? s == 0 : s > lo[c] && s <= hi[c];
      e2[j] = in ? (s > 0 ? 1 / s : 1e-9) : est[j];
      w[j] = in ? 1 : 1 - m->ps.v[j].p_static;
    }
    rf_allocate(RF_OPTIMAL, n, e2, w, budget, FLOOR, f);
    fprintf(stderr, "class %d (%g..%g s): estimation loss left %.4f\n", c, lo[c], hi[c],
            opt - mean_fresh(n, lambda, f));
  }
  for(size_t j = 0; e2 && w && f && j < n; j++)
    fprintf(stderr, "page %zu true_s %.1f est_s %.1f sd %.2f static %.3f fetches %llu "
            "site %zu planned %.3f expected %.3f measured %.3f\n", j, m->web[j].mean_s,
            est[j] > 0 ? 1 / est[j] : 0, m->ps.v[j].sd, m->ps.v[j].p_static,
            (unsigned long long)m->web[j].fetches, j % m->sites,
            rf_freshness(lambda[j], pf[j]), m->web[j].expect_ms / span,
            m->web[j].fresh_ms / span);
  mem_free(e2);
  mem_free(w);
  mem_free(f);
}

static void sim_report(struct sim *m, uint64_t seed)
{
  size_t n = m->n, ne = 0;
  double *lambda = mem_calloc(n, sizeof *lambda), *w = mem_calloc(n, sizeof *w),
         *f = mem_calloc(n, sizeof *f), *est = mem_calloc(n, sizeof *est),
         *pf = mem_calloc(n, sizeof *pf), budget = 0, meas = 0, esum = 0, expect = 0,
         span = (double)(m->dur - m->w0);
  for(size_t j = 0; lambda && w && f && est && pf && j < n; j++) {
    struct web *p = &m->web[j];
    web_advance(p, m->seen_at[j], m->dur, m->w0);
    web_expect(p, m->dur, m->w0);
    m->seen_at[j] = m->dur;
    expect += p->expect_ms / span / (double)n;
    meas += p->fresh_ms / span / (double)n;
    budget += (double)p->fetches / (span / 1000);
    lambda[j] = p->mean_s > 0 ? 1 / p->mean_s : 0;
    w[j] = 1;
    est[j] = m->ps.v[j].lambda;
    esum += est[j];
    ne += est[j] > 0;
    pf[j] = p->fetches ? p->plan_f / (double)p->fetches : m->ps.v[j].f;
  }
  for(size_t j = 0; lambda && w && f && est && pf && j < n; j++)
    est[j] = est[j] > 0 ? est[j] : ne ? esum / (double)ne : 1;
  double opt = rf_allocate(RF_OPTIMAL, n, lambda, w, budget, FLOOR, f);
  double ropt = web_realized(m->web, n, f, m->w0, m->dur);
  double uni = rf_allocate(RF_UNIFORM, n, lambda, w, budget, FLOOR, f);
  double runi = web_realized(m->web, n, f, m->w0, m->dur);
  if(getenv("SIM_DIAG"))
    sim_diag(m, lambda, est, pf, budget, opt);
  for(size_t j = 0; j < n; j++)
    w[j] = 1 - m->ps.v[j].p_static;
  rf_allocate(RF_OPTIMAL, n, est, w, budget, FLOOR, f);
  double eopt = mean_fresh(n, lambda, f), plan = mean_fresh(n, lambda, pf);
  printf("{\"seed\":%llu,\"fetches_per_s\":%.3f,\"measured\":%.4f,\"expected\":%.4f,"
         "\"uniform\":%.4f,\"optimal\":%.4f,\"planned\":%.4f,\"closed\":%.3f,"
         "\"closed_expected\":%.3f,\"loss_estimation\":%.4f,\"loss_allocation\":%.4f,"
         "\"loss_rest\":%.4f,\"realized_uniform\":%.4f,\"realized_optimal\":%.4f,"
         "\"closed_realized\":%.3f}\n", (unsigned long long)seed, budget, meas, expect, uni, opt,
         plan, (meas - uni) / (opt - uni), (expect - uni) / (opt - uni), opt - eopt,
         eopt - plan, plan - meas, runi, ropt, (meas - runi) / (ropt - runi));
  mem_free(lambda);
  mem_free(w);
  mem_free(f);
  mem_free(est);
  mem_free(pf);
}

int main(int argc, char **argv)
{
  if(argc < 10) {
    fprintf(stderr, "usage: bench_refresh_sim PAGES SITES SEED MIN_S MAX_S CLUSTER RATE "
            "SECONDS WINDOW_S [LATENCY_MS]\n");
    return 1;
  }
  struct sim m = { .n = (size_t)atol(argv[1]), .sites = (size_t)atol(argv[2]),
                   .rate = atof(argv[7]), .dur = (uint64_t)(atof(argv[8]) * 1000),
                   .lat = argc > 10 ? (uint64_t)atol(argv[10]) : 300 };
  uint64_t seed = (uint64_t)atoll(argv[3]), win = (uint64_t)(atof(argv[9]) * 1000);
  if(m.n < 1 || m.n > 1000000 || m.sites < 1 || !(m.rate > 0) || win > m.dur) {
    fprintf(stderr, "bench_refresh_sim: 1..1000000 pages, a site, a rate, WINDOW_S <= SECONDS\n");
    return 1;
  }
  m.w0 = m.dur - win;
  m.web = mem_calloc(m.n, sizeof *m.web);
  m.q = mem_calloc(m.n + 1, sizeof *m.q);
  m.seen_at = mem_calloc(m.n, sizeof *m.seen_at);
  if(!m.web || !m.q || !m.seen_at)
    return 1;
  rf_pages_init(&m.ps, m.n, 3, 86400);
  for(size_t j = 0; j < m.n; j++) {
    web_init(&m.web[j], seed, j, m.sites, atof(argv[4]), atof(argv[5]), atof(argv[6]));
    char url[128];
    bool added;
    snprintf(url, sizeof url, "http://s%zu.test/_b/churn/%zu", j % m.sites, j);
    rf_pages_add(&m.ps, url, 1, T0_MS + (uint64_t)((double)j * 1000 / m.rate), &added);
  }
  sim_run(&m);
  sim_report(&m, seed);
  rf_pages_free(&m.ps);
  mem_free(m.web);
  mem_free(m.q);
  mem_free(m.seen_at);
  return 0;
}
