/* The life of a fetch job: admission (in-flight bound, FIFO queue),
 * resolution and guard, transfer, deadline, completion; and the fetcher's
 * own life (creation, graceful shutdown, release). Callbacks to the user
 * run only from the reaper (f->kick), never inside libcurl, c-ares or
 * fetch_start; jobs are freed there too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/list.h"
#include "common/clock.h"
#include "common/mem.h"
#include "common/str.h"
#include "llfs/fetch_int.h"
#include "llfs/proxy.h"

static const char *const job_st_names[] = {
#define X(s) #s,
  JOB_STATES(X)
#undef X
};

static void job_state(struct fetch_job *j, enum job_st to, int line)
{
  if(j->st == to)
    return;
  if(LOG_DEBUG >= log_level) {
    struct log_ctx c = { .req = j->req_id, .url = j->u.canon, .action = "fetching" };
    log_emit(LOG_DEBUG, &c, "job %s -> %s (line %d)", job_st_names[j->st], job_st_names[to],
             line);
  }
  j->st = to;
}
#define JOB_STATE(j, s) job_state((j), JOB_##s, __LINE__)

/* The gauges fetcher_stats reads from other threads. */
static void fetch_publish(struct fetcher *f)
{
  atomic_store_explicit(&f->n_active, f->active.n, memory_order_relaxed);
  atomic_store_explicit(&f->n_queued, f->queue.n, memory_order_relaxed);
  atomic_store_explicit(&f->n_held, f->held.n, memory_order_relaxed);
}

CLIST_FUNCS(jl, job_list, struct fetch_job, prev, next)

static void job_list_push(struct job_list *l, struct fetch_job *j)
{
  CHECK(!j->on);
  jl_push_back(l, j);
  j->on = l;
  fetch_publish(j->f);
}

void job_list_insert(struct job_list *l, struct fetch_job *after, struct fetch_job *j)
{
  CHECK(!j->on);
  if(after)
    jl_insert_after(l, after, j);
  else
    jl_push_front(l, j);
  j->on = l;
  fetch_publish(j->f);
}

void job_list_remove(struct fetch_job *j)
{
  struct job_list *l = j->on;
  CHECK(l);
  jl_remove(l, j);
  j->on = NULL;
  fetch_publish(j->f);
  if(l == &j->f->active)        /* the slot or place it took (fetch_slots.c) */
    fetch_slot_give(j->f);
  else if(l == &j->f->queue || l == &j->f->held)
    fetch_queue_give(j->f);
}

static void fetch_on_kick(uv_timer_t *t);

static void fetch_kick(struct fetcher *f)
{
  if(!f->freeing && !uv_is_active((uv_handle_t *)&f->kick))
    uv_timer_start(&f->kick, fetch_on_kick, 0, 0);
}

void job_finish(struct fetch_job *j, enum outcome o, const char *detail)
{
  struct fetcher *f = j->f;
  CHECK(j->magic == FETCH_JOB_MAGIC && j->st != JOB_DONE && j->st != JOB_CALLING);
  if(j->on)
    job_list_remove(j);
  j->res.outcome = o;
  if(detail && !j->res.detail[0])
    j->res.detail = detail;
  j->res.t.total_us = clock_mono_us() - j->t_start;
  uv_timer_stop(&j->timer);
  JOB_STATE(j, DONE);
  job_list_push(&f->done, j);
  fetch_kick(f);
}

/* Free the job once libuv has let go of its timer. */
static void job_closed(uv_handle_t *h)
{
  struct fetch_job *j = h->data;
  struct fetcher *f = j->f;
  mem_free(j);
  fetch_unref(f);
}

static void job_release(struct fetch_job *j)
{
  CHECK(!j->on && !j->dw && !j->easy);
  fetch_res_clear(&j->res);
  fetch_url_clear(&j->u);
  curl_slist_free_all(j->hdrs);
  curl_slist_free_all(j->connect_to);
  j->magic = 0;
  uv_close((uv_handle_t *)&j->timer, job_closed);
}

