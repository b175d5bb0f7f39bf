/* Site affinity: every fetch of one host runs on the same fetcher of a
 * fetch_shared, so that the host's kept-alive connection, which lives in
 * one fetcher's libcurl multi handle, carries all its requests. The
 * fetcher a request lands on (the worker whose HTTP server took the
 * gateway's connection) is the origin; the host's hash picks the owner.
 * When they differ, the origin keeps a job in state FORWARDED (so that
 * cancel, the deadline, shutdown and the callback work as for any job)
 * and posts a copy of the request to the owner's mailbox; the owner runs
 * it as an ordinary fetch and posts the result back. Two wake-ups of a
 * uv_async per fetch, no lock held across anything but a list push.
 *
 * A forward (struct fetch_fwd) is counted twice: the origin's job holds
 * one reference until it has the answer or lets go (cancel, deadline,
 * release), the trip the other, until the answer is read or dropped (a
 * mailbox whose fetcher is gone). A trip a fetcher drops without its
 * callback (its release while running) is freed with the shared. The
 * mailboxes belong to the shared, which outlives every fetcher, so a
 * post never touches a freed fetcher: a fetcher that is gone has closed
 * its mailbox, and the request it would have got runs where it came in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/list.h"
#include "common/mem.h"
#include "common/str.h"
#include "llfs/fetch_int.h"

#define FETCH_FWD_MAGIC 0x6f3d2a91u

enum fwd_kind { FWD_ASK, FWD_ANSWER };

struct fetch_fwd {
  unsigned          magic;
  atomic_int        refs;
  enum fwd_kind     kind;
  struct fetch_fwd *next;           /* in a mailbox */
  struct fetch_fwd *lprev, *lnext;  /* on the shared's list of live ones */
  unsigned          from, to;       /* mailbox indexes */
  struct fetch_job *j;              /* the origin's; origin thread only */
  struct fetch_job *remote;         /* the owner's; owner thread only */
  /* the request, as the origin checked and clamped it */
  char             *url;
  char            **headers;
  size_t            nheaders;
  char              pin[64];
  char              req_id[64];
  enum fetch_method method;
  long              connect_ms, timeout_ms;
  size_t            max_body, max_decoded;
  uint64_t          hold_us;
  /* the answer */
  struct fetch_res  res;
  char              detail[CURL_ERROR_SIZE];
};

static void fwd_free(struct fetch_fwd *w)
{
  for(size_t i = 0; i < w->nheaders; i++)
    mem_free(w->headers[i]);
  mem_free(w->headers);
  mem_free(w->url);
  fetch_res_clear(&w->res);
  w->magic = 0;
  mem_free(w);
}

static void fwd_unref(struct fetch_shared *sh, struct fetch_fwd *w)
{
  if(atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1)
    return;
  pthread_mutex_lock(&sh->fwd_mu);
  DLT_UNLINK(sh->fwd_first, sh->fwd_last, w, lprev, lnext);
  pthread_mutex_unlock(&sh->fwd_mu);
  fwd_free(w);
}

/* Into mailbox i; false when no fetcher reads it (none yet, or gone). */
static bool mbox_post(struct fetch_shared *sh, unsigned i, struct fetch_fwd *w)
{
  struct fetch_mbox *m = &sh->mbox[i];
  bool ok;
  w->next = NULL;
  pthread_mutex_lock(&m->mu);
  ok = m->async != NULL;
  if(ok) {
    if(m->last)
      m->last->next = w;
    else
      m->first = w;
    m->last = w;
    uv_async_send(m->async);  /* under the mutex: closing clears it first */
  }
  pthread_mutex_unlock(&m->mu);
  return ok;
}

static struct fetch_fwd *mbox_take_all(struct fetch_mbox *m)
{
  pthread_mutex_lock(&m->mu);
  struct fetch_fwd *w = m->first;
  m->first = m->last = NULL;
  pthread_mutex_unlock(&m->mu);
  return w;
}

/* The owner's answer goes back; if the origin is gone, the trip ends. */
static void fwd_answer(struct fetch_shared *sh, struct fetch_fwd *w)
{
  w->kind = FWD_ANSWER;
  if(!mbox_post(sh, w->from, w))
    fwd_unref(sh, w);
}

/* On the owner's thread: the result moves into the forward, the owner's
 * job releases what is left. */
