#include "clients/base/tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

int tally_word(const char *name)
{
  size_t n = name ? strlen(name) : 0;
  if(n == 0 || n >= TALLY_NAME_MAX)
    return 0;
  return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static size_t tally_slot(struct tally *t, const char *name)
{
  for(size_t i = 0; i < t->n; i++)
    if(!strcmp(t->v[i].name, name))
      return i;
  /* The last slot is kept for "other". */
  const char *as = t->n + 1 < TALLY_MAX ? name : "other";
  if(as != name)
    for(size_t i = 0; i < t->n; i++)
      if(!strcmp(t->v[i].name, as))
        return i;
  snprintf(t->v[t->n].name, TALLY_NAME_MAX, "%s", as);
  t->v[t->n].count = 0;
  return t->n++;
}

void tally_add(struct tally *t, const char *name, uint64_t k)
{
  size_t i = tally_slot(t, tally_word(name) ? name : "unknown");
  t->v[i].count += k;
  t->total += k;
}

uint64_t tally_get(const struct tally *t, const char *name)
{
  for(size_t i = 0; i < t->n; i++)
    if(!strcmp(t->v[i].name, name))
      return t->v[i].count;
  return 0;
}

static int by_count(const void *a, const void *b, void *arg)
{
  const struct tally *t = arg;
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  if(t->v[i].count != t->v[j].count)
    return t->v[i].count > t->v[j].count ? -1 : 1;
  return strcmp(t->v[i].name, t->v[j].name);
}

/* Indices of t's names, most first. */
static void tally_order(const struct tally *t, size_t *ix)
{
  for(size_t i = 0; i < t->n; i++)
    ix[i] = i;
  qsort_r(ix, t->n, sizeof *ix, by_count, (void *)t);
}

cm_err tally_json(const struct tally *t, struct buf *out)
{
  size_t ix[TALLY_MAX];
  tally_order(t, ix);
  cm_err e = buf_addc(out, '{');
  for(size_t i = 0; !e && i < t->n; i++)
    e = buf_addf(out, "%s\"%s\":%llu", i ? "," : "", t->v[ix[i]].name,
                 (unsigned long long)t->v[ix[i]].count);
  return e ? e : buf_addc(out, '}');
}

void tally_text(const struct tally *t, char *out, size_t n)
{
  size_t ix[TALLY_MAX], at = 0;
  if(!n)
    return;
  out[0] = '\0';
  tally_order(t, ix);
  for(size_t i = 0; i < t->n && at < n; i++) {
    int w = snprintf(out + at, n - at, "%s%s %llu", i ? ", " : "", t->v[ix[i]].name,
                     (unsigned long long)t->v[ix[i]].count);
    at += w > 0 ? (size_t)w : 0;
  }
}

void tally_save(const struct tally *t, struct ckfile *c)
{
  ckfile_put_u64(c, t->n);
  for(size_t i = 0; i < t->n; i++) {
    ckfile_put_str(c, t->v[i].name);
    ckfile_put_u64(c, t->v[i].count);
  }
}

void tally_load(struct tally *t, struct ckfile *c)
{
  memset(t, 0, sizeof *t);
  uint64_t n = ckfile_get_u64(c);
  if(n > TALLY_MAX) {
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
    return;
  }
  for(uint64_t i = 0; i < n; i++) {
    char *name = ckfile_get_str(c, TALLY_NAME_MAX - 1);
    uint64_t k = ckfile_get_u64(c);
    if(name)
      tally_add(t, name, k);
    mem_free(name);
  }
}