/* Pick the first address the guard allows; count the refused ones. */
static void job_on_addrs(struct fetch_job *j, const struct dns_addr *a, size_t n)
{
  struct fetcher *f = j->f;
  enum guard_verdict first = GUARD_OK;
  for(size_t i = 0; i < n; i++) {
    enum guard_verdict v = guard_check(f->guard, a[i].family, a[i].b);
    if(v == GUARD_OK) {
      JOB_STATE(j, TRANSFER);
      enum outcome o = fetch_curl_start(j, &a[i]);
      if(o)
        job_finish(j, o, "transfer set-up failed");
      return;
    }
    fetch_stats_lock(f);
    f->st.blocked[v]++;
    fetch_stats_unlock(f);
    if(first == GUARD_OK) {
      first = v;
      dns_addr_format(&a[i], j->res.addr, sizeof j->res.addr);
    }
  }
  j->res.blocked = first;
  if(LOG_INFO >= log_level) {
    struct log_ctx c = { .req = j->req_id, .url = j->u.canon, .action = "checking addresses" };
    log_emit(LOG_INFO, &c, "refused: %s is %s (%zu address%s)", j->res.addr,
             guard_verdict_name(first), n, n == 1 ? "" : "es");
  }
  job_finish(j, OUTCOME_BLOCKED_ADDRESS, guard_verdict_name(first));
}

static void job_on_dns(const struct dns_result *r, void *arg)
{
  struct fetch_job *j = arg;
  CHECK(j->magic == FETCH_JOB_MAGIC && j->st == JOB_RESOLVING);
  j->dw = NULL;
  j->t_resolved = clock_mono_us();
  j->res.t.dns_us = j->t_resolved - j->t_admit;
  if(r->outcome) {
    job_finish(j, r->outcome, "resolving");
    return;
  }
  job_on_addrs(j, r->addr, r->naddr);
}

static void job_admit(struct fetch_job *j)
{
  struct fetcher *f = j->f;
  if(j->on)
    job_list_remove(j);
  job_list_push(&f->active, j);
  j->t_admit = clock_mono_us();
  j->res.t.queue_us = j->t_admit - j->t_start;
  /* The site's time starts here: a fetch that waited in the queue gets its
   * whole timeout for resolving and the transfer, or a busy fetcher would
   * make slow-looking sites of fast ones (and the gateway back them off). */
  j->deadline_ms = j->t_admit / 1000 + (uint64_t)j->timeout_ms;
  job_rearm(j, (uint64_t)j->timeout_ms);
  JOB_STATE(j, RESOLVING);
  if(j->pinned) {
    j->t_resolved = j->t_admit;
    job_on_addrs(j, &j->pin, 1);
    return;
  }
  enum outcome o = dns_resolve(f->dns, j->u.host, job_on_dns, j, &j->dw);
  if(o)
    job_finish(j, o, "resolver refused the name");
}

/* Take the job out of whatever it waits on (not the lists). */
static void job_detach(struct fetch_job *j)
{
  fetch_fwd_detach(j);
  if(j->dw)
    dns_cancel(&j->dw);
  if(j->easy)
    fetch_curl_abort(j);
}

static void job_on_deadline(uv_timer_t *t)
{
  struct fetch_job *j = t->data;
  CHECK(j->magic == FETCH_JOB_MAGIC);
  enum job_st st = j->st;
  job_detach(j);
  if(st == JOB_RESOLVING)
    job_finish(j, OUTCOME_DNS_TIMEOUT, "deadline passed while resolving");
  else if(st == JOB_QUEUED || st == JOB_HELD)
    /* The site was never asked: the fetcher could not get to it in time,
     * which is the fetcher's fault (overloaded), not the site's timeout. */
    job_finish(j, OUTCOME_OVERLOADED, "waited in the fetcher's queue past its time");
  else if(st == JOB_FORWARDED)
    job_finish(j, OUTCOME_TIMEOUT, "no answer from the fetcher of the host");
  else
    job_finish(j, OUTCOME_TIMEOUT, "deadline passed during the transfer");
}

void job_rearm(struct fetch_job *j, uint64_t ms)
{
  uv_timer_start(&j->timer, job_on_deadline, ms, 0);
}

