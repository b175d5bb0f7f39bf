/* The change log compacted (refresh.h): a snapshot line per page, written
 * beside the log, synced, then renamed over it. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/refresh/refresh_int.h"
#include "common/mem.h"

void (*rf_compact_test_hook)(unsigned step);

static void hook(unsigned step)
{
  if(rf_compact_test_hook)
    rf_compact_test_hook(step);
}

/* {"url":..,"state":{...}}: everything rf_page_observe_lm built. */
json_t *rf_page_state(const struct rf_page *p)
{
  json_t *obs = json_array(), *age = json_array();
  for(unsigned i = 0; i < p->nobs; i++) {
    json_array_append_new(obs, json_integer(p->obs[i]));
    json_array_append_new(age, json_integer(p->age[i]));
  }
  char fp[17];
  snprintf(fp, sizeof fp, "%016llx", (unsigned long long)p->digest);
  return json_pack("{s:s,s:{s:f,s:I,s:I,s:s,s:I,s:I,s:b,s:i,s:b,s:I,s:I,s:i,s:o,s:o}}",
                   "url", p->url, "state", "weight", p->weight, "last_ms",
                   (json_int_t)p->last_ms, "base_ms", (json_int_t)p->base_ms, "fp", fp,
                   "lm", (json_int_t)p->lm_ms, "lm_first", (json_int_t)p->lm_first_ms,
                   "lm_bad", p->lm_bad, "gone", p->gone,
                   "retired", p->retired, "visits", (json_int_t)p->visits, "changes",
                   (json_int_t)p->changes, "next", p->obs_next, "obs", obs, "age", age);
}

static int snap_line(FILE *f, const struct rf_page *p)
{
  json_t *o = rf_page_state(p);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  int rc = s && fprintf(f, "%s\n", s) > 0 ? 0 : -1;
  free(s);
  json_decref(o);
  return rc;
}

static crawl_err sync_dir(const char *path)
{
  char *copy = mem_strdup(path);
  int fd = copy ? open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  mem_free(copy);
  if(fd < 0)
    return CRAWL_ERR_IO;
  int rc = fsync(fd);
  close(fd);
  return rc ? CRAWL_ERR_IO : CRAWL_OK;
}

crawl_err refresh_compact(struct rf_pages *ps, const char *path, uint64_t *bytes)
{
  size_t n = strlen(path) + sizeof ".compact";
  char *tmp = mem_alloc(n);
  if(!tmp)
    return CRAWL_ERR_NOMEM;
  snprintf(tmp, n, "%s.compact", path);
  FILE *f = fopen(tmp, "wb");
  crawl_err e = f ? CRAWL_OK : CRAWL_ERR_IO;
  for(size_t i = 0; !e && i < ps->n; i++) {
    e = snap_line(f, &ps->v[i]) ? CRAWL_ERR_IO : CRAWL_OK;
    hook((unsigned)i);
  }
  if(f) {
    e = e ? e : fflush(f) || fsync(fileno(f)) ? CRAWL_ERR_IO : CRAWL_OK;
    long size = ftell(f);
    *bytes = size > 0 ? (uint64_t)size : 0;
    e = fclose(f) && !e ? CRAWL_ERR_IO : e;
  }
  hook(~0u - 1);  /* written, not yet in place */
  e = e ? e : rename(tmp, path) ? CRAWL_ERR_IO : CRAWL_OK;
  e = e ? e : sync_dir(path);
  hook(~0u);      /* in place */
  if(e)
    unlink(tmp);
  mem_free(tmp);
  return e;
}

static uint64_t juint(json_t *o, const char *k)
{
  json_t *v = json_object_get(o, k);
  return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

crawl_err refresh_restore(struct rf_pages *ps, struct rf_page *p, json_t *st)
{
  json_t *obs = json_object_get(st, "obs"), *age = json_object_get(st, "age");
  const char *fp = json_string_value(json_object_get(st, "fp"));
  size_t n = json_array_size(obs);
  if(!json_is_object(st) || !fp || n > RF_OBS_MAX || json_array_size(age) != n)
    return CRAWL_ERR_CORRUPT;
  for(size_t i = 0; i < n; i++) {
    json_t *a = json_array_get(obs, i), *b = json_array_get(age, i);
    if(!json_is_integer(a) || !json_is_integer(b) || json_integer_value(a) < 0 ||
       json_integer_value(a) > 0xffffffffll || json_integer_value(b) < 0 ||
       json_integer_value(b) > 0xffffffffll)
      return CRAWL_ERR_CORRUPT;
    p->obs[i] = (uint32_t)json_integer_value(a);
    p->age[i] = (uint32_t)json_integer_value(b);
  }
  p->nobs = (uint8_t)n;
  uint64_t next = juint(st, "next"), gone = juint(st, "gone");
  p->obs_next = (uint8_t)(n < RF_OBS_MAX ? n : next % RF_OBS_MAX);
  p->last_ms = juint(st, "last_ms");
  p->base_ms = juint(st, "base_ms");
  p->digest = strtoull(fp, NULL, 16);
  p->lm_ms = juint(st, "lm");
  p->lm_first_ms = juint(st, "lm_first");  /* absent (older files): 0, its date not weighed */
  p->lm_bad = json_is_true(json_object_get(st, "lm_bad"));
  p->gone = (uint8_t)(gone < 255 ? gone : 255);
  p->visits = (uint32_t)juint(st, "visits");
  p->changes = (uint32_t)juint(st, "changes");
  if(json_is_true(json_object_get(st, "retired")))
    rf_page_retire(ps, p);
  rf_page_reestimate(p);
  return CRAWL_OK;
}
