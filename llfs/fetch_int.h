#ifndef WPFS_LLFS_FETCH_INT_H
#define WPFS_LLFS_FETCH_INT_H
/* Private to llfs/fetch*.c: the fetcher, its jobs and the seams between
 * the job life cycle (fetch.c), the libcurl glue (fetch_curl.c and its
 * sockets, fetch_sock.c), the URL
 * split (fetch_url.c), results (fetch_res.c) and counters (fetch_stats.c). */
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common/err.h"
#include "common/hrtimer.h"
#include "common/list.h"
#include "common/lru.h"
#include "llfs/fetch.h"
#include "common/log.h"

#define FETCHER_MAGIC   0x4f1c2e97u
#define FETCH_JOB_MAGIC 0x1b6d8a35u


/* Job states; change only through job_state(). */
#define JOB_STATES(X) X(NEW) X(HELD) X(QUEUED) X(RESOLVING) X(TRANSFER) X(FORWARDED) X(DONE) X(CALLING)
enum job_st {
#define X(s) JOB_##s,
  JOB_STATES(X)
#undef X
};

/* Why a transfer was cut short by our own callbacks. */
enum job_over { OVER_NONE, OVER_HEADER, OVER_RAW, OVER_DECODED, OVER_NOMEM };

CLIST_HEAD(job_list, struct fetch_job);

/* Fetches running and waiting, against their limits (fetch_slots.c). */
struct fetch_slots {
  atomic_long active, queued;
  long        max_active, max_queued;
};

struct fetch_url {
  char    *canon;             /* mem-owned */
  char     host[256];         /* IPv6 without brackets */
  unsigned port;
  bool     https;
};

struct fetch_job {
  unsigned          magic;
  struct fetcher   *f;
  enum job_st       st;
  struct fetch_job *prev, *next;   /* on f->held, f->queue, f->active or f->done */
  struct job_list  *on;            /* which of them */
  fetch_cb         *cb;
  void             *arg;
  bool              cancelled;     /* on f->done: drop without calling */
  struct fetch_fwd *fwd;           /* FORWARDED: the request another fetcher runs */
  bool              forwarded;     /* another fetcher ran it (and counted it) */
  /* request */
  struct fetch_url  u;
  enum fetch_method method;
  struct curl_slist *hdrs;
  struct curl_slist *connect_to;    /* CURLOPT_RESOLVE's line when resolve */
  bool              resolve;
  struct dns_addr   pin;
  bool              pinned;
  long              connect_ms, timeout_ms;
  size_t            max_body, max_decoded;
  char              req_id[64];
  /* progress */
  struct dns_waiter *dw;
  CURL             *easy;
  uv_timer_t        timer;         /* the job's deadline */
  uint64_t          t_start, t_admit, t_resolved;  /* monotonic us */
  uint64_t          start_at;      /* held until this monotonic us (fetch_hold.c) */
  uint64_t          deadline_ms;   /* monotonic */
  size_t            hdr_bytes;
  bool              hdr_done;      /* the final response's head is complete */
  enum job_over     over;
  bool              opened;        /* our open-socket callback ran */
  long              keepalive_s;   /* the answer's Keep-Alive: timeout=N (0: none) */
  int               tls;           /* on a connection it opened: -1 no TLS
                                      handshake seen, 0 full, 1 resumed */
  enum guard_verdict sock_blocked; /* open-socket callback refused */
  char              errbuf[CURL_ERROR_SIZE];
  struct fetch_res  res;
};

/* What the fetchers remember per host (fetch_hosts.c). */
#define FETCH_HOST_KEY 264   /* HOST:PORT */
struct fetch_hosts {
  pthread_mutex_t mu;
  struct lru      l;
  size_t          max;
};

/* The watcher of one socket libcurl opened (fetch_sock.c). */
struct fetch_sock {
  uv_poll_t          poll;          /* first: the handle's data is the sock */
  unsigned           magic;
#define FETCH_SOCK_MAGIC 0x3a58c1e7u
  curl_socket_t      fd;
  int                want;          /* UV_READABLE/UV_WRITABLE libcurl wants;
                                       0 while idle in the connection cache */
  int                watching;      /* what the uv_poll is started with */
  bool               closing;
  struct fetcher    *f;
};

