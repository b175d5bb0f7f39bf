/* What a resumed crawl reads back from its WARC records on arbitrary
 * bytes (clients/out/warc_read.c, warc.c): the records of a file one after
 * the other, their WARC-Record-ID and WARC-Date fields, the record id's
 * UUID and the date's time. The input is also tried as an id and as a
 * date itself. Aborts when an id that parsed does not come back the same
 * through its text, or a date through warc_date. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "clients/out/warc.h"
#include "clients/out/warc_read.h"
#include "common/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT  (64u << 10)
#define FUZZ_MAX_RECORD (1u << 20)

static void die(const char *what, const char *s)
{
  fprintf(stderr, "fuzz_warc: %s: %s\n", what, s ? s : "(null)");
  abort();
}

static void check_id(const char *s)
{
  unsigned char raw[WARC_ID_RAW], again[WARC_ID_RAW];
  char text[WARC_ID_LEN];
  if(!warc_id_parse(s, raw))
    return;
  warc_id_text(raw, text);
  if(strcasecmp(text, s))
    die("an id's text is not the id parsed", s);
  if(!warc_id_parse(text, again) || memcmp(raw, again, sizeof raw))
    die("an id's text does not parse back", text);
}

static void check_date(const char *s)
{
  uint64_t ms = s ? warc_date_ms(s) : 0;
  if(!ms)
    return;
  char text[21];
  warc_date(ms, text);
  if(ms % 1000 || warc_date_ms(text) != ms)
    die("a date does not come back through warc_date", s);
}

static void check_fields(const struct warc_record *r)
{
  char *id = warc_record_field(r, "WARC-Record-ID");
  char *date = warc_record_field(r, "WARC-Date");
  if(id)
    check_id(id);
  check_date(date);
  mem_free(id);
  mem_free(date);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size > FUZZ_MAX_INPUT)
    return 0;
  char *s = mem_strndup((const char *)data, size);
  if(!s)
    return 0;
  check_id(s);
  check_date(s);
  mem_free(s);
  char path[64];
  snprintf(path, sizeof path, "/tmp/fuzz_warc.%d", (int)getpid());
  FILE *f = fopen(path, "wb");
  if(!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    die("cannot write the input file", path);
  for(uint64_t off = 0; off < size;) {
    struct warc_record r;
    if(warc_read_at(path, off, FUZZ_MAX_RECORD, &r) != CRAWL_OK)
      break;
    check_fields(&r);
    uint64_t n = r.member_len;
    warc_record_free(&r);
    if(!n)
      break;
    off += n;
  }
  unlink(path);
  return 0;
}
