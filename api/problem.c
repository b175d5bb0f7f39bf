#include "api/problem.h"

#include <stdio.h>

json_t *problem_new(unsigned status, const char *slug, const char *title,
                    const char *detail, const char *instance, json_t *ext)
{
  char type[128];
  snprintf(type, sizeof type, PROBLEM_URN "%s", slug);
  json_t *j = json_pack("{s:s, s:s, s:I}", "type", type, "title", title, "status",
                        (json_int_t)status);
  if(!j) {
    json_decref(ext);
    return NULL;
  }
  if(detail && *detail)
    json_object_set_new(j, "detail", json_string(detail));
  if(instance)
    json_object_set_new(j, "instance", json_string(instance));
  if(ext)
    json_object_update(j, ext);
  json_decref(ext);
  return j;
}