void fetch_pump(struct fetcher *f)
{
  while(!f->freeing && f->queue.first && fetch_slot_take(f))
    job_admit(f->queue.first);
}

bool job_go(struct fetch_job *j)
{
  struct fetcher *f = j->f;
  if(!f->queue.n && fetch_slot_take(f)) {
    job_admit(j);
    return true;
  }
  if(!fetch_queue_take(f))
    return false;
  job_list_push(&f->queue, j);
  JOB_STATE(j, QUEUED);
  return true;
}

static void fetch_check_stopped(struct fetcher *f)
{
  if(!f->shutting || f->done_called || f->held.n || f->queue.n || f->active.n || f->done.n ||
     f->fwd.n)
    return;
  f->done_called = true;
  uv_timer_stop(&f->stop_timer);
  if(f->stop_cb)
    f->stop_cb(f->stop_arg);
}

static void fetcher_teardown(struct fetcher *f);

static void fetch_reap(struct fetcher *f)
{
  struct fetch_job *j;
  while((j = f->done.first)) {
    job_list_remove(j);
    if(!j->cancelled && !f->free_pending) {
      if(!j->forwarded)   /* the fetcher that ran it counted it */
        fetch_stats_finish(f, j);
      JOB_STATE(j, CALLING);
      j->cb(&j->res, j->arg);
    }
    job_release(j);
  }
}

static void fetch_on_kick(uv_timer_t *t)
{
  struct fetcher *f = t->data;
  CHECK(f && f->magic == FETCHER_MAGIC);
  f->in_kick = true;
  fetch_reap(f);
  if(!f->free_pending)
    fetch_pump(f);
  if(!f->free_pending)
    fetch_check_stopped(f);
  f->in_kick = false;
  if(f->free_pending)
    fetcher_teardown(f);
}

static long clamp_l(long want, long max) { return want > 0 && want < max ? want : max; }
static size_t clamp_z(size_t want, size_t max) { return want > 0 && want < max ? want : max; }

static enum outcome job_headers(struct fetch_job *j, const struct fetch_req *rq)
{
  for(size_t i = 0; i < rq->nheaders; i++) {
    const char *h = rq->headers[i];
    /* A CR or LF would let a caller smuggle a second header or request. */
    if(!h || strpbrk(h, "\r\n") || !strchr(h, ':') || h[0] == ':')
      return OUTCOME_BAD_REQUEST;
    struct curl_slist *l = curl_slist_append(j->hdrs, h);
    if(!l)
      return OUTCOME_NOMEM;
    j->hdrs = l;
  }
  return OUTCOME_OK;
}

static enum outcome job_fill(struct fetch_job *j, const struct fetch_req *rq)
{
  const struct fetch_cfg *c = &j->f->cfg;
  enum outcome o = fetch_url_split(rq->url ? rq->url : "", &j->u);
  if(o)
    return o;
  if(rq->pin_addr && *rq->pin_addr) {
    if(dns_addr_parse(rq->pin_addr, strlen(rq->pin_addr), &j->pin))
      return OUTCOME_BAD_REQUEST;
    j->pinned = true;
  }
  if((o = job_headers(j, rq)))
    return o;
  j->method = rq->method == FETCH_HEAD ? FETCH_HEAD : FETCH_GET;
  j->connect_ms = clamp_l(rq->connect_timeout_ms, c->connect_timeout_ms);
  j->timeout_ms = clamp_l(rq->timeout_ms, c->timeout_ms);
  j->max_body = clamp_z(rq->max_body, c->max_body_bytes);
  j->max_decoded = clamp_z(rq->max_decoded, c->max_decoded_bytes);
  str_copy(j->req_id, sizeof j->req_id, rq->req_id ? rq->req_id : "");
  fetch_res_init(&j->res, c->max_header_bytes, j->max_decoded);
  j->res.url = j->u.canon;
  return OUTCOME_OK;
}

