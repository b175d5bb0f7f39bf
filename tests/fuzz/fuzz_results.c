/* The gateway's answers to GET /v1/results as the crawlers read them
 * (clients/gwclient/gwproto.c), framed and JSON, on arbitrary bytes. Aborts on a
 * result without its URL or outcome, on pages that add up to more than the
 * input, on a page not NUL-terminated, on a cause that is not a bounded
 * word, on an answer other than success or invalid, or on a leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/base/tally.h"
#include "clients/gwclient/gwproto.h"
#include "common/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what)
{
  fprintf(stderr, "fuzz_results: %s\n", what);
  abort();
}

static void check(crawl_err e, struct gw_results *r, size_t size)
{
  if(e != CRAWL_OK && e != CRAWL_ERR_INVALID)
    die(crawl_err_name(e));
  if(e) {
    if(r->n || r->v)
      die("a refused answer left results");
    return;
  }
  size_t pages = 0;
  for(size_t i = 0; i < r->n; i++) {
    if(!r->v[i].url || !r->v[i].outcome)
      die("a result without url or outcome");
    if(r->v[i].body && r->v[i].body[r->v[i].body_len] != '\0')
      die("a page not NUL-terminated");
    pages += r->v[i].body_len;
    /* Why there is no page: a bounded word, whatever the gateway said. */
    char buf[GWPROTO_CAUSE_MAX];
    const char *c = gwproto_cause(&r->v[i], buf, sizeof buf);
    if(c && !tally_word(c))
      die("a cause that is not a word");
  }
  if(pages > size)
    die("pages larger than the answer");
  gwproto_results_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  long live = mem_live();
  struct gw_results r;
  check(gwproto_results_framed((const char *)data, size, &r), &r, size);
  check(gwproto_results((const char *)data, size, &r), &r, size);
  if(mem_live() != live)
    die("leak");
  return 0;
}
