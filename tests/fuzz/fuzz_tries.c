/* A result's attempt log (hlfs/gw/gw_tries.h) on arbitrary bytes: aborts
 * unless the answer is an array with at most one try per line, each with
 * its five fields of the right types. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlfs/gw/gw_tries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what)
{
  fprintf(stderr, "fuzz_tries: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);
  if(!s)
    return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  size_t lines = 1;
  for(const char *p = s; *p; p++)
    lines += *p == '\n';
  json_t *a = gw_tries_parse(s);
  if(!a || !json_is_array(a))
    die("not an array");
  if(json_array_size(a) > lines)
    die("more tries than lines");
  size_t i;
  json_t *t;
  json_array_foreach(a, i, t) {
    if(!json_is_string(json_object_get(t, "outcome")) ||
       !json_is_integer(json_object_get(t, "status")) ||
       !json_is_integer(json_object_get(t, "response_ms")) ||
       !json_is_integer(json_object_get(t, "at")) ||
       !json_is_boolean(json_object_get(t, "counted")))
      die("a try without its fields");
  }
  json_decref(a);
  free(s);
  return 0;
}
