/* libcurl's sockets on the loop (multi socket API): one uv_poll per socket,
 * living as long as the socket, and libcurl's timer as a uv_timer.
 *
 * A kept-alive connection goes back and forth between a transfer and the
 * connection cache: libcurl says CURL_POLL_REMOVE when a response is read
 * and CURL_POLL_IN when the next request on it is sent. Re-creating the
 * watcher each time cost two epoll_ctl, an ioctl and an allocation per
 * fetch (libuv's uv_poll_start always removes the fd from epoll and adds
 * it back). So a watcher is made when our open-socket callback creates
 * the socket, found again by fd, and closed only when libcurl closes the
 * socket (CURLOPT_CLOSESOCKETFUNCTION); epoll is told only when the
 * events wanted change. An idle socket stays registered for reading, so
 * a steady fetch on a kept-alive connection costs no epoll_ctl; if the
 * idle socket becomes readable (the server closed it) the watcher stops,
 * and libcurl finds the connection dead when it next looks at it. */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/mem.h"
#include "llfs/fetch_int.h"

static void fs_on_poll(uv_poll_t *p, int status, int events);

/* Watch exactly ev (0: nothing), touching epoll only on a change. */
static void fs_watch(struct fetch_sock *s, int ev)
{
  if(s->watching == ev)
    return;
  s->watching = ev;
  if(ev)
    uv_poll_start(&s->poll, ev, fs_on_poll);
  else
    uv_poll_stop(&s->poll);
}

static void fs_on_poll(uv_poll_t *p, int status, int events)
{
  struct fetch_sock *s = p->data;
  CHECK(s && s->magic == FETCH_SOCK_MAGIC);
  struct fetcher *f = s->f;
  int running, flags = 0;
  if(status < 0)
    s->watching = 0;  /* libuv stopped the handle */
  if(!s->want) {
    fs_watch(s, 0);   /* idle and readable: closed by the server, or junk */
    return;
  }
  /* On a socket error (a reset) libuv stops the handle and reports no
   * events: let libcurl read, so it takes what arrived before the error
   * and finds the errno itself, then watch again if it still wants to. */
  if(status < 0)
    events = UV_READABLE | UV_WRITABLE;
  if(events & UV_READABLE)
    flags |= CURL_CSELECT_IN;
  if(events & UV_WRITABLE)
    flags |= CURL_CSELECT_OUT;
  curl_multi_socket_action(f->multi, s->fd, flags, &running);
  if(status < 0 && !s->closing)
    fs_watch(s, s->want);
  fetch_curl_check_done(f);
}

static void fs_on_uv_timer(uv_timer_t *t)
{
  struct fetcher *f = t->data;
  int running;
  CHECK(f->magic == FETCHER_MAGIC);
  curl_multi_socket_action(f->multi, CURL_SOCKET_TIMEOUT, 0, &running);
  fetch_curl_check_done(f);
}

static int fs_on_timer(CURLM *m, long ms, void *userp)
{
  struct fetcher *f = userp;
  (void)m;
  if(ms < 0)
    uv_timer_stop(&f->curl_timer);
  else
    uv_timer_start(&f->curl_timer, fs_on_uv_timer, (uint64_t)ms, 0);
  return 0;
}

static struct fetch_sock *fs_find(const struct fetcher *f, curl_socket_t fd)
{
  return fd >= 0 && (size_t)fd < f->nsock_by_fd ? f->sock_by_fd[fd] : NULL;
}

static void fs_closed(uv_handle_t *h)
{
  struct fetch_sock *s = h->data;
  struct fetcher *f = s->f;
  s->magic = 0;
  mem_free(s);
  fetch_unref(f);
}

/* Before the socket itself is closed: epoll must forget the fd while it
 * is still ours (uv_close stops the handle at once). */
static void fs_drop(struct fetcher *f, struct fetch_sock *s)
{
  f->sock_by_fd[s->fd] = NULL;
  f->nsocks--;
  s->closing = true;
  uv_close((uv_handle_t *)&s->poll, fs_closed);
}