/* Before the job has a uv handle it can be freed at once. */
static void job_drop_new(struct fetch_job *j)
{
  fetch_res_clear(&j->res);
  fetch_url_clear(&j->u);
  curl_slist_free_all(j->hdrs);
  mem_free(j);
}

enum outcome fetch_start(struct fetcher *f, const struct fetch_req *rq, fetch_cb *cb,
                         void *arg, struct fetch_job **jobp)
{
  CHECK(f && f->magic == FETCHER_MAGIC && cb);
  enum outcome o = OUTCOME_OK;
  struct fetch_job *j = NULL;
  if(jobp)
    *jobp = NULL;
  bool now = false, held = rq->hold_us > 0;
  if(f->shutting || f->freeing)
    o = OUTCOME_SHUTTING_DOWN;
  else if(fetch_slots_full(f))
    o = OUTCOME_OVERLOADED;
  else if(!(j = mem_calloc(1, sizeof *j)))
    o = OUTCOME_NOMEM;
  if(!o) {
    j->magic = FETCH_JOB_MAGIC;
    j->f = f;
    j->cb = cb;
    j->arg = arg;
    j->t_start = clock_mono_us();
    o = job_fill(j, rq);
  }
  /* The fetcher of the host (fetch_fwd.c), or here: a slot now, or a
   * place in the queue (where a held job waits too), or neither. */
  int fw = 0;
  if(!o && (fw = fetch_fwd_try(j, rq)) < 0)
    o = OUTCOME_NOMEM;
  if(!o && !fw && !(now = !held && !f->queue.n && fetch_slot_take(f)) && !fetch_queue_take(f))
    o = OUTCOME_OVERLOADED;
  if(o) {
    if(j)
      job_drop_new(j);
    fetch_stats_refused(f, o);
    return o;
  }
  uv_timer_init(f->loop, &j->timer);
  j->timer.data = j;
  f->open_handles++;
  uint64_t hold_ms = (rq->hold_us + 999) / 1000;
  j->deadline_ms = j->t_start / 1000 + hold_ms + (uint64_t)j->timeout_ms;
  if(fw) {
    /* The host's fetcher keeps the deadline (its queue's, then the
     * fetch's own from admission); this one is the backstop. */
    uv_timer_start(&j->timer, job_on_deadline, hold_ms + 2 * (uint64_t)j->timeout_ms + 5000, 0);
    if(jobp)
      *jobp = j;
    JOB_STATE(j, FORWARDED);
    job_list_push(&f->fwd, j);
    return OUTCOME_OK;
  }
  uv_timer_start(&j->timer, job_on_deadline, hold_ms + (uint64_t)j->timeout_ms, 0);
  fetch_stats_lock(f);
  f->st.accepted++;
  fetch_stats_unlock(f);
  if(jobp)
    *jobp = j;
  if(held) {
    j->start_at = j->t_start + rq->hold_us;
    JOB_STATE(j, HELD);
    fetch_hold(j);
  } else if(now) {
    job_admit(j);
  } else {
    job_list_push(&f->queue, j);
    JOB_STATE(j, QUEUED);
  }
  return OUTCOME_OK;
}

void fetch_cancel(struct fetch_job **jobp)
{
  struct fetch_job *j = *jobp;
  if(!j)
    return;
  *jobp = NULL;
  CHECK(j->magic == FETCH_JOB_MAGIC);
  if(j->st == JOB_CALLING || j->cancelled)
    return;
  fetch_stats_lock(j->f);
  j->f->st.cancelled++;
  fetch_stats_unlock(j->f);
  j->cancelled = true;
  if(j->st == JOB_DONE)
    return;
  job_detach(j);
  job_finish(j, OUTCOME_INTERNAL, "cancelled");
}

static void fetch_on_stop_deadline(uv_timer_t *t)
{
  struct fetcher *f = t->data;
  CHECK(f && f->magic == FETCHER_MAGIC);
  struct job_list *lists[4] = { &f->held, &f->queue, &f->active, &f->fwd };
  for(int i = 0; i < 4; i++)
    while(lists[i]->first) {
      struct fetch_job *j = lists[i]->first;
      job_detach(j);
      job_finish(j, OUTCOME_SHUTTING_DOWN, "stopped at the shutdown deadline");
    }
}

