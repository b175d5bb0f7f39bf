#ifndef WPFS_TESTWEB_TW_SITE_H
#define WPFS_TESTWEB_TW_SITE_H
/* One site of the test web: its name and address, the pages it generates,
 * its behaviours, and the record of what it was asked. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/testweb/tw_beh.h"
#include "tests/testweb/tw_http.h"
#include "tests/testweb/tw_rec.h"

/* robots.txt: the behaviour parameters (status, hold_ms, body, size as
 * padding, n as redirect hops, code, to, retry_after, ...) and the rules. */
struct tw_robots {
  struct tw_beh beh;
  const char *crawl_delay;   /* text as given; NULL: no Crawl-delay line */
  json_t *disallow;          /* array of strings; NULL: "/private/" */
  json_t *allow;             /* array of strings or NULL */
  json_t *sitemaps;          /* array of URLs; NULL: the site's own sitemap */
};

/* A configured path: exact, or a prefix when its key ends with a star. */
struct tw_path {
  const char *path;
  size_t len;
  bool prefix;
  enum tw_kind kind;
  struct tw_beh beh;         /* variant and kind are in beh too */
};

/* Fetches of one path, for pages that change every N fetches. */
struct tw_count_ent {
  uint64_t key;  /* hash of the path; 0 = empty slot */
  uint64_t n;
};
struct tw_count {
  struct tw_count_ent *t;
  size_t cap, used;
  uint64_t overflow;         /* shared once the table is full */
};

struct tw_site {
  unsigned magic;
#define TW_SITE_MAGIC 0x51be7a11u
  uint32_t idx;
  char    *name;             /* lower case, owned; NULL: reachable by address only */
  uint32_t addr;             /* IPv4, host order; 0: reachable by Host name only */
  char     addr_s[16];
  /* generated pages: / and /p/<j>.html, j < pages */
  long     pages, links, page_bytes, change_every;
  double   cross, dups;
  bool     trap_link;        /* the home page links into spider traps */
  struct tw_beh beh;         /* defaults for every response of the site */
  struct tw_robots robots;
  struct tw_path *paths;     /* owned array */
  size_t   npaths;
  json_t  *cfg;              /* the JSON that config strings point into */
  struct tw_rec rec;
  struct tw_count counts;
};

struct tw_site *tw_site_new(void);
void tw_site_free(struct tw_site **sp);
/* The configured path matching path[0..n), or NULL. */
const struct tw_path *tw_site_path(const struct tw_site *s, const char *path, size_t n);
/* Count one fetch of path[0..n); returns how many there have been. */
uint64_t tw_site_count(struct tw_site *s, const char *path, size_t n);
/* Forget the record and the fetch counts. */
void tw_site_reset(struct tw_site *s);
/* "name" or the dotted address: how links and logs name the site. */
const char *tw_site_host(const struct tw_site *s);

#endif
