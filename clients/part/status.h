#ifndef WPFS_CLIENTS_PART_STATUS_H
#define WPFS_CLIENTS_PART_STATUS_H
/* A member's progress as it publishes it in wc:{NAME}:progress (a JSON
 * object, part_redis.c), read back for wpfs crawl-status. */
#include <stdbool.h>

struct part_progress {
  long long pages, queued, outstanding, links_sent, links_read, links_waiting, lost,
            refetch_bound;
};

/* false (and zeros) when json is not such an object. */
bool part_progress_parse(const char *json, struct part_progress *out);

#endif
