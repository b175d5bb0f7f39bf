/* wpfs crawl-merge: the members' summaries of one crawl as one
 * (clients/out/summary_merge.c merges; no gateway is asked). */
#include <stdlib.h>

#include "clients/cli/cli.h"
#include "clients/out/summary_merge.h"

#define MERGE_MAX_FILES 4096

int cli_crawl_merge(struct cli *c, int argc, char **argv)
{
  int n = argc - 1;
  if(n < 1 || (argc > 1 && argv[1][0] == '-' && argv[1][1])) {
    cli_err(c, n < 1 ? "the members' summary files, please (wpfs crawl-merge --help)"
                     : "no options (wpfs crawl-merge --help)");
    return CLI_USAGE;
  }
  if(n > MERGE_MAX_FILES) {
    cli_err(c, "%d files: at most %d members", n, MERGE_MAX_FILES);
    return CLI_USAGE;
  }
  char err[1024], *out;
  if(summary_merge((const char *const *)(argv + 1), (size_t)n, &out, err, sizeof err)) {
    cli_err(c, "%s", err);
    return CLI_LOCAL;
  }
  int rc = cli_put_line(c, stdout, out);
  free(out);
  return rc;
}
