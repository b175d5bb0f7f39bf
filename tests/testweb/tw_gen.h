#ifndef WPFS_TESTWEB_TW_GEN_H
#define WPFS_TESTWEB_TW_GEN_H
/* The generated world: --generate "sites=1000,pages=50,..." (or the
 * "generate" member of a site file). Site i (0-based) is named site<i>.test
 * and has the address 127.10.<i / 250>.<i % 250 + 1>; up to 64,000 sites.
 * Other components (the DNS zone of the tests) rely on this naming. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/testweb/tw_err.h"

struct tw_gen {
  long   sites, pages, links, page_bytes, hold_ms, change_every, slow_ms, seed;
  double cross, dups, traps, robots_missing, robots_error, crawl_delay, slow;
};

#define TW_GEN_MAX_SITES 64000

void   tw_gen_defaults(struct tw_gen *g);
/* "k=v,k=v": applied over the current values of g. */
tw_err tw_gen_parse(struct tw_gen *g, const char *spec, char *err, size_t errlen);
/* The same from a JSON object (or a JSON string holding the k=v form). */
tw_err tw_gen_json(struct tw_gen *g, json_t *v, char *err, size_t errlen);
/* Markdown table of the options, for docs/testweb.md. */
void   tw_gen_markdown(FILE *out);

struct tw_world;
/* Append g->sites generated sites to w (which must hold no site yet). */
tw_err tw_gen_world(struct tw_world *w, char *err, size_t errlen);

#endif
