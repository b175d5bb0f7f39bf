/* What this replica wrote to the sites' politeness state lately: per site,
 * the lease it holds (token and end) and the latest next allowed time it
 * set, in this process's monotonic clock, each kept until it has passed.
 * When a state Redis turns out to be another server (a failover to a
 * replica that lagged, a restart from an older copy), its last writes may
 * be gone; this replica writes its part of them again there
 * (state_reapply, lua_reapply) and answers the fence's roll call, so that
 * the fleet holds claims only until every replica alive has done the same,
 * not for lease_ms + max_delay_ms (docs/hlfs-state.md, "Failover").
 *
 * Times are noted when the answer came (or the call failed), which is at
 * or after the moment Redis wrote them: what is written again is never
 * earlier than what was lost. An entry evicted for room before it passed
 * leaves a gap: until then the journal is not whole, and this replica
 * does not answer a roll call (the fence then holds its whole time). */
#include "hlfs/state/state_int.h"

#include <string.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/mem.h"

struct sj_entry {
  struct lru_node node;
  uint64_t lease_end_ms;  /* monotonic; 0: no lease of ours */
  uint64_t na_ms;         /* monotonic; 0: none set */
  char    *token;         /* the lease's, or NULL */
  char     site[];
};

static struct sj_entry *sj_of(struct lru_node *n) { return LRU_ENTRY(n, struct sj_entry, node); }

static uint64_t sj_until(const struct sj_entry *e)
{
  return e->lease_end_ms > e->na_ms ? e->lease_end_ms : e->na_ms;
}

static bool sj_eq(const struct lru_node *n, const void *key)
{
  return !strcmp(LRU_ENTRY(n, const struct sj_entry, node)->site, key);
}

int sj_init(struct sj *j, size_t max)
{
  size_t b = 16;
  while(b < max && b < (1u << 20))
    b *= 2;
  *j = (struct sj){ .max = max };
  return max ? lru_init(&j->l, b) : 0;
}

static void sj_drop(struct sj *j, struct sj_entry *e)
{
  lru_remove(&j->l, &e->node);
  mem_free(e->token);
  mem_free(e);
}

void sj_fini(struct sj *j)
{
  if(!j->max)
    return;
  while(j->l.tail)
    sj_drop(j, sj_of(j->l.tail));
  lru_fini(&j->l);
}

/* Entries past are dropped from the least recently noted end; one still
 * to come evicted for room leaves a gap until it would have passed. */
static void sj_trim(struct sj *j, uint64_t now)
{
  while(j->l.tail && (sj_until(sj_of(j->l.tail)) <= now || j->l.n > j->max)) {
    struct sj_entry *e = sj_of(j->l.tail);
    if(sj_until(e) > now && sj_until(e) > j->gap_until)
      j->gap_until = sj_until(e);
    sj_drop(j, e);
  }
}

static struct sj_entry *sj_get(struct sj *j, const char *site)
{
  uint64_t h = hash_fp64(site, strlen(site));
  struct lru_node *n = lru_find(&j->l, h, sj_eq, site);
  if(n) {
    lru_touch(&j->l, n);
    return sj_of(n);
  }
  size_t len = strlen(site);
  struct sj_entry *e = mem_calloc(1, sizeof *e + len + 1);
  if(!e) {
    j->gap_until = UINT64_MAX;  /* a write not kept: never whole again */
    return NULL;
  }
  memcpy(e->site, site, len + 1);
  e->node.h = h;
  lru_insert(&j->l, &e->node);
  return e;
}

void sj_lease(struct sj *j, const char *site, const char *token, uint64_t end_ms)
{
  if(!j->max)
    return;
  struct sj_entry *e = sj_get(j, site);
  if(e && (!e->token || strcmp(e->token, token))) {
    mem_free(e->token);
    if(!(e->token = mem_strdup(token)))
      j->gap_until = UINT64_MAX;
  }
  if(e)
    e->lease_end_ms = end_ms;
  sj_trim(j, clock_mono_ms());
}

void sj_end(struct sj *j, const char *site, uint64_t na_ms)
{
  if(!j->max)
    return;
  struct sj_entry *e = sj_get(j, site);
  if(e) {
    mem_free(e->token);
    e->token = NULL;
    e->lease_end_ms = 0;
    if(na_ms > e->na_ms)
      e->na_ms = na_ms;
  }
  sj_trim(j, clock_mono_ms());
}

bool sj_whole(const struct sj *j)
{
  return j->max && clock_mono_ms() >= j->gap_until;
}

size_t sj_each(struct sj *j, sj_each_fn *fn, void *arg)
{
  uint64_t now = clock_mono_ms();
  size_t n = 0;
  if(!j->max)
    return 0;
  sj_trim(j, now);
  for(struct lru_node *x = j->l.head; x; x = x->next) {
    const struct sj_entry *e = sj_of(x);
    uint64_t ll = e->token && e->lease_end_ms > now ? e->lease_end_ms - now : 0;
    uint64_t nl = e->na_ms > now ? e->na_ms - now : 0;
    if(ll || nl)
      n += fn(arg, e->site, ll ? e->token : "", ll, nl) == 0;
  }
  return n;
}
