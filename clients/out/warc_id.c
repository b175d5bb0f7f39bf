/* WARC record ids: version 4 UUIDs drawn from a pool of random bytes,
 * their "<urn:uuid:...>" text, and that text read back (a resumed crawl
 * reads the ids of the records it wrote). */
#include "clients/out/warc.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "common/clock.h"

void warc_ids_init(struct warc_ids *p)
{
  p->at = sizeof p->rnd;  /* empty: filled at the first id */
}

/* A version 4 UUID from a pool of random bytes, refilled 4 KiB at a time:
 * one getrandom call per 256 ids, not one each (a system call per page,
 * docs/benchmarks.md). */
void warc_id_new(struct warc_ids *p, unsigned char u[WARC_ID_RAW])
{
  if(p->at + WARC_ID_RAW > sizeof p->rnd &&
     getrandom(p->rnd, sizeof p->rnd, 0) == (ssize_t)sizeof p->rnd)
    p->at = 0;
  if(p->at + WARC_ID_RAW <= sizeof p->rnd) {
    memcpy(u, p->rnd + p->at, WARC_ID_RAW);
    p->at += WARC_ID_RAW;
  } else {
    uint64_t t = clock_mono_us() ^ clock_wall_ms();  /* never expected */
    for(size_t i = 0; i < WARC_ID_RAW; i++)
      u[i] = (unsigned char)(t >> (8 * (i % 8))) ^ (unsigned char)(i * 37);
  }
  u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);  /* version 4 */
  u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);  /* RFC 4122 variant */
}

void warc_id_text(const unsigned char u[WARC_ID_RAW], char out[WARC_ID_LEN])
{
  snprintf(out, WARC_ID_LEN,
           "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x>",
           u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
           u[12], u[13], u[14], u[15]);
}

static int hex_val(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

bool warc_id_parse(const char *s, unsigned char u[WARC_ID_RAW])
{
  if(!s || strncmp(s, "<urn:uuid:", 10))
    return false;
  s += 10;
  for(int i = 0; i < WARC_ID_RAW; i++) {
    if((i == 4 || i == 6 || i == 8 || i == 10) && *s++ != '-')
      return false;
    int hi = hex_val(s[0]), lo = hi < 0 ? -1 : hex_val(s[1]);
    if(lo < 0)
      return false;
    u[i] = (unsigned char)(hi << 4 | lo);
    s += 2;
  }
  return !strcmp(s, ">");
}
