/* Which shard group a state Redis is. Gateways route shard s to the Redis
 * listed at s % nstores, so two gateways listing the same servers in
 * another order (or a different number of them) would keep two politeness
 * states for one site, and fetch it twice at once. Each Redis therefore
 * carries its place, "<k>/<nstores>" in the key wpfs:group, written by the
 * first gateway that reaches it (SET NX) and compared by every later one
 * at every connection. Until the comparison holds, the Redis takes no
 * claim and no submission; a mismatch is reported (the gateway stops). */
#include "hlfs/state/state_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"

#define GROUP_KEY "wpfs:group"
/* A check that failed is asked again at the next claim or submission this
 * long after: the SET NX is a write, and a master just promoted refuses
 * writes until its replicas catch up (min-replicas-to-write: NOREPLICAS).
 * Asked only at the next connection, as before, a gateway whose connection
 * stayed up took no claim and no submission on that Redis again (torture
 * with Sentinel, seed 20261129: every accepted URL of the drain waited). */
#define GROUP_RETRY_MS 500

static void group_ask(struct state_group *gr);

static void group_on_reply(void *arg, store_err err, const struct store_val *v)
{
  if(err == STORE_CLOSED)
    return;  /* the store is closing, after state_free: gr may be gone */
  struct state_group *gr = arg;
  struct state *st = gr->st;
  char want[32];
  size_t len = 0;
  gr->asking = false;
  gr->failed_ms = 0;
  const char *have = err ? NULL : store_v_str(v, &len);
  snprintf(want, sizeof want, "%u/%u", gr->k, st->nstores);
  if(err == STORE_OK && store_v_type(v) == STORE_V_NIL) {
    LOG(LOG_INFO, "state redis %u: marked as shard group %s", gr->k, want);
    gr->verified = true;
  } else if(have && store_v_type(v) == STORE_V_STR && len == strlen(want)
            && !memcmp(have, want, len)) {
    gr->verified = true;
  } else if(have && store_v_type(v) == STORE_V_STR) {
    LOG(LOG_ERROR, "state redis %u is shard group %.*s of another fleet layout, not %s: "
        "every gateway must list the same Redis in the same order (docs/operations.md)",
        gr->k, (int)(len < 32 ? len : 32), have, want);
    st->mismatch = true;
    if(st->on_mismatch)
      st->on_mismatch(st->mismatch_arg);
  } else {
    LOG(LOG_WARN, "state redis %u: its shard group could not be read (%s%s%.*s): asked again "
        "at the next claim", gr->k, store_err_text(err ? err : STORE_PROTO), have ? ": " : "",
        (int)(len < 80 ? len : 80), have ? have : "");
    gr->failed_ms = clock_mono_ms();
    if(!gr->failed_ms)
      gr->failed_ms = 1;
  }
}

static void group_ask(struct state_group *gr)
{
  struct state *st = gr->st;
  char want[32];
  int n = snprintf(want, sizeof want, "%u/%u", gr->k, st->nstores);
  const char *argv[] = { "SET", GROUP_KEY, want, "NX", "GET" };
  size_t lens[] = { 3, sizeof GROUP_KEY - 1, (size_t)n, 2, 3 };
  gr->asking = !store_cmd(st->stores[gr->k], 5, argv, lens, 0, group_on_reply, gr);
  if(!gr->asking)
    LOG(LOG_WARN, "state redis %u: its shard group could not be asked", gr->k);
}

static void group_on_state(void *arg, bool up)
{
  struct state_group *gr = arg;
  gr->verified = false;
  gr->failed_ms = 0;
  gr->asking = false;
  if(!up || gr->st->mismatch)
    return;
  group_ask(gr);
}

void state_group_recheck(struct state *st, unsigned k)
{
  struct state_group *gr = &st->group[k % st->nstores];
  if(gr->verified || gr->asking || !gr->failed_ms || st->mismatch ||
     !store_is_up(st->stores[gr->k]) || clock_mono_ms() - gr->failed_ms < GROUP_RETRY_MS)
    return;
  group_ask(gr);
}

void state_groups_watch(struct state *st)
{
  for(unsigned k = 0; k < st->nstores; k++) {
    st->group[k] = (struct state_group){ .st = st, .k = k };
    store_on_state(st->stores[k], group_on_state, &st->group[k]);
    if(store_is_up(st->stores[k]))  /* a store started before the state */
      group_on_state(&st->group[k], true);
  }
}

void state_on_mismatch(struct state *st, void (*fn)(void *arg), void *arg)
{
  st->on_mismatch = fn;
  st->mismatch_arg = arg;
}

bool state_shard_ok(const struct state *st, unsigned shard)
{
  return !st->mismatch && st->group[shard % st->nstores].verified;
}

bool state_ready(const struct state *st)
{
  for(unsigned k = 0; k < st->nstores; k++)
    if(!state_shard_ok(st, k))
      return false;
  return true;
}
