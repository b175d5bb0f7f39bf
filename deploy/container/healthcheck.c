/* wpfs-healthcheck: the container image's HEALTHCHECK, so that the image
 * needs no curl. Exit 0 when the service answers GET PATH with a 2xx status,
 * 1 otherwise; one line on stdout (success) or stderr (failure) says why.
 *
 *   wpfs-healthcheck [PORT | HOST:PORT] [PATH]
 *
 * PATH defaults to /healthz. Without a port it asks every TCP socket that
 * listens in the container's network namespace (/proc/net/tcp and tcp6; at
 * most 16) and succeeds when one of them answers: a wpfs container runs one
 * program, so this finds its port whatever flag or variable set it. A socket
 * bound to the wildcard address is reached on loopback. WPFS_HEALTHCHECK_PROC
 * names another directory than /proc/net (tests). Each attempt has a 1 s
 * deadline for connecting and another for the answer; only libc is used. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_TARGETS 16
#define DEADLINE_MS 1000

struct target {
  struct sockaddr_storage ss;
  socklen_t len;
  char name[INET6_ADDRSTRLEN + 8];
};

static void target_name(struct target *t) {
  char host[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (t->ss.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)&t->ss;
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
    snprintf(t->name, sizeof t->name, "%s:%u", host, port);
  } else {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&t->ss;
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
    snprintf(t->name, sizeof t->name, "[%s]:%u", host, port);
  }
}

static int set_v4(struct target *t, struct in_addr addr, unsigned port) {
  struct sockaddr_in *a = (struct sockaddr_in *)&t->ss;
  memset(t, 0, sizeof *t);
  a->sin_family = AF_INET;
  a->sin_addr = addr;
  a->sin_port = htons((uint16_t)port);
  t->len = sizeof *a;
  target_name(t);
  return 0;
}

static int set_v6(struct target *t, const struct in6_addr *addr, unsigned port) {
  struct sockaddr_in6 *a = (struct sockaddr_in6 *)&t->ss;
  memset(t, 0, sizeof *t);
  a->sin6_family = AF_INET6;
  a->sin6_addr = *addr;
  a->sin6_port = htons((uint16_t)port);
  t->len = sizeof *a;
  target_name(t);
  return 0;
}

/* "8081", "127.0.0.1:8081", "[::1]:8081" */
static int parse_target(const char *s, struct target *t) {
  char host[INET6_ADDRSTRLEN + 2] = "127.0.0.1";
  const char *port_s = s;
  const char *colon = strrchr(s, ':');
  if (colon) {
    size_t n = (size_t)(colon - s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
      s++;
      n -= 2;
    }
    if (n == 0 || n >= sizeof host) return -1;
    memcpy(host, s, n);
    host[n] = '\0';
    port_s = colon + 1;
  }
  char *end;
  errno = 0;
  unsigned long port = strtoul(port_s, &end, 10);
  if (errno || *port_s == '\0' || *end != '\0' || port == 0 || port > 65535) return -1;
  struct in_addr a4;
  struct in6_addr a6;
  if (inet_pton(AF_INET, host, &a4) == 1) return set_v4(t, a4, (unsigned)port);
  if (inet_pton(AF_INET6, host, &a6) == 1) return set_v6(t, &a6, (unsigned)port);
  return -1;
}

/* Listening sockets from /proc/net/tcp (v6 = 0) or tcp6 (v6 = 1). The kernel
 * prints each 32-bit word of the address in host byte order. */
static size_t scan_proc(const char *dir, int v6, struct target *out, size_t n, size_t max) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, v6 ? "tcp6" : "tcp");
  FILE *f = fopen(path, "r");
  if (!f) return n;
  char line[512];
  if (!fgets(line, sizeof line, f)) {  /* header */
    fclose(f);
    return n;
  }
  while (n < max && fgets(line, sizeof line, f)) {
    char local[64], remote[64];
    unsigned state;
    if (sscanf(line, " %*[^:]: %63s %63s %x", local, remote, &state) != 3) continue;
    if (state != 0x0A) continue;  /* TCP_LISTEN */
    char *colon = strchr(local, ':');
    if (!colon) continue;
    *colon = '\0';
    unsigned port = (unsigned)strtoul(colon + 1, NULL, 16);
    if (port == 0) continue;
    if (!v6) {
      if (strlen(local) != 8) continue;
      struct in_addr a;
      a.s_addr = (uint32_t)strtoul(local, NULL, 16);
      if (a.s_addr == htonl(INADDR_ANY)) a.s_addr = htonl(INADDR_LOOPBACK);
      set_v4(&out[n++], a, port);
    } else {
      if (strlen(local) != 32) continue;
      struct in6_addr a;
      for (int w = 0; w < 4; w++) {
        char word[9];
        memcpy(word, local + 8 * w, 8);
        word[8] = '\0';
        uint32_t v = (uint32_t)strtoul(word, NULL, 16);
        memcpy(&a.s6_addr[4 * w], &v, 4);
      }
      if (IN6_IS_ADDR_UNSPECIFIED(&a)) a = in6addr_loopback;
      set_v6(&out[n++], &a, port);
    }
  }
  fclose(f);
  return n;
}

