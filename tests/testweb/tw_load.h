#ifndef WPFS_TESTWEB_TW_LOAD_H
#define WPFS_TESTWEB_TW_LOAD_H
/* Site files (JSON, format in docs/testweb.md): an object with an optional
 * "generate" member (generator options) and a "sites" array, or just the
 * array. Keys are checked strictly, so that a typo fails at start-up. */
#include <jansson.h>
#include <stddef.h>

#include "tests/testweb/tw_err.h"
#include "tests/testweb/tw_world.h"

/* Parse the file's generator options into w->gen (sites come later, from
 * tw_load_sites, once the generated ones exist). root is kept by the caller. */
tw_err tw_load_file(const char *path, json_t **root, char *err, size_t errlen);
tw_err tw_load_gen(struct tw_world *w, json_t *root, char *err, size_t errlen);
/* Add every site of root's "sites" array to w. */
tw_err tw_load_sites(struct tw_world *w, json_t *root, char *err, size_t errlen);
/* One site object: a new site (added to w), or, with into != NULL, a new
 * configuration for that existing site (name and address cannot change). */
tw_err tw_load_site(struct tw_world *w, json_t *obj, struct tw_site *into, char *err,
                    size_t errlen);

#endif
