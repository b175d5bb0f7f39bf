/* The engine's configuration rows (merged into llfs's table) and their
 * defaults, for programs and tests that build a fetcher directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llfs/fetch_int.h"

static const struct cfg_key fetch_cfg_keys[] = { FETCH_CFG_KEYS(0) };
static const size_t fetch_cfg_nkeys = sizeof fetch_cfg_keys / sizeof fetch_cfg_keys[0];

int fetch_cfg_defaults(struct fetch_cfg *c)
{
  char err[128];
  memset(c, 0, sizeof *c);
  for(size_t i = 0; i < fetch_cfg_nkeys; i++) {
    const struct cfg_key *k = &fetch_cfg_keys[i];
    if(k->def && cfg_set(k, c, k->def, err, sizeof err)) {
      fprintf(stderr, "fetch: bad default for %s: %s\n", k->name, err);
      abort();
    }
  }
  return 0;
}

void fetch_cfg_clear(struct fetch_cfg *c)
{
  const struct cfg_prog p = { "fetch", "", fetch_cfg_keys, fetch_cfg_nkeys, NULL };
  cfg_free(&p, c);
}
