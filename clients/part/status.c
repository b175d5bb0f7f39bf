#include "clients/part/status.h"

#include <jansson.h>
#include <string.h>

static long long num(json_t *o, const char *f)
{
  json_t *v = json_object_get(o, f);
  return json_is_integer(v) ? json_integer_value(v) : 0;
}

bool part_progress_parse(const char *json, struct part_progress *out)
{
  memset(out, 0, sizeof *out);
  json_t *o = json ? json_loads(json, 0, NULL) : NULL;
  if(!json_is_object(o)) {
    json_decref(o);
    return false;
  }
  *out = (struct part_progress){ num(o, "pages"), num(o, "queued"), num(o, "outstanding"),
                                 num(o, "links_sent"), num(o, "links_read"),
                                 num(o, "links_waiting"), num(o, "lost"),
                                 num(o, "refetch_bound") };
  json_decref(o);
  return true;
}
