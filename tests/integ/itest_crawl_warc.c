/* Writes WARC files with clients/out/warc.c into DIR (small files, so they
 * rotate), and DIR/expect.jsonl: one line per record written, with what a
 * reader must find (file, offset, type, URI, payload digest, status, body
 * length). tests/e2e/crawl_warcio.sh reads the files back with warcio and
 * compares. Records: HTML, binary, empty, large (several deflate blocks),
 * headers that must be renamed or cleaned, a revisit, a truncated body,
 * a status without a reason phrase.
 *   itest_crawl_warc DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/out/warc.h"
#include "common/mem.h"

static int write_one(struct warc *w, FILE *ex, const struct warc_page *p, const char *refers)
{
  struct warc_loc loc;
  char digest[WARC_DIGEST_LEN];
  crawl_err e = refers ? warc_write_revisit(w, p, refers, &loc, digest)
                       : warc_write_response(w, p, &loc, digest);
  if(e) {
    fprintf(stderr, "itest_crawl_warc: %s: %s\n", p->url, crawl_err_name(e));
    return 1;
  }
  fprintf(ex, "{\"file\":\"%s\",\"offset\":%llu,\"type\":\"%s\",\"uri\":\"%s\","
          "\"payload_digest\":\"%s\",\"status\":%d,\"body_length\":%zu}\n",
          loc.file, (unsigned long long)loc.offset, refers ? "revisit" : "response", p->url,
          digest, p->status, refers ? 0 : p->body_len);
  return 0;
}

int main(int argc, char **argv)
{
  if(argc != 2) {
    fprintf(stderr, "usage: itest_crawl_warc DIR\n");
    return 2;
  }
  struct warc_opts o = { argv[1], "itest", 5000, "itest_crawl_warc", "operator: tests\r\n", 6, false };
  struct warc *w;
  char path[4096];
  snprintf(path, sizeof path, "%s/expect.jsonl", argv[1]);
  FILE *ex = fopen(path, "w");
  if(!ex || warc_open(&o, &w))
    return 1;
  static const char html[] = "<html><body><a href=/x>x</a></body></html>";
  unsigned char bin[256];
  for(int i = 0; i < 256; i++)
    bin[i] = (unsigned char)i;
  size_t big_len = 300000;
  char *big = mem_alloc(big_len);
  for(size_t i = 0; i < big_len; i++)
    big[i] = (char)('a' + (i * 7919 % 26));
  struct warc_header h_html[] = { { "Content-Type", "text/html" }, { "Content-Encoding", "gzip" },
                                  { "Transfer-Encoding", "chunked" }, { "Content-Length", "17" },
                                  { "X-Odd", "line\r\nbreak" }, { "Bad Name", "dropped" } };
  struct warc_header h_bin[] = { { "Content-Type", "application/octet-stream" } };
  struct warc_page pages[] = {
    { "http://a.test/", 1700000000000ull, 200, h_html, 6, html, sizeof html - 1, false },
    { "http://a.test/bin", 1700000001000ull, 200, h_bin, 1, bin, sizeof bin, false },
    { "http://a.test/empty", 1700000002000ull, 204, NULL, 0, "", 0, false },
    { "http://a.test/big", 1700000003000ull, 200, h_bin, 1, big, big_len, false },
    { "http://a.test/cut", 1700000004000ull, 200, h_bin, 1, big, 1000, true },
    { "http://a.test/odd?q=%22x%22", 1700000005000ull, 299, NULL, 0, "odd", 3, false },
    { "http://b.test/dup", 1700000006000ull, 200, h_html, 1, html, sizeof html - 1, false },
  };
  int rc = 0;
  for(size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
    rc |= write_one(w, ex, &pages[i], i == 6 ? "http://a.test/" : NULL);
  for(int i = 0; i < 40; i++) {  /* enough to rotate a few times */
    char url[64];
    snprintf(url, sizeof url, "http://c.test/p/%d", i);
    struct warc_page p = { url, 1700000010000ull + (uint64_t)i, 200, h_html, 1, big + i * 100,
                           2000, false };
    rc |= write_one(w, ex, &p, NULL);
  }
  uint64_t records, bytes;
  unsigned files;
  warc_counts(w, &records, &bytes, &files);
  fprintf(stderr, "itest_crawl_warc: %llu records, %llu bytes, %u files\n",
          (unsigned long long)records, (unsigned long long)bytes, files);
  warc_close(&w);
  mem_free(big);
  fclose(ex);
  return rc;
}
