#include "tests/testweb/tw_load.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

tw_err tw_load_file(const char *path, json_t **root, char *err, size_t errlen)
{
  json_error_t je;
  *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if(!*root) {
    snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
    return TW_CONFIG;
  }
  if(!json_is_object(*root) && !json_is_array(*root)) {
    snprintf(err, errlen, "%s: expected an object or an array", path);
    return TW_CONFIG;
  }
  return TW_OK;
}

tw_err tw_load_gen(struct tw_world *w, json_t *root, char *err, size_t errlen)
{
  json_t *g = json_is_object(root) ? json_object_get(root, "generate") : NULL;
  if(json_is_object(root)) {
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) {
      if(strcmp(k, "generate") && strcmp(k, "sites")) {
        snprintf(err, errlen, "site file: unknown key \"%.64s\"", k);
        return TW_CONFIG;
      }
    }
  }
  return g ? tw_gen_json(&w->gen, g, err, errlen) : TW_OK;
}

static tw_err load_long(json_t *v, const char *k, long lo, long hi, long *out, char *err,
                        size_t errlen)
{
  if(!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
    snprintf(err, errlen, "%s: expected an integer in [%ld, %ld]", k, lo, hi);
    return TW_CONFIG;
  }
  *out = (long)json_integer_value(v);
  return TW_OK;
}

static tw_err load_ratio(json_t *v, const char *k, double *out, char *err, size_t errlen)
{
  if(!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1) {
    snprintf(err, errlen, "%s: expected a number in [0, 1]", k);
    return TW_CONFIG;
  }
  *out = json_number_value(v);
  return TW_OK;
}

static tw_err load_strings(json_t *v, const char *k, json_t **out, char *err, size_t errlen)
{
  size_t i;
  json_t *x;
  if(json_is_string(v)) {
    *out = v;  /* one string stands for a list of one */
    return TW_OK;
  }
  json_array_foreach(v, i, x) if(!json_is_string(x)) break;
  if(!json_is_array(v) || i < json_array_size(v)) {
    snprintf(err, errlen, "robots %s: expected an array of strings", k);
    return TW_CONFIG;
  }
  *out = v;
  return TW_OK;
}

static tw_err load_robots_key(struct tw_robots *r, const char *k, json_t *v, char *err,
                              size_t errlen)
{
  tw_err e = tw_beh_set_json(&r->beh, k, v, err, errlen);
  if(e != TW_NOT_FOUND)
    return e;
  if(!strcmp(k, "crawl_delay")) {
    if(json_is_string(v) || json_is_number(v))
      return r->crawl_delay = json_is_string(v) ? json_string_value(v) : NULL, TW_OK;
  } else if(!strcmp(k, "disallow")) {
    return load_strings(v, k, &r->disallow, err, errlen);
  } else if(!strcmp(k, "allow")) {
    return load_strings(v, k, &r->allow, err, errlen);
  } else if(!strcmp(k, "sitemaps")) {
    return load_strings(v, k, &r->sitemaps, err, errlen);
  }
  snprintf(err, errlen, "robots: unknown key \"%.64s\"", k);
  return TW_CONFIG;
}

/* "robots": false (404), "literal body", or an object. */
static tw_err load_robots(struct tw_robots *r, json_t *v, char *err, size_t errlen)
{
  const char *k;
  json_t *x;
  if(json_is_false(v))
    return tw_beh_set(&r->beh, "status", 6, "404", err, errlen);
  if(json_is_string(v))
    return tw_beh_set_json(&r->beh, "body", v, err, errlen);
  if(!json_is_object(v)) {
    snprintf(err, errlen, "robots: expected false, a string or an object");
    return TW_CONFIG;
  }
  json_object_foreach(v, k, x) {
    tw_err e = load_robots_key(r, k, x, err, errlen);
    if(e)
      return e;
  }
  return TW_OK;
}

/* Numbers are kept as text: write them back into the object as strings,
 * which the config then owns (the pointer must outlive this function). */
static tw_err load_crawl_delay_number(struct tw_robots *r, json_t *robots)
{
  json_t *cd = json_is_object(robots) ? json_object_get(robots, "crawl_delay") : NULL;
  if(!json_is_number(cd))
    return TW_OK;
  char text[32];
  snprintf(text, sizeof text, "%g", json_number_value(cd));
  if(json_object_set_new(robots, "crawl_delay", json_string(text)))
    return TW_NOMEM;
  r->crawl_delay = json_string_value(json_object_get(robots, "crawl_delay"));
  return TW_OK;
}

