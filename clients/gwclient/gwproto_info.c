/* The gateway's answers that inform rather than carry work (bin/wpfs
 * reads them): the robots.txt decision, a problem, an acknowledgement's
 * count, and any answer laid out for a person. Lenient where a person
 * reads the answer: a member absent or of another type reads as absent. */
#include "clients/gwclient/gwproto.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* A heap copy of a string member, NULL when absent or not a string;
 * *nomem on out of memory. */
static char *str_of(json_t *o, const char *k, bool *nomem)
{
  json_t *v = json_object_get(o, k);
  if(!json_is_string(v))
    return NULL;
  char *s = mem_strndup(json_string_value(v), json_string_length(v));
  *nomem |= s == NULL;
  return s;
}

static long long int_of(json_t *o, const char *k, long long def)
{
  json_t *v = json_object_get(o, k);
  return json_is_integer(v) ? json_integer_value(v) : def;
}

static json_t *load_object(const char *json, size_t len)
{
  json_t *o = json_loadb(json ? json : "", len, 0, NULL);
  if(o && !json_is_object(o)) {
    json_decref(o);
    o = NULL;
  }
  return o;
}

crawl_err gwproto_robots_answer(const char *json, size_t len, struct gw_robots_answer *a)
{
  memset(a, 0, sizeof *a);
  json_t *o = load_object(json, len);
  if(!o)
    return CRAWL_ERR_INVALID;
  bool nomem = false;
  a->allowed = json_is_true(json_object_get(o, "allowed"));
  a->robots_status = str_of(o, "robots_status", &nomem);
  a->rule = str_of(o, "rule", &nomem);
  a->rule_type = str_of(o, "rule_type", &nomem);
  a->robots_url = str_of(o, "robots_url", &nomem);
  a->origin = str_of(o, "origin", &nomem);
  a->agent = str_of(o, "agent", &nomem);
  a->product_token = str_of(o, "product_token", &nomem);
  a->line = int_of(o, "line", 0);
  a->age_s = int_of(o, "age_s", 0);
  a->retry_at = int_of(o, "retry_at", -1);
  json_t *cd = json_object_get(o, "crawl_delay_s");
  a->crawl_delay_s = json_is_number(cd) ? json_number_value(cd) : -1;
  json_decref(o);
  if(nomem)
    gwproto_robots_answer_free(a);
  return nomem ? CRAWL_ERR_NOMEM : CRAWL_OK;
}

void gwproto_robots_answer_free(struct gw_robots_answer *a)
{
  char *v[] = { a->robots_status, a->rule, a->rule_type, a->robots_url, a->origin, a->agent,
                a->product_token };
  for(size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    mem_free(v[i]);
  memset(a, 0, sizeof *a);
}

crawl_err gwproto_problem(const char *json, size_t len, struct gw_problem *p)
{
  memset(p, 0, sizeof *p);
  json_t *o = load_object(json, len);
  if(!o)
    return CRAWL_ERR_INVALID;
  bool nomem = false;
  p->type = str_of(o, "type", &nomem);
  p->title = str_of(o, "title", &nomem);
  p->detail = str_of(o, "detail", &nomem);
  p->outcome = str_of(o, "outcome", &nomem);
  json_decref(o);
  if(nomem)
    gwproto_problem_free(p);
  return nomem ? CRAWL_ERR_NOMEM : CRAWL_OK;
}

void gwproto_problem_free(struct gw_problem *p)
{
  mem_free(p->type);
  mem_free(p->title);
  mem_free(p->detail);
  mem_free(p->outcome);
  memset(p, 0, sizeof *p);
}

crawl_err gwproto_acked(const char *json, size_t len, uint64_t *acked)
{
  json_t *o = load_object(json, len);
  long long n = o ? int_of(o, "acked", 0) : 0;
  *acked = n > 0 ? (uint64_t)n : 0;
  json_decref(o);
  return o ? CRAWL_OK : CRAWL_ERR_INVALID;
}

bool gwproto_is_object(const char *json, size_t len, char *why, size_t n)
{
  json_error_t je;
  json_t *o = json_loadb(json ? json : "", len, 0, &je);
  bool obj = json_is_object(o);
  if(!obj)
    snprintf(why, n, "%s", o ? "another JSON value" : je.text);
  json_decref(o);
  return obj;
}

crawl_err gwproto_indent(const char *json, size_t len, struct buf *out)
{
  json_t *o = load_object(json, len);
  if(!o)
    return CRAWL_ERR_INVALID;
  char *s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
  json_decref(o);
  if(!s)
    return CRAWL_ERR_NOMEM;
  cm_err e = buf_adds(out, s);
  free(s);
  return e == CM_NOMEM ? CRAWL_ERR_NOMEM : e ? CRAWL_ERR_TOO_LARGE : CRAWL_OK;
}
