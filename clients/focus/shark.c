#include "clients/focus/shark.h"

double shark_inherited(const struct shark_params *p, const struct shark_parent *pp)
{
  return p->delta * (pp->relevant ? pp->sim : pp->inherited);
}

static double shark_context(double anchor_sim, double around_sim)
{
  return anchor_sim > 0 ? 1.0 : around_sim;
}

double shark_neighbourhood(const struct shark_params *p, double anchor_sim, double around_sim)
{
  return p->beta * anchor_sim + (1 - p->beta) * shark_context(anchor_sim, around_sim);
}

double shark_score(const struct shark_params *p, double inherited, double neighbourhood)
{
  return p->gamma * inherited + (1 - p->gamma) * neighbourhood;
}

bool shark_follows(const struct shark_params *p, const struct shark_parent *pp)
{
  return pp->relevant || pp->off < p->depth;
}

unsigned shark_off(const struct shark_parent *pp)
{
  return pp->relevant ? 0 : pp->off + 1;
}