static int wait_fd(int fd, short ev) {
  struct pollfd p = { .fd = fd, .events = ev };
  int r;
  do r = poll(&p, 1, DEADLINE_MS); while (r < 0 && errno == EINTR);
  return r == 1 ? 0 : -1;
}

/* The HTTP status of GET path, or -1 with a reason in why. */
static int http_status(const struct target *t, const char *path, char *why, size_t whylen) {
  int fd = socket(t->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    snprintf(why, whylen, "socket: %s", strerror(errno));
    return -1;
  }
  int status = -1;
  if (connect(fd, (const struct sockaddr *)&t->ss, t->len) < 0) {
    int err = errno;
    socklen_t el = sizeof err;
    if (err != EINPROGRESS || wait_fd(fd, POLLOUT) < 0 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err != 0) {
      snprintf(why, whylen, "connect: %s", err && err != EINPROGRESS ? strerror(err) : "timed out");
      goto out;
    }
  }
  char req[512];
  int rl = snprintf(req, sizeof req,
                    "GET %s HTTP/1.0\r\nHost: localhost\r\nUser-Agent: wpfs-healthcheck\r\n"
                    "Connection: close\r\n\r\n", path);
  if (rl < 0 || (size_t)rl >= sizeof req || send(fd, req, (size_t)rl, MSG_NOSIGNAL) != rl) {
    snprintf(why, whylen, "send failed");
    goto out;
  }
  char buf[256];
  size_t got = 0;
  while (got < sizeof buf - 1 && !memchr(buf, '\n', got)) {
    if (wait_fd(fd, POLLIN) < 0) {
      snprintf(why, whylen, "no answer within %d ms", DEADLINE_MS);
      goto out;
    }
    ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  buf[got] = '\0';
  int code;
  if (sscanf(buf, "HTTP/%*d.%*d %3d", &code) == 1) status = code;
  else snprintf(why, whylen, "not an HTTP answer");
out:
  close(fd);
  return status;
}

int main(int argc, char **argv) {
  struct target targets[MAX_TARGETS];
  size_t n = 0;
  const char *path = "/healthz";
  if (argc > 3 || (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
    fprintf(stderr, "usage: wpfs-healthcheck [PORT | HOST:PORT] [PATH]\n");
    return 2;
  }
  if (argc > 1) {
    if (parse_target(argv[1], &targets[0]) < 0) {
      fprintf(stderr, "wpfs-healthcheck: bad address '%s'\n", argv[1]);
      return 2;
    }
    n = 1;
  }
  if (argc > 2) path = argv[2];
  if (path[0] != '/' || strpbrk(path, " \r\n")) {
    fprintf(stderr, "wpfs-healthcheck: bad path '%s'\n", path);
    return 2;
  }
  if (n == 0) {
    const char *dir = getenv("WPFS_HEALTHCHECK_PROC");
    if (!dir || !*dir) dir = "/proc/net";
    n = scan_proc(dir, 0, targets, n, MAX_TARGETS);
    n = scan_proc(dir, 1, targets, n, MAX_TARGETS);
    if (n == 0) {
      fprintf(stderr, "wpfs-healthcheck: nothing listens here\n");
      return 1;
    }
  }
  for (size_t i = 0; i < n; i++) {
    char why[128] = "";
    int st = http_status(&targets[i], path, why, sizeof why);
    if (st >= 200 && st < 300) {
      printf("healthy: %s%s answered %d\n", targets[i].name, path, st);
      return 0;
    }
    if (st >= 0) fprintf(stderr, "wpfs-healthcheck: %s%s answered %d\n", targets[i].name, path, st);
    else fprintf(stderr, "wpfs-healthcheck: %s%s: %s\n", targets[i].name, path, why);
  }
  return 1;
}
