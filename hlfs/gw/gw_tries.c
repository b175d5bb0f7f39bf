#include "hlfs/gw/gw_tries.h"

#include <stdlib.h>
#include <string.h>

#define TRY_LINE_MAX 160  /* an outcome name and four numbers, with room */

/* One line: exactly five comma-separated fields, none empty. */
static json_t *try_parse(const char *p, size_t n)
{
  char line[TRY_LINE_MAX];
  const char *f[5];
  if(n >= sizeof line)
    return NULL;
  memcpy(line, p, n);
  line[n] = '\0';
  size_t k = 0;
  for(char *s = line; k < 5; k++) {
    f[k] = s;
    char *c = strchr(s, ',');
    if(!c)
      break;
    *c = '\0';
    s = c + 1;
  }
  if(k != 4 || strchr(f[4], ','))
    return NULL;
  for(size_t i = 0; i < 5; i++)
    if(!*f[i])
      return NULL;
  return json_pack("{s:s, s:I, s:I, s:I, s:b}", "outcome", f[0], "status",
                   (json_int_t)strtoll(f[1], NULL, 10), "response_ms",
                   (json_int_t)strtoll(f[2], NULL, 10), "at",
                   (json_int_t)strtoll(f[3], NULL, 10), "counted", strcmp(f[4], "0") != 0);
}

json_t *gw_tries_parse(const char *al)
{
  json_t *a = json_array();
  for(const char *p = al; a && p && *p;) {
    size_t n = strcspn(p, "\n");
    json_t *t = try_parse(p, n);
    if(t && json_array_append_new(a, t)) {
      json_decref(a);
      return NULL;
    }
    p += n + (p[n] == '\n');
  }
  return a;
}
