/* Meta robots (html_robots.h). */
#include "clients/web/html_robots.h"

#include <string.h>

#include "common/robots_tag.h"

struct robots_walk {
  const char *agent;
  unsigned    bits;
};

static int robots_start(void *arg, const char *name, const char *const *attrs)
{
  struct robots_walk *w = arg;
  if(!strcmp(name, "body"))
    return 1;
  if(!strcmp(name, "meta"))
    w->bits |= html_robots_meta(html_attr(attrs, "name"), html_attr(attrs, "content"), w->agent);
  return 0;
}

unsigned html_robots_page(const char *p, size_t n, const struct html_opts *o, const char *agent)
{
  struct robots_walk w = { agent, 0 };
  struct html_sink sink = { robots_start, NULL, NULL, &w };
  html_scan(p, n, o, &sink, NULL);  /* out of memory: the metas read so far */
  return w.bits;
}

unsigned html_robots_meta(const char *name, const char *content, const char *agent)
{
  if(!name || !content || !robots_tag_meta_for(name, agent, agent ? strlen(agent) : 0))
    return 0;
  struct robots_tag t = { 0, 0 };
  robots_tag_meta(&t, content, strlen(content));
  return t.bits;
}