void fetcher_shutdown(struct fetcher *f, long deadline_ms, fetcher_done_cb *done, void *arg)
{
  CHECK(f && f->magic == FETCHER_MAGIC);
  if(f->shutting)
    return;
  f->shutting = true;
  f->stop_cb = done;
  f->stop_arg = arg;
  uv_timer_start(&f->stop_timer, fetch_on_stop_deadline,
                 deadline_ms > 0 ? (uint64_t)deadline_ms : 0, 0);
  fetch_kick(f);
}

static int fetch_copy_str(char **dst, const char *src)
{
  *dst = NULL;
  if(!src)
    return 0;
  *dst = mem_strdup(src);
  return *dst ? 0 : -1;
}

static int fetch_copy_cfg(struct fetch_cfg *dst, const struct fetch_cfg *src)
{
  *dst = *src;
  int rc = fetch_copy_str(&dst->allow_cidrs, src->allow_cidrs);
  rc |= fetch_copy_str(&dst->dns_servers, src->dns_servers);
  rc |= fetch_copy_str(&dst->tls_ca_file, src->tls_ca_file);
  rc |= fetch_copy_str(&dst->proxy, src->proxy);
  rc |= fetch_copy_str(&dst->user_agent, src->user_agent ? src->user_agent : "wpfs-llfs");
  return rc;
}

static void fetch_free_cfg(struct fetch_cfg *c)
{
  mem_free(c->allow_cidrs);
  mem_free(c->dns_servers);
  mem_free(c->tls_ca_file);
  mem_free(c->proxy);
  mem_free(c->user_agent);
  memset(c, 0, sizeof *c);
}

static struct dns_cfg fetch_dns_cfg(const struct fetch_cfg *c)
{
  struct dns_cfg dc = {
    .servers = c->dns_servers,
    .ttl_floor_s = c->dns_ttl_floor_s,
    .ttl_ceiling_s = c->dns_ttl_ceiling_s,
    .negative_ttl_s = c->dns_negative_ttl_s,
    .timeout_ms = c->dns_timeout_ms,
    .cache_max = c->dns_cache_max > 0 ? (size_t)c->dns_cache_max : 1,
  };
  return dc;
}

static struct dns *fetch_dns_new(struct fetcher *f, char *err, size_t errlen)
{
  struct dns_cfg dc = fetch_dns_cfg(&f->cfg);
  return dns_new(f->loop, &dc, err, errlen);
}

struct fetch_shared *fetch_shared_new(const struct fetch_cfg *cfg, char *err, size_t errlen)
{
  struct fetch_shared *sh = mem_calloc(1, sizeof *sh);
  struct dns_cfg dc = fetch_dns_cfg(cfg);
  if(!sh) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  sh->magic = FETCH_SHARED_MAGIC;
  for(int i = 0; i < CURL_LOCK_DATA_LAST; i++)
    pthread_mutex_init(&sh->locks[i], NULL);
  pthread_mutex_init(&sh->fetchers_mu, NULL);
  pthread_mutex_init(&sh->fwd_mu, NULL);
  sh->slots.max_active = cfg->max_in_flight > 0 ? cfg->max_in_flight : 1;
  sh->slots.max_queued = cfg->max_queue;
  if(!(sh->dns = dns_shared_new(&dc, err, errlen)) || fetch_curl_shared_init(sh, err, errlen) ||
     fetch_hosts_init(&sh->hosts)) {
    fetch_shared_free(&sh);
    return NULL;
  }
  return sh;
}

void fetch_shared_free(struct fetch_shared **shp)
{
  struct fetch_shared *sh = *shp;
  if(!sh)
    return;
  *shp = NULL;
  CHECK(sh->magic == FETCH_SHARED_MAGIC);
  fetch_fwd_shared_fini(sh);
  pthread_mutex_destroy(&sh->fwd_mu);
  fetch_curl_shared_fini(sh);
  fetch_hosts_fini(&sh->hosts);
  dns_shared_free(&sh->dns);
  for(int i = 0; i < CURL_LOCK_DATA_LAST; i++)
    pthread_mutex_destroy(&sh->locks[i]);
  pthread_mutex_destroy(&sh->fetchers_mu);
  sh->magic = 0;
  mem_free(sh);
}