static void fwd_on_done(struct fetch_res *r, void *arg)
{
  struct fetch_fwd *w = arg;
  CHECK(w && w->magic == FETCH_FWD_MAGIC);
  struct fetch_shared *sh = w->remote->f->shared;
  w->remote = NULL;
  w->res = *r;
  str_copy(w->detail, sizeof w->detail, r->detail ? r->detail : "");
  w->res.detail = w->detail;
  w->res.url = NULL;
  memset(&r->body, 0, sizeof r->body);
  memset(&r->headers, 0, sizeof r->headers);
  r->redirect = NULL;
  fwd_answer(sh, w);
}

static void fwd_run(struct fetcher *f, struct fetch_fwd *w)
{
  struct fetch_req rq = {
    .url = w->url, .method = w->method, .headers = (const char *const *)w->headers,
    .nheaders = w->nheaders, .connect_timeout_ms = w->connect_ms, .timeout_ms = w->timeout_ms,
    .max_body = w->max_body, .max_decoded = w->max_decoded, .pin_addr = w->pin,
    .req_id = w->req_id, .hold_us = w->hold_us,
  };
  enum outcome o = fetch_start(f, &rq, fwd_on_done, w, &w->remote);
  if(o == OUTCOME_OK)
    return;
  w->res.outcome = o;
  str_copy(w->detail, sizeof w->detail, outcome_text(o));
  w->res.detail = w->detail;
  fwd_answer(f->shared, w);
}

/* On the origin's thread: the job ends with the owner's result. */
static void fwd_finish(struct fetcher *f, struct fetch_fwd *w)
{
  struct fetch_job *j = w->j;
  if(j) {
    CHECK(j->magic == FETCH_JOB_MAGIC && j->fwd == w && j->st == JOB_FORWARDED);
    j->fwd = NULL;
    w->j = NULL;
    fetch_res_clear(&j->res);
    j->res = w->res;
    j->res.url = j->u.canon;
    str_copy(j->errbuf, sizeof j->errbuf, w->detail);
    j->res.detail = "";
    memset(&w->res, 0, sizeof w->res);
    uint64_t total = j->res.t.total_us;
    job_finish(j, j->res.outcome, j->errbuf[0] ? j->errbuf : NULL);
    /* The owner's time, from the end of its hold: the gateway multiplies
     * it by its delay factor, so it must not count the hold. */
    j->res.t.total_us = total;
    fwd_unref(f->shared, w);   /* the job's */
  }
  fwd_unref(f->shared, w);     /* the trip's */
}

static void fwd_on_mail(uv_async_t *a)
{
  struct fetcher *f = a->data;
  CHECK(f && f->magic == FETCHER_MAGIC);
  struct fetch_fwd *w = mbox_take_all(&f->shared->mbox[f->route_idx]), *next;
  for(; w; w = next) {
    next = w->next;
    CHECK(w->magic == FETCH_FWD_MAGIC);
    if(w->kind == FWD_ASK)
      fwd_run(f, w);
    else
      fwd_finish(f, w);
  }
}

/* Which of the route_n fetchers carries host. */
static unsigned fetch_fwd_owner(const struct fetch_shared *sh, const char *host)
{
  return (unsigned)(hash_fp64(host, strlen(host)) % sh->route_n);
}

static int fwd_copy_req(struct fetch_fwd *w, const struct fetch_job *j, const struct fetch_req *rq)
{
  size_t n = 0;
  for(const struct curl_slist *l = j->hdrs; l; l = l->next)
    n++;
  if(!(w->url = mem_strdup(j->u.canon)) || (n && !(w->headers = mem_calloc(n, sizeof *w->headers))))
    return -1;
  for(const struct curl_slist *l = j->hdrs; l; l = l->next)
    if(!(w->headers[w->nheaders++] = mem_strdup(l->data)))
      return -1;
  if(j->pinned)
    dns_addr_format(&j->pin, w->pin, sizeof w->pin);
  str_copy(w->req_id, sizeof w->req_id, j->req_id);
  w->method = j->method;
  w->connect_ms = j->connect_ms;
  w->timeout_ms = j->timeout_ms;
  w->max_body = j->max_body;
  w->max_decoded = j->max_decoded;
  w->hold_us = rq->hold_us;
  return 0;
}

