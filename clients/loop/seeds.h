#ifndef WPFS_CLIENTS_SEEDS_H
#define WPFS_CLIENTS_SEEDS_H
/* A crawler's seeds file: one URL per line, blank lines and # comments
 * skipped. Every line that is not queued says why, with its number, on
 * stderr (the first 100; the rest are counted): longer than a URL can
 * be, not an http(s) URL, a duplicate, or dropped by a filter (the
 * extension denylist, ...); the engine counts them by reason
 * (seed_refusals in the summary). */
#include <stdbool.h>

#include "clients/crawl/crawl.h"

/* 0 when the file was read and a seed queued (or the file holds none and
 * refuses none, or resuming: seeds crawled before are duplicates); -1 on
 * an unreadable file, a local error, or every line refused (said on
 * stderr). *n gets the seeds queued. */
int crawl_seeds_file(struct crawl *c, const char *path, const char *prog, bool resume, int *n);

#endif