struct fetcher {
  unsigned          magic;
  uv_loop_t        *loop;
  struct fetch_cfg  cfg;          /* strings owned */
  struct dns       *dns;
  struct guard     *guard;
  struct fetch_proxy *proxy;      /* NULL: connections go to the targets */
  CURLM            *multi;
  CURLSH           *share;        /* f->shared's, or the fetcher's own */
  struct fetch_shared *shared;    /* NULL: nothing shared */
  struct fetch_slots *slots;      /* &shared->slots, or &own_slots */
  struct fetch_slots own_slots;
  struct fetch_hosts *hosts;      /* &shared->hosts, or &own_hosts */
  struct fetch_hosts own_hosts;
  uv_async_t        pump;         /* shared: another thread freed a slot */
  struct fetcher   *sprev, *snext;  /* on shared->fetchers */
  uv_timer_t        curl_timer;
  uv_timer_t        kick;         /* reaps f->done, admits from f->queue */
  uv_timer_t        stop_timer;   /* shutdown deadline */
  struct fetch_sock **sock_by_fd;  /* watchers by fd number */
  size_t            nsock_by_fd, nsocks;
  struct job_list   held, queue, active, done;  /* held: by start_at */
  struct job_list   fwd;          /* FORWARDED: run by the host's fetcher */
  int               route_idx;    /* this fetcher's mailbox; -1: none */
  uv_async_t        mail;         /* a forward came in (fetch_fwd.c) */
  struct hrtimer    hold_timer;   /* the first held job's start */
  /* Counters are written on the fetcher's thread and read by
   * fetcher_stats from any thread: st under st_mu (uncontended but for a
   * scrape), the two gauges as copies of the list lengths. */
  pthread_mutex_t   st_mu;
  struct fetch_stats st;
  atomic_size_t     n_active, n_queued, n_held;
  int               open_handles;
  bool              curl_global;   /* curl_global_init succeeded */
  bool              shutting, stop_fired, done_called, in_kick, free_pending, freeing;
  fetcher_done_cb  *stop_cb;
  void             *stop_arg;
  /* Finished easy handles, reset and kept for the next fetch: creating one
   * costs an allocation and a large initialization per fetch. */
#define FETCH_EASY_POOL 64
  CURL             *easy_pool[FETCH_EASY_POOL];
  unsigned          neasy_pool;
};

/* fetch.c */
/* Admit queued fetches while slots are free. */
void fetch_pump(struct fetcher *f);
void job_list_remove(struct fetch_job *j);
/* After 'after' (NULL: first). */
void job_list_insert(struct job_list *l, struct fetch_job *after, struct fetch_job *j);
/* The job ended with o (the result is filled as far as it got). */
void job_finish(struct fetch_job *j, enum outcome o, const char *detail);
/* Close callback of every fetcher-owned handle whose data is the fetcher;
 * fetch_unref is the same for handles that carry other data. The last
 * one frees a fetcher that is being released. */
void fetch_handle_closed(uv_handle_t *h);
void fetch_unref(struct fetcher *f);
/* Move the job's deadline timer to ms from now. */
void job_rearm(struct fetch_job *j, uint64_t ms);
/* A slot now, or the queue's tail; false when neither is free. */
bool job_go(struct fetch_job *j);

/* fetch_hold.c */
int  fetch_hold_init(struct fetcher *f, char *err, size_t errlen);
void fetch_hold_fini(struct fetcher *f);
/* Keep the job (it holds a place in the queue) until its start_at. */
void fetch_hold(struct fetch_job *j);

/* fetch_sock.c */
void fetch_sock_init(struct fetcher *f);
void fetch_sock_fini(struct fetcher *f);
/* CURLOPT_OPENSOCKETFUNCTION's socket(2), with its watcher. */
curl_socket_t fetch_sock_open(struct fetcher *f, int family, int type, int protocol);
/* CURLOPT_CLOSESOCKETFUNCTION (clientp: the fetcher, which outlives every
 * connection, unlike the job that opened it). */
int fetch_sock_close(void *clientp, curl_socket_t fd);

/* fetch_curl.c */
int  fetch_curl_init(struct fetcher *f, char *err, size_t errlen);
int  fetch_curl_shared_init(struct fetch_shared *sh, char *err, size_t errlen);
void fetch_curl_shared_fini(struct fetch_shared *sh);
/* Finish the transfers libcurl reports done. */
void fetch_curl_check_done(struct fetcher *f);
void fetch_curl_fini(struct fetcher *f);
/* Start the transfer of a resolved, guarded job; outcome 0 or the error
 * that ended it (the caller then finishes the job). */
