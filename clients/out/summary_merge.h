#ifndef WPFS_CLIENTS_SUMMARY_MERGE_H
#define WPFS_CLIENTS_SUMMARY_MERGE_H
/* The summaries of a partitioned crawl's members as one summary
 * (docs/crawler.md, "Merging members' summaries"): counters, sizes and
 * tallies summed, peaks and durations the largest, bytes-per-URL ratios
 * weighted by their URLs, each member's own paths in member_list. */
#include <stddef.h>

/* files[0..n): each a summary, or a member's output whose last summary
 * line counts. 0 and *out the merged summary, one line of JSON (free());
 * else -1 and a message naming the file in err. */
int summary_merge(const char *const *files, size_t n, char **out, char *err, size_t errlen);

#endif
