#include "common/list.h"
#include "common/curluv.h"

#include <stdlib.h>

#include "common/mem.h"

#define CURLUV_MAGIC 0x6375c0ffu

CLIST_HEAD(curluv_xfers, struct curluv_xfer);

struct curluv {
  unsigned magic;
  uv_loop_t *loop;
  CURLM *multi;
  uv_timer_t timer;
  struct curluv_xfers xfers;  /* handles added and not done */
  unsigned open_socks;  /* uv_poll handles not yet closed */
  int closing;
};

/* Per-transfer bookkeeping, found through CURLOPT_PRIVATE. */
struct curluv_xfer {
  curluv_done_fn *done;
  void *arg;
  CURL *easy;
  struct curluv_xfer *prev, *next;  /* on curluv.xfers, to remove all at free */
};

CLIST_FUNCS(cx, curluv_xfers, struct curluv_xfer, prev, next)

/* One per socket curl asks us to watch, found through the socket pointer. */

struct curluv_sock {
  uv_poll_t poll;
  struct curluv *c;
  curl_socket_t fd;
};

static void curluv_check_done(struct curluv *c)
{
  CURLMsg *m;
  int left;
  while((m = curl_multi_info_read(c->multi, &left))) {
    if(m->msg != CURLMSG_DONE)
      continue;
    CURL *e = m->easy_handle;
    CURLcode rc = m->data.result;
    struct curluv_xfer *x = NULL;
    curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&x);
    curl_multi_remove_handle(c->multi, e);
    cx_remove(&c->xfers, x);
    curluv_done_fn *done = x->done;
    void *arg = x->arg;
    mem_free(x);
    curl_easy_setopt(e, CURLOPT_PRIVATE, NULL);
    done(e, rc, arg);
  }
}

static void curluv_act(struct curluv *c, curl_socket_t fd, int ev)
{
  int still;
  curl_multi_socket_action(c->multi, fd, ev, &still);
  curluv_check_done(c);
}

static void curluv_on_poll(uv_poll_t *p, int status, int events)
{
  struct curluv_sock *s = p->data;
  int ev = 0;
  /* On a socket error libuv reports no events and stops the handle. Telling
   * curl CSELECT_ERR would make it drop data that arrived before a reset:
   * let it read and write instead, so it sees the error itself. */
  if(status < 0)
    ev = CURL_CSELECT_IN | CURL_CSELECT_OUT;
  if(events & UV_READABLE)
    ev |= CURL_CSELECT_IN;
  if(events & UV_WRITABLE)
    ev |= CURL_CSELECT_OUT;
  curluv_act(s->c, s->fd, ev);
}

static void curluv_on_timer(uv_timer_t *t) { curluv_act(t->data, CURL_SOCKET_TIMEOUT, 0); }

static void curluv_maybe_release(struct curluv *c)
{
  if(c->closing == 2 && c->open_socks == 0) {
    c->magic = 0;
    free(c);
  }
}

static void curluv_sock_closed(uv_handle_t *h)
{
  struct curluv_sock *s = h->data;
  struct curluv *c = s->c;
  c->open_socks--;
  mem_free(s);
  curluv_maybe_release(c);
}

static int curluv_on_socket(CURL *e, curl_socket_t fd, int what, void *userp, void *sockp)
{
  struct curluv *c = userp;
  struct curluv_sock *s = sockp;
  (void)e;
  if(what == CURL_POLL_REMOVE) {
    if(s) {
      /* uv_close stops the poll itself: a uv_poll_stop first would take
       * the descriptor out of epoll twice (the second time failing). */
      curl_multi_assign(c->multi, fd, NULL);
      uv_close((uv_handle_t *)&s->poll, curluv_sock_closed);
    }
    return 0;
  }
  if(!s) {
    s = mem_calloc(1, sizeof *s);
    if(!s || uv_poll_init_socket(c->loop, &s->poll, fd)) {
      mem_free(s);
      return -1;
    }
    s->c = c;
    s->fd = fd;
    s->poll.data = s;
    c->open_socks++;
    curl_multi_assign(c->multi, fd, s);
  }
  int ev = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
  uv_poll_start(&s->poll, ev, curluv_on_poll);
  return 0;
}

static int curluv_on_timeout(CURLM *m, long ms, void *userp)
{
  struct curluv *c = userp;
  (void)m;
  if(ms < 0)
    uv_timer_stop(&c->timer);
  else  /* even 0 goes through the loop: curl must not be re-entered */
    uv_timer_start(&c->timer, curluv_on_timer, (uint64_t)ms, 0);
  return 0;
}

struct curluv *curluv_new(uv_loop_t *loop)
{
  struct curluv *c = xalloc(sizeof *c);
  c->magic = CURLUV_MAGIC;
  c->loop = loop;
  c->multi = curl_multi_init();
  if(!c->multi) {
    free(c);
    return NULL;
  }
  uv_timer_init(loop, &c->timer);
  c->timer.data = c;
  curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, curluv_on_socket);
  curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
  curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, curluv_on_timeout);
  curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
  return c;
}

CURLM *curluv_multi(struct curluv *c) { return c->multi; }

int curluv_add(struct curluv *c, CURL *easy, curluv_done_fn *done, void *arg)
{
  struct curluv_xfer *x = mem_alloc(sizeof *x);
  if(!x)
    return CURLM_OUT_OF_MEMORY;
  x->done = done;
  x->arg = arg;
  curl_easy_setopt(easy, CURLOPT_PRIVATE, x);
  CURLMcode rc = curl_multi_add_handle(c->multi, easy);
  if(rc != CURLM_OK) {
    curl_easy_setopt(easy, CURLOPT_PRIVATE, NULL);
    mem_free(x);
    return (int)rc;
  }
  x->easy = easy;
  cx_push_front(&c->xfers, x);
  return 0;
}

void curluv_remove(struct curluv *c, CURL *easy)
{
  struct curluv_xfer *x = NULL;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x);
  if(!x)
    return;
  curl_multi_remove_handle(c->multi, easy);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, NULL);
  cx_remove(&c->xfers, x);
  mem_free(x);
}

static void curluv_timer_closed(uv_handle_t *h)
{
  struct curluv *c = h->data;
  c->closing = 2;
  curluv_maybe_release(c);
}

void curluv_free(struct curluv **cp)
{
  struct curluv *c = *cp;
  if(!c)
    return;
  *cp = NULL;
  while(c->xfers.first)
    curluv_remove(c, c->xfers.first->easy);
  curl_multi_cleanup(c->multi);  /* closes sockets: CURL_POLL_REMOVE for each */
  c->closing = 1;
  uv_close((uv_handle_t *)&c->timer, curluv_timer_closed);
}