static int fs_table_fit(struct fetcher *f, curl_socket_t fd)
{
  size_t n = f->nsock_by_fd ? f->nsock_by_fd : 64;
  if((size_t)fd < f->nsock_by_fd)
    return 0;
  while(n <= (size_t)fd)
    n *= 2;
  struct fetch_sock **t = mem_realloc(f->sock_by_fd, n * sizeof *t);
  if(!t)
    return -1;
  for(size_t i = f->nsock_by_fd; i < n; i++)
    t[i] = NULL;
  f->sock_by_fd = t;
  f->nsock_by_fd = n;
  return 0;
}

static struct fetch_sock *fs_new(struct fetcher *f, curl_socket_t fd)
{
  struct fetch_sock *s = NULL;
  if(fd < 0 || fs_table_fit(f, fd) || !(s = mem_calloc(1, sizeof *s)))
    return NULL;
  if(uv_poll_init_socket(f->loop, &s->poll, fd)) {
    mem_free(s);
    return NULL;
  }
  s->magic = FETCH_SOCK_MAGIC;
  s->fd = fd;
  s->f = f;
  s->poll.data = s;
  f->sock_by_fd[fd] = s;
  f->nsocks++;
  f->open_handles++;
  return s;
}

curl_socket_t fetch_sock_open(struct fetcher *f, int family, int type, int protocol)
{
  curl_socket_t fd = socket(family, type | SOCK_CLOEXEC, protocol);
  if(fd == CURL_SOCKET_BAD)
    return fd;
  /* A watcher left on this fd number means its socket was closed behind
   * our back; it watches nothing of ours now. */
  struct fetch_sock *old = fs_find(f, fd);
  if(old)
    fs_drop(f, old);
  if(!fs_new(f, fd)) {
    close(fd);
    errno = ENOMEM;
    return CURL_SOCKET_BAD;
  }
  return fd;
}

int fetch_sock_close(void *clientp, curl_socket_t fd)
{
  struct fetcher *f = clientp;
  CHECK(f && f->magic == FETCHER_MAGIC);
  struct fetch_sock *s = fs_find(f, fd);
  if(s)
    fs_drop(f, s);
  return close(fd);
}

static int fs_on_socket(CURL *e, curl_socket_t fd, int what, void *userp, void *socketp)
{
  struct fetcher *f = userp;
  struct fetch_sock *s = fs_find(f, fd);
  (void)e;
  (void)socketp;
  CHECK(f->magic == FETCHER_MAGIC && (!s || s->magic == FETCH_SOCK_MAGIC));
  if(what == CURL_POLL_REMOVE) {
    if(s) {
      s->want = 0;
      /* Idle in the connection cache: stay registered for reading (no
       * epoll_ctl now or when it is reused), but not for writing, which
       * would wake the loop for nothing. */
      if(s->watching & UV_WRITABLE)
        fs_watch(s, 0);
    }
    return 0;
  }
  /* Every transfer socket comes from fetch_sock_open; one that does not
   * (none today) still gets a watcher, closed when libcurl closes it. */
  if(!s && !(s = fs_new(f, fd)))
    return -1;
  s->want = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
  fs_watch(s, s->want);
  return 0;
}

void fetch_sock_init(struct fetcher *f)
{
  uv_timer_init(f->loop, &f->curl_timer);
  f->curl_timer.data = f;
  f->open_handles++;
  curl_multi_setopt(f->multi, CURLMOPT_SOCKETFUNCTION, fs_on_socket);
  curl_multi_setopt(f->multi, CURLMOPT_SOCKETDATA, f);
  curl_multi_setopt(f->multi, CURLMOPT_TIMERFUNCTION, fs_on_timer);
  curl_multi_setopt(f->multi, CURLMOPT_TIMERDATA, f);
}

/* After curl_multi_cleanup, which closed every connection through
 * fetch_sock_close: what is left was never closed by libcurl. */
void fetch_sock_fini(struct fetcher *f)
{
  for(size_t fd = 0; fd < f->nsock_by_fd && f->nsocks; fd++)
    if(f->sock_by_fd[fd])
      fs_drop(f, f->sock_by_fd[fd]);
  mem_free(f->sock_by_fd);
  f->sock_by_fd = NULL;
  f->nsock_by_fd = 0;
  if(f->curl_timer.data)
    uv_close((uv_handle_t *)&f->curl_timer, fetch_handle_closed);
}