static tw_err load_path(struct tw_path *p, const char *key, json_t *v, char *err,
                        size_t errlen)
{
  const char *k;
  json_t *x;
  size_t n = strlen(key);
  if(key[0] != '/' || !json_is_object(v)) {
    snprintf(err, errlen, "paths: \"%.64s\" must start with / and map to an object", key);
    return TW_CONFIG;
  }
  p->prefix = key[n - 1] == '*';
  p->path = key;
  p->len = p->prefix ? n - 1 : n;
  json_object_foreach(v, k, x) {
    tw_err e = tw_beh_set_json(&p->beh, k, x, err, errlen);
    if(e == TW_NOT_FOUND)
      snprintf(err, errlen, "paths %.64s: unknown key \"%.64s\"", key, k);
    if(e)
      return e == TW_NOT_FOUND ? TW_CONFIG : e;
  }
  const char *kind = TW_BEH_OR(&p->beh, kind, "body");
  p->kind = tw_kind_parse(kind, strlen(kind));
  if(p->kind == TW_K__COUNT) {
    snprintf(err, errlen, "paths %.64s: unknown kind \"%.64s\"", key, kind);
    return TW_CONFIG;
  }
  return TW_OK;
}

static tw_err load_paths(struct tw_site *s, json_t *v, char *err, size_t errlen)
{
  const char *k;
  json_t *x;
  if(!json_is_object(v)) {
    snprintf(err, errlen, "paths: expected an object");
    return TW_CONFIG;
  }
  s->paths = mem_calloc(json_object_size(v), sizeof *s->paths);
  if(!s->paths && json_object_size(v))
    return TW_NOMEM;
  json_object_foreach(v, k, x) {
    tw_err e = load_path(&s->paths[s->npaths], k, x, err, errlen);
    if(e)
      return e;
    s->npaths++;
  }
  return TW_OK;
}

