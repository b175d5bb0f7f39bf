/* freeport [N]: print N (default 1) TCP ports that were free on 127.0.0.1 a
 * moment ago, one per line. For servers that cannot bind port 0 and report
 * it themselves (redis-server, dnsmasq); callers retry on a lost race. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
  int fds[64];
  if(n < 1 || n > 64)
    return 2;
  for(int i = 0; i < n; i++) {
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sa;
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    if(fds[i] < 0 || bind(fds[i], (struct sockaddr *)&sa, sizeof sa) ||
       getsockname(fds[i], (struct sockaddr *)&sa, &len)) {
      perror("freeport");
      return 1;
    }
    printf("%d\n", ntohs(sa.sin_port));
  }
  for(int i = 0; i < n; i++)
    close(fds[i]);
  return 0;
}
