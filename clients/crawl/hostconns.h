#ifndef WPFS_CLIENTS_HOSTCONNS_H
#define WPFS_CLIENTS_HOSTCONNS_H
/* Connections the gateway opened to each host of the crawl, as its results
 * tell (site_connections: the site's count after that fetch, kept by the
 * gateway while the site's state lives). The count only grows, so a host's
 * figure is the largest a result of it gave; the totals follow each change,
 * so the summary costs nothing. Hosts live in a map with a byte budget:
 * past it, a new host's results are not counted (untracked) rather than
 * the crawl failing. */
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/fpmap.h"
#include "common/buf.h"

#define HOSTCONNS_MAX_BYTES (8u << 20)

struct hostconns {
  struct fpmap map;       /* host hash -> the largest site_connections seen */
  uint64_t     opened;    /* sum of the map's values */
  uint64_t     max;       /* the largest value */
  uint64_t     over_one;  /* hosts whose value is above 1 */
  uint64_t     untracked; /* results of hosts the full map could not take */
};

void   hostconns_init(struct hostconns *h, size_t max_bytes);
void   hostconns_free(struct hostconns *h);
/* A result of url (canonical) said the site had n connections; 0: the
 * result did not say (the site was not contacted). */
void   hostconns_note(struct hostconns *h, const char *url, uint64_t n);
/* ,"connections":{"hosts":..,"opened":..,"max_per_host":..,
 * "hosts_over_one":..,"untracked":..} */
cm_err hostconns_json(const struct hostconns *h, struct buf *b);
void   hostconns_save(const struct hostconns *h, struct ckfile *c);
void   hostconns_load(struct hostconns *h, struct ckfile *c);

#endif
