/* libFuzzer target for clients/web/feed.c.
 * Input: a feed body (the first byte also picks the Content-Type given to
 * feed_detect). Checks: the reader and the sniffer never crash or read
 * past the body (ASan: a copy of exactly its size); every link reported
 * is trimmed, non-empty and at most FEED_LINK_MAX bytes; the count agrees
 * with the info; a body past max_bytes is said to be cut. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clients/web/feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
  const char *body;
  size_t      len, n;
};

static int on_link(void *arg, const char *url, size_t len)
{
  struct seen *s = arg;
  assert(len > 0 && len <= FEED_LINK_MAX);
  assert(!strchr(" \t\r\n", url[0]) && !strchr(" \t\r\n", url[len - 1]));
  s->n++;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const ct[] = { NULL, "application/rss+xml", "text/xml", "text/html" };
  char *body = malloc(size ? size : 1);
  if(!body)
    return 0;
  memcpy(body, data, size);
  (void)feed_detect(ct[size ? data[0] & 3 : 0], body, size);
  struct seen s = { body, size, 0 };
  struct feed_info fi;
  if(feed_read(body, size, 0, on_link, &s, &fi) == CRAWL_OK) {
    assert(fi.links == s.n);
    assert(!fi.cut);
  }
  struct seen half = { body, size / 2, 0 };
  if(feed_read(body, size / 2, size / 4 + 1, on_link, &half, &fi) == CRAWL_OK)
    assert(fi.cut == (size / 2 > size / 4 + 1));
  free(body);
  return 0;
}
