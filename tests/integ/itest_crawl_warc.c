/* Writes WARC files with clients/out/warc.c into DIR (small files, so they
 * rotate), and DIR/expect.jsonl: one line per record written, with what a
 * reader must find (file, offset, type, URI, payload digest, status, body
 * length). tests/e2e/crawl_warcio.sh reads the files back with warcio and
 * compares. Records: HTML, binary, empty, large (several deflate blocks),
 * headers that must be renamed or cleaned, a revisit, a truncated body,
 * a status without a reason phrase, a 304 (server-not-modified). Each
 * page goes with its request record; some with a metadata record (its
 * outlinks); some with a record id chosen by the caller, which a revisit
 * then refers to (WARC-Refers-To, with the original's URI and date); a
 * URL not in canonical form.
 *   itest_crawl_warc DIR */
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "clients/out/warc.c"  /* the file itself: warc_sha1_base32 is static */
#include "common/robots_tag.h"
#include "common/mem.h"

struct want {
  const char               *refers;   /* a revisit of it, or NULL */
  const struct warc_refers *orig;     /* the revisit's original */
  bool                      not_modified;
};

static void expect_line(FILE *ex, const struct warc_page *p, const struct want *x,
                        const struct warc_loc *loc, const char *digest)
{
  bool revisit = x->refers || x->not_modified;
  char date[21] = "";
  if(revisit && x->orig && x->orig->date_ms)
    warc_date(x->orig->date_ms, date);
  fprintf(ex, "{\"file\":\"%s\",\"offset\":%llu,\"type\":\"%s\",\"uri\":\"%s\","
          "\"payload_digest\":\"%s\",\"status\":%d,\"body_length\":%zu,"
          "\"id\":\"%s\",\"refers_to_date\":\"%s\",\"refers_to_id\":\"%s\","
          "\"outlinks\":%zd}\n",
          loc->file, (unsigned long long)loc->offset, revisit ? "revisit" : "response", p->url,
          digest, p->status, revisit ? 0 : p->body_len, p->id ? p->id : "", date,
          revisit && x->orig && x->orig->id ? x->orig->id : "",
          p->meta ? (ssize_t)p->meta->noutlinks : (ssize_t)-1);
}

static int write_one(struct warc *w, FILE *ex, const struct warc_page *p, const struct want *x)
{
  struct warc_loc loc;
  char digest[WARC_DIGEST_LEN];
  crawl_err e;
  if(x->not_modified) {
    e = warc_write_not_modified(w, p, x->orig->date_ms, &loc);
    warc_sha1_base32(p->body, p->body_len, digest);
  } else if(x->refers) {
    e = warc_write_revisit(w, p, x->orig, &loc, digest);
  } else {
    e = warc_write_response(w, p, &loc, digest);
  }
  if(e) {
    fprintf(stderr, "itest_crawl_warc: %s: %s\n", p->url, crawl_err_name(e));
    return 1;
  }
  expect_line(ex, p, x, &loc, digest);
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
  /* The first page's record id is chosen here, as the crawler chooses
   * it, so that the revisit of its copy can name it. */
  struct warc_ids ids;
  unsigned char raw[WARC_ID_RAW];
  char first_id[WARC_ID_LEN];
  warc_ids_init(&ids);
  warc_id_new(&ids, raw);
  warc_id_text(raw, first_id);
  struct warc_outlink links[] = { { "http://a.test/x", "L a/@href" },
                                  { "http://a.test/f", "E iframe/@src" },
                                  { "http://a.test/bad\r\nlink", "L a/@href" } };
  struct warc_meta meta = { links, 3, "fetchTimeMs: 12\r\noutcome: ok\r\n",
                            ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOARCHIVE };
  struct warc_meta none = { NULL, 0, "fetchTimeMs: 3\r\n", 0 };
  struct warc_page pages[] = {
    { "http://a.test/", 1700000000000ull, 200, h_html, 6, html, sizeof html - 1, false,
      first_id, &meta },
    { "http://a.test/bin", 1700000001000ull, 200, h_bin, 1, bin, sizeof bin, false, NULL, NULL },
    { "http://a.test/empty", 1700000002000ull, 204, NULL, 0, "", 0, false, NULL, &none },
    { "http://a.test/big", 1700000003000ull, 200, h_bin, 1, big, big_len, false, NULL, NULL },
    { "http://a.test/cut", 1700000004000ull, 200, h_bin, 1, big, 1000, true, NULL, NULL },
    { "http://a.test/odd?q=%22x%22", 1700000005000ull, 299, NULL, 0, "odd", 3, false, NULL,
      NULL },
    { "http://b.test/dup", 1700000006000ull, 200, h_html, 1, html, sizeof html - 1, false, NULL,
      &none },
    { "http://a.test/bin", 1700000007000ull, 304, NULL, 0, bin, sizeof bin, false, NULL, NULL },
    /* not canonical: its request is the one the gateway makes, to a.test/odd */
    { "HTTP://A.TEST:80/odd", 1700000008000ull, 200, h_bin, 1, bin, 16, false, NULL, NULL },
  };
  struct warc_refers orig = { "http://a.test/", 1700000000000ull, first_id };
  struct warc_refers prev = { "http://a.test/bin", 1700000001000ull, NULL };
  int rc = 0;
  for(size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
    struct want x = { i == 6 ? "http://a.test/" : NULL, i == 6 ? &orig : i == 7 ? &prev : NULL,
                      i == 7 };
    rc |= write_one(w, ex, &pages[i], &x);
  }
  for(int i = 0; i < 40; i++) {  /* enough to rotate a few times */
    char url[64];
    snprintf(url, sizeof url, "http://c.test/p/%d", i);
    struct warc_page p = { url, 1700000010000ull + (uint64_t)i, 200, h_html, 1, big + i * 100,
                           2000, false, NULL, i % 2 ? &meta : NULL };
    struct want x = { NULL, NULL, false };
    rc |= write_one(w, ex, &p, &x);
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
