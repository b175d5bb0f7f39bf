#ifndef WPFS_TESTWEB_TW_FILL_H
#define WPFS_TESTWEB_TW_FILL_H
/* Static bytes that bodies are cut from, built once at start-up: readable
 * filler text, zeros, and a block of header lines for endless heads. */
#include <stddef.h>

#define TW_FILL_LEN 65536

void        tw_fill_init(void);
const char *tw_fill_text(void);     /* TW_FILL_LEN bytes of text lines */
const char *tw_fill_zeros(void);    /* TW_FILL_LEN zero bytes */
const char *tw_fill_headers(size_t *len);  /* whole "X-Endless-N: ...\r\n" lines */
const char *tw_fill_letters(void);  /* TW_FILL_LEN bytes of 'a' (huge header values) */

#endif
