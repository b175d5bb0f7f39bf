/* A page's X-Robots-Tag directives for the gateway's agent, as members of
 * a result (gw.h, gw_xrobots_render). The header list is stored as JSON
 * text; most pages have no X-Robots-Tag, so the text is looked through
 * for the name before anything is parsed. */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#include "common/clock.h"
#include "common/robots_tag.h"
#include "hlfs/gw/gw.h"

#define XRT_NAME "x-robots-tag"

static bool xrt_present(const char *headers_json)
{
  return headers_json && strcasestr(headers_json, "\"" XRT_NAME "\"");
}

/* The directives that apply to the product token of agent (a User-Agent),
 * an unavailable_after not later than now_s adding noindex; false when
 * there are none. */
static bool gw_xrobots(const char *headers_json, const char *agent, int64_t now_s,
                       struct robots_tag *t)
{
  memset(t, 0, sizeof *t);
  if(!xrt_present(headers_json))
    return false;
  json_error_t je;
  json_t *hs = json_loads(headers_json, 0, &je);
  size_t alen = agent ? robots_agent_token(agent, strlen(agent)) : 0;
  size_t i;
  json_t *h;
  json_array_foreach(hs, i, h) {
    const char *name = json_string_value(json_array_get(h, 0));
    json_t *v = json_array_get(h, 1);
    if(name && json_is_string(v) && !strcasecmp(name, XRT_NAME))
      robots_tag_header(t, json_string_value(v), json_string_length(v), agent, alen);
  }
  json_decref(hs);
  robots_tag_at(t, now_s);
  return t->bits != 0;
}

static json_t *xrobots_json(const char *headers_json, const char *agent)
{
  struct robots_tag t;
  if(!gw_xrobots(headers_json, agent, (int64_t)(clock_wall_ms() / 1000), &t))
    return NULL;
  json_t *o = json_object(), *a = json_array();
  for(unsigned b = 1; a && b <= ROBOTS_TAG_UNAVAILABLE_AFTER; b <<= 1)
    if(t.bits & b)
      json_array_append_new(a, json_string(robots_tag_name(b)));
  if(o && a)
    json_object_set_new(o, "robots_tags", a);
  if(o && (t.bits & ROBOTS_TAG_UNAVAILABLE_AFTER))
    json_object_set_new(o, "robots_unavailable_after",
                        json_integer((json_int_t)t.unavailable_after * 1000));
  return o;
}

void gw_xrobots_render(json_t *res, const char *headers_json, const char *agent)
{
  json_t *o = xrobots_json(headers_json, agent);
  if(o)
    json_object_update(res, o);
  json_decref(o);
}

cm_err gw_xrobots_text(struct buf *b, const char *headers_json, const char *agent)
{
  json_t *o = xrobots_json(headers_json, agent);
  if(!o)
    return CM_OK;
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  if(!s)
    return CM_NOMEM;
  size_t n = strlen(s);  /* {"robots_tags":[...]}: the members without the braces */
  cm_err e = buf_addc(b, ',');
  e = e ? e : buf_add(b, s + 1, n - 2);
  free(s);
  return e;
}
