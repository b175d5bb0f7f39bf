#include "llfs/outcome.h"

#include <string.h>

static const struct {
  const char *name;
  const char *text;
  bool        err;
} outcome_tab[] = {
#define X(e, name, err, contact, txt) { #name, txt, err },
  OUTCOMES(X)
#undef X
};

const char *outcome_name(enum outcome o)
{
  return (unsigned)o < OUTCOME__COUNT ? outcome_tab[o].name : "unknown";
}

const char *outcome_text(enum outcome o)
{
  return (unsigned)o < OUTCOME__COUNT ? outcome_tab[o].text : "unknown outcome";
}

bool outcome_is_error(enum outcome o)
{
  return (unsigned)o < OUTCOME__COUNT ? outcome_tab[o].err : true;
}

int outcome_parse(const char *name, enum outcome *out)
{
  for(unsigned i = 0; i < OUTCOME__COUNT; i++)
    if(!strcmp(outcome_tab[i].name, name)) {
      *out = (enum outcome)i;
      return 0;
    }
  return -1;
}
