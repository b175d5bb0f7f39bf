#include "common/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

void buf_init(struct buf *b, size_t max)
{
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->max = max < SIZE_MAX ? max : SIZE_MAX - 1;  /* room for the NUL: max + 1 must not wrap */
}

static cm_err buf_reserve(struct buf *b, size_t extra)
{
  if(extra > b->max - b->len)
    return CM_TOO_LARGE;
  size_t need = b->len + extra + 1;
  if(need <= b->cap)
    return CM_OK;
  size_t cap = b->cap ? b->cap : 64;
  while(cap < need)
    cap = cap > (size_t)-1 / 2 ? need : cap * 2;
  if(cap > b->max + 1)
    cap = b->max + 1;
  char *p = mem_realloc(b->data, cap);
  if(!p)
    return CM_NOMEM;
  b->data = p;
  b->cap = cap;
  return CM_OK;
}

cm_err buf_add(struct buf *b, const void *p, size_t n)
{
  cm_err e = buf_reserve(b, n);
  if(e)
    return e;
  if(n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return CM_OK;
}

cm_err buf_addc(struct buf *b, char c) { return buf_add(b, &c, 1); }
cm_err buf_adds(struct buf *b, const char *s) { return buf_add(b, s, strlen(s)); }

cm_err buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if(n < 0)
    return CM_INVALID;
  cm_err e = buf_reserve(b, (size_t)n);
  if(e)
    return e;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
  return CM_OK;
}

cm_err buf_addf(struct buf *b, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  cm_err e = buf_vaddf(b, fmt, ap);
  va_end(ap);
  return e;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
  size_t len;
  unsigned min;
  unsigned cp;
  if(s[0] < 0x80)
    return 1;
  if((s[0] & 0xe0) == 0xc0) { len = 2; cp = s[0] & 0x1f; min = 0x80; }
  else if((s[0] & 0xf0) == 0xe0) { len = 3; cp = s[0] & 0x0f; min = 0x800; }
  else if((s[0] & 0xf8) == 0xf0) { len = 4; cp = s[0] & 0x07; min = 0x10000; }
  else
    return 0;
  if(len > n)
    return 0;
  for(size_t i = 1; i < len; i++) {
    if((s[i] & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if(cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

static cm_err buf_json_escape(struct buf *b, unsigned char c)
{
  switch(c) {
  case '"':  return buf_add(b, "\\\"", 2);
  case '\\': return buf_add(b, "\\\\", 2);
  case '\n': return buf_add(b, "\\n", 2);
  case '\r': return buf_add(b, "\\r", 2);
  case '\t': return buf_add(b, "\\t", 2);
  default:   return buf_addf(b, "\\u%04x", c);
  }
}

cm_err buf_add_json_str(struct buf *b, const char *s, size_t n)
{
  size_t start_len = b->len;
  const unsigned char *u = (const unsigned char *)s;
  cm_err e = buf_addc(b, '"');
  size_t i = 0;
  while(!e && i < n) {
    size_t run = i;
    while(run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' && u[run] != '\\')
      run++;
    if(run > i) {
      e = buf_add(b, s + i, run - i);
      i = run;
      continue;
    }
    if(u[i] < 0x80) {
      e = buf_json_escape(b, u[i]);
      i++;
      continue;
    }
    size_t l = utf8_len(u + i, n - i);
    e = l ? buf_add(b, s + i, l) : buf_add(b, "\xef\xbf\xbd", 3);
    i += l ? l : 1;
  }
  if(!e)
    e = buf_addc(b, '"');
  if(e) {
    b->len = start_len;
    if(b->data)
      b->data[b->len] = '\0';
  }
  return e;
}

void buf_reset(struct buf *b)
{
  b->len = 0;
  if(b->data)
    b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
  mem_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

char *buf_steal(struct buf *b, size_t *len)
{
  char *p = b->data;
  if(len)
    *len = b->len;
  if(!p)
    p = mem_strdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}
