#ifndef WPFS_COMMON_BUF_H
#define WPFS_COMMON_BUF_H
/* A growable byte buffer with a hard maximum chosen by its creator.
 * data is always NUL-terminated (the NUL is not counted in len, nor in max).
 * On any error the buffer is unchanged. */
#include <stdarg.h>
#include <stddef.h>

#include "common/err.h"

struct buf {
  char  *data;
  size_t len;
  size_t cap;  /* allocated bytes, including room for the NUL */
  size_t max;  /* len never exceeds this */
};

void   buf_init(struct buf *b, size_t max);
cm_err buf_add(struct buf *b, const void *p, size_t n);
cm_err buf_addc(struct buf *b, char c);
cm_err buf_adds(struct buf *b, const char *s);
cm_err buf_addf(struct buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
cm_err buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* Append s[0..n) as a JSON string literal (quotes included), escaping
 * controls, quotes and backslashes; invalid UTF-8 bytes become U+FFFD. */
cm_err buf_add_json_str(struct buf *b, const char *s, size_t n);
void   buf_reset(struct buf *b);
void   buf_free(struct buf *b);
/* Hand the storage to the caller (free with mem_free); b is left empty. */
char  *buf_steal(struct buf *b, size_t *len);

#endif