static tw_err load_name(struct tw_site *s, json_t *v, char *err, size_t errlen)
{
  const char *n = json_string_value(v);
  if(!n || !*n || strlen(n) > 253 || strchr(n, ':') || strchr(n, '/')) {
    snprintf(err, errlen, "name: expected a host name");
    return TW_CONFIG;
  }
  s->name = mem_strdup(n);
  if(!s->name)
    return TW_NOMEM;
  for(char *c = s->name; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  return TW_OK;
}

static tw_err load_address(struct tw_site *s, json_t *v, char *err, size_t errlen)
{
  const char *a = json_string_value(v);
  s->addr = a ? tw_addr_parse(a, strlen(a)) : 0;
  if(!s->addr) {
    snprintf(err, errlen, "address: expected a dotted IPv4 address");
    return TW_CONFIG;
  }
  tw_addr_format(s->addr, s->addr_s);
  return TW_OK;
}

/* Keys of a site object besides the behaviour parameters. */
static tw_err load_site_key(struct tw_site *s, const char *k, json_t *v, bool is_new,
                            char *err, size_t errlen)
{
  if(!strcmp(k, "name") || !strcmp(k, "address")) {
    if(!is_new)
      return TW_OK;  /* identity: checked by the caller, never changed */
    return !strcmp(k, "name") ? load_name(s, v, err, errlen) : load_address(s, v, err, errlen);
  }
  if(!strcmp(k, "pages"))
    return load_long(v, k, 0, 10000000, &s->pages, err, errlen);
  if(!strcmp(k, "links"))
    return load_long(v, k, 0, 1000, &s->links, err, errlen);
  if(!strcmp(k, "page_bytes"))
    return load_long(v, k, 0, 1L << 26, &s->page_bytes, err, errlen);
  if(!strcmp(k, "change_every"))
    return load_long(v, k, 0, 1000000000, &s->change_every, err, errlen);
  if(!strcmp(k, "cross"))
    return load_ratio(v, k, &s->cross, err, errlen);
  if(!strcmp(k, "dups"))
    return load_ratio(v, k, &s->dups, err, errlen);
  if(!strcmp(k, "traps"))
    return json_is_boolean(v) ? (s->trap_link = json_is_true(v), TW_OK) : TW_CONFIG;
  if(!strcmp(k, "robots"))
    return load_robots(&s->robots, v, err, errlen);
  if(!strcmp(k, "paths"))
    return load_paths(s, v, err, errlen);
  tw_err e = tw_beh_set_json(&s->beh, k, v, err, errlen);
  if(e == TW_NOT_FOUND)
    snprintf(err, errlen, "unknown key \"%.64s\"", k);
  return e == TW_NOT_FOUND ? TW_CONFIG : e;
}

static void load_defaults(const struct tw_world *w, struct tw_site *s)
{
  s->pages = w->gen.pages;
  s->links = w->gen.links;
  s->page_bytes = w->gen.page_bytes;
  s->change_every = w->gen.change_every;
  s->cross = w->gen.cross;
  s->dups = w->gen.dups;
  if(w->crawl_delay[0])
    s->robots.crawl_delay = w->crawl_delay;
}

/* Parse obj into s (fresh). Strings point into obj, which s then holds. */
static tw_err load_site_cfg(const struct tw_world *w, struct tw_site *s, json_t *obj,
                            bool is_new, char *err, size_t errlen)
{
  const char *k;
  json_t *v;
  if(!json_is_object(obj)) {
    snprintf(err, errlen, "a site must be an object");
    return TW_CONFIG;
  }
  load_defaults(w, s);
  s->cfg = json_incref(obj);
  json_object_foreach(obj, k, v) {
    tw_err e = load_site_key(s, k, v, is_new, err, errlen);
    if(e && !err[0])
      snprintf(err, errlen, "%s: bad value", k);
    if(e)
      return e;
  }
  return load_crawl_delay_number(&s->robots, json_object_get(obj, "robots"));
}

static tw_err load_new_site(struct tw_world *w, json_t *obj, char *err, size_t errlen)
{
  struct tw_site *s = tw_site_new();
  if(!s)
    return TW_NOMEM;
  tw_err e = load_site_cfg(w, s, obj, true, err, errlen);
  if(!e && !s->name && !s->addr) {
    snprintf(err, errlen, "a site needs a name or an address");
    e = TW_CONFIG;
  }
  if(!e && !s->addr)
    snprintf(s->addr_s, sizeof s->addr_s, "-");
  if(!e && (e = tw_world_add(w, &s)) == TW_EXISTS)
    snprintf(err, errlen, "site %s: name or address already taken", tw_site_host(s));
  tw_site_free(&s);
  return e;
}

/* The new configuration replaces the old one as a whole; the record, the
 * fetch counts and the identity stay. The old JSON is retired, not freed,
 * because responses in flight may still point into it. */
static tw_err load_replace(struct tw_world *w, json_t *obj, struct tw_site *into, char *err,
                           size_t errlen)
{
  struct tw_site tmp;
  memset(&tmp, 0, sizeof tmp);
  tw_err e = load_site_cfg(w, &tmp, obj, false, err, errlen);
  if(!e)
    e = json_array_append(w->retired, into->cfg ? into->cfg : json_null()) ? TW_NOMEM : TW_OK;
  if(e) {
    mem_free(tmp.paths);
    json_decref(tmp.cfg);
    return e;
  }
  json_decref(into->cfg);
  mem_free(into->paths);
  into->cfg = tmp.cfg;
  into->paths = tmp.paths;
  into->npaths = tmp.npaths;
  into->pages = tmp.pages;
  into->links = tmp.links;
  into->page_bytes = tmp.page_bytes;
  into->change_every = tmp.change_every;
  into->cross = tmp.cross;
  into->dups = tmp.dups;
  into->trap_link = tmp.trap_link;
  into->beh = tmp.beh;
  into->robots = tmp.robots;
  return TW_OK;
}

tw_err tw_load_site(struct tw_world *w, json_t *obj, struct tw_site *into, char *err,
                    size_t errlen)
{
  err[0] = '\0';
  return into ? load_replace(w, obj, into, err, errlen) : load_new_site(w, obj, err, errlen);
}

tw_err tw_load_sites(struct tw_world *w, json_t *root, char *err, size_t errlen)
{
  json_t *sites = json_is_array(root) ? root : json_object_get(root, "sites");
  size_t i;
  json_t *obj;
  if(sites && !json_is_array(sites)) {
    snprintf(err, errlen, "sites: expected an array");
    return TW_CONFIG;
  }
  json_array_foreach(sites, i, obj) {
    char why[256];
    tw_err e = tw_load_site(w, obj, NULL, why, sizeof why);
    if(e) {
      snprintf(err, errlen, "sites[%zu]: %s", i, why);
      return e;
    }
  }
  return TW_OK;
}
