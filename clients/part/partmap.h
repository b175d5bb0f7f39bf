#ifndef WPFS_CLIENTS_PARTMAP_H
#define WPFS_CLIENTS_PARTMAP_H
/* The partition map of a crawl on several processes: every URL belongs
 * to one partition, hash(site) mod N, the site being the URL's host
 * (lower case in a canonical URL: the gateway's default politeness unit),
 * so all URLs of a host are crawled by the one process that holds its
 * partition, and its links to itself never leave it. */
#include <stdint.h>

#define PART_MAX 65536u  /* partitions of a crawl at most */

/* The partition of a bare canonical host (url_parts.host). */
unsigned partmap_of_host(const char *host, unsigned n);
/* The partition of a canonical URL; n (no partition) when it is none. */
unsigned partmap_of_url(const char *url, unsigned n);
/* The partitions each of live members holds at most: ceil(n / live). */
unsigned partmap_share(unsigned n, unsigned live);

#endif