int fetch_fwd_try(struct fetch_job *j, const struct fetch_req *rq)
{
  struct fetcher *f = j->f;
  struct fetch_shared *sh = f->shared;
  /* A fetcher without a mailbox could not hear the answer. */
  if(!sh || sh->route_n < 2 || f->route_idx < 0)
    return 0;
  unsigned to = fetch_fwd_owner(sh, j->u.host);
  if(to == (unsigned)f->route_idx)
    return 0;
  struct fetch_fwd *w = mem_calloc(1, sizeof *w);
  if(!w)
    return -1;
  w->magic = FETCH_FWD_MAGIC;
  atomic_init(&w->refs, 2);
  w->kind = FWD_ASK;
  w->to = to;
  w->from = (unsigned)f->route_idx;
  w->j = j;
  fetch_res_init(&w->res, 0, 0);
  if(fwd_copy_req(w, j, rq)) {
    fwd_free(w);
    return -1;
  }
  pthread_mutex_lock(&sh->fwd_mu);
  DLT_PUSH_BACK(sh->fwd_first, sh->fwd_last, w, lprev, lnext);
  pthread_mutex_unlock(&sh->fwd_mu);
  if(!mbox_post(sh, to, w)) {
    atomic_store_explicit(&w->refs, 1, memory_order_relaxed);
    fwd_unref(sh, w);
    return 0;   /* nobody reads there: carry it here */
  }
  j->fwd = w;
  j->forwarded = true;
  return 1;
}

void fetch_fwd_detach(struct fetch_job *j)
{
  struct fetch_fwd *w = j->fwd;
  if(!w)
    return;
  j->fwd = NULL;
  w->j = NULL;
  fwd_unref(j->f->shared, w);
}

void fetch_shared_affinity(struct fetch_shared *sh, unsigned n)
{
  CHECK(sh && sh->magic == FETCH_SHARED_MAGIC && !sh->mbox && n <= FETCH_ROUTE_MAX);
  if(n < 2)
    return;
  sh->mbox = xalloc(n * sizeof *sh->mbox);   /* at start-up: aborts if it cannot */
  for(unsigned i = 0; i < n; i++) {
    pthread_mutex_init(&sh->mbox[i].mu, NULL);
    sh->mbox[i].async = NULL;
    sh->mbox[i].first = sh->mbox[i].last = NULL;
  }
  sh->route_n = n;
}

void fetch_fwd_join(struct fetcher *f)
{
  struct fetch_shared *sh = f->shared;
  f->route_idx = -1;
  if(!sh || sh->route_n < 2)
    return;
  pthread_mutex_lock(&sh->fetchers_mu);
  unsigned idx = sh->route_next++;
  pthread_mutex_unlock(&sh->fetchers_mu);
  if(idx >= sh->route_n)
    return;   /* more fetchers than places: this one only sends */
  f->route_idx = (int)idx;
  uv_async_init(f->loop, &f->mail, fwd_on_mail);
  f->mail.data = f;
  f->open_handles++;
  pthread_mutex_lock(&sh->mbox[idx].mu);
  sh->mbox[idx].async = &f->mail;
  pthread_mutex_unlock(&sh->mbox[idx].mu);
}

/* The fetcher is going: its mailbox closes; what was asked of it runs
 * nowhere (the origin hears shutting_down), what was answered to it is
 * dropped (its job is gone). */
void fetch_fwd_leave(struct fetcher *f)
{
  struct fetch_shared *sh = f->shared;
  if(f->route_idx < 0)
    return;
  struct fetch_mbox *m = &sh->mbox[f->route_idx];
  pthread_mutex_lock(&m->mu);
  m->async = NULL;
  pthread_mutex_unlock(&m->mu);
  struct fetch_fwd *w = mbox_take_all(m), *next;
  for(; w; w = next) {
    next = w->next;
    if(w->kind == FWD_ASK) {
      w->res.outcome = OUTCOME_SHUTTING_DOWN;
      str_copy(w->detail, sizeof w->detail, "the fetcher of the host stopped");
      fwd_answer(sh, w);
    } else {
      fwd_unref(sh, w);
    }
  }
  uv_close((uv_handle_t *)&f->mail, fetch_handle_closed);
  f->route_idx = -1;
}

void fetch_fwd_shared_fini(struct fetch_shared *sh)
{
  struct fetch_fwd *w;
  while((w = sh->fwd_first)) {
    DLT_UNLINK(sh->fwd_first, sh->fwd_last, w, lprev, lnext);
    fwd_free(w);
  }
  for(unsigned i = 0; i < sh->route_n; i++)
    pthread_mutex_destroy(&sh->mbox[i].mu);
  free(sh->mbox);   /* xalloc's: plain malloc */
  sh->mbox = NULL;
  sh->route_n = 0;
}
