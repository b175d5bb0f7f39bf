#ifndef WPFS_CLIENTS_SEEDS_H
#define WPFS_CLIENTS_SEEDS_H
/* A crawler's seeds file: one URL per line, blank lines and # comments
 * skipped. A line longer than a URL can be, or one that is no http(s) URL,
 * is refused with its number (on stderr, after prog's name); the others
 * are queued (crawl_add_seed). */
#include "clients/crawl/crawl.h"

/* 0 when the file was read and a seed queued (or the file holds none and
 * refuses none); -1 on an unreadable file, a local error, or only bad
 * lines. *n gets the seeds queued. */
int crawl_seeds_file(struct crawl *c, const char *path, const char *prog, int *n);

#endif