struct fetcher *fetcher_new_shared(uv_loop_t *loop, const struct fetch_cfg *cfg,
                                   struct fetch_shared *sh, char *err, size_t errlen)
{
  CHECK(!sh || sh->magic == FETCH_SHARED_MAGIC);
  struct fetcher *f = mem_calloc(1, sizeof *f);
  if(err && errlen)
    err[0] = '\0';
  if(!f || fetch_copy_cfg(&f->cfg, cfg)) {
    snprintf(err, errlen, "out of memory");
    if(f)
      fetch_free_cfg(&f->cfg);
    mem_free(f);
    return NULL;
  }
  f->magic = FETCHER_MAGIC;
  f->loop = loop;
  f->shared = sh;
  pthread_mutex_init(&f->st_mu, NULL);
  if(f->cfg.max_in_flight < 1)
    f->cfg.max_in_flight = 1;
  uv_timer_init(loop, &f->kick);
  uv_timer_init(loop, &f->stop_timer);
  f->kick.data = f->stop_timer.data = f;
  f->open_handles = 2;
  fetch_fwd_join(f);
  fetch_slots_join(f);
  f->dns = sh ? dns_new_shared(loop, sh->dns, err, errlen) : fetch_dns_new(f, err, errlen);
  if(!(f->guard = guard_new(f->cfg.allow_cidrs, err, errlen)) || !f->dns ||
     (f->cfg.proxy && *f->cfg.proxy && !(f->proxy = fetch_proxy_new(f->cfg.proxy, err, errlen))) ||
     fetch_curl_init(f, err, errlen) || fetch_hold_init(f, err, errlen)) {
    fetcher_teardown(f);
    return NULL;
  }
  return f;
}

struct dns *fetcher_dns(struct fetcher *f)
{
  CHECK(f && f->magic == FETCHER_MAGIC);
  return f->dns;
}

const struct guard *fetcher_guard(const struct fetcher *f)
{
  CHECK(f && f->magic == FETCHER_MAGIC);
  return f->guard;
}

void fetch_handle_closed(uv_handle_t *h)
{
  fetch_unref(h->data);
}

void fetch_unref(struct fetcher *f)
{
  CHECK(f && f->magic == FETCHER_MAGIC && f->open_handles > 0);
  if(--f->open_handles > 0 || !f->freeing)
    return;
  fetch_free_cfg(&f->cfg);
  pthread_mutex_destroy(&f->st_mu);
  f->magic = 0;
  mem_free(f);
}

static void fetch_drop_all(struct fetcher *f)
{
  struct job_list *lists[5] = { &f->held, &f->queue, &f->active, &f->fwd, &f->done };
  for(int i = 0; i < 5; i++)
    while(lists[i]->first) {
      struct fetch_job *j = lists[i]->first;
      job_list_remove(j);
      job_detach(j);
      job_release(j);
    }
}

static void fetcher_teardown(struct fetcher *f)
{
  f->freeing = true;
  f->free_pending = false;
  fetch_fwd_leave(f);
  fetch_drop_all(f);
  fetch_slots_leave(f);
  fetch_curl_fini(f);
  fetch_hold_fini(f);
  dns_free(&f->dns);
  guard_free(&f->guard);
  fetch_proxy_free(&f->proxy);
  uv_close((uv_handle_t *)&f->kick, fetch_handle_closed);
  uv_close((uv_handle_t *)&f->stop_timer, fetch_handle_closed);
}

void fetcher_free(struct fetcher **fp)
{
  struct fetcher *f = *fp;
  if(!f)
    return;
  *fp = NULL;
  CHECK(f->magic == FETCHER_MAGIC && !f->freeing);
  if(f->in_kick) {
    f->free_pending = true;   /* torn down when the reaper returns */
    return;
  }
  fetcher_teardown(f);
}
