/* The first N fetches of a path and query answer `status` (default 503,
 * with Retry-After when `retry_after` is given), every later one 200. The
 * count is the site's, per path and query (tw_site_count): two URLs that
 * differ only in their query fail independently. */
#include "tests/testweb/tw_flaky.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tw_kind_flaky(struct tw_route *r)
{
  char key[512];
  char *end;
  errno = 0;
  long fails = strtol(r->variant, &end, 10);
  if(end == r->variant || errno || fails < 0)
    fails = 1;
  long code = TW_BEH_OR(&r->beh, status, 503);
  if(code < 100 || code > 999) {
    tw_route_text(r, 400, "testweb: status must be 100..999\n");
    return;
  }
  snprintf(key, sizeof key, "%s?%s", r->path, r->rawq ? r->rawq : "");
  uint64_t n = tw_site_count(r->s, key, strlen(key));
  if(n <= (uint64_t)fails) {
    tw_route_text(r, (int)code, "testweb flaky: failure %llu of %ld\n",
                  (unsigned long long)n, fails);
    return;
  }
  /* recovered: neither the failure's status (route_finish applies a given
   * status to any kind) nor its Retry-After */
  r->beh.set &= ~(1u << TW_P_retry_after | 1u << TW_P_status);
  tw_route_text(r, 200, "testweb flaky: recovered after %ld failures\n", fails);
}
