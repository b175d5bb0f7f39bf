#include "llfs/outcome.h"

#include <string.h>

#include "common/err.h"

#define OUTCOME_TEXT_OF(e, name, err, contact, txt) txt,
ERR_DEFINE_NAME(outcome_name, enum outcome, OUTCOMES)
ERR_DEFINE_TEXT(outcome_text, enum outcome, OUTCOMES, OUTCOME_TEXT_OF)

bool outcome_is_error(enum outcome o)
{
  static const bool err[] = {
#define X(e, name, err, contact, txt) err,
    OUTCOMES(X)
#undef X
  };
  return (unsigned)o < OUTCOME__COUNT ? err[o] : true;
}

int outcome_parse(const char *name, enum outcome *out)
{
  for(unsigned i = 0; i < OUTCOME__COUNT; i++)
    if(!strcmp(outcome_name((enum outcome)i), name)) {
      *out = (enum outcome)i;
      return 0;
    }
  return -1;
}
