#ifndef WPFS_TESTWEB_TW_TOPIC_CTL_H
#define WPFS_TESTWEB_TW_TOPIC_CTL_H
/* The topical web's resources on the control endpoint (tw_topic_ctl.c). */
#include <stdbool.h>

#include "common/buf.h"
#include "tests/testweb/tw_world.h"

/* Answer GET path?query into out (status, content type); false when path
 * is not under /topics. */
bool tw_topic_ctl(const struct tw_world *w, const char *path, const char *query,
                  struct buf *out, int *status, const char **ctype);

#endif