enum outcome fetch_curl_start(struct fetch_job *j, const struct dns_addr *a);
/* Take the job's transfer out of libcurl without a result. */
void fetch_curl_abort(struct fetch_job *j);

/* fetch_fwd.c: site affinity over the fetchers of a fetch_shared. */
struct fetch_fwd;
struct fetch_mbox {
  pthread_mutex_t   mu;
  uv_async_t       *async;        /* its fetcher's; NULL while none reads */
  struct fetch_fwd *first, *last;
};
#define FETCH_ROUTE_MAX 256
/* 1: the job (filled, not yet on a list) went to the fetcher of its host;
 * 0: run it here; -1: out of memory. */
int  fetch_fwd_try(struct fetch_job *j, const struct fetch_req *rq);
/* The origin lets go of a forwarded job (cancel, deadline, release). */
void fetch_fwd_detach(struct fetch_job *j);
void fetch_fwd_join(struct fetcher *f);
void fetch_fwd_leave(struct fetcher *f);
void fetch_fwd_shared_fini(struct fetch_shared *sh);

/* fetch_hosts.c */
int  fetch_hosts_init(struct fetch_hosts *hs);
void fetch_hosts_fini(struct fetch_hosts *hs);
void fetch_host_key(const struct fetch_url *u, char *key, size_t len);
/* A connection to key opened; true if it is the first the table knows. */
bool fetch_hosts_opened(struct fetch_hosts *hs, const char *key);
/* The idle time the host said it keeps a connection (Keep-Alive:
 * timeout=N); 0 when it said none. */
void fetch_hosts_set_keepalive(struct fetch_hosts *hs, const char *key, long secs);
long fetch_hosts_keepalive(struct fetch_hosts *hs, const char *key);
/* CURLOPT_SSL_CTX_FUNCTION (arg: the fetcher): session resumption. */
CURLcode fetch_hosts_ssl_ctx(CURL *easy, void *sslctx, void *arg);
/* -1: no TLS handshake known on the transfer's connection; 0: a full one;
 * 1: a resumed one. */
int  fetch_hosts_tls_resumed(CURL *easy);

/* fetch_url.c */
enum outcome fetch_url_split(const char *url, struct fetch_url *out);
void fetch_url_clear(struct fetch_url *u);

/* fetch_res.c */
void   fetch_res_init(struct fetch_res *r, size_t max_header, size_t max_body);
void   fetch_res_clear(struct fetch_res *r);
/* libcurl header callback body: one header line into r->headers. */
size_t fetch_res_header_line(struct fetch_res *r, const char *p, size_t n);

/* fetch_stats.c */
void fetch_stats_finish(struct fetcher *f, const struct fetch_job *j);
void fetch_stats_refused(struct fetcher *f, enum outcome o);
static inline void fetch_stats_lock(struct fetcher *f) { pthread_mutex_lock(&f->st_mu); }
static inline void fetch_stats_unlock(struct fetcher *f) { pthread_mutex_unlock(&f->st_mu); }

/* What the fetchers of one process share (fetch.h): the DNS cache and
 * libcurl's TLS session cache, whose locks are these mutexes. */
struct fetch_shared {
  unsigned           magic;
#define FETCH_SHARED_MAGIC 0x5a4ed0c1u
  struct dns_shared *dns;
  CURLSH            *share;
  bool               curl_global;
  pthread_mutex_t    locks[CURL_LOCK_DATA_LAST];
  struct fetch_slots slots;       /* over every fetcher */
  struct fetch_hosts hosts;       /* connections and TLS sessions by host */
  pthread_mutex_t    fetchers_mu;
  struct fetcher    *fetchers;    /* to wake when a slot is freed */
  /* site affinity (fetch_fwd.c); route_n < 2: none */
  unsigned           route_n, route_next;
  struct fetch_mbox *mbox;        /* route_n of them, by fetcher index */
  pthread_mutex_t    fwd_mu;
  struct fetch_fwd  *fwd_first, *fwd_last;  /* live forwards */
};

/* fetch_slots.c */
bool fetch_slot_take(struct fetcher *f);
void fetch_slot_give(struct fetcher *f);
bool fetch_queue_take(struct fetcher *f);
void fetch_queue_give(struct fetcher *f);
/* No slot free and the queue full (a hint: taking may still fail). */
bool fetch_slots_full(const struct fetcher *f);
void fetch_slots_join(struct fetcher *f);
void fetch_slots_leave(struct fetcher *f);

#endif
