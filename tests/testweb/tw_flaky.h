#ifndef WPFS_TESTWEB_TW_FLAKY_H
#define WPFS_TESTWEB_TW_FLAKY_H
/* /_b/flaky/N: a server that fails N times and then recovers, for the
 * gateway's retries (docs/retries.md). */
#include "tests/testweb/tw_route.h"

void tw_kind_flaky(struct tw_route *r);

#endif
