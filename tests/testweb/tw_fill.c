#include "tests/testweb/tw_fill.h"

#include <stdio.h>
#include <string.h>

static char fill_text[TW_FILL_LEN];
static char fill_zeros[TW_FILL_LEN];
static char fill_letters[TW_FILL_LEN];
static char fill_hdrs[TW_FILL_LEN];
static size_t fill_hdrs_len;

void tw_fill_init(void)
{
  /* 64-byte lines, so that any slice is easy to check by eye. */
  for(size_t off = 0; off < TW_FILL_LEN; off += 64) {
    char line[65];
    snprintf(line, sizeof line, "testweb filler line %06zu %-36s\n", off / 64,
             "abcdefghijklmnopqrstuvwxyz0123456789");
    memcpy(fill_text + off, line, 64);
  }
  memset(fill_letters, 'a', sizeof fill_letters);
  size_t n = 0;
  for(int i = 0; n + 64 < sizeof fill_hdrs; i++)
    n += (size_t)snprintf(fill_hdrs + n, sizeof fill_hdrs - n,
                          "X-Endless-%05d: testweb sends header lines forever\r\n", i);
  fill_hdrs_len = n;
}

const char *tw_fill_text(void) { return fill_text; }
const char *tw_fill_zeros(void) { return fill_zeros; }
const char *tw_fill_letters(void) { return fill_letters; }

const char *tw_fill_headers(size_t *len)
{
  *len = fill_hdrs_len;
  return fill_hdrs;
}
