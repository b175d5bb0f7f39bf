#include "tests/testweb/tw_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.h"
#include "common/mem.h"
#include "tests/testweb/tw_rng.h"
#include "tests/testweb/tw_world.h"

#define OFF(f) offsetof(struct tw_gen, f)
/* Keep sorted by name. */
static const struct cfg_key gen_keys[] = {
  { "change_every",   CFG_INT,    OFF(change_every),   "0",    0, 1e9,  NULL, "pages change every N fetches (0: never)" },
  { "crawl_delay",    CFG_DOUBLE, OFF(crawl_delay),    "0",    0, 1e6,  NULL, "Crawl-delay in every robots.txt, seconds (0: no line)" },
  { "cross",          CFG_DOUBLE, OFF(cross),          "0.2",  0, 1,    NULL, "fraction of links that point to another site" },
  { "dups",           CFG_DOUBLE, OFF(dups),           "0",    0, 1,    NULL, "fraction of links that use a duplicate URL of their page" },
  { "hold_ms",        CFG_INT,    OFF(hold_ms),        "0",    0, 1e9,  NULL, "hold time of every response of every site" },
  { "links",          CFG_INT,    OFF(links),          "8",    0, 1000, NULL, "links per page, besides the one to the next page" },
  { "page_bytes",     CFG_INT,    OFF(page_bytes),     "1024", 0, 1 << 26, NULL, "pages are padded with text to about this size" },
  { "pages",          CFG_INT,    OFF(pages),          "20",   0, 1e7,  NULL, "pages per site: / and /p/1.html .. /p/<pages-1>.html" },
  { "robots_error",   CFG_DOUBLE, OFF(robots_error),   "0",    0, 1,    NULL, "fraction of sites whose robots.txt answers 503" },
  { "robots_missing", CFG_DOUBLE, OFF(robots_missing), "0",    0, 1,    NULL, "fraction of sites without robots.txt (404)" },
  { "seed",           CFG_INT,    OFF(seed),           "1",    0, 9e18, NULL, "seed of every random choice: same seed, same world" },
  { "sites",          CFG_INT,    OFF(sites),          "10",   0, TW_GEN_MAX_SITES, NULL, "number of generated sites" },
  { "slow",           CFG_DOUBLE, OFF(slow),           "0",    0, 1,    NULL, "fraction of sites whose every response is held slow_ms" },
  { "slow_ms",        CFG_INT,    OFF(slow_ms),        "1000", 0, 1e9,  NULL, "hold time of the slow sites" },
  { "traps",          CFG_DOUBLE, OFF(traps),          "0",    0, 1,    NULL, "fraction of sites whose home page links into spider traps" },
};
#define NKEYS (sizeof gen_keys / sizeof gen_keys[0])

void tw_gen_defaults(struct tw_gen *g)
{
  char err[128];
  memset(g, 0, sizeof *g);
  for(size_t i = 0; i < NKEYS; i++)
    cfg_set(&gen_keys[i], g, gen_keys[i].def, err, sizeof err);
}

static tw_err gen_set(struct tw_gen *g, const char *k, size_t klen, const char *v,
                      char *err, size_t errlen)
{
  for(size_t i = 0; i < NKEYS; i++) {
    if(strlen(gen_keys[i].name) != klen || memcmp(gen_keys[i].name, k, klen))
      continue;
    char why[160];
    if(!cfg_set(&gen_keys[i], g, v, why, sizeof why))
      return TW_OK;
    snprintf(err, errlen, "generate %s: %s", gen_keys[i].name, why);
    return TW_CONFIG;
  }
  snprintf(err, errlen, "generate: unknown option \"%.*s\"", (int)(klen > 64 ? 64 : klen), k);
  return TW_CONFIG;
}

tw_err tw_gen_parse(struct tw_gen *g, const char *spec, char *err, size_t errlen)
{
  char val[128];
  for(const char *p = spec; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    size_t vlen = eq ? len - (size_t)(eq - p) - 1 : 0;
    if(!eq || vlen >= sizeof val) {
      snprintf(err, errlen, "generate: expected key=value, got \"%.*s\"",
               (int)(len > 64 ? 64 : len), p);
      return TW_CONFIG;
    }
    memcpy(val, eq + 1, vlen);
    val[vlen] = '\0';
    tw_err e = gen_set(g, p, (size_t)(eq - p), val, err, errlen);
    if(e)
      return e;
    p = comma ? comma + 1 : NULL;
  }
  return TW_OK;
}

