#include "clients/loop/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"

void progress_init(struct progress *p, int fd)
{
  memset(p, 0, sizeof *p);
  p->fd = fd;
  p->tty = isatty(fd) == 1;
  p->start_ms = p->last_ms = clock_mono_ms();
}

int progress_format(char *out, size_t n, const struct progress_counts *c, double rate)
{
  bool note = c->note && c->note[0];
  char ruled[40] = "", wait[48] = "";
  if(c->ruled)
    snprintf(ruled, sizeof ruled, "  ruled out %llu", (unsigned long long)c->ruled);
  if(c->waiting)
    snprintf(wait, sizeof wait, ", %llu wait robots.txt", (unsigned long long)c->waiting);
  return snprintf(out, n, "%llu pages  %.1f pages/s  frontier %llu (%llu out%s)  "
                  "seen %llu  dups %llu  errors %llu%s%s%s",
                  (unsigned long long)c->pages, rate, (unsigned long long)c->frontier,
                  (unsigned long long)c->outstanding, wait, (unsigned long long)c->seen,
                  (unsigned long long)c->dups, (unsigned long long)c->errors, ruled,
                  note ? "  " : "", note ? c->note : "");
}

/* Rate over the last interval, smoothed so the figure does not flicker. */
static void progress_rate(struct progress *p, uint64_t now, uint64_t pages)
{
  double dt = (double)(now - p->last_ms) / 1000.0;
  if(dt <= 0)
    return;
  double r = (double)(pages - p->last_pages) / dt;
  p->rate = p->drawn ? 0.7 * p->rate + 0.3 * r : r;
  p->last_ms = now;
  p->last_pages = pages;
}

void progress_update(struct progress *p, const struct progress_counts *c, bool force)
{
  if(!p->tty)
    return;
  uint64_t now = clock_mono_ms();
  if(!force && now - p->last_ms < PROGRESS_EVERY_MS)
    return;
  progress_rate(p, now, c->pages);
  char line[320];
  line[0] = '\r';
  int n = progress_format(line + 1, sizeof line - 8, c, p->rate);
  if(n < 0)
    return;
  size_t len = 1 + ((size_t)n < sizeof line - 8 ? (size_t)n : sizeof line - 9);
  memcpy(line + len, "\033[K", 3);  /* clear what a longer line left */
  if(write(p->fd, line, len + 3) > 0)
    p->drawn = true;
}

void progress_end(struct progress *p)
{
  if(p->tty && p->drawn && write(p->fd, "\n", 1) < 0)
    p->drawn = false;
  p->drawn = false;
}
