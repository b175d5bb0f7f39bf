#ifndef WPFS_TESTWEB_TW_ROBOTS_H
#define WPFS_TESTWEB_TW_ROBOTS_H
/* The text of a site's robots.txt (status, redirects and timing are the
 * router's business): the literal body if configured, else rules built
 * from the config, padded with comment lines up to `size` bytes. */
#include "common/buf.h"
#include "tests/testweb/tw_err.h"
#include "tests/testweb/tw_world.h"

tw_err tw_robots_text(const struct tw_world *w, const struct tw_site *s, struct buf *out);

#endif
