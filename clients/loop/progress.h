#ifndef WPFS_CLIENTS_PROGRESS_H
#define WPFS_CLIENTS_PROGRESS_H
/* Live progress on a terminal: one line, redrawn in place at most every
 * PROGRESS_EVERY_MS, only when the file descriptor is a TTY (isatty), so
 * logs and pipes never get control characters. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROGRESS_EVERY_MS 250

struct progress_counts {
  uint64_t pages, errors, dups, seen;
  uint64_t frontier, outstanding;
  const char *note;  /* more words at the end (a focused crawl's harvest), or NULL */
  uint64_t ruled;    /* links the scope rules rejected (shown when any) */
  uint64_t waiting;  /* of outstanding: waiting for their host's robots.txt */
};

struct progress {
  int      fd;
  bool     tty, drawn;
  uint64_t start_ms, last_ms, last_pages;
  double   rate;  /* pages/s, smoothed */
};

void progress_init(struct progress *p, int fd);
/* force: draw even if the last draw was recent (the final line). */
void progress_update(struct progress *p, const struct progress_counts *c, bool force);
/* Leave the line: a newline after the last draw. */
void progress_end(struct progress *p);
/* The text of the line, for tests. */
int  progress_format(char *out, size_t n, const struct progress_counts *c, double rate);

#endif
