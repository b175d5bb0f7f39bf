#include "hlfs/gw/tenant.h"

#include <stdio.h>
#include <string.h>

#include "api/metrics.h"

static const char *const outcome_names[] = {
#define X(e, name, err, contact, txt) #name,
  OUTCOMES(X)
#undef X
#define X(n) #n,
  TENANT_GW_OUTCOMES(X)
#undef X
  "other",
};

struct tenant *tenant_get(struct tenants *ts, const char *name)
{
  for(unsigned i = 0; i < ts->n; i++)
    if(!strcmp(ts->t[i].name, name))
      return &ts->t[i];
  if(ts->n >= TENANT_MAX || strlen(name) > STATE_CLIENT_MAX) {
    ts->dropped++;
    return NULL;
  }
  struct tenant *t = &ts->t[ts->n++];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  return t;
}

static enum tenant_outcome tenant_outcome_of(const char *o)
{
  for(int i = 0; o && i < TENANT_O_other; i++)
    if(!strcmp(outcome_names[i], o))
      return (enum tenant_outcome)i;
  return TENANT_O_other;
}

void tenant_result(struct tenants *ts, const char *client, const char *outcome)
{
  struct tenant *t = tenant_get(ts, client);
  if(t)
    t->results[tenant_outcome_of(outcome)]++;
}

void tenant_submitted(struct tenants *ts, const char *client, enum state_sub_code c)
{
  struct tenant *t = tenant_get(ts, client);
  if(t && c < STATE_SUB__LAST)
    t->submitted[c]++;
}

void tenant_metrics(const struct tenants *ts, struct buf *b)
{
  char lb[160];
  metrics_family(b, "hlfs_client_submitted_total", "counter",
                 "URLs submitted, by client and answer.");
  for(unsigned i = 0; i < ts->n; i++)
    for(int c = 0; c < STATE_SUB__LAST; c++)
      if(ts->t[i].submitted[c]) {
        snprintf(lb, sizeof lb, "client=\"%s\",answer=\"%s\"", ts->t[i].name,
                 state_sub_name((enum state_sub_code)c));
        metrics_sample_u(b, "hlfs_client_submitted_total", lb, ts->t[i].submitted[c]);
      }
  metrics_family(b, "hlfs_client_results_total", "counter",
                 "Results delivered, by client and outcome (decision).");
  for(unsigned i = 0; i < ts->n; i++)
    for(int o = 0; o < TENANT_O__COUNT; o++)
      if(ts->t[i].results[o]) {
        snprintf(lb, sizeof lb, "client=\"%s\",outcome=\"%s\"", ts->t[i].name, outcome_names[o]);
        metrics_sample_u(b, "hlfs_client_results_total", lb, ts->t[i].results[o]);
      }
}
