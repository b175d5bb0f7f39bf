#include "llfs/outcome.h"

#include "common/err.h"

#define OUTCOME_TEXT_OF(e, name, err, contact, txt) txt,
ERR_DEFINE_NAME(outcome_name, enum outcome, OUTCOMES)
ERR_DEFINE_TEXT(outcome_text, enum outcome, OUTCOMES, OUTCOME_TEXT_OF)
