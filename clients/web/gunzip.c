#include "clients/web/gunzip.h"

#include <stdint.h>
#include <zlib.h>

#include "common/mem.h"

#define ZSTEP (1u << 30)  /* input given to zlib at a time (its avail_in is 32 bits) */

struct gz {
  z_stream       z;
  const uint8_t *in;
  size_t         left;    /* input not yet given to zlib */
  size_t         room;    /* output still allowed */
  size_t         total;
  gunzip_sink   *sink;
  void          *arg;
  char          *piece;
};

bool gunzip_magic(const void *p, size_t n)
{
  const uint8_t *b = p;
  return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

const char *gunzip_end_text(enum gunzip_end e)
{
  switch(e) {
  case GUNZIP_WHOLE:  return "whole";
  case GUNZIP_CAP:    return "over the size limit";
  case GUNZIP_BROKEN: return "damaged gzip data";
  case GUNZIP_SHORT:  return "gzip data cut short";
  }
  return "unknown";
}

static void gz_feed(struct gz *g)
{
  if(g->z.avail_in == 0 && g->left > 0) {
    size_t k = g->left < ZSTEP ? g->left : ZSTEP;
    g->z.next_in = (Bytef *)(uintptr_t)g->in;
    g->z.avail_in = (uInt)k;
    g->in += k;
    g->left -= k;
  }
}

/* Input left after a member's trailer: another member, or trailing junk
 * (which gunzip(1) ignores with a warning; so do we, as the end). */
static bool gz_next_member(struct gz *g)
{
  gz_feed(g);
  if(!gunzip_magic(g->z.next_in, g->z.avail_in))
    return false;
  return inflateReset(&g->z) == Z_OK;
}

/* One inflate step into the piece, handed to the sink. */
static crawl_err gz_step(struct gz *g, int *rc)
{
  size_t want = g->room < GUNZIP_PIECE ? g->room : GUNZIP_PIECE;
  g->z.next_out = (Bytef *)g->piece;
  g->z.avail_out = (uInt)want;
  gz_feed(g);
  *rc = inflate(&g->z, Z_NO_FLUSH);
  size_t got = want - g->z.avail_out;
  g->room -= got;
  g->total += got;
  return got ? g->sink(g->arg, g->piece, got) : CRAWL_OK;
}

/* At the cap: how would the data have gone on? A stream that ends
 * exactly at the cap is whole. */
static enum gunzip_end gz_after_cap(struct gz *g)
{
  char c;
  g->z.next_out = (Bytef *)&c;
  g->z.avail_out = 1;
  int rc;
  do {  /* Z_OK without output: input consumed (a header, say) */
    gz_feed(g);
    rc = inflate(&g->z, Z_NO_FLUSH);
  } while(rc == Z_OK && g->z.avail_out == 1);
  if(g->z.avail_out == 0)
    return GUNZIP_CAP;
  if(rc == Z_STREAM_END)
    return gz_next_member(g) ? GUNZIP_CAP : GUNZIP_WHOLE;
  return rc == Z_BUF_ERROR && g->left == 0 ? GUNZIP_SHORT : GUNZIP_BROKEN;
}

static crawl_err gz_run(struct gz *g, enum gunzip_end *end)
{
  for(;;) {
    int rc;
    if(g->room == 0) {
      *end = gz_after_cap(g);
      return CRAWL_OK;
    }
    crawl_err e = gz_step(g, &rc);
    if(e)
      return e;
    if(rc == Z_STREAM_END) {
      if(gz_next_member(g))
        continue;
      *end = GUNZIP_WHOLE;
      return CRAWL_OK;
    }
    if(rc == Z_MEM_ERROR)
      return CRAWL_ERR_NOMEM;
    if(rc == Z_BUF_ERROR && g->z.avail_in == 0 && g->left == 0) {
      *end = GUNZIP_SHORT;
      return CRAWL_OK;
    }
    if(rc != Z_OK && rc != Z_BUF_ERROR) {
      *end = GUNZIP_BROKEN;
      return CRAWL_OK;
    }
  }
}

crawl_err gunzip(const void *in, size_t n, size_t max_out, gunzip_sink *sink, void *arg,
                 enum gunzip_end *end, size_t *out)
{
  struct gz g = { .in = in, .left = n, .room = max_out, .sink = sink, .arg = arg };
  *end = GUNZIP_BROKEN;
  if(out)
    *out = 0;
  if(!gunzip_magic(in, n))
    return CRAWL_OK;
  g.piece = mem_alloc(GUNZIP_PIECE);
  if(!g.piece)
    return CRAWL_ERR_NOMEM;
  crawl_err e = inflateInit2(&g.z, 15 + 16) == Z_OK ? CRAWL_OK : CRAWL_ERR_NOMEM;
  if(!e) {
    e = gz_run(&g, end);
    inflateEnd(&g.z);
  }
  mem_free(g.piece);
  if(out)
    *out = g.total;
  return e;
}
