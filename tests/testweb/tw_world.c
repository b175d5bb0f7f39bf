#include "tests/testweb/tw_world.h"

#include "tests/testweb/tw_churn.h"

#include <arpa/inet.h>
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/hash.h"
#include "common/mem.h"

void tw_world_init(struct tw_world *w, size_t record_max)
{
  memset(w, 0, sizeof *w);
  w->magic = TW_WORLD_MAGIC;
  w->record_max = record_max;
  w->bomb_size = 1u << 30;
  tw_gen_defaults(&w->gen);
  w->retired = json_array();
}

void tw_world_free(struct tw_world *w)
{
  for(size_t i = 0; i < w->n; i++)
    tw_site_free(&w->sites[i]);
  mem_free(w->sites);
  mem_free(w->by_name);
  mem_free(w->by_addr);
  json_decref(w->retired);
  tw_topic_free(&w->topics);
  tw_churn_free(&w->churn);
  w->magic = 0;
}

static uint64_t world_name_hash(const char *name, size_t n)
{
  char low[256];
  if(n > sizeof low)
    n = sizeof low;
  for(size_t i = 0; i < n; i++)
    low[i] = (char)tolower((unsigned char)name[i]);
  return hash_fp64(low, n);
}

static uint64_t world_addr_hash(uint32_t a)
{
  return hash_fp64(&a, sizeof a);
}

/* Slot of the site with this key in table t, or the empty slot. */
static size_t world_slot_name(const struct tw_world *w, const char *name, size_t n)
{
  size_t j = world_name_hash(name, n) & (w->tcap - 1);
  for(; w->by_name[j]; j = (j + 1) & (w->tcap - 1)) {
    const struct tw_site *s = w->sites[w->by_name[j] - 1];
    if(strlen(s->name) == n && !strncasecmp(s->name, name, n))
      break;
  }
  return j;
}

static size_t world_slot_addr(const struct tw_world *w, uint32_t a)
{
  size_t j = world_addr_hash(a) & (w->tcap - 1);
  while(w->by_addr[j] && w->sites[w->by_addr[j] - 1]->addr != a)
    j = (j + 1) & (w->tcap - 1);
  return j;
}

static void world_index(struct tw_world *w, const struct tw_site *s)
{
  if(s->name)
    w->by_name[world_slot_name(w, s->name, strlen(s->name))] = s->idx + 1;
  if(s->addr)
    w->by_addr[world_slot_addr(w, s->addr)] = s->idx + 1;
}

/* Keep both tables at most half full. */
static tw_err world_rehash(struct tw_world *w, size_t need)
{
  if(need * 2 <= w->tcap)
    return TW_OK;
  size_t cap = w->tcap ? w->tcap : 64;
  while(need * 2 > cap)
    cap *= 2;
  uint32_t *bn = mem_calloc(cap, sizeof *bn), *ba = mem_calloc(cap, sizeof *ba);
  if(!bn || !ba) {
    mem_free(bn);
    mem_free(ba);
    return TW_NOMEM;
  }
  mem_free(w->by_name);
  mem_free(w->by_addr);
  w->by_name = bn;
  w->by_addr = ba;
  w->tcap = cap;
  for(size_t i = 0; i < w->n; i++)
    world_index(w, w->sites[i]);
  return TW_OK;
}

static tw_err world_grow(struct tw_world *w)
{
  if(w->n < w->cap)
    return TW_OK;
  size_t cap = w->cap ? w->cap * 2 : 64;
  struct tw_site **v = mem_realloc(w->sites, cap * sizeof *v);
  if(!v)
    return TW_NOMEM;
  w->sites = v;
  w->cap = cap;
  return TW_OK;
}

tw_err tw_world_add(struct tw_world *w, struct tw_site **sp)
{
  struct tw_site *s = *sp;
  assert(s->magic == TW_SITE_MAGIC);
  if((s->name && tw_world_by_name(w, s->name, strlen(s->name))) ||
     (s->addr && tw_world_by_addr(w, s->addr)))
    return TW_EXISTS;
  tw_err e = world_grow(w);
  if(!e)
    e = world_rehash(w, w->n + 1);
  if(e)
    return e;
  *sp = NULL;
  s->idx = (uint32_t)w->n;
  w->sites[w->n++] = s;
  tw_rec_init(&s->rec, w->record_max);
  world_index(w, s);
  return TW_OK;
}

struct tw_site *tw_world_by_name(const struct tw_world *w, const char *name, size_t n)
{
  const char *colon = memchr(name, ':', n);
  if(colon)
    n = (size_t)(colon - name);
  if(n && name[n - 1] == '.')
    n--;  /* "site1.test." is the same host */
  if(!w->tcap || !n)
    return NULL;
  uint32_t v = w->by_name[world_slot_name(w, name, n)];
  return v ? w->sites[v - 1] : NULL;
}

struct tw_site *tw_world_by_addr(const struct tw_world *w, uint32_t addr)
{
  if(!w->tcap || !addr)
    return NULL;
  uint32_t v = w->by_addr[world_slot_addr(w, addr)];
  return v ? w->sites[v - 1] : NULL;
}

uint32_t tw_addr_parse(const char *s, size_t n)
{
  char tmp[16];
  struct in_addr a;
  if(n >= sizeof tmp)
    return 0;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  if(inet_pton(AF_INET, tmp, &a) != 1)
    return 0;
  return ntohl(a.s_addr);
}

void tw_addr_format(uint32_t a, char out[16])
{
  snprintf(out, 16, "%u.%u.%u.%u", (unsigned char)(a >> 24), (unsigned char)(a >> 16),
           (unsigned char)(a >> 8), (unsigned char)a);
}

struct tw_site *tw_world_find(const struct tw_world *w, const char *key, size_t n)
{
  uint32_t a = tw_addr_parse(key, n);
  return a ? tw_world_by_addr(w, a) : tw_world_by_name(w, key, n);
}

struct tw_site *tw_world_route(const struct tw_world *w, const char *host, size_t n,
                               uint32_t local)
{
  struct tw_site *s = host ? tw_world_by_name(w, host, n) : NULL;
  if(!s && host) {
    const char *colon = memchr(host, ':', n);
    s = tw_world_by_addr(w, tw_addr_parse(host, colon ? (size_t)(colon - host) : n));
  }
  return s ? s : tw_world_by_addr(w, local);
}

tw_err tw_world_zone(const struct tw_world *w, struct buf *out)
{
  for(size_t i = 0; i < w->n; i++) {
    const struct tw_site *s = w->sites[i];
    if(s->name && s->addr && buf_addf(out, "%s %s\n", s->name, s->addr_s))
      return TW_TOO_LARGE;
  }
  return TW_OK;
}
