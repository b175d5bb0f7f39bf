#ifndef WPFS_TESTWEB_TW_WORLD_H
#define WPFS_TESTWEB_TW_WORLD_H
/* All the sites testweb answers for, found by Host name or by the local
 * address a connection arrived on. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "tests/testweb/tw_gen.h"
#include "tests/testweb/tw_site.h"
#include "tests/testweb/tw_topic.h"

struct tw_churn;

struct tw_world {
  unsigned magic;
#define TW_WORLD_MAGIC 0x3017d5e2u
  struct tw_site **sites;   /* owned; index = site->idx */
  size_t   n, cap;
  struct tw_gen gen;        /* generator options (defaults of file sites too) */
  uint32_t *by_name, *by_addr;  /* open addressing: site idx + 1, 0 = empty */
  size_t   tcap;
  size_t   record_max;      /* requests kept per site */
  long     link_port;       /* port written into cross-site links */
  size_t   bomb_size;       /* default decoded size of the bombs */
  char     crawl_delay[32]; /* the generator's Crawl-delay as text, or "" */
  json_t  *retired;         /* replaced site configs, kept alive for strings */
  struct tw_topics *topics; /* the topical web over the generated sites, or NULL */
  struct tw_churn  *churn;  /* the changing web (tw_churn.h), or NULL */
};

void   tw_world_init(struct tw_world *w, size_t record_max);
void   tw_world_free(struct tw_world *w);
/* Take ownership of *sp (cleared) and give it the next index. TW_EXISTS when
 * its name or address is taken (then *sp is left to the caller). */
tw_err tw_world_add(struct tw_world *w, struct tw_site **sp);
/* Case-insensitive; a ":port" suffix is ignored. */
struct tw_site *tw_world_by_name(const struct tw_world *w, const char *name, size_t n);
struct tw_site *tw_world_by_addr(const struct tw_world *w, uint32_t addr);
/* A name or a dotted IPv4 address. */
struct tw_site *tw_world_find(const struct tw_world *w, const char *key, size_t n);
/* The site a request is for: its Host (a name, or an address literal),
 * else the local address its connection arrived on; NULL if none. */
struct tw_site *tw_world_route(const struct tw_world *w, const char *host, size_t n,
                               uint32_t local);
/* "name address" lines for every site that has both. */
tw_err tw_world_zone(const struct tw_world *w, struct buf *out);
/* Parse a dotted IPv4 address; 0 on error. */
uint32_t tw_addr_parse(const char *s, size_t n);
void     tw_addr_format(uint32_t a, char out[16]);

#endif
