/* Lingering close, as nginx's lingering_close: a request answered at its
 * head (refused: no key, no route, a body over the limit) leaves its body
 * unread, and MHD then closes the socket. A close with unread bytes makes
 * the kernel send a reset, and a client still writing its body (or one
 * that writes it all before it reads) loses the answer that was already
 * on its way: it sees ECONNRESET, not the 401. So the socket is kept
 * (dup(2), MHD's close then only drops its own descriptor): its write side
 * is shut (the client reads the answer, then end of file) and whatever
 * the client still sends is read and dropped, until it closes, for at most
 * SRV_LINGER_MS and SRV_LINGER_BYTES; at most SRV_LINGER_MAX sockets at
 * once per server, the rest closed as before. */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/srv_int.h"
#include "common/mem.h"

#define SRV_LINGER_MS    2000
#define SRV_LINGER_BYTES (16u << 20)
#define SRV_LINGER_MAX   64

struct srv_linger {
  uv_poll_t   poll;
  uv_timer_t  timer;
  int         fd;
  size_t      read;
  unsigned    open;    /* handles not yet closed */
  unsigned   *count;   /* the server's lingering sockets */
};

static void linger_closed(uv_handle_t *h)
{
  struct srv_linger *l = h->data;
  if(--l->open)
    return;
  close(l->fd);
  (*l->count)--;
  mem_free(l);
}

static void linger_end(struct srv_linger *l)
{
  if(uv_is_closing((uv_handle_t *)&l->poll))
    return;
  uv_close((uv_handle_t *)&l->poll, linger_closed);
  uv_close((uv_handle_t *)&l->timer, linger_closed);
}

static void linger_on_timer(uv_timer_t *t) { linger_end(t->data); }

static void linger_on_read(uv_poll_t *p, int status, int events)
{
  struct srv_linger *l = p->data;
  char buf[16384];
  (void)events;
  for(;;) {
    ssize_t n = status < 0 ? -1 : read(l->fd, buf, sizeof buf);
    if(n > 0 && (l->read += (size_t)n) <= SRV_LINGER_BYTES)
      continue;
    if(n < 0 && (errno == EAGAIN || errno == EINTR) && status >= 0)
      return;
    linger_end(l);   /* end of file, an error, or enough read */
    return;
  }
}

void srv_linger(uv_loop_t *loop, int fd, unsigned *count)
{
  if(fd < 0 || *count >= SRV_LINGER_MAX)
    return;
  struct srv_linger *l = mem_calloc(1, sizeof *l);
  int d = l ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
  if(d < 0) {
    mem_free(l);
    return;   /* closed at once, as without lingering */
  }
  *l = (struct srv_linger){ .fd = d, .count = count, .open = 2 };
  (*count)++;
  shutdown(d, SHUT_WR);
  fcntl(d, F_SETFL, fcntl(d, F_GETFL) | O_NONBLOCK);
  uv_timer_init(loop, &l->timer);
  l->timer.data = l;
  if(uv_poll_init(loop, &l->poll, d)) {
    l->open = 1;
    uv_close((uv_handle_t *)&l->timer, linger_closed);
    return;
  }
  l->poll.data = l;
  uv_poll_start(&l->poll, UV_READABLE, linger_on_read);
  uv_timer_start(&l->timer, linger_on_timer, SRV_LINGER_MS, 0);
}