tw_err tw_gen_json(struct tw_gen *g, json_t *v, char *err, size_t errlen)
{
  if(json_is_string(v))
    return tw_gen_parse(g, json_string_value(v), err, errlen);
  if(!json_is_object(v)) {
    snprintf(err, errlen, "generate: expected an object or a string");
    return TW_CONFIG;
  }
  const char *k;
  json_t *x;
  json_object_foreach(v, k, x) {
    char text[64];
    if(json_is_integer(x))
      snprintf(text, sizeof text, "%lld", (long long)json_integer_value(x));
    else if(json_is_real(x))
      snprintf(text, sizeof text, "%.17g", json_real_value(x));
    else if(json_is_string(x))
      snprintf(text, sizeof text, "%s", json_string_value(x));
    else
      text[0] = '\0';
    tw_err e = gen_set(g, k, strlen(k), text, err, errlen);
    if(e)
      return e;
  }
  return TW_OK;
}

/* Name and address of generated site i into name (>= 24 bytes). */
static void tw_gen_name(size_t i, char *name, size_t len, uint32_t *addr)
{
  snprintf(name, len, "site%zu.test", i);
  *addr = (127u << 24) | (10u << 16) | (uint32_t)(i / 250) << 8 | (uint32_t)(i % 250 + 1);
}

void tw_gen_markdown(FILE *out)
{
  fputs("| option | default | meaning |\n| --- | --- | --- |\n", out);
  for(size_t i = 0; i < NKEYS; i++)
    fprintf(out, "| `%s` | %s | %s |\n", gen_keys[i].name, gen_keys[i].def, gen_keys[i].help);
}

/* Per-site choices, each from its own stream so that adding an option
 * never changes the choices made for the others. */
static void gen_site_traits(const struct tw_gen *g, struct tw_site *s, size_t i)
{
  struct tw_rng r = tw_rng_for((uint64_t)g->seed, i, 0x517e);
  double robots = tw_rng_unit(&r);
  if(robots < g->robots_missing)
    s->robots.beh.status = 404;
  else if(robots < g->robots_missing + g->robots_error)
    s->robots.beh.status = 503;
  if(s->robots.beh.status)
    s->robots.beh.set |= 1u << TW_P_status;
  s->trap_link = tw_rng_unit(&r) < g->traps;
  long hold = tw_rng_unit(&r) < g->slow ? g->slow_ms : g->hold_ms;
  if(hold) {
    s->beh.hold_ms = hold;
    s->beh.set |= 1u << TW_P_hold_ms;
  }
}

static tw_err gen_site(struct tw_world *w, size_t i)
{
  const struct tw_gen *g = &w->gen;
  char name[32];
  struct tw_site *s = tw_site_new();
  if(!s)
    return TW_NOMEM;
  tw_gen_name(i, name, sizeof name, &s->addr);
  s->name = mem_strdup(name);
  tw_addr_format(s->addr, s->addr_s);
  s->pages = g->pages;
  s->links = g->links;
  s->page_bytes = g->page_bytes;
  s->change_every = g->change_every;
  s->cross = g->cross;
  s->dups = g->dups;
  if(w->crawl_delay[0])
    s->robots.crawl_delay = w->crawl_delay;
  gen_site_traits(g, s, i);
  tw_err e = s->name ? tw_world_add(w, &s) : TW_NOMEM;
  tw_site_free(&s);
  return e;
}

tw_err tw_gen_world(struct tw_world *w, char *err, size_t errlen)
{
  if(w->gen.crawl_delay > 0)
    snprintf(w->crawl_delay, sizeof w->crawl_delay, "%g", w->gen.crawl_delay);
  for(size_t i = 0; i < (size_t)w->gen.sites; i++) {
    tw_err e = gen_site(w, i);
    if(e) {
      snprintf(err, errlen, "generate: site %zu: %s", i, tw_strerror(e));
      return e;
    }
  }
  return TW_OK;
}
